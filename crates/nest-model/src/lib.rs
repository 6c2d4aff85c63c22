//! The NeSt World: every component of a run in arenas addressed by typed ids, the event enum,
//! dispatch, wiring from a resolved scenario, and the run's outputs.
//!
//! This is the one crate that knows every domain. The foundation path is
//! workload → host (per-class queues, bounded outstanding) → device (the ideal k-server device)
//! → completion back to the workload. Later issues put the network, NVMe and SSD between host
//! and device; the request record already has a timestamp per stage for the decomposition.
#![deny(unsafe_code)]

pub mod aggregate;
pub mod conns;
pub mod device;
pub mod events;
pub mod fault;
pub mod haechi;
pub mod host;
pub mod host_cache;
pub mod ideal_device;
pub mod messages;
mod model_summary;
pub mod net;
pub mod nvmeof;
mod outputs;
mod path;
pub mod plm_summary;
mod precondition_replay;
pub mod qos;
pub mod request;
pub mod sim;
pub mod ssd_decomp;
pub mod stats;
pub mod summary;
pub mod workload;

pub use sim::{Simulation, StepState};

/// The version recorded in every output.
pub const NEST_VERSION: &str = env!("CARGO_PKG_VERSION");
