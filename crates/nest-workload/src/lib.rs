//! NeSt workloads (SPEC §3): what hosts ask of storage.
//!
//! - [`request`]: the I/O descriptor a workload hands to its host (op, offset, size).
//! - [`dist`]: size and service-time distributions.
//! - [`arrival`]: arrival processes (Poisson, constant rate, closed-loop burst, 2-phase MMPP
//!   with its moment fit), and [`address`]: offset patterns (uniform, sequential, Zipf).
//! - [`synthetic`]: a synthetic workload combining them, with start/stop and on/off periods;
//!   [`mqsim_draws`]: its requests drawn as MQSim draws them (compat).
//! - [`trace`]: streaming readers for real block traces, tolerant of unsorted input.
//! - [`fio`]: fio job files read as workloads.
//!
//! Nothing here schedules events: a workload answers "when is your next arrival and what is it",
//! and the model (nest-model) turns that into events.
#![deny(unsafe_code)]

pub mod address;
pub mod arrival;
pub mod dist;
pub mod fio;
pub mod mmpp;
pub mod mqsim_draws;
pub mod request;
pub mod synthetic;
pub mod trace;
pub mod zipf;

pub use request::{IoDesc, Op};
