//! What a caller reads of a running or finished simulation: its clock and progress, and the
//! outputs it drains between steps (finished requests, closed time-series intervals).

use crate::request::RequestColumns;
use crate::sim::Simulation;
use nest_config::resolve::Resolved;
use nest_core::stats::series::SeriesColumns;
use nest_core::SimTime;

impl Simulation {
    pub fn now(&self) -> SimTime {
        self.now
    }
    pub fn events(&self) -> u64 {
        self.events
    }
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint.value()
    }
    pub fn is_finished(&self) -> bool {
        self.finished
    }
    pub fn resolved(&self) -> &Resolved {
        &self.resolved
    }
    /// Packet-hops the fabric has carried (0 without a network).
    pub fn packet_hops(&self) -> u64 {
        self.net.as_ref().map_or(0, |n| n.fabric.totals.hops)
    }
    /// Completed requests so far.
    pub fn completed(&self) -> u64 {
        self.stats.completed
    }
    /// Fraction of the run done, when the run has a known length.
    pub fn progress(&self) -> Option<f64> {
        self.resolved.run.duration.map(|d| (self.now.as_secs_f64() / d.as_secs_f64().max(1e-12)).min(1.0))
    }

    /// Takes the finished requests recorded since the last call.
    pub fn drain_requests(&mut self) -> RequestColumns {
        std::mem::take(&mut self.columns)
    }

    /// Hands the finished requests recorded since the last drain to `f`, then empties the
    /// columns keeping their memory: what a caller that copies the rows out (the Python
    /// binding) uses, so that a long run recycles one set of columns (issue 24).
    pub fn drain_requests_with<R>(&mut self, f: impl FnOnce(&RequestColumns) -> R) -> R {
        let out = f(&self.columns);
        self.columns.clear();
        out
    }

    /// Takes the closed time-series intervals (all of them once the run has finished).
    pub fn drain_series(&mut self) -> SeriesColumns {
        let mut out = SeriesColumns::default();
        let until = if self.finished { None } else { Some(self.now) };
        self.stats.drain_series(until, &mut out);
        out
    }

    /// The measurement window on arrival times: [warm-up, duration − wrap-up), open-ended without
    /// a duration. A request is measured (in the summary's statistics) when it arrived inside.
    pub fn measured_window(&self) -> (SimTime, Option<SimTime>) {
        (self.stats.window_start, self.stats.window_end)
    }

    /// (entity, metric) of every series id.
    pub fn series_names(&self) -> Vec<(String, String)> {
        self.stats.series.names().to_vec()
    }
}
