//! Arrival processes (SPEC §3): open-loop Poisson, constant rate and MMPP(2), and the
//! closed-loop "burst" that keeps N requests outstanding (Haechi uses 64).

use crate::mmpp::{Mmpp2, Mmpp2State};
use nest_core::rng::RngStream;
use nest_core::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub enum ArrivalSpec {
    /// Exponential inter-arrival times at this mean rate (requests per second).
    Poisson {
        rate: f64,
    },
    /// Evenly spaced arrivals at this rate (requests per second).
    Constant {
        rate: f64,
    },
    /// Closed loop: keep this many requests outstanding; a completion triggers the next issue.
    Burst {
        outstanding: u32,
    },
    Mmpp(Mmpp2),
}

impl ArrivalSpec {
    /// Mean arrivals per second of an open-loop process; `None` for a closed loop.
    pub fn mean_rate(&self) -> Option<f64> {
        match self {
            ArrivalSpec::Poisson { rate } | ArrivalSpec::Constant { rate } => Some(*rate),
            ArrivalSpec::Mmpp(p) => Some(p.mean_rate()),
            ArrivalSpec::Burst { .. } => None,
        }
    }

    pub fn outstanding(&self) -> Option<u32> {
        match self {
            ArrivalSpec::Burst { outstanding } => Some(*outstanding),
            _ => None,
        }
    }
}

/// Sampling state of an open-loop arrival process.
#[derive(Clone, Debug)]
pub struct ArrivalState {
    spec: ArrivalSpec,
    mmpp: Option<Mmpp2State>,
    /// Constant-rate arrivals keep a fractional remainder so long runs do not drift.
    carry_ps: f64,
}

impl ArrivalState {
    pub fn new(spec: ArrivalSpec, rng: &mut RngStream) -> Self {
        let mmpp = match &spec {
            ArrivalSpec::Mmpp(p) => Some(Mmpp2State::new(p, rng)),
            _ => None,
        };
        ArrivalState { spec, mmpp, carry_ps: 0.0 }
    }

    /// The gap to the next arrival; `None` for closed-loop processes.
    pub fn next_gap(&mut self, rng: &mut RngStream) -> Option<SimTime> {
        let ps = match &self.spec {
            ArrivalSpec::Poisson { rate } => rng.exponential(1e12 / rate),
            ArrivalSpec::Constant { rate } => {
                let exact = 1e12 / rate + self.carry_ps;
                let whole = exact.floor();
                self.carry_ps = exact - whole;
                whole
            }
            ArrivalSpec::Mmpp(p) => self.mmpp.as_mut().expect("set for MMPP").next_gap_s(p, rng) * 1e12,
            ArrivalSpec::Burst { .. } => return None,
        };
        Some(SimTime(ps.round().max(0.0) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_met() {
        let mut r = RngStream::from_seed(2);
        for spec in [ArrivalSpec::Poisson { rate: 50_000.0 }, ArrivalSpec::Constant { rate: 30_000.0 }] {
            let mut st = ArrivalState::new(spec.clone(), &mut r);
            let n = 100_000;
            let total: u64 = (0..n).map(|_| st.next_gap(&mut r).unwrap().0).sum();
            let rate = n as f64 / (total as f64 / 1e12);
            let want = match spec {
                ArrivalSpec::Poisson { rate } | ArrivalSpec::Constant { rate } => rate,
                _ => 0.0,
            };
            assert!((rate - want).abs() / want < 0.01, "{spec:?}: {rate}");
        }
        let mut b = ArrivalState::new(ArrivalSpec::Burst { outstanding: 8 }, &mut r);
        assert!(b.next_gap(&mut r).is_none());
    }
}
