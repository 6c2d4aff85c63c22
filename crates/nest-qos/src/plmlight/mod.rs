//! PLMLight (thesis 3.6–3.7): Predictable Latency Mode emulated for an SSD that has none. Two
//! parts share one state per SSD:
//! - the **coordinator** PLMLC (outside the storage server, [`PlmLightCoordinator`]) allocates
//!   each host's read DCs per DTWin exactly as PLMC does (ζ-smoothed prediction, PLMC eq. 6 —
//!   the thesis' evaluation uses fixed ratio) and keeps the device's write DC, shared first come
//!   first served by every class; it measures each host's windows like PLMC;
//! - the **write-handling agent** WHA at the storage server ([`PlmLightRouter`], the NVMe-oF
//!   target's routing hook) places every write (`wha.rs`) and flushes the ones it sent to the
//!   fast device back to the SSD in NDWin.
//!
//! The windows are emulated (`window.rs`): a DTWin of T_DW ends early when a write does not fit
//! in the write DC. A read beyond its host's read DCs waits until the NDWin (PLMC eq. 5: the
//! thesis' "Low reads perform their reads during an NDWin period"); it is held at the target,
//! where the decision is taken (NeSt does not model the host ↔ PLMLC messages: the hosts are
//! trusted to respect their counts, thesis 3.6). In NDWin reads go straight to the SSD.
//! Reads of data still parked on the fast device are served by the SSD (the simulator moves no
//! data; with the sources' random workloads such reads are rare).

pub mod wha;
pub mod window;

use crate::plmc::{MinOverflow, Overrun, PlmcConfig, Policy};
use crate::{Completion, Coordinator, Outbox, Plmc};
use nest_core::{DeviceId, HostId, SimTime};
use nest_nvme::{CmdInfo, Router, RouterOut};
use std::sync::{Arc, Mutex, MutexGuard};
use wha::{Parked, Place, Wha};
use window::{Clock, NdCause, Win};

/// The agent's time series: window (1 DTWin, 0 NDWin), read DCs left in the window (all hosts),
/// write DC left, bytes parked on the fast device, reads held for NDWin.
pub const SERIES: [&str; 5] = ["plm_window", "read_dcs_left", "write_dc_left", "parked_bytes", "held_reads"];

/// Read and write DCs are counted in 4 KiB units (a request of S bytes spends ⌈S / 4 KiB⌉).
pub const DC_UNIT: u64 = 4096;

