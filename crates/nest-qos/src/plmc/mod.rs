//! PLMC, the PLM coordinator (PLMC §III, thesis 3.3): at the start of every DTWin of an NVM-set
//! pool it allocates the set's DT counts C (4 KiB reads, C_RD) among its hosts — the
//! coordinator-directed prediction of each host's demand (`predict.rs`) or, host-directed (HoD,
//! the paper's oracle baseline), the exact demand the hosts will have — allocated by PLMC eq. 6
//! (`allocate.rs`) — and measures each host's utilization, deficiency and p90 read latency per
//! window (`metrics.rs`).
//!
//! The hosts enforce their allocation themselves (PLMC is not on the data path; they are trusted
//! to report their use). A read that fits in what is left of its host's allocation goes to the
//! DT-active replica. One that does not is an *overrun*, handled as configured ([`Overrun`]):
//! the thesis' host sends it to the DT-active replica anyway, where it spends the set's counts
//! and may force an NDWin; the paper's host asks PLMC for more counts, which PLMC grants from
//! the counts it allocated to nobody this window — and a refused read is served by a replica in
//! NDWin (non-deterministically, PLMC eq. 5); or, eq. 5's model itself, the read goes to NDWin
//! without asking. That decision is the host's agent's (`agent.rs`), taken where the host's
//! admission gate is.
//!
//! PLMC and its hosts talk in messages ([`crate::Msg`]): at a DTWin start PLMC sends each host
//! `Close`; each closes its window and `Report`s its demand; with every report in, PLMC
//! predicts, allocates and sends each host its `Alloc`; an overrunning host `Ask`s and PLMC
//! answers with a `Grant`. The World carries them over the network or at once; at once, the
//! exchange ends within the instant the window starts. A window that starts before the last
//! one's reports are all in is not allocated: the reports that came are folded into the
//! prediction, and the hosts go without counts until the next allocation reaches them.

mod agent;
pub mod allocate;
pub mod metrics;
pub mod predict;

use crate::{Action, Completion, Coordinator, DtPool, DtRead, Msg, MsgBody, Outbox};
use agent::Agent;
pub use allocate::{allocate, MinOverflow, Policy};
use metrics::percentile;
use nest_core::{HostId, SimTime};
use predict::Smoothing;

/// What a host does with a read its allocation does not cover.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Overrun {
    /// Sends it to the DT-active replica anyway (thesis 3.3.1): it may force an NDWin.
    Send,
    /// Asks PLMC for more counts (PLMC §III-A); refused, the read goes to a replica in NDWin.
    Ask,
    /// Sends it to a replica in NDWin without asking: PLMC eq. 5's model of a window whose
    /// demand exceeds the allocation (latency L_nd), and what the paper's measured deficiencies
    /// imply its simulation did (counts PLMC allocated to nobody stay unused).
    Nd,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlmcConfig {
    /// Its hosts, highest priority first.
    pub hosts: Vec<HostId>,
    /// C: the DT counts of the pool's sets per DTWin (their C_RD).
    pub c: u64,
    /// D_min per host (priority order).
    pub c_min: Vec<u64>,
    pub policy: Policy,
    pub overflow: MinOverflow,
    /// ζ of the smoothing (CoD).
    pub zeta: f64,
    /// HoD: allocate the exact demand given by [`Plmc::exact_demand`] instead of predicting.
    pub hod: bool,
    pub overrun: Overrun,
}

pub struct Plmc {
    cfg: PlmcConfig,
    /// Host id → index in `cfg.hosts` (`u32::MAX`: not one of its hosts).
    index: Vec<u32>,
    smoothing: Smoothing,
    pred: Vec<u64>,
    /// HoD: the next window's exact demand per host.
    exact: Vec<u64>,
    /// The last allocation PLMC made, per host in priority order (grants not included).
    alloc: Vec<u64>,
    /// Counts of the allocated window given to nobody (asks draw on them).
    free: u64,
    /// The window the allocation is for (0: none yet).
    allocated: u64,
    /// The window whose reports PLMC waits for, and the reports in so far.
    awaiting: Option<u64>,
    reports: Vec<Option<u64>>,
    /// Windows started (the pool's DTWins), and those never allocated because the next one
    /// started before their reports were all in.
    pub windows: u64,
    pub unallocated: u64,
    agents: Vec<Agent>,
}

