//! NeSt's packet-level datacenter fabric (SPEC §4).
//!
//! - [`topology`]: hosts, switches, full-duplex links; dumbbell/incast, k-ary fat-tree,
//!   leaf-spine Clos and arbitrary graphs.
//! - [`fabric`]: per-port strict-priority egress queues (control, urgent, normal), a shared
//!   buffer per switch with an urgent reserve, DCTCP step or RED ECN marking, PFC PAUSE/RESUME
//!   per ingress port and priority, drop counting for lossy fabrics, links that fail and come
//!   back with re-routing around them (`fabric/links.rs`), conservation checks.
//! - [`routes`]: shortest-path ECMP tables, per ToR where every host hangs off one switch.
//! - [`packet`]: the packet record and its slab.
//!
//! The fabric is sans-IO: it schedules its own events through [`fabric::NetScheduler`] and hands
//! packets that reach a host back to the caller, which owns the transports.
#![deny(unsafe_code)]

pub mod fabric;
pub mod packet;
pub mod routes;
pub mod topology;

#[cfg(test)]
mod tests;

pub use fabric::{Fabric, FabricParams, Marking, NetEvent, NetScheduler, PfcParams, Threshold};
pub use packet::{Packet, PacketKind};
pub use topology::{Routes, Topology};
