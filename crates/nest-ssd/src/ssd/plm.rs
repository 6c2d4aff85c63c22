//! Predictable Latency Mode inside the drive (SPEC §8; thesis 3.2; PLMC §IV-A): each NVM set
//! with PLM runs its window cycle (`crate::plm::PlmWindow`) and the drive acts on it.
//!
//! - **DTWin**: the set's dies start no program or erase — host writes go to the set's
//!   non-volatile buffer (DRAM speed) and complete there; soft GC, wear levelling, cache
//!   write-backs and mapping writes bound for the set's dies are *held* (taken off the die
//!   queues and kept in order), so a read waits only for reads. Reads of buffered pages are
//!   served from the buffer. Hard-threshold GC is never held: needing it is an emergency that
//!   ends the DTWin.
//! - **NDWin**: the held work goes back to the die queues, deferred soft GC starts, the buffer
//!   is flushed to flash (programs like any write), and commands arriving in NDWin wait an
//!   extra exponential delay (mean `nd_delay_mean`) — the management work the sources emulate
//!   beyond the GC the model runs for real. The set tells its window when all of this is done.
//!
//! Timers: a set's next timed transition is armed only while it has commands in flight or
//! deferred work (a pool member waiting in NDWin for the host's request has no time to arm); an
//! idle set catches up with the transitions it missed when the next command arrives or its log
//! page is read (nothing happens in an idle set, so they need no events — and a drive with
//! nothing to do lets the run end).

use super::decomp::{ND_DELAY, WRITE_CACHE};
use super::txn::{gc_queue, Kind, Txn, Q_MAP_WRITE};
use super::{Outbox, Ssd, SsdEvent, CLASSES};
use crate::ftl::GcNeed;
use crate::geometry::{Layout, NONE};
use crate::plm::{PlmAttrs, PlmWindow, Transition, Window};
use crate::slot_index::SlotIndex;
use nest_core::rng::RngStream;
use nest_core::stats::histogram::LatencyHistogram;
use nest_core::SimTime;

/// A page write waiting in a set's NV buffer.
#[derive(Copy, Clone, Debug)]
struct NvPage {
    lpa: u32,
    class: u8,
    bytes: u32,
}

/// What a PLM set did besides its window statistics.
#[derive(Clone, Debug, Default)]
pub struct PlmReport {
    /// Page writes taken into the NV buffer, and written from it to flash.
    pub nv_pages: u64,
    pub nv_flushed: u64,
    /// Most bytes the NV buffer held at once.
    pub nv_peak_bytes: u64,
    /// Die time the set's dies spent on GC work in DTWin and in NDWin (ps). DTWin GC is only
    /// hard-threshold GC (or a job that NDWin's maximum cut short).
    pub gc_ps: [u64; 2],
    /// Programs and erases started on the set's dies while it was in DTWin: hard-threshold GC
    /// only when the set owns its dies; with sets sharing dies, also the other sets' NDWin work
    /// (flushes, GC) its DTWin reads contend with.
    pub programs_in_dt: u64,
    /// Transactions held off the die queues during DTWins.
    pub held: u64,
    /// Commands that waited the extra NDWin delay, and its total (ps).
    pub nd_delays: u64,
    pub nd_delay_ps: u64,
    /// Device latency of reads and writes by the window they arrived in: `[op][Dt, Nd]`.
    pub latency: [[LatencyHistogram; 2]; 2],
}

pub(super) struct PlmSet {
    pub(super) win: PlmWindow,
    nv: Vec<NvPage>,
    /// NV-buffer flushes on their way to flash.
    flushing: u32,
    /// Program, GC and mapping-write transactions of the set's dies held in DTWin: (die,
    /// queue, transaction), in queue order.
    held: Vec<(u32, u8, u32)>,
    /// Host commands of this set in the drive.
    in_flight: u32,
    /// The time of the armed timer event (`SimTime::MAX`: none).
    armed: SimTime,
    rng: RngStream,
    /// GC die time of the set's dies when the window last changed.
    gc_mark: u64,
    pub(super) report: PlmReport,
}

