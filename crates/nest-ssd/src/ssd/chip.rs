//! MQSim's chip and channel discipline, for the compatible model (docs/mqsim.md).
//!
//! - `die_interleave = false`: a chip runs one die's command at a time. The choice is made at
//!   the chip, as MQSim's transaction scheduler makes it: first the queue, by the die policy
//!   (`sched`) of the chip's first die over the chip's dies (the order a die's pick uses, one
//!   class state per chip), then the die of that queue's oldest transaction, whose batch is
//!   filled as usual.
//! - `command_waits_for_channel`: a command is issued only while the chip's channel is idle and
//!   no data transfer waits for it; when the channel frees, its chips are offered a command in
//!   round-robin turn until a transfer takes the channel again.
//! - `schedule_after_submit`: within one step (an event, a command's arrival) the channels
//!   are offered commands only at its end, in channel order, once every transaction the step
//!   queued is in (MQSim's `Prepare_for_transaction_submit` … `Schedule()`).
//! - `walk_idle_channels`: a step that queued work offers every idle channel its chips, not
//!   only the channels it queued work for (`Schedule()`'s walk); with MQSim's class round-robin
//!   each visit to a busy chip moves it (`settle_visits`).

use super::die::Phase;
use super::sched::ChipUnit;
use super::{Outbox, Ssd};
use crate::switches::ClassWrr;
use nest_core::SimTime;

impl Ssd {
    /// Whether channel `c` could carry a command now.
    #[inline]
    fn channel_free(&self, c: u32) -> bool {
        let ch = &self.channels[c as usize];
        !ch.busy && ch.waiting.is_empty()
    }

    /// Opens a step whose channel offers wait for its end (`schedule_after_submit`); true if
    /// this call opened it (an outer step may already be open).
    #[inline]
    pub(super) fn open_submission(&mut self) -> bool {
        let open = self.params.model.schedule_after_submit && !self.submitting;
        self.submitting |= open;
        self.queued_in_step &= !open;
        open
    }

    /// Offers channel `c` a command now, or at the end of the step under way.
    pub(super) fn offer_channel(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        if !self.submitting {
            return self.dispatch_channel(now, c, out);
        }
        let ch = &mut self.channels[c as usize];
        if !ch.deferred {
            ch.deferred = true;
            self.deferred_channels += 1;
        }
    }

    /// Closes the step `opened` opened: the channels with work queued in it (every idle one with
    /// `walk_idle_channels`) are offered commands, lowest first (MQSim's `Schedule()` walks its
    /// idle channels in order). An offer may queue more work (a GC job a new block starts), for
    /// its channel's turn in this walk.
    pub(super) fn schedule(&mut self, opened: bool, now: SimTime, out: &mut Outbox) {
        if !opened {
            return;
        }
        if self.params.model.walk_idle_channels && self.queued_in_step {
            // MQSim's walk after a submission (`Schedule()` returns at once when nothing was
            // submitted: a chip or channel turning idle offers only its own chips): every idle
            // channel, in order, whether the step queued work for it or not.
            for c in 0..self.channels.len() as u32 {
                if std::mem::take(&mut self.channels[c as usize].deferred) {
                    self.deferred_channels -= 1;
                }
                self.dispatch_channel(now, c, out);
            }
        }
        while self.deferred_channels > 0 {
            for c in 0..self.channels.len() as u32 {
                if std::mem::take(&mut self.channels[c as usize].deferred) {
                    self.deferred_channels -= 1;
                    self.dispatch_channel(now, c, out);
                }
            }
        }
        self.submitting = false;
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
            if self.params.model.class_wrr == ClassWrr::Mqsim && self.params.sched.device_qos {
                // MQSim's scheduler looks at a busy chip too, and each look moves its round-robin:
                // counted here, asked when the chip's queues next change or it picks.
                self.busy_visits[chip as usize] += 1;
                #[cfg(test)]
                if self.eager_visits {
                    self.settle_visits(chip);
                }
            }
            return;
        }
        self.settle_visits(chip);
        if let Some(e) = self.pick_chip(first) {
            self.start_batch(now, e, out);
        }
    }

    /// Makes the class round-robin asks of `chip`'s counted busy visits. Each ask's outcome
    /// depends only on the round-robin's state and which of the chip's queues hold work, and the
    /// queues change only by a transaction queued (`queue_at`, PLM's held work) or taken (a
    /// pick), each of which settles first: so asking late, all at once, asks as MQSim did at
    /// each visit — a walk over every idle channel (`walk_idle_channels`) costs a count per busy
    /// chip instead of a look at its dies' queues.
    #[inline]
    pub(super) fn settle_visits(&mut self, chip: u32) {
        let Some(k) = self.busy_visits.get_mut(chip as usize).map(std::mem::take) else { return };
        if k == 0 {
            return;
        }
        let dpc = self.layout.dims[2];
        let first = chip * dpc;
        let work = (first..first + dpc).fold(0, |m, e| m | self.dies[e as usize].q.nonempty());
        let gc_first = self.gc_order.first;
        let p = &mut self.policies[first as usize];
        for _ in 0..k {
            p.visit_busy(gc_first, work);
        }
    }

    /// `settle_visits` for the chip of die `d`, where visits are counted at all.
    #[inline]
    pub(super) fn settle_visits_of_die(&mut self, d: u32) {
        if !self.busy_visits.is_empty() {
            self.settle_visits(self.layout.chip_of_die(d));
        }
    }

    /// Settles every chip's busy visits (before PLM moves work between its held lists and many
    /// dies' queues).
    pub(super) fn settle_all_visits(&mut self) {
        for chip in 0..self.busy_visits.len() as u32 {
            self.settle_visits(chip);
        }
    }

    /// The chip-level pick (see the module comment) by the policy of the chip's first die;
    /// `first` is that die. Returns the die whose batch is ready to start.
    fn pick_chip(&mut self, first: u32) -> Option<u32> {
        let dies = self.layout.dims[2];
        let mut p = std::mem::take(&mut self.policies[first as usize]);
        let gc_first = self.gc_order.first;
        let mut unit = ChipUnit { ssd: self, first, dies, picked: None };
        let got = p.pick(gc_first, &mut unit);
        let picked = unit.picked;
        self.policies[first as usize] = p;
        picked.filter(|_| got)
    }

    /// Takes a batch from queue `qi` of the chip's die whose head arrived first; a die whose
    /// queue has nothing startable gives way to the next oldest.
    pub(super) fn take_oldest(&mut self, first: u32, qi: usize) -> Option<u32> {
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
                if best.is_none_or(|(_, b)| (seq.wrapping_sub(b) as i32) < 0) {
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
