//! The state of a die and of a channel: what a die is doing and until when, the batch it
//! runs, its queues, a suspended operation. A leaf the scheduler, the dies' timing and the
//! latency decomposition share.

use super::die_queues::DieQueues;
use crate::params::MAX_PLANES_PER_DIE;
use nest_core::SimTime;
use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Idle,
    Sense,
    WaitOut,
    Out,
    WaitIn,
    In,
    Program,
    Erase,
    /// Suspending a program or erase; the suspending batch starts when this ends.
    Suspending,
}

/// A program or erase put aside by a suspension.
#[derive(Copy, Clone, Debug)]
pub(super) struct Suspended {
    pub(super) phase: Phase,
    pub(super) batch: [u32; MAX_PLANES_PER_DIE as usize],
    pub(super) n: u8,
    pub(super) remaining: SimTime,
    /// Suspensions of this operation so far (this one included).
    pub(super) count: u8,
}

pub(super) struct Die {
    pub(super) phase: Phase,
    pub(super) batch: [u32; MAX_PLANES_PER_DIE as usize],
    pub(super) n: u8,
    pub(super) xfer_bytes: u64,
    /// `data_out_per_page`: the batch's next page to move out.
    pub(super) out_next: u8,
    pub(super) started: SimTime,
    pub(super) busy_ps: u64,
    /// Queues 0..8: user reads/writes per class (class·2 + write); then mapping reads, GC,
    /// mapping writes.
    pub(super) q: DieQueues,
    pub(super) next_plane: u32,
    /// When the current sense, program, erase or suspension ends.
    pub(super) end: SimTime,
    /// Suspensions the current operation has had.
    pub(super) op_suspends: u8,
    pub(super) suspended: Option<Suspended>,
    /// Page offset of the batch being assembled (`multiplane_same_page`).
    pub(super) batch_page: Option<u32>,
    /// End times of suspended operations whose `Die` events are still in the queue: each
    /// drops one event at that time (events cannot be taken back out of the queue).
    pub(super) stale: Vec<SimTime>,
    /// GC time so far, and since when a GC operation has been running (`decomp`).
    pub(super) gc_ps: u64,
    pub(super) gc_since: Option<SimTime>,
}

pub(super) struct Channel {
    pub(super) busy: bool,
    pub(super) die: u32,
    pub(super) waiting: VecDeque<u32>,
    pub(super) busy_ps: u64,
    /// The chip whose turn it is to be offered a command (`command_waits_for_channel`).
    pub(super) rr: u32,
    /// Work was queued for the channel's chips in the step under way (`schedule_after_submit`).
    pub(super) deferred: bool,
}
