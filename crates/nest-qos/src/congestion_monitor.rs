//! A congestion monitor at storage targets: it watches the channels a storage server sends on
//! (completions and read data back to the hosts) and counts what their DCQCN/QRDMA senders went
//! through — rate cuts on CNPs, raises, PFC pauses — overall and in the busiest millisecond, with
//! the lowest and the last rate. SRC's controller acts on exactly these signals (SRC §III: the
//! "pauses" and the demanded read rate at the target); the monitor shows them without acting.

use crate::{Action, Congestion, Coordinator, Outbox};
use nest_core::{FlowId, SimTime};

const MS: u64 = 1_000_000_000;

/// Signals counted per millisecond of simulated time: the most in any one.
#[derive(Clone, Debug, Default)]
pub struct BusiestMs {
    bucket: u64,
    in_bucket: u64,
    pub busiest: u64,
}

impl BusiestMs {
    pub fn count(&mut self, now: SimTime) {
        let b = now.0 / MS;
        if b != self.bucket {
            self.bucket = b;
            self.in_bucket = 0;
        }
        self.in_bucket += 1;
        self.busiest = self.busiest.max(self.in_bucket);
    }
}

pub struct CongestionMonitor {
    flows: Vec<FlowId>,
    pub cuts: u64,
    pub raises: u64,
    pub pauses: u64,
    /// Lowest rate a cut left a watched sender at, and the last rate reported (bits/s).
    pub min_rate_bps: f64,
    pub last_rate_bps: f64,
    /// Cuts + pauses per millisecond.
    pub busiest_ms: BusiestMs,
}

impl CongestionMonitor {
    pub fn new(flows: Vec<FlowId>) -> CongestionMonitor {
        CongestionMonitor { flows, cuts: 0, raises: 0, pauses: 0, min_rate_bps: f64::INFINITY, last_rate_bps: f64::NAN, busiest_ms: BusiestMs::default() }
    }
}

impl Coordinator for CongestionMonitor {
    fn start(&mut self, _now: SimTime, out: &mut Outbox) {
        for &flow in &self.flows {
            out.push(Action::Watch { flow });
        }
    }

    fn on_wake(&mut self, _now: SimTime, _token: u32, _out: &mut Outbox) {}

    fn on_congestion(&mut self, now: SimTime, _flow: FlowId, c: Congestion, _out: &mut Outbox) {
        match c {
            Congestion::RateCut { rate_bps } => {
                self.cuts += 1;
                self.min_rate_bps = self.min_rate_bps.min(rate_bps);
                self.last_rate_bps = rate_bps;
                self.busiest_ms.count(now);
            }
            Congestion::RateRaised { rate_bps } => {
                self.raises += 1;
                self.last_rate_bps = rate_bps;
            }
            Congestion::Paused => {
                self.pauses += 1;
                self.busiest_ms.count(now);
            }
        }
    }

    fn report(&self) -> Vec<(&'static str, f64)> {
        let finite = |x: f64| if x.is_finite() { x / 1e9 } else { 0.0 };
        vec![
            ("watched_channels", self.flows.len() as f64),
            ("rate_cuts", self.cuts as f64),
            ("rate_raises", self.raises as f64),
            ("pauses", self.pauses as f64),
            ("busiest_ms_signals", self.busiest_ms.busiest as f64),
            ("min_rate_gbps", finite(self.min_rate_bps)),
            ("last_rate_gbps", finite(self.last_rate_bps)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watches_its_flows_and_counts_cuts_raises_and_pauses_per_millisecond() {
        let mut m = CongestionMonitor::new(vec![FlowId(3), FlowId(5)]);
        let mut out = Outbox::default();
        m.start(SimTime::ZERO, &mut out);
        assert_eq!(out.actions, vec![Action::Watch { flow: FlowId(3) }, Action::Watch { flow: FlowId(5) }]);
        let us = SimTime::from_us;
        m.on_congestion(us(10), FlowId(3), Congestion::RateCut { rate_bps: 6e9 }, &mut out);
        m.on_congestion(us(20), FlowId(5), Congestion::RateCut { rate_bps: 4e9 }, &mut out);
        m.on_congestion(us(30), FlowId(5), Congestion::Paused, &mut out);
        m.on_congestion(us(1500), FlowId(3), Congestion::RateCut { rate_bps: 5e9 }, &mut out);
        m.on_congestion(us(1600), FlowId(3), Congestion::RateRaised { rate_bps: 7e9 }, &mut out);
        assert_eq!((m.cuts, m.raises, m.pauses), (3, 1, 1));
        assert_eq!(m.busiest_ms.busiest, 3, "two cuts and a pause in the first millisecond");
        let r: std::collections::BTreeMap<_, _> = m.report().into_iter().collect();
        assert_eq!((r["min_rate_gbps"], r["last_rate_gbps"]), (4.0, 7.0));
    }
}
