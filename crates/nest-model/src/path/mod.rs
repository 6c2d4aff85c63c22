//! The request path in the World, stage by stage: `impl Simulation` blocks that move requests
//! between components. Components (host queues, gates, devices, NVMe-oF state, coordinators,
//! caches) live in the crate's top-level modules and never import these or `crate::sim`, so the
//! World's files have no import cycles (`scripts/import_cycles.py`).

mod cache;
mod connection;
pub(crate) use connection::{ConnEvent, Connections};
mod conservation;
mod fault;
mod haechi;
pub(crate) use fault::FAIL_FAST;
mod nvmeof;
mod pool;
mod qos;
mod split;
mod storage;