/// The PLM state of a drive: per set (`None` without PLM), per die whether every set on it is
/// in DTWin (its background work is held), and how many copies of each logical page the NV
/// buffers hold.
pub(super) struct Plm {
    pub(super) sets: Vec<Option<PlmSet>>,
    pub(super) die_dt: Vec<bool>,
    /// Copies of each logical page the NV buffers hold (only pages with copies are kept).
    nv_count: SlotIndex,
}

impl Plm {
    pub(super) fn new(layout: &Layout, enabled: &[u32], attrs: &PlmAttrs, seed: u64, index: u64) -> Plm {
        let sets_v = (0..layout.sets)
            .map(|s| {
                enabled.contains(&s).then(|| PlmSet {
                    win: PlmWindow::new(attrs.clone(), SimTime::ZERO),
                    nv: Vec::new(),
                    flushing: 0,
                    held: Vec::new(),
                    in_flight: 0,
                    armed: SimTime::MAX,
                    rng: RngStream::derive(seed, "ssd-plm", index * 1024 + s as u64, "nd-delay"),
                    gc_mark: 0,
                    report: PlmReport::default(),
                })
            })
            .collect::<Vec<_>>();
        // At time zero every PLM set is in DTWin.
        let die_dt = (0..layout.dies).map(|d| layout.sets_of_die(d).all(|s| sets_v[s as usize].is_some())).collect();
        Plm { sets: sets_v, die_dt, nv_count: SlotIndex::new() }
    }
}

/// Queues whose work a DTWin holds: user writes (cache write-backs, NV flushes), GC, mapping
/// writes.
#[inline]
fn held_queue(qi: usize) -> bool {
    user_write_queue(qi) || gc_queue(qi) || qi == Q_MAP_WRITE
}

/// A user-write queue: its work belongs to one set (the page's), where GC and mapping writes
/// belong to the die.
#[inline]
fn user_write_queue(qi: usize) -> bool {
    qi < 2 * CLASSES && qi % 2 == 1
}

impl Ssd {
    /// NVM sets of the drive.
    pub fn nvm_sets(&self) -> u32 {
        self.layout.sets
    }

    /// Whether the NVM sets share the drive's dies (address ranges) instead of owning channels.
    pub fn nvm_sets_share_dies(&self) -> bool {
        self.layout.sets > 1 && self.layout.groups == 1
    }

    /// Set `s`'s PLM window, log page and report, if it has PLM.
    pub fn plm_window(&self, s: u32) -> Option<(&PlmWindow, &PlmReport)> {
        let p = self.plm.as_ref()?.sets.get(s as usize)?.as_ref()?;
        Some((&p.win, &p.report))
    }

    /// Brings the windows of idle PLM sets up to `now` (an idle set changes windows without
    /// events, see the module comment) — before reading their log pages from outside.
    pub fn plm_sync(&mut self, now: SimTime, out: &mut Outbox) {
        let opened = self.open_submission();
        for s in 0..self.layout.sets {
            if self.plm_window(s).is_some() {
                self.plm_catch_up(now, s, out);
            }
        }
        self.schedule(opened, now, out);
    }

    /// Host set-feature on set `s`: ask for NDWin now, or DTWin as soon as NDWin may end.
    pub fn plm_request(&mut self, now: SimTime, s: u32, to: Window, out: &mut Outbox) {
        if self.plm_window(s).is_none() {
            return;
        }
        let opened = self.open_submission();
        self.plm_catch_up(now, s, out);
        let tr = self.plm_set(s).win.host_request(now, to);
        self.plm_after(now, s, tr, out);
        // A pool member asked for DTWin needs less done than one that decides alone.
        self.plm_check_done(now, s, out);
        self.schedule(opened, now, out);
    }

    /// Makes set `s` a pool member: it leaves NDWin only when the host asks for DTWin.
    pub fn plm_host_driven(&mut self, s: u32) {
        if self.plm_window(s).is_some() {
            self.plm_set(s).win.set_host_driven(true);
        }
    }

    #[inline]
    fn plm_set(&mut self, s: u32) -> &mut PlmSet {
        self.plm.as_mut().unwrap().sets[s as usize].as_mut().unwrap()
    }

    /// Whether die `d`'s set is in DTWin (its program work is held).
    #[inline]
    pub(super) fn die_in_dt(&self, d: u32) -> bool {
        self.plm.as_ref().is_some_and(|p| p.die_dt[d as usize])
    }

