//! Haechi (Haechi paper, SPEC §10): token-based reservations and limits for one-sided RDMA I/O
//! to a memory-resident data node, as sans-IO state machines. Time is cut into QoS periods of
//! length T; client i has a reservation R_i (I/Os per period) and an optional limit L_i.
//!
//! - [`pool::GlobalPool`] — the global token count, a 64-bit word in the data node's memory that
//!   clients take tokens from with remote Fetch-and-Add (the NIC executes it; no CPU);
//! - [`engine::Engine`] — the client's QoS engine: reservation tokens first, then global tokens in
//!   batches of B by FAA; every δ the counter X caps the unused reservation; reports when asked;
//!   throttling at the limit;
//! - [`monitor::Monitor`] — the data node's QoS monitor: the period start (C_G tokens: R_i pushed
//!   to each client, the rest in the pool), a check every 1 ms (the reporting trigger, token
//!   conversion), and the capacity estimate at the period's end;
//! - [`estimator::CapacityEstimator`] — Haechi's Algorithm 1 (adaptive capacity estimation);
//! - [`admission`] — the global and local admission checks.
//!
//! Each is driven by the caller with times and values and says what to do; none touches the
//! World, so every rule is unit-tested here. Token conservation is kept by each party's ledger:
//! a client's reservation tokens are used, given back (the δ cap) or expired at the period's end;
//! its global tokens are used or expired; the pool's tokens are granted to clients or left.

pub mod admission;
pub mod engine;
pub mod estimator;
pub mod monitor;
pub mod pool;

pub use engine::{DeltaCap, Engine, EngineConfig, Issue, Ledger, Report};
pub use estimator::CapacityEstimator;
pub use monitor::{Check, Monitor, MonitorConfig, PeriodRecord};
pub use pool::GlobalPool;

/// The paper's batch of global tokens per FAA.
pub const BATCH: u64 = 1000;

#[cfg(test)]
mod tests;
