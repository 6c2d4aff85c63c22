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
//! without asking. [`Plmc::dt_read`] is that decision, taken where the host's admission gate is.

pub mod allocate;
pub mod metrics;
pub mod predict;

use crate::{Completion, Coordinator, Outbox};
pub use allocate::{allocate, MinOverflow, Policy};
use metrics::{percentile, HostWindows};
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

/// Per-host counters over the whole run.
#[derive(Clone, Debug, Default)]
struct HostTotals {
    allocated: u64,
    used: u64,
    demand: u64,
    /// Reads beyond the allocation sent anyway (Send), granted on asking or refused (Ask), or sent
    /// to NDWin (Nd: counted as refused).
    overruns: u64,
    granted: u64,
    refused: u64,
}

pub struct Plmc {
    cfg: PlmcConfig,
    /// Host id → index in `cfg.hosts` (`u32::MAX`: not one of its hosts).
    index: Vec<u32>,
    smoothing: Smoothing,
    pred: Vec<u64>,
    /// HoD: the next window's exact demand per host.
    exact: Vec<u64>,
    /// This window, per host: counts allocated, used within the allocation, demanded.
    alloc: Vec<u64>,
    used: Vec<u64>,
    demand: Vec<u64>,
    /// Counts of this window allocated to nobody (asks draw on them).
    free: u64,
    /// Whether a window is open (the pool's first DTWin has started).
    open: bool,
    pub windows: u64,
    metrics: Vec<HostWindows>,
    totals: Vec<HostTotals>,
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
        Plmc { index, smoothing, pred: Vec::new(), exact: vec![0; k], alloc: vec![0; k], used: vec![0; k], demand: vec![0; k], free: 0, open: false, windows: 0, metrics: vec![HostWindows::default(); k], totals: vec![HostTotals::default(); k], cfg }
    }

    #[inline]
    fn host_ix(&self, h: HostId) -> Option<usize> {
        self.index.get(h.ix()).filter(|&&j| j != u32::MAX).map(|&j| j as usize)
    }

    /// This window's allocation, per host in priority order.
    pub fn allocation(&self) -> &[u64] {
        &self.alloc
    }

    /// What is left of each host's allocation in this window (priority order).
    pub fn left(&self) -> impl Iterator<Item = u64> + '_ {
        self.alloc.iter().zip(&self.used).map(|(a, u)| a - u)
    }

    /// A DTWin of the pool starts: closes the last window's metrics, folds its demand into the
    /// prediction and allocates the new window's counts.
    pub fn window_start(&mut self) {
        if self.open {
            for j in 0..self.alloc.len() {
                self.metrics[j].close(self.alloc[j], self.used[j], self.demand[j]);
            }
            self.smoothing.observe(&self.demand);
        }
        self.open = true;
        self.windows += 1;
        if self.cfg.hod {
            self.pred.clone_from(&self.exact);
        } else {
            self.smoothing.predictions(&mut self.pred);
        }
        allocate(&self.pred, &self.cfg.c_min, self.cfg.c, &self.cfg.policy, self.cfg.overflow, &mut self.alloc);
        self.free = self.cfg.c - self.alloc.iter().sum::<u64>();
        for (t, &a) in self.totals.iter_mut().zip(&self.alloc) {
            t.allocated += a;
        }
        self.used.fill(0);
        self.demand.fill(0);
    }

    /// HoD: the hosts' exact demand over the next window (priority order).
    pub fn set_exact_demand(&mut self, demand: &[u64]) {
        self.exact.copy_from_slice(demand);
    }

    /// Host `h` has a read of `counts` DT counts: whether it goes to the DT-active replica
    /// (`None`: not one of its hosts).
    pub fn read(&mut self, h: HostId, counts: u64) -> Option<bool> {
        let j = self.host_ix(h)?;
        self.demand[j] += counts;
        let t = &mut self.totals[j];
        t.demand += counts;
        if !self.open {
            return Some(true);
        }
        if self.alloc[j] - self.used[j] >= counts {
            self.used[j] += counts;
            t.used += counts;
            return Some(true);
        }
        t.overruns += 1;
        Some(match self.cfg.overrun {
            Overrun::Send => true,
            Overrun::Ask if self.free >= counts => {
                self.free -= counts;
                self.alloc[j] += counts;
                self.used[j] += counts;
                t.allocated += counts;
                t.used += counts;
                t.granted += 1;
                true
            }
            Overrun::Ask | Overrun::Nd => {
                t.refused += 1;
                false
            }
        })
    }
}

impl Coordinator for Plmc {
    fn start(&mut self, _now: SimTime, _out: &mut Outbox) {}

    fn on_wake(&mut self, _now: SimTime, _token: u32, _out: &mut Outbox) {}

    fn exact_demand(&mut self, demand: &[u64]) {
        self.set_exact_demand(demand);
    }

    fn on_dt_window(&mut self, _now: SimTime, _out: &mut Outbox) {
        self.window_start();
    }

    fn dt_read(&mut self, _now: SimTime, host: HostId, counts: u64) -> Option<bool> {
        self.read(host, counts)
    }

    fn on_completion(&mut self, _now: SimTime, c: &Completion, _out: &mut Outbox) {
        if c.write {
            return;
        }
        if let Some(j) = self.host_ix(c.host) {
            self.metrics[j].read_done(c.latency);
        }
    }

    fn measures_completions(&self) -> bool {
        true
    }

    fn report(&self) -> Vec<(&'static str, f64)> {
        vec![("windows", self.windows as f64)]
    }

    fn host_report(&self) -> Vec<(HostId, Vec<(&'static str, f64)>)> {
        let pct = |xs: &[f64]| [percentile(xs, 10.0), percentile(xs, 50.0), percentile(xs, 90.0)];
        self.cfg
            .hosts
            .iter()
            .zip(self.metrics.iter().zip(&self.totals))
            .map(|(&h, (m, t))| {
                let [u10, u50, u90] = pct(&m.utilization);
                let [v10, v50, v90] = pct(&m.deficiency);
                let [l10, l50, l90] = pct(&m.p90_us);
                (h, vec![
                    ("allocated", t.allocated as f64), ("used", t.used as f64), ("demand", t.demand as f64),
                    ("overruns", t.overruns as f64), ("granted", t.granted as f64), ("refused", t.refused as f64),
                    ("utilization_p10", u10), ("utilization_p50", u50), ("utilization_p90", u90),
                    ("deficiency_p10", v10), ("deficiency_p50", v50), ("deficiency_p90", v90),
                    ("p90_us_p10", l10), ("p90_us_p50", l50), ("p90_us_p90", l90),
                ])
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
