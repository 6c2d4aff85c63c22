//! NeSt's MQSim-class SSD model (SPEC §6).
//!
//! - [`params`]: every parameter, validated with the key that is wrong; [`presets`]: named drives.
//! - [`geometry`]: dense ids for planes, dies, chips, channels, blocks and pages; static allocation.
//! - [`ftl`]: page-level mapping, blocks, frontiers, victim selection, wear levelling (untimed).
//! - [`cmt`], [`cache`]: the cached mapping table and the DRAM data cache.
//! - [`ssd`]: the timed device — host interface, transactions, per-die queues with device-level
//!   QoS, dies and channels, garbage collection.
#![deny(unsafe_code)]

pub mod block;
pub mod block_heap;
pub mod cache;
pub mod cmt;
mod cmt_siblings;
pub mod divisor;
pub mod domains;
pub mod dram;
pub mod free_list;
mod frontiers;
pub mod ftl;
mod gc_room;
pub use nest_core::lazy_vec;
pub mod geometry;
pub mod lru;
pub mod mean_field;
pub use nest_core::mqsim_rng;
pub mod params;
pub mod pcie;
pub mod plm;
pub mod preconditioning;
pub mod presets;
mod rga_mqsim;
pub mod slot_index;
pub mod sparse;
pub mod ssd;
pub mod switch_kinds;
pub mod switches;
mod wl_mqsim;

pub use params::SsdParams;
pub use ssd::{DevParts, Done, Outbox, PlmReport, Ssd, SsdEvent, DEV_PARTS};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_classes;
#[cfg(test)]
mod tests_compat;
#[cfg(test)]
mod tests_mqsim_gc;
#[cfg(test)]
mod tests_plm;
