//! The garbage-collection driver: a job per plane (victim, pages to move, erase), started at the
//! soft or hard free-block threshold, or by a GC storm; soft GC can be held off (PLM's
//! deterministic window).

use super::txn::{Kind, Txn, Q_GC, Q_GC_ERASE};
use super::{Outbox, Ssd};
use crate::ftl::GcNeed;
use crate::geometry::NONE;
use nest_core::SimTime;

#[derive(Copy, Clone, Debug, Default)]
pub(super) struct GcJob {
    pub(super) plane: u32,
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
        let p = plane as usize;
        if self.params.model.gc_at_block_takes {
            // One check per block a frontier has taken since the last (`gc_at_block_takes`);
            // a check that starts nothing is spent all the same. None elsewhere — not even where
            // user writes wait below the floor with no job running: MQSim waits there for a
            // frontier to take a block (a translation write-back's, another stream's), and the
            // GC-heavy run depends on it (checking at the refused write instead: mean +18.8 %,
            // IOPS −15.8 %, 10 → 4 of 10). A drive built below its floor so waits for ever, as
            // MQSim's would: the run ends with those writes in flight, reported.
            while self.gc_seen_blocks[p] != self.ftl.planes[p].blocks_taken {
                self.gc_seen_blocks[p] = self.gc_seen_blocks[p].wrapping_add(1);
                if !self.start_gc_job(now, plane, out)
                    && (self.ftl.planes[p].gc_jobs >= self.params.model.gc_jobs_per_plane.max(1) || self.ftl.gc_need(plane) == GcNeed::None)
                {
                    // The checks left would find the same.
                    self.gc_seen_blocks[p] = self.ftl.planes[p].blocks_taken;
                }
            }
            return;
        }
        // Another job beside a running one only when a frontier has taken a block since the
        // last one started (MQSim checks at each block taken), or — below the GC floor, where
        // writes wait — at an erase (`erase_done`).
        let taken = self.ftl.planes[p].blocks_taken;
        if self.ftl.planes[p].gc_jobs > 0 && taken == self.gc_seen_blocks[p] {
            return;
        }
        self.start_gc_job(now, plane, out);
    }

    /// Starts a GC job on `plane` if it needs one and may run another: true if it did.
    fn start_gc_job(&mut self, now: SimTime, plane: u32, out: &mut Outbox) -> bool {
        let running = self.ftl.planes[plane as usize].gc_jobs;
        if running >= self.params.model.gc_jobs_per_plane.max(1) {
            return false;
        }
        let mut need = self.ftl.gc_need(plane);
        if self.gc_storm && need == GcNeed::None {
            need = GcNeed::Soft;
        }
        let die = self.layout.die_of_plane(plane);
        if need == GcNeed::None || (need == GcNeed::Soft && (self.soft_gc_deferred || self.die_in_dt(die))) {
            return false;
        }
        if need == GcNeed::Hard && self.die_in_dt(die) {
            // Hard-threshold GC is never deferred: an emergency ends the set's DTWin (which
            // starts this job, among its deferred work).
            self.plm_emergency(now, plane, out);
            return false;
        }
        let Some((victim, wl)) = self.ftl.pick_gc_victim(plane, &mut self.rng, self.mqsim_gc_rng.as_mut()) else { return false };
        // Beside running jobs, only if the plane can hold all their moves (`gc_room`).
        if running > 0 && !self.ftl.room_for_gc_job(plane, self.ftl.blocks[victim as usize].valid) {
            return false;
        }
        self.launch_job(now, plane, victim, wl, out);
        true
    }

    /// MQSim's static wear levelling after an erase on `plane` (`static_wl_block_ids`): a
    /// migration of the block its check names, beside the plane's GC jobs and outside their
    /// limit, as `run_static_wearleveling` starts one.
    pub(super) fn mqsim_static_wl(&mut self, now: SimTime, plane: u32, out: &mut Outbox) {
        if let Some(block) = self.ftl.mqsim_wl_candidate(plane) {
            self.ftl.mqsim_wl_misfiled_mark(block);
            self.launch_job(now, plane, block, true, out);
        }
    }

    /// Starts a job on `plane` that moves `victim`'s valid pages and erases it (a wear-levelling
    /// migration if `wl`).
    fn launch_job(&mut self, now: SimTime, plane: u32, victim: u32, wl: bool, out: &mut Outbox) {
        let running = self.ftl.planes[plane as usize].gc_jobs;
        self.ftl.claim_victim(plane, victim, wl);
        let mut pages = std::mem::take(&mut self.scratch);
        self.ftl.valid_pages(victim, &mut pages);
        self.ftl.gc_owe(plane, pages.len() as u32);
        let job = GcJob { plane, victim, pending: pages.len() as u32, started: now };
        let id = match self.gc_free.pop() {
            Some(id) => {
                self.gc_jobs[id as usize] = job;
                id
            }
            None => {
                self.gc_jobs.push(job);
                self.gc_jobs.len() as u32 - 1
            }
        };
        self.ftl.planes[plane as usize].gc_jobs += 1;
        self.gc_peak = self.gc_peak.max(running + 1);
        if !self.params.model.gc_at_block_takes {
            // Seen before the kick below, whose writes may take blocks and start further jobs.
            self.gc_seen_blocks[plane as usize] = self.ftl.planes[plane as usize].blocks_taken;
        }
        for &(_, lpa) in &pages {
            self.gc_locks.lock(lpa);
        }
        if self.gc_postponed.hold(victim, id) {
            self.scratch = pages;
            return; // `gc_waits_for_user_reads`: started by the victim's last user read
        }
        self.queue_moves(now, id, pages, out);
    }

    /// Job `id`, held until its victim's user reads completed, starts: its valid pages are
    /// listed again (user writes may have invalidated some meanwhile).
    pub(super) fn start_moves(&mut self, now: SimTime, id: u32, out: &mut Outbox) {
        let mut pages = std::mem::take(&mut self.scratch);
        self.ftl.valid_pages(self.gc_jobs[id as usize].victim, &mut pages);
        self.queue_moves(now, id, pages, out);
    }

    /// Job `id` reads its victim's valid `pages` (then writes each to GC's frontier), or, with
    /// none, erases it. `pages` goes back to the scratch buffer.
    fn queue_moves(&mut self, now: SimTime, id: u32, pages: Vec<(u32, u32)>, out: &mut Outbox) {
        let plane = self.gc_jobs[id as usize].plane;
        let die = self.layout.die_of_plane(plane);
        self.gc_jobs[id as usize].pending = pages.len() as u32;
        for &(ppa, lpa) in &pages {
            let txn = Txn { kind: Kind::GcRead, class: 3, lpa, ppa, plane, owner: id, bytes: self.layout.page_size, next: NONE, seq: 0 };
            let qi = self.queue_index(&txn);
            let t = self.new_txn(txn);
            self.queue_at(die, qi, t);
        }
        let empty = pages.is_empty();
        self.scratch = pages;
        if empty {
            self.queue_erase(id);
        }
        self.kick(now, die, out);
    }

    pub(super) fn queue_erase(&mut self, id: u32) {
        let GcJob { plane, victim, .. } = self.gc_jobs[id as usize];
        let t = self.new_txn(Txn { kind: Kind::Erase, class: 3, lpa: NONE, ppa: victim, plane, owner: id, bytes: 0, next: NONE, seq: 0 });
        let die = self.layout.die_of_plane(plane);
        let qi = if self.params.model.gc_erases_last { Q_GC_ERASE } else { Q_GC };
        self.queue_at(die, qi, t);
    }

    /// A page of job `id` moved (or found stale): after the last, its victim is erased.
    pub(super) fn gc_step(&mut self, now: SimTime, id: u32, out: &mut Outbox) {
        let job = &mut self.gc_jobs[id as usize];
        job.pending -= 1;
        if job.pending == 0 {
            let plane = job.plane;
            self.queue_erase(id);
            self.kick(now, self.layout.die_of_plane(plane), out);
        }
    }

    /// Job `id`'s victim is erased: the job ends, and the plane may start another — also beside
    /// running ones while user writes wait below the GC floor (MQSim: `GC_and_WL_Unit_Base.cpp:161-164`).
    pub(super) fn erase_done(&mut self, now: SimTime, id: u32) -> u32 {
        let job = self.gc_jobs[id as usize];
        self.gc_free.push(id);
        self.ftl.planes[job.plane as usize].gc_jobs -= 1;
        self.counters.gc_time_ps += (now - job.started).0;
        if (self.ftl.planes[job.plane as usize].gc_jobs > 0 || self.params.model.gc_at_block_takes) && !self.ftl.can_alloc_user(job.plane) {
            // Let the next check start a job as if a block had been taken.
            self.gc_seen_blocks[job.plane as usize] = self.gc_seen_blocks[job.plane as usize].wrapping_sub(1);
        }
        job.plane
    }
}