impl Plmc {
    pub fn new(cfg: PlmcConfig) -> Plmc {
        let k = cfg.hosts.len();
        assert!(k > 0 && cfg.c_min.len() == k, "PLMC needs hosts and one minimum each");
        let mut index = vec![u32::MAX; cfg.hosts.iter().map(|h| h.ix() + 1).max().unwrap_or(0)];
        for (j, h) in cfg.hosts.iter().enumerate() {
            index[h.ix()] = j as u32;
        }
        let smoothing = Smoothing::new(cfg.zeta, k, cfg.c as f64 / k as f64);
        Plmc {
            index,
            smoothing,
            pred: Vec::new(),
            exact: vec![0; k],
            alloc: vec![0; k],
            free: 0,
            allocated: 0,
            awaiting: None,
            reports: vec![None; k],
            windows: 0,
            unallocated: 0,
            agents: vec![Agent::default(); k],
            cfg,
        }
    }

    #[inline]
    fn host_ix(&self, h: HostId) -> Option<usize> {
        self.index.get(h.ix()).filter(|&&j| j != u32::MAX).map(|&j| j as usize)
    }

    /// The last allocation, per host in priority order.
    pub fn allocation(&self) -> &[u64] {
        &self.alloc
    }

    /// What is left of each host's allocation as its agent knows it (priority order).
    pub fn left(&self) -> impl Iterator<Item = u64> + '_ {
        self.agents.iter().map(|a| a.alloc - a.used)
    }

    /// HoD: the hosts' exact demand over the next window (priority order).
    pub fn set_exact_demand(&mut self, demand: &[u64]) {
        self.exact.copy_from_slice(demand);
    }

    /// A DTWin of the pool starts: the first is allocated at once; for the others PLMC asks its
    /// hosts to close their windows and report.
    fn dt_window(&mut self, out: &mut Outbox) {
        if self.awaiting.take().is_some() {
            // Too late to allocate that window: fold in what was reported.
            self.smoothing.observe_reported(&self.reports);
            self.unallocated += 1;
        }
        self.windows += 1;
        if self.windows == 1 {
            return self.allocate(self.windows, out);
        }
        self.awaiting = Some(self.windows);
        self.reports.fill(None);
        for &host in &self.cfg.hosts {
            out.push(Action::Send(Msg { host, to_host: true, body: MsgBody::Close { window: self.windows } }));
        }
    }

    /// Predicts (after the first window, from the reports), allocates window `window` by PLMC
    /// eq. 6 and sends each host its counts.
    fn allocate(&mut self, window: u64, out: &mut Outbox) {
        if window > 1 {
            self.smoothing.observe_reported(&self.reports);
        }
        if self.cfg.hod {
            self.pred.clone_from(&self.exact);
        } else {
            self.smoothing.predictions(&mut self.pred);
        }
        allocate(&self.pred, &self.cfg.c_min, self.cfg.c, &self.cfg.policy, self.cfg.overflow, &mut self.alloc);
        self.free = self.cfg.c - self.alloc.iter().sum::<u64>();
        self.allocated = window;
        for (&host, &counts) in self.cfg.hosts.iter().zip(&self.alloc) {
            out.push(Action::Send(Msg { host, to_host: true, body: MsgBody::Alloc { window, counts } }));
        }
    }

    /// A host's message reached PLMC.
    fn on_host_message(&mut self, j: usize, body: MsgBody, out: &mut Outbox) {
        match body {
            MsgBody::Report { window, demand } => {
                if self.awaiting != Some(window) {
                    return; // a window PLMC gave up on
                }
                self.reports[j] = Some(demand);
                if self.reports.iter().all(Option::is_some) {
                    self.awaiting = None;
                    self.allocate(window, out);
                }
            }
            MsgBody::Ask { req, counts } => {
                // Only an allocation in force has counts to give (none while reports are awaited).
                let granted = self.awaiting.is_none() && self.allocated > 0 && self.free >= counts;
                if granted {
                    self.free -= counts;
                }
                let body = MsgBody::Grant { req, window: self.allocated, counts, granted };
                out.push(Action::Send(Msg { host: self.cfg.hosts[j], to_host: true, body }));
            }
            _ => unreachable!("a message for a host delivered to PLMC"),
        }
    }

    /// Delivers, at once and in order, the messages in `out` and those they lead to, and returns
    /// the placement they end with (PLMLight's coordinator and its hosts, and unit tests, talk
    /// without a network).
    fn exchange(&mut self, out: &mut Outbox) -> Option<bool> {
        let mut placed = None;
        let mut next = 0;
        while next < out.actions.len() {
            match out.actions[next] {
                Action::Send(m) => self.message(&m, out),
                Action::Place { dt, .. } => placed = Some(dt),
                a => unreachable!("PLMC does not ask for {a:?}"),
            }
            next += 1;
        }
        out.actions.clear();
        placed
    }

    /// A DTWin starts, with messages that take no time.
    pub fn window_start(&mut self) {
        let mut out = Outbox::default();
        self.dt_window(&mut out);
        self.exchange(&mut out);
    }

    /// Host `h` has a read of `counts` DT counts, with messages that take no time: whether it
    /// goes to the DT-active replica (`None`: not one of its hosts).
    pub fn read(&mut self, h: HostId, counts: u64) -> Option<bool> {
        let mut out = Outbox::default();
        match self.dt_read(SimTime::ZERO, h, counts, 0, &mut out)? {
            DtRead::Dt => Some(true),
            DtRead::Nd => Some(false),
            DtRead::Asked => self.exchange(&mut out),
        }
    }

    fn message(&mut self, m: &Msg, out: &mut Outbox) {
        let Some(j) = self.host_ix(m.host) else { unreachable!("a message for a host PLMC does not coordinate") };
        if m.to_host {
            self.agents[j].on_message(m.host, m.body, out);
        } else {
            self.on_host_message(j, m.body, out);
        }
    }
}

