//! The NVMe controller side of NeSt (SPEC §5). So far: submission-queue arbitration.
#![deny(unsafe_code)]

pub mod arbiter;

pub use arbiter::{Arbiter, ArbiterConfig, Level, SqFull, SqId};
