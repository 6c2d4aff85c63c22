//! The NVMe side of NeSt (SPEC §5), sans-IO: submission-queue arbitration ([`arbiter`]), the
//! controller that owns a device's SQs with pluggable arbitration ([`controller`]), and the
//! NVMe-oF target of a storage server with its routing hook ([`target`]).
#![deny(unsafe_code)]

pub mod arbiter;
pub mod controller;
pub mod ssq;
pub mod target;

pub use arbiter::{Arbiter, ArbiterConfig, Level, SqFull, SqId};
pub use controller::{Arbitration, Controller, PerHostLevels};
pub use ssq::SplitQueues;
pub use target::{BackgroundIo, CmdInfo, Direct, Router, RouterOut, Stage, Target, TargetAction};
