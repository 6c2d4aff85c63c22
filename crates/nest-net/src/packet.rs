//! Packets and the pool that owns them.
//!
//! Packets live in one slab and travel as a `u32` index inside events, so a hop costs no
//! allocation and no copy of the packet (STYLE.md: indices, not boxes, on hot paths).

use nest_core::SimTime;

/// Egress queue (and PFC priority) a packet uses. Lower is served first, strictly.
pub type Prio = u8;
/// Feedback (ACKs, CNPs) when `control_priority` is on: SPEC §4 wants QTCP ACKs and CNPs to see
/// no queueing (thesis 4.4.1).
pub const PRIO_CONTROL: Prio = 0;
/// The Urgent class: strict non-preemptive priority over normal traffic (thesis 4.4.1).
pub const PRIO_URGENT: Prio = 1;
/// High/Medium/Low and best effort share one queue; transports differentiate them.
pub const PRIO_NORMAL: Prio = 2;
/// Number of egress queues per port.
pub const NPRIO: usize = 3;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    Ack,
    /// DCQCN congestion notification packet (receiver → sender).
    Cnp,
}

/// Header flags: the ECN bits and the end-of-message mark.
pub mod flag {
    /// ECN-capable transport: switches may mark instead of dropping.
    pub const ECT: u8 = 1;
    /// Congestion Experienced, set by a switch.
    pub const CE: u8 = 2;
    /// ECN-Echo, set by the receiver on an ACK.
    pub const ECE: u8 = 4;
    /// Last segment of a message: the receiver acknowledges at once instead of delaying.
    pub const FIN: u8 = 8;
}

/// One packet in flight. Aligned to a cache line: at 48 bytes half the records of the pool
/// straddled two lines, and a hop reads its packet two or three times (k = 16: ~2 % less CPU
/// at 64, BENCHMARKS.md).
#[derive(Copy, Clone, Debug)]
#[repr(align(64))]
pub struct Packet {
    pub kind: PacketKind,
    pub prio: Prio,
    /// [`flag`] bits.
    pub flags: u8,
    /// QoS class index carried in the DSCP field (SPEC §1).
    pub class: u8,
    pub flow: u32,
    /// Source and destination host indices.
    pub src: u32,
    pub dst: u32,
    /// Bytes on the wire, headers and framing included (what the link serialises).
    pub wire: u32,
    /// Transport payload bytes.
    pub payload: u32,
    /// Data: offset of the first payload byte. Ack: cumulative acknowledgement.
    pub seq: u64,
    /// Sender's timestamp, echoed back by ACKs (RTT samples).
    pub ts: SimTime,
    /// The switch port it entered through (`u32::MAX` at the source NIC): buffer and PFC
    /// accounting of that ingress is released when it leaves.
    pub ingress: u32,
    /// The packet behind it in its port's queue (the fabric's link; fills the record's padding).
    pub queue_next: u32,
    /// The fabric's hint for the next hop, read from the flow's remembered path where the
    /// packet left its last node: the node it should reach next (`u32::MAX`: none), the port
    /// it leaves that node by, and the paths' generation it was read in (`PathCache`).
    pub next_node: u32,
    pub next_out: u32,
    pub next_gen: u32,
}

impl Packet {
    pub fn new(kind: PacketKind, flow: u32, src: u32, dst: u32, wire: u32) -> Self {
        Packet {
            kind,
            prio: PRIO_NORMAL,
            flags: 0,
            class: 0,
            flow,
            src,
            dst,
            wire,
            payload: 0,
            seq: 0,
            ts: SimTime::ZERO,
            ingress: u32::MAX,
            queue_next: u32::MAX,
            next_node: u32::MAX,
            next_out: u32::MAX,
            next_gen: 0,
        }
    }
}

/// The packets alive (in NIC queues, switch buffers or on the wire), by slot.
pub type PacketPool = nest_core::Pool<Packet>;