#[inline]
pub fn dc_counts(bytes: u32) -> u64 {
    (bytes as u64).max(1).div_ceil(DC_UNIT)
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlmLightConfig {
    /// Its hosts, highest priority first.
    pub hosts: Vec<HostId>,
    /// Read DCs of the device per DTWin, allocated among the hosts.
    pub read_counts: u64,
    pub c_min: Vec<u64>,
    pub policy: Policy,
    pub overflow: MinOverflow,
    pub zeta: f64,
    /// The device's write DC per DTWin (shared by every class, first come first served).
    pub write_counts: u64,
    pub ssd: DeviceId,
    pub fast: DeviceId,
    pub t_dw: SimTime,
    pub t_ndwl: SimTime,
    pub t_ndwh: SimTime,
    /// Writes smaller than this go to the fast device (0: none).
    pub small_below: u32,
    /// Bytes the fast device may hold for the SSD.
    pub fast_capacity: u64,
    /// Flushes in flight at once.
    pub flush_depth: u32,
    /// Writes arriving in NDWin go to the fast device too (else to the SSD: only the writes
    /// beyond the write DC are redirected, SPEC §13.7).
    pub nd_writes_to_fast: bool,
}

/// Reads of the SSD: within the host's DCs, held for NDWin, in NDWin, of hosts it does not cover.
#[derive(Clone, Debug, Default)]
struct Reads {
    dt: u64,
    held: u64,
    nd: u64,
    other: u64,
}

pub struct PlmLight {
    cfg: PlmLightConfig,
    clock: Clock,
    /// The read side is PLMC's allocator, metrics and overrun rule (eq. 5).
    reads_dc: Plmc,
    wha: Wha,
    /// What is left of this DTWin's write DC.
    write_left: u64,
    /// The earliest wake-up asked for and not yet delivered.
    pending_wake: Option<SimTime>,
    reads: Reads,
    /// Reads the target holds for it now (all are released when an NDWin starts).
    held_now: u64,
    /// When the last flush finished.
    flush_done_at: SimTime,
    /// The latest time it heard of.
    now: SimTime,
}

impl PlmLight {
    pub fn new(cfg: PlmLightConfig) -> PlmLight {
        let reads_dc = Plmc::new(PlmcConfig {
            hosts: cfg.hosts.clone(),
            c: cfg.read_counts,
            c_min: cfg.c_min.clone(),
            policy: cfg.policy.clone(),
            overflow: cfg.overflow,
            zeta: cfg.zeta,
            hod: false,
            overrun: Overrun::Nd,
        });
        assert!(cfg.write_counts > 0, "a write DC of at least 1 (checked at resolution)");
        PlmLight {
            clock: Clock::new(SimTime::ZERO, cfg.t_dw, cfg.t_ndwl, cfg.t_ndwh),
            wha: Wha::new(cfg.small_below, cfg.fast_capacity, cfg.flush_depth, cfg.nd_writes_to_fast),
            write_left: cfg.write_counts,
            reads_dc,
            pending_wake: None,
            reads: Reads::default(),
            held_now: 0,
            flush_done_at: SimTime::ZERO,
            now: SimTime::ZERO,
            cfg,
        }
    }

    /// The coordinator and the agent, sharing this state.
    pub fn split(self) -> (PlmLightCoordinator, PlmLightRouter) {
        let s = Arc::new(Mutex::new(self));
        (PlmLightCoordinator(s.clone()), PlmLightRouter(s))
    }

    pub fn window(&self) -> Win {
        self.clock.win
    }

    pub fn write_left(&self) -> u64 {
        self.write_left
    }

    pub fn wha(&self) -> &Wha {
        &self.wha
    }

    fn start(&mut self, now: SimTime, _out: &mut RouterOut) {
        self.now = now;
        self.clock = Clock::new(now, self.cfg.t_dw, self.cfg.t_ndwl, self.cfg.t_ndwh);
        self.reads_dc.window_start();
    }

    fn route(&mut self, now: SimTime, c: &CmdInfo, out: &mut RouterOut) -> Option<DeviceId> {
        self.catch_up(now, out);
        if c.device != self.cfg.ssd {
            return Some(c.device);
        }
        let dt = self.clock.win == Win::Dt;
        if c.write {
            let counts = dc_counts(c.bytes);
            let place = self.wha.place(c.bytes, counts, dt, self.write_left);
            self.wha.record(place, Parked { host: c.host, class_id: c.class_id, offset: c.offset, bytes: c.bytes });
            let to = match place {
                Place::Ssd => {
                    self.write_left -= counts;
                    if self.write_left == 0 {
                        self.enter_nd(now, NdCause::WriteDc, out);
                    }
                    self.cfg.ssd
                }
                Place::FastCap if dt => {
                    self.enter_nd(now, NdCause::WriteDc, out);
                    self.cfg.fast
                }
                Place::FastCap | Place::FastSmall => {
                    if !dt {
                        self.wha.pump(self.cfg.fast, out);
                    }
                    self.cfg.fast
                }
                Place::SsdFull | Place::SsdNd => self.cfg.ssd,
            };
            self.arm(now, out);
            return Some(to);
        }
        if !dt {
            // Held reads routed again at the release are among these.
            self.reads.nd += 1;
            return Some(self.cfg.ssd);
        }
        match self.reads_dc.read(c.host, dc_counts(c.bytes)) {
            None => {
                self.reads.other += 1;
                Some(self.cfg.ssd)
            }
            Some(true) => {
                self.reads.dt += 1;
                Some(self.cfg.ssd)
            }
            Some(false) => {
                self.reads.held += 1;
                self.held_now += 1;
                self.arm(now, out);
                None
            }
        }
    }

    /// Brings the windows up to `now`. The clock asks for wake-ups only while something waits
    /// on a window's end (held reads, writes to flush): an idle device's windows pass without
    /// events — a run that drains must be able to end — and are caught up here, each change at
    /// the time it was due, so the windows are those timely wake-ups would have given.
    fn catch_up(&mut self, now: SimTime, out: &mut RouterOut) {
        self.now = now;
        loop {
            let c = &self.clock;
            if c.dt_over(now) {
                self.enter_nd(c.since + c.t_dw, NdCause::Time, out);
            } else if c.nd_over(now, self.wha.idle()) {
                let cut = c.since + c.t_ndwh;
                let at = if self.wha.idle() { (c.since + c.t_ndwl).max(self.flush_done_at).min(cut) } else { cut };
                self.enter_dt(at);
            } else {
                return;
            }
        }
    }

    fn on_wake(&mut self, now: SimTime, out: &mut RouterOut) {
        if self.pending_wake.is_some_and(|p| p <= now) {
            self.pending_wake = None;
        }
        self.catch_up(now, out);
        self.arm(now, out);
    }

    fn background_done(&mut self, now: SimTime, tag: u32, out: &mut RouterOut) {
        self.catch_up(now, out);
        if self.wha.done(tag, self.cfg.ssd, out) {
            self.flush_done_at = now;
            if self.clock.win == Win::Nd {
                self.wha.pump(self.cfg.fast, out);
                self.catch_up(now, out);
            }
        }
        self.arm(now, out);
    }

    /// The DTWin ends: held reads go (to the SSD, now in NDWin) and the flush starts. Released
    /// reads are routed at the same instant, and an NDWin lasts at least T_NDWL > 0, so they are
    /// routed in NDWin.
    fn enter_nd(&mut self, now: SimTime, cause: NdCause, out: &mut RouterOut) {
        self.clock.to_nd(now, cause);
        if self.held_now > 0 {
            out.release = true;
            self.held_now = 0;
        }
        self.wha.pump(self.cfg.fast, out);
    }

    fn enter_dt(&mut self, now: SimTime) {
        self.clock.to_dt(now, !self.wha.idle());
        self.reads_dc.window_start();
        self.write_left = self.cfg.write_counts;
    }

    /// Asks for the wake-up the clock needs next — when held reads or writes to flush wait on
    /// it — unless an earlier one is already coming.
    fn arm(&mut self, now: SimTime, out: &mut RouterOut) {
        if self.held_now == 0 && self.wha.idle() {
            return;
        }
        let t = self.clock.next_check(now).max(now);
        if self.pending_wake.is_none_or(|p| t < p) {
            self.pending_wake = Some(t);
            out.wake = Some(t);
        }
    }

    fn report(&self) -> Vec<(&'static str, f64)> {
        let (dt, nd) = self.clock.times(self.now);
        let w = &self.wha;
        let r = &self.reads;
        vec![
            ("dt_windows", self.clock.dt_windows as f64),
            ("nd_windows", self.clock.nd_windows as f64),
            ("nd_forced_by_write_dc", self.clock.nd_forced as f64),
            ("nd_cut_at_t_ndwh", self.clock.nd_capped as f64),
            ("dt_time_ms", dt.0 as f64 / 1e9),
            ("nd_time_ms", nd.0 as f64 / 1e9),
            ("reads_in_dc", r.dt as f64),
            ("reads_held_for_nd", r.held as f64),
            ("reads_in_nd", r.nd as f64),
            ("reads_other_hosts", r.other as f64),
            ("writes_to_ssd", w.writes[Place::Ssd as usize] as f64),
            ("writes_to_fast_small", w.writes[Place::FastSmall as usize] as f64),
            ("writes_to_fast_beyond_dc", w.writes[Place::FastCap as usize] as f64),
            ("writes_to_ssd_fast_full", w.writes[Place::SsdFull as usize] as f64),
            ("writes_to_ssd_ndwin", w.writes[Place::SsdNd as usize] as f64),
            ("bytes_to_fast", w.to_fast_bytes as f64),
            ("bytes_flushed", w.flushed_bytes as f64),
            ("bytes_parked_at_end", w.parked_bytes as f64),
            ("peak_parked_bytes", w.peak_parked_bytes as f64),
        ]
    }
}

fn lock(s: &Mutex<PlmLight>) -> MutexGuard<'_, PlmLight> {
    // Single-threaded runs: a poisoned lock means a panic already unwound through a call.
    s.lock().unwrap_or_else(|e| e.into_inner())
}