    /// Whether the NV buffers hold logical page `lpa` (a read is served from there).
    #[inline]
    pub(super) fn nv_holds(&self, lpa: u32) -> bool {
        self.plm.as_ref().is_some_and(|p| p.nv_count.get(lpa) > 0)
    }

    /// Queues transaction `t` at die `d`, or holds it while the set it belongs to is in DTWin.
    #[inline]
    pub(super) fn queue_at(&mut self, d: u32, qi: usize, t: u32) {
        self.settle_visits_of_die(d);
        self.queued_in_step = true;
        if held_queue(qi) {
            if let Some(s) = self.holder(d, qi, t) {
                let set = self.plm_set(s);
                set.held.push((d, qi as u8, t));
                set.report.held += 1;
                return;
            }
        }
        self.dies[d as usize].q[qi].push_back(t);
    }

    /// The set in DTWin that holds transaction `t` bound for die `d`'s queue `qi`: the die's
    /// set while every set on the die is in DTWin; with sets sharing dies, also a user write's
    /// own set (by its page) while that set alone is in DTWin — GC and mapping writes belong to
    /// the die and run while any set on it is in NDWin, as PLMC's MQSim runs the drive's GC in
    /// the NDWin of one copy (PLMC §IV-A).
    #[inline]
    fn holder(&self, d: u32, qi: usize, t: u32) -> Option<u32> {
        let plm = self.plm.as_ref()?;
        if plm.die_dt[d as usize] {
            return Some(self.layout.sets_of_die(d).start);
        }
        if !self.nvm_sets_share_dies() || !user_write_queue(qi) {
            return None;
        }
        let s = self.layout.set_of_lpa(self.txns[t as usize].lpa as u64);
        self.set_in_dt(s).then_some(s)
    }

    /// Whether set `s` has PLM and is in DTWin.
    #[inline]
    fn set_in_dt(&self, s: u32) -> bool {
        self.plm.as_ref().and_then(|p| p.sets[s as usize].as_ref()).is_some_and(|x| x.win.window() == Window::Dt)
    }

    /// A command arrives (`submit`): it is counted against its set's window; a DTWin write is
    /// marked for the NV buffer. Returns the extra NDWin delay it waits first.
    pub(super) fn plm_admit(&mut self, now: SimTime, c: u32, out: &mut Outbox) -> SimTime {
        let cmd = self.cmds[c as usize];
        let s = self.layout.set_of_lpa(cmd.first_lpa as u64);
        if self.plm_window(s).is_none() {
            return SimTime::ZERO;
        }
        self.plm_catch_up(now, s, out);
        let buffer_bytes = cmd.npages as u64 * self.layout.page_size as u64;
        let set = self.plm_set(s);
        let dt = set.win.window() == Window::Dt;
        set.in_flight += 1;
        let tr = if cmd.write { set.win.on_write(now, cmd.bytes as u64, buffer_bytes) } else { set.win.on_read(now, cmd.bytes as u64) };
        let mean = set.win.attrs.nd_delay_mean;
        let delay = if !dt && mean > SimTime::ZERO {
            let d = SimTime(set.rng.exponential(mean.0 as f64).round() as u64);
            set.report.nd_delays += 1;
            set.report.nd_delay_ps += d.0;
            d
        } else {
            SimTime::ZERO
        };
        let x = &mut self.cmds[c as usize];
        x.plm = 1 + !dt as u8;
        x.nv = cmd.write && dt;
        self.plm_after(now, s, tr, out);
        delay
    }

    /// The extra NDWin delay of command `c` ended: it starts as if it had just arrived.
    pub(super) fn plm_delayed(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        self.cmd_stage(c, ND_DELAY, now);
        self.begin_cmd(now, c, out);
    }

