//! A port's state at run time and its counters, laid out for the packet path.

use super::pkt_queue::PktQueue;
use crate::packet::NPRIO;
use nest_core::SimTime;

/// Counters of one egress port (and of the link it drives). Those every packet updates come
/// first, next to the port's byte counts (`PortRt`).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct PortStats {
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    /// Packets and bytes that reached the far end.
    pub arrived_pkts: u64,
    pub arrived_bytes: u64,
    pub max_queue_bytes: u64,
    pub marked: u64,
    pub dropped: u64,
    pub dropped_bytes: u64,
    /// PAUSE frames this port's node sent upstream because of traffic entering through it.
    pub pauses_sent: u64,
    /// PAUSE frames received (this port was stopped).
    pub pauses_received: u64,
    /// Time this port spent paused (any priority), in ps.
    pub paused_ps: u64,
    /// Packets and bytes on the wire when the link went down (lost with it).
    pub lost_pkts: u64,
    pub lost_bytes: u64,
}

/// A port's state, laid out by use (`repr(C)`, on cache-line boundaries): the first line is
/// what deciding to send reads (queues, busy, paused, down), the second the byte counts, the
/// link's constants and the send counters, the third the other per-packet counters; PFC's
/// accounts last. A hop touches three lines of the port it leaves by, where the compiler's
/// order spread the same fields over four or five (records were 8-byte aligned): k = 16 ran
/// ~5 % faster (BENCHMARKS.md).
#[repr(C, align(64))]
pub(super) struct PortRt {
    pub(super) queues: [PktQueue; NPRIO],
    /// The switch this port belongs to (`u32::MAX` at a host), for the buffer a leaving
    /// packet releases: one load instead of the topology's port, then its node's switch.
    pub(super) switch: u32,
    pub(super) txdone_pending: bool,
    /// Its link is down (`links.rs`).
    pub(super) down: bool,
    pub(super) paused: [bool; NPRIO],
    pub(super) pause_sent: [bool; NPRIO],
    pub(super) busy_until: SimTime,
    /// 8·10¹² / rate when that is a whole number of picoseconds per byte (every standard
    /// rate: 800 at 10 Gb/s), else 0 (`serialise.rs`).
    pub(super) ps_per_byte: u64,
    pub(super) qbytes: [u64; NPRIO],
    pub(super) delay: SimTime,
    /// Bytes serialised but not yet arrived.
    pub(super) on_wire: u64,
    /// Link rate; serialisation time is computed exactly as bytes·8·10¹² / rate ps.
    pub(super) rate_bps: u64,
    pub(super) stats: PortStats,
    /// As an ingress port of a switch: bytes buffered that came in through it, per priority.
    pub(super) ingress_bytes: [u64; NPRIO],
    pub(super) paused_since: SimTime,
}

impl PortRt {
    pub(super) fn queued_bytes(&self) -> u64 {
        self.qbytes.iter().sum()
    }
    pub(super) fn queued_pkts(&self) -> usize {
        self.queues.iter().map(|q| q.len()).sum()
    }
}

#[cfg(test)]
mod layout {
    use super::{PortRt, PortStats};
    use std::mem::{align_of, offset_of, size_of};

    /// The port record's lines hold what PortRt's comment says: a field added or moved
    /// without thought would spread a hop over more cache lines again.
    #[test]
    fn a_port_record_is_laid_out_by_use() {
        assert_eq!(align_of::<PortRt>(), 64);
        assert_eq!(size_of::<PortRt>(), 256);
        for (name, at) in [
            ("queues", offset_of!(PortRt, queues)),
            ("busy_until", offset_of!(PortRt, busy_until)),
            ("down", offset_of!(PortRt, down)),
            ("paused", offset_of!(PortRt, paused)),
            ("ps_per_byte", offset_of!(PortRt, ps_per_byte)),
        ] {
            assert!(at < 64, "{name} at byte {at}: the first line");
        }
        for (name, at) in [("qbytes", offset_of!(PortRt, qbytes)), ("delay", offset_of!(PortRt, delay)), ("on_wire", offset_of!(PortRt, on_wire))] {
            assert!((64..128).contains(&at), "{name} at byte {at}: the second line");
        }
        let sent = offset_of!(PortRt, stats) + offset_of!(PortStats, tx_bytes);
        assert!((64..128).contains(&sent), "the send counters at byte {sent}: the second line");
        assert!(offset_of!(PortRt, stats) + size_of::<PortStats>() <= 256 - 32, "PFC's accounts last");
    }
}
