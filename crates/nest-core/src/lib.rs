//! NeSt simulation core.
//!
//! What lives here is shared by every model: integer picosecond time and unit parsing
//! ([`time`], [`units`]), the event queue ([`queue`]), per-component random streams ([`rng`]),
//! latency histograms and interval time series ([`stats`]), request conservation accounting
//! ([`conservation`]), the free-list pool every arena uses ([`pool`]), the trajectory fingerprint ([`fingerprint`]) and the weighted
//! round-robin rule shared by NVMe and the SSD's chip queues ([`wrr`]), typed ids ([`ids`]) and the QoS class levels with their per-layer mappings ([`class`]).
//!
//! Nothing here knows about storage or networks; domain crates depend on this one only.
#![deny(unsafe_code)]

pub mod bits;
pub mod class;
pub mod conservation;
pub mod deadline;
pub mod fingerprint;
pub mod hint;
pub mod ids;
pub mod lazy_vec;
pub mod mqsim_rng;
pub mod pool;
pub mod queue;
pub mod rng;
pub mod signal;
pub mod stats;
pub mod suggest;
pub mod time;
pub mod units;
pub mod wrr;

pub use class::Priority;
pub use conservation::Conservation;
pub use ids::{CoordId, DeviceId, FlowId, HostId};
pub use pool::Pool;
pub use queue::EventQueue;
pub use rng::RngStream;
pub use signal::Congestion;
pub use time::SimTime;