/// PLMLC: the read-DC side as a coordinator (measures completions, reports).
pub struct PlmLightCoordinator(Arc<Mutex<PlmLight>>);

/// The write-handling agent at the storage server (the target's routing hook).
pub struct PlmLightRouter(Arc<Mutex<PlmLight>>);

impl Coordinator for PlmLightCoordinator {
    fn start(&mut self, _now: SimTime, _out: &mut Outbox) {}

    fn on_wake(&mut self, _now: SimTime, _token: u32, _out: &mut Outbox) {}

    fn on_completion(&mut self, now: SimTime, c: &Completion, out: &mut Outbox) {
        lock(&self.0).reads_dc.on_completion(now, c, out);
    }

    fn measures_completions(&self) -> bool {
        true
    }

    fn report(&self) -> Vec<(&'static str, f64)> {
        lock(&self.0).report()
    }

    fn host_report(&self) -> Vec<(HostId, Vec<(&'static str, f64)>)> {
        lock(&self.0).reads_dc.host_report()
    }
}

impl Router for PlmLightRouter {
    fn start(&mut self, now: SimTime, out: &mut RouterOut) {
        lock(&self.0).start(now, out);
    }

    fn route(&mut self, now: SimTime, cmd: &CmdInfo, out: &mut RouterOut) -> Option<DeviceId> {
        lock(&self.0).route(now, cmd, out)
    }

    fn background_done(&mut self, now: SimTime, tag: u32, out: &mut RouterOut) {
        lock(&self.0).background_done(now, tag, out);
    }

    fn on_wake(&mut self, now: SimTime, out: &mut RouterOut) {
        lock(&self.0).on_wake(now, out);
    }

    fn check(&self) -> Result<(), String> {
        lock(&self.0).wha.check()
    }

    fn series(&self) -> &'static [&'static str] {
        &SERIES
    }

    fn sample(&mut self, now: SimTime, out: &mut RouterOut, values: &mut Vec<f64>) {
        let mut s = lock(&self.0);
        // Idle windows are caught up here as on a command: nothing waits on them, so nothing is
        // asked for and sampling changes no result.
        s.catch_up(now, out);
        let read_left: u64 = s.reads_dc.left().sum();
        let v = [if s.clock.win == Win::Dt { 1.0 } else { 0.0 }, read_left as f64, s.write_left as f64, s.wha.parked_bytes as f64, s.held_now as f64];
        values.extend_from_slice(&v);
    }
}

#[cfg(test)]
mod tests;
