//! The request path in the World, stage by stage: `impl Simulation` blocks that move requests
//! between components. Components (host queues, gates, devices, NVMe-oF state, coordinators,
//! caches) live in the crate's top-level modules and never import these or `crate::sim`, so the
//! World's files have no import cycles (`scripts/import_cycles.py`); state others name too
//! (`conns.rs`, `messages.rs`) lives in a leaf, not here.

mod cache;
mod connection;
mod conservation;
mod fault;
mod haechi;
mod host;
mod nvmeof;
mod pool;
mod qos;
mod split;
mod storage;