    /// A DTWin write's data arrived: its pages go into the NV buffer (DRAM speed) and it
    /// completes there. If the set changed to NDWin meanwhile, the buffer is flushed at once.
    pub(super) fn nv_write(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        self.cmd_stage(c, WRITE_CACHE, now);
        let cmd = self.cmds[c as usize];
        let s = self.layout.set_of_lpa(cmd.first_lpa as u64);
        for i in 0..cmd.npages {
            let (lpa, bytes) = (self.lpa_of(&cmd, i), self.page_bytes(&cmd, i));
            let plm = self.plm.as_mut().unwrap();
            plm.nv_count.set(lpa, plm.nv_count.get(lpa) + 1);
            plm.sets[s as usize].as_mut().unwrap().nv.push(NvPage { lpa, class: cmd.class, bytes });
        }
        let ps = self.layout.page_size as u64;
        let set = self.plm_set(s);
        set.report.nv_pages += cmd.npages as u64;
        set.report.nv_peak_bytes = set.report.nv_peak_bytes.max(set.nv.len() as u64 * ps);
        let nd = set.win.window() == Window::Nd;
        self.cmds[c as usize].remaining = 1;
        self.dram_access(now, c, cmd.bytes as u64, out);
        if nd {
            self.nv_flush(now, s, out);
        }
    }

    /// Sends set `s`'s NV buffer to flash: a program per buffered page.
    fn nv_flush(&mut self, now: SimTime, s: u32, out: &mut Outbox) {
        let pages = std::mem::take(&mut self.plm_set(s).nv);
        self.plm_set(s).flushing += pages.len() as u32;
        for p in &pages {
            let t = self.new_txn(Txn { kind: Kind::NvFlush, class: p.class, lpa: p.lpa, ppa: NONE, plane: NONE, owner: s, bytes: p.bytes, next: NONE, seq: 0 });
            self.route(now, t, out);
        }
    }

    /// An NV-buffer page reached flash.
    pub(super) fn nv_flushed(&mut self, now: SimTime, lpa: u32, s: u32, out: &mut Outbox) {
        let plm = self.plm.as_mut().unwrap();
        plm.nv_count.set(lpa, plm.nv_count.get(lpa) - 1);
        let ps = self.layout.page_size as u64;
        let set = self.plm_set(s);
        set.flushing -= 1;
        set.report.nv_flushed += 1;
        set.win.flushed(ps);
        self.plm_check_done(now, s, out);
    }

    /// A host command of a PLM set finished after `latency`.
    pub(super) fn plm_finished(&mut self, now: SimTime, c: u32, latency: u64, out: &mut Outbox) {
        let cmd = self.cmds[c as usize];
        let s = self.layout.set_of_lpa(cmd.first_lpa as u64);
        let set = self.plm_set(s);
        set.in_flight -= 1;
        set.report.latency[cmd.write as usize][cmd.plm as usize - 1].record(latency);
        self.plm_arm(now, s, out);
    }

    /// Work on plane `p` finished (an erase): the sets on its die may be done with their
    /// NDWin work.
    pub(super) fn plm_plane_work(&mut self, now: SimTime, plane: u32, out: &mut Outbox) {
        for s in self.layout.sets_of_die(self.layout.die_of_plane(plane)) {
            if self.plm_window(s).is_some() {
                self.plm_check_done(now, s, out);
            }
        }
    }

    /// Hard-threshold GC is needed on plane `p` while every set on its die is in DTWin: an
    /// emergency ends their DTWins.
    pub(super) fn plm_emergency(&mut self, now: SimTime, plane: u32, out: &mut Outbox) {
        let d = self.layout.die_of_plane(plane);
        if !self.die_in_dt(d) {
            return;
        }
        for s in self.layout.sets_of_die(d) {
            if self.set_in_dt(s) {
                let tr = self.plm_set(s).win.emergency(now);
                self.plm_after(now, s, tr, out);
            }
        }
    }

    /// Die `d` starts `n` programs or erases: counted for each set on it in DTWin.
    pub(super) fn plm_program_in_dt(&mut self, d: u32, n: u64) {
        for s in self.layout.sets_of_die(d) {
            if self.set_in_dt(s) {
                self.plm_set(s).report.programs_in_dt += n;
            }
        }
    }

    /// A set's timer fired.
    pub(super) fn plm_timer(&mut self, now: SimTime, s: u32, out: &mut Outbox) {
        let set = self.plm_set(s);
        if set.armed != now {
            return; // superseded
        }
        set.armed = SimTime::MAX;
        let tr = set.win.poll(now);
        self.plm_after(now, s, tr, out);
    }

