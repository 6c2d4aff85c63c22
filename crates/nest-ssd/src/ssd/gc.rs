//! The garbage-collection driver: a job per plane (victim, pages to move, erase), started at the
//! soft or hard free-block threshold, or by a GC storm; soft GC can be held off (PLM's
//! deterministic window).

use super::txn::{Kind, Txn, Q_GC};
use super::{Outbox, Ssd};
use crate::ftl::GcNeed;
use crate::geometry::NONE;
use nest_core::SimTime;

#[derive(Copy, Clone, Debug, Default)]
pub(super) struct GcJob {
    pub(super) victim: u32,
    pub(super) pending: u32,
    pub(super) started: SimTime,
}

impl Ssd {
    /// PLM hook: while set, soft GC does not start (hard GC still does).
    pub fn set_soft_gc_deferred(&mut self, now: SimTime, deferred: bool, out: &mut Outbox) {
        self.soft_gc_deferred = deferred;
        if !deferred {
            for p in 0..self.layout.planes {
                self.maybe_start_gc(now, p, out);
            }
        }
    }

    /// A GC storm starts (`on`) or ends: while it lasts, every plane runs garbage collection
    /// back to back on every block with a stale page, as a drive whose free blocks run low does
    /// (soft GC: PLM's deterministic window still holds it off). It ends early when no block
    /// has anything left to reclaim.
    pub fn set_gc_storm(&mut self, now: SimTime, on: bool, out: &mut Outbox) {
        self.gc_storm = on;
        if on {
            for p in 0..self.layout.planes {
                self.maybe_start_gc(now, p, out);
            }
        }
    }

    pub(super) fn maybe_start_gc(&mut self, now: SimTime, plane: u32, out: &mut Outbox) {
        if self.gc[plane as usize].is_some() {
            return;
        }
        let mut need = self.ftl.gc_need(plane);
        if self.gc_storm && need == GcNeed::None {
            need = GcNeed::Soft;
        }
        let die = self.layout.die_of_plane(plane);
        if need == GcNeed::None || (need == GcNeed::Soft && (self.soft_gc_deferred || self.die_in_dt(die))) {
            return;
        }
        if need == GcNeed::Hard && self.die_in_dt(die) {
            // Hard-threshold GC is never deferred: an emergency ends the set's DTWin (which
            // starts this job, among its deferred work).
            return self.plm_emergency(now, plane, out);
        }
        let Some((victim, _wl)) = self.ftl.start_gc(plane, &mut self.rng) else { return };
        let mut pages = std::mem::take(&mut self.scratch);
        self.ftl.valid_pages(victim, &mut pages);
        self.gc[plane as usize] = Some(GcJob { victim, pending: pages.len() as u32, started: now });
        for &(ppa, lpa) in &pages {
            let t = self.new_txn(Txn { kind: Kind::GcRead, class: 3, lpa, ppa, plane, owner: plane, bytes: self.layout.page_size, next: NONE, seq: 0 });
            self.queue_at(die, Q_GC, t);
        }
        let empty = pages.is_empty();
        self.scratch = pages;
        if empty {
            self.queue_erase(plane, victim);
        }
        self.kick(now, die, out);
    }

    pub(super) fn queue_erase(&mut self, plane: u32, victim: u32) {
        let t = self.new_txn(Txn { kind: Kind::Erase, class: 3, lpa: NONE, ppa: victim, plane, owner: plane, bytes: 0, next: NONE, seq: 0 });
        let die = self.layout.die_of_plane(plane);
        self.queue_at(die, Q_GC, t);
    }

    pub(super) fn gc_step(&mut self, now: SimTime, plane: u32, out: &mut Outbox) {
        let job = self.gc[plane as usize].as_mut().expect("GC step without a job");
        job.pending -= 1;
        if job.pending == 0 {
            let victim = job.victim;
            self.queue_erase(plane, victim);
            self.kick(now, self.layout.die_of_plane(plane), out);
        }
    }
}
