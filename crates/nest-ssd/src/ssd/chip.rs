//! MQSim's chip and channel discipline, for the compatible model (docs/mqsim.md).
//!
//! - `die_interleave = false`: a chip runs one die's command at a time. The choice is made at
//!   the chip, as MQSim's transaction scheduler makes it: first the queue (in the order `pick`
//!   uses — GC that must go first, mapping reads, user reads by class, user writes by class,
//!   background GC, mapping writes — with the class picked by one urgent + WRR state per chip),
//!   then the die of that queue's oldest transaction, whose batch is filled as usual.
//! - `command_waits_for_channel`: a command is issued only while the chip's channel is idle and
//!   no data transfer waits for it; when the channel frees, its chips are offered a command in
//!   round-robin turn until a transfer takes the channel again.

use super::flash::Phase;
use super::scheduler::{Q_GC, Q_MAP_READ, Q_MAP_WRITE};
use super::{Outbox, Ssd, CLASSES};
use nest_core::SimTime;

impl Ssd {
    /// Whether channel `c` could carry a command now.
    #[inline]
    fn channel_free(&self, c: u32) -> bool {
        let ch = &self.channels[c as usize];
        !ch.busy && ch.waiting.is_empty()
    }

    /// Offers channel `c`'s chips a command each, round robin from the channel's turn, while
    /// the channel stays free (MQSim's channel-idle handling).
    pub(super) fn dispatch_channel(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        let cpc = self.layout.dims[1];
        for _ in 0..cpc {
            if !self.channel_free(c) {
                return;
            }
            let ch = &mut self.channels[c as usize];
            let chip = c * cpc + ch.rr;
            ch.rr = (ch.rr + 1) % cpc;
            self.start_chip(now, chip, out);
        }
    }

    /// Gives `chip` its next command(s): with die interleaving each idle die picks its own
    /// batch; without, the chip takes one die's batch once all its dies are idle.
    pub(super) fn start_chip(&mut self, now: SimTime, chip: u32, out: &mut Outbox) {
        let dpc = self.layout.dims[2];
        let first = chip * dpc;
        if self.params.model.die_interleave {
            for e in first..first + dpc {
                if self.dies[e as usize].phase == Phase::Idle && self.pick(e) {
                    self.start_batch(now, e, out);
                }
            }
            return;
        }
        if (first..first + dpc).any(|e| self.dies[e as usize].phase != Phase::Idle) {
            return;
        }
        if let Some(e) = self.pick_chip(first) {
            self.start_batch(now, e, out);
        }
    }

    /// The chip-level pick (see the module comment); `first` is the chip's first die. Returns
    /// the die whose batch is ready to start.
    fn pick_chip(&mut self, first: u32) -> Option<u32> {
        let dpc = self.layout.dims[2];
        if self.gc_goes_first() {
            return self.take_oldest(first, Q_MAP_READ).or_else(|| self.take_oldest(first, Q_GC)).or_else(|| self.pick_chip_kind(first, 0)).or_else(|| self.pick_chip_kind(first, 1)).or_else(|| self.take_oldest(first, Q_MAP_WRITE));
        }
        // GC that must go first is decided die by die, as `pick` decides it.
        if let Some(e) = (first..first + dpc).find(|&e| self.take_gc_turn(e)) {
            return Some(e);
        }
        if let Some(e) = self.take_oldest(first, Q_MAP_READ) {
            return Some(e);
        }
        for kind in 0..2 {
            if let Some(e) = self.pick_chip_kind(first, kind) {
                return Some(e);
            }
        }
        self.take_oldest(first, Q_GC).or_else(|| self.take_oldest(first, Q_MAP_WRITE))
    }

    /// User reads (`kind` 0) or writes (1) at the chip: the class by urgent + WRR over the
    /// classes with work on any die (the state kept on the chip's first die), then the oldest;
    /// if that class cannot start (writes waiting for space), the others in priority order.
    fn pick_chip_kind(&mut self, first: u32, kind: usize) -> Option<u32> {
        if !self.params.sched.device_qos {
            return self.take_oldest(first, kind);
        }
        let dpc = self.layout.dims[2];
        let mut has = [false; CLASSES];
        for (c, h) in has.iter_mut().enumerate() {
            *h = (first..first + dpc).any(|e| !self.dies[e as usize].q[2 * c + kind].is_empty());
        }
        let c = self.dies[first as usize].wrr[kind].pick_class(has[0], |c| has[c])?;
        self.take_oldest(first, 2 * c + kind).or_else(|| (0..CLASSES).filter(|&c2| c2 != c && has[c2]).find_map(|c2| self.take_oldest(first, 2 * c2 + kind)))
    }

    /// Takes a batch from queue `qi` of the chip's die whose head arrived first; a die whose
    /// queue has nothing startable gives way to the next oldest.
    fn take_oldest(&mut self, first: u32, qi: usize) -> Option<u32> {
        let dpc = self.layout.dims[2];
        let mut tried = 0u64;
        loop {
            let mut best: Option<(u32, u32)> = None;
            for e in first..first + dpc {
                let bit = 1u64 << (e - first);
                if tried & bit != 0 {
                    continue;
                }
                let Some(&t) = self.dies[e as usize].q[qi].front() else { continue };
                let seq = self.txns[t as usize].seq;
                // Arrival order under wrapping: `seq` is older when it is behind `b`.
                if best.map_or(true, |(_, b)| (seq.wrapping_sub(b) as i32) < 0) {
                    best = Some((e, seq));
                }
            }
            let (e, _) = best?;
            if self.take_batch(e, qi) {
                return Some(e);
            }
            tried |= 1u64 << (e - first);
        }
    }
}