    /// Transitions an idle set missed, at the times they were due (an unarmed set has no work,
    /// so they schedule nothing in the past).
    fn plm_catch_up(&mut self, now: SimTime, s: u32, out: &mut Outbox) {
        loop {
            let due = self.plm_set(s).win.deadline();
            if due > now {
                return;
            }
            let tr = self.plm_set(s).win.poll(due);
            if tr.is_none() {
                return;
            }
            // An armed set is only met here at its due time (a command arriving with its timer).
            debug_assert!(due == now || !self.work_left(s), "a set with deferred work is armed, not caught up");
            self.plm_after(due, s, tr, out);
        }
    }

    /// Acts on a transition (and on those it leads to), then arms the set's timer.
    fn plm_after(&mut self, now: SimTime, s: u32, mut tr: Option<Transition>, out: &mut Outbox) {
        while let Some(t) = tr.take() {
            out.plm.push((s, t));
            tr = match t.to {
                Window::Nd => self.enter_nd(now, s, out),
                Window::Dt => self.enter_dt(now, s),
            };
        }
        self.plm_arm(now, s, out);
    }

    /// GC die time of set `s`'s dies up to `now`.
    fn set_gc_ps(&self, s: u32, now: SimTime) -> u64 {
        self.layout.dies_of_set(s).map(|d| self.dies[d as usize].gc_ps_at(now)).sum()
    }

    /// Books the GC time of the window that ends now.
    fn close_gc(&mut self, now: SimTime, s: u32, was: Window) {
        let g = self.set_gc_ps(s, now);
        let set = self.plm_set(s);
        set.report.gc_ps[was as usize] += g - set.gc_mark;
        set.gc_mark = g;
    }

    fn enter_nd(&mut self, now: SimTime, s: u32, out: &mut Outbox) -> Option<Transition> {
        self.settle_all_visits();
        self.close_gc(now, s, Window::Dt);
        let dies = self.layout.dies_of_set(s);
        for d in dies.clone() {
            self.plm.as_mut().unwrap().die_dt[d as usize] = false;
        }
        for (d, qi, t) in std::mem::take(&mut self.plm_set(s).held) {
            self.dies[d as usize].q[qi as usize].push_back(t);
        }
        if self.nvm_sets_share_dies() {
            // The dies are no longer all in DTWin: the die work other sets held goes too.
            let plm = self.plm.as_mut().unwrap();
            for set in plm.sets.iter_mut().flatten() {
                let (die_work, own): (Vec<_>, Vec<_>) = set.held.drain(..).partition(|&(_, qi, _)| !user_write_queue(qi as usize));
                set.held = own;
                for (d, qi, t) in die_work {
                    self.dies[d as usize].q[qi as usize].push_back(t);
                }
            }
        }
        let ppd = self.layout.dims[3];
        for p in dies.start * ppd..dies.end * ppd {
            self.maybe_start_gc(now, p, out);
        }
        self.nv_flush(now, s, out);
        for d in dies {
            self.kick(now, d, out);
        }
        if self.work_left(s) {
            None
        } else {
            self.plm_set(s).win.work_done(now)
        }
    }

    fn enter_dt(&mut self, now: SimTime, s: u32) -> Option<Transition> {
        self.settle_all_visits();
        self.close_gc(now, s, Window::Nd);
        let mut held = std::mem::take(&mut self.plm_set(s).held);
        for d in self.layout.dies_of_set(s) {
            let all_dt = self.layout.sets_of_die(d).all(|x| self.set_in_dt(x));
            self.plm.as_mut().unwrap().die_dt[d as usize] = all_dt;
            for qi in (0..self.dies[d as usize].q.len()).filter(|&qi| held_queue(qi)) {
                // Only non-empty queues are drained: a mutable access allocates an idle die's queues.
                if self.dies[d as usize].q[qi].is_empty() {
                    continue;
                }
                if all_dt {
                    held.extend(self.dies[d as usize].q[qi].drain(..).map(|t| (d, qi as u8, t)));
                } else if user_write_queue(qi) {
                    // Sets sharing the die: only this set's own writes wait for its NDWin.
                    let q = std::mem::take(&mut self.dies[d as usize].q[qi]);
                    for t in q {
                        if self.layout.set_of_lpa(self.txns[t as usize].lpa as u64) == s {
                            held.push((d, qi as u8, t));
                        } else {
                            self.dies[d as usize].q[qi].push_back(t);
                        }
                    }
                }
            }
        }
        let set = self.plm_set(s);
        set.report.held += held.len() as u64;
        set.held = held;
        // Hard-threshold GC cannot wait for the next NDWin.
        let (ppd, dies) = (self.layout.dims[3], self.layout.dies_of_set(s));
        if (dies.start * ppd..dies.end * ppd).any(|p| self.ftl.gc_need(p) == GcNeed::Hard) {
            return self.plm_set(s).win.emergency(now);
        }
        None
    }