impl DtPool for Plmc {
    fn exact_demand(&mut self, demand: &[u64]) {
        self.set_exact_demand(demand);
    }

    fn on_dt_window(&mut self, _now: SimTime, out: &mut Outbox) {
        self.dt_window(out);
    }

    fn dt_read(&mut self, _now: SimTime, host: HostId, counts: u64, req: u64, out: &mut Outbox) -> Option<DtRead> {
        let j = self.host_ix(host)?;
        Some(self.agents[j].read(host, counts, req, self.cfg.overrun, out))
    }
}

impl Coordinator for Plmc {
    fn start(&mut self, _now: SimTime, _out: &mut Outbox) {}

    fn on_wake(&mut self, _now: SimTime, _token: u32, _out: &mut Outbox) {}

    fn as_dt_pool(&mut self) -> Option<&mut dyn DtPool> {
        Some(self)
    }

    fn on_message(&mut self, _now: SimTime, msg: &Msg, out: &mut Outbox) {
        self.message(msg, out);
    }

    fn on_completion(&mut self, _now: SimTime, c: &Completion, _out: &mut Outbox) {
        if c.write {
            return;
        }
        if let Some(j) = self.host_ix(c.host) {
            self.agents[j].metrics.read_done(c.latency, c.dt);
        }
    }

    fn measures_completions(&self) -> bool {
        true
    }

    fn report(&self) -> Vec<(&'static str, f64)> {
        vec![("windows", self.windows as f64), ("unallocated_windows", self.unallocated as f64)]
    }

    fn host_report(&self) -> Vec<(HostId, Vec<(&'static str, f64)>)> {
        let pct = |xs: &[f64]| [percentile(xs, 10.0), percentile(xs, 50.0), percentile(xs, 90.0)];
        self.cfg
            .hosts
            .iter()
            .zip(&self.agents)
            .map(|(&h, a)| {
                let (m, t) = (&a.metrics, &a.totals);
                let [u10, u50, u90] = pct(&m.utilization);
                let [v10, v50, v90] = pct(&m.deficiency);
                let [l10, l50, l90] = pct(&m.p90_us);
                let [d10, d50, d90] = pct(&m.p90_dt_us);
                (
                    h,
                    vec![
                        ("allocated", t.allocated as f64),
                        ("used", t.used as f64),
                        ("demand", t.demand as f64),
                        ("overruns", t.overruns as f64),
                        ("granted", t.granted as f64),
                        ("refused", t.refused as f64),
                        ("utilization_p10", u10),
                        ("utilization_p50", u50),
                        ("utilization_p90", u90),
                        ("deficiency_p10", v10),
                        ("deficiency_p50", v50),
                        ("deficiency_p90", v90),
                        ("p90_us_p10", l10),
                        ("p90_us_p50", l50),
                        ("p90_us_p90", l90),
                        ("p90_dt_us_p10", d10),
                        ("p90_dt_us_p50", d50),
                        ("p90_dt_us_p90", d90),
                    ],
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