    /// NV-buffer conservation: every page write taken in was written to flash, is on its way,
    /// or is still buffered.
    pub(super) fn plm_check(&self) -> Result<(), String> {
        for (s, set) in self.plm.iter().flat_map(|p| p.sets.iter().enumerate()) {
            let Some(set) = set else { continue };
            let r = &set.report;
            if r.nv_pages != r.nv_flushed + set.flushing as u64 + set.nv.len() as u64 {
                return Err(format!(
                    "NVM set {s}: {} NV-buffer pages in, {} flushed, {} flushing, {} buffered",
                    r.nv_pages,
                    r.nv_flushed,
                    set.flushing,
                    set.nv.len()
                ));
            }
        }
        Ok(())
    }

    /// Pages in set `s`'s NV buffer or on their way from it to flash (written but not yet on
    /// flash).
    pub fn nv_pending(&self, s: u32) -> u64 {
        self.plm.as_ref().and_then(|p| p.sets.get(s as usize)?.as_ref()).map_or(0, |set| set.nv.len() as u64 + set.flushing as u64)
    }

    /// Whether set `s` still has deferred work: buffered or flushing writes, held
    /// transactions, GC running or needed on its planes. A pool member whose turn has come
    /// (the host asked for DTWin) waits only for its buffer and held work and for hard-threshold
    /// GC: soft GC that a steady write stream keeps needing would otherwise hold it in NDWin to
    /// T_ND_MAX every time and break the pool's back-to-back turns (PLMC §II-B); what soft GC
    /// remains runs in its next NDWin.
    fn work_left(&self, s: u32) -> bool {
        let set = self.plm.as_ref().unwrap().sets[s as usize].as_ref().unwrap();
        if !set.nv.is_empty() || set.flushing > 0 || !set.held.is_empty() {
            return true;
        }
        let (ppd, dies) = (self.layout.dims[3], self.layout.dies_of_set(s));
        let planes = dies.start * ppd..dies.end * ppd;
        if set.win.pool_turn_waiting() {
            return planes.into_iter().any(|p| self.ftl.gc_need(p) == GcNeed::Hard);
        }
        planes.into_iter().any(|p| self.ftl.planes[p as usize].gc_jobs > 0 || self.ftl.gc_need(p) != GcNeed::None)
    }

    /// In NDWin, tells the window once the deferred work is done.
    fn plm_check_done(&mut self, now: SimTime, s: u32, out: &mut Outbox) {
        if self.plm_set(s).win.window() != Window::Nd || self.work_left(s) {
            return;
        }
        let tr = self.plm_set(s).win.work_done(now);
        self.plm_after(now, s, tr, out);
    }

    /// Arms set `s`'s timer for its next timed transition while it has commands in flight or
    /// deferred work. (So an unarmed set has nothing to do, and catching it up — which the
    /// time series and the summary do too — starts nothing: observing never changes a run.)
    fn plm_arm(&mut self, now: SimTime, s: u32, out: &mut Outbox) {
        let busy = self.plm_set(s).in_flight > 0 || self.work_left(s);
        let set = self.plm_set(s);
        if !busy {
            // An armed event is now stale: the next command catches up instead.
            set.armed = SimTime::MAX;
            return;
        }
        let due = set.win.deadline().max(now);
        if due == SimTime::MAX {
            // A pool member in NDWin waits for the host's request, not for a time.
            set.armed = SimTime::MAX;
            return;
        }
        if set.armed != due {
            set.armed = due;
            out.events.push((due, SsdEvent::Plm(s)));
        }
    }
}
