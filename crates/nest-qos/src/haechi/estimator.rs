//! Haechi's Algorithm 1, adaptive capacity estimation: at the end of each period the monitor
//! sums the I/Os the clients completed, U, and sets the next period's capacity Ω_{t+1}:
//! - U reached the estimate Ω_t (every token was used: the capacity may be underestimated):
//!   Ω_t + η;
//! - Ω_min ≤ U < Ω_t (Ω_min = Ω_prof − 3σ, from profiling): U joins a window of the last M such
//!   values, and Ω_{t+1} is their mean;
//! - U below Ω_min (a period of low demand says nothing about the capacity): Ω_t is kept.
//!
//! The paper's test is U == Ω_t. With token conversion the monitor may hand out more tokens
//! than Ω_t over a period, so U can exceed it: NeSt reads "U ≥ Ω_t" (stated in docs/haechi.md).
//! η and M have no values in the source: they are parameters.

use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub struct CapacityEstimator {
    /// The current estimate Ω_t (I/Os per period).
    pub omega: u64,
    pub omega_min: u64,
    pub eta: u64,
    pub m: usize,
    window: VecDeque<u64>,
}

/// Which branch of Algorithm 1 a period took.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Raised,
    Averaged,
    Kept,
}

impl CapacityEstimator {
    /// Starts at the profiled capacity Ω_prof with Ω_min = Ω_prof − 3σ.
    pub fn new(omega_prof: u64, sigma: f64, eta: u64, m: usize) -> CapacityEstimator {
        assert!(m >= 1, "a window of at least one period (checked at resolution)");
        let omega_min = (omega_prof as f64 - 3.0 * sigma).max(0.0) as u64;
        CapacityEstimator { omega: omega_prof, omega_min, eta, m, window: VecDeque::with_capacity(m + 1) }
    }

    /// The period's total completed I/Os U: the next period's estimate, and the branch taken.
    pub fn next(&mut self, u: u64) -> (u64, Step) {
        let step = if u >= self.omega {
            self.omega += self.eta;
            Step::Raised
        } else if u >= self.omega_min {
            self.window.push_back(u);
            if self.window.len() > self.m {
                self.window.pop_front();
            }
            self.omega = self.window.iter().sum::<u64>() / self.window.len() as u64;
            Step::Averaged
        } else {
            Step::Kept
        };
        (self.omega, step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_branch_of_algorithm_1() {
        // Ω_prof 1570 K, σ 10 K: Ω_min 1540 K; η 5 K; a window of 3.
        let mut e = CapacityEstimator::new(1_570_000, 10_000.0, 5_000, 3);
        assert_eq!(e.omega_min, 1_540_000);
        assert_eq!(e.next(1_570_000), (1_575_000, Step::Raised), "every token used: +η");
        assert_eq!(e.next(1_600_000), (1_580_000, Step::Raised), "more than the estimate (conversion): +η");
        assert_eq!(e.next(1_000_000), (1_580_000, Step::Kept), "a low-demand period says nothing");
        assert_eq!(e.next(1_560_000), (1_560_000, Step::Averaged));
        assert_eq!(e.next(1_550_000), (1_555_000, Step::Averaged), "mean of 1560 K and 1550 K");
        assert_eq!(e.next(1_541_000), (1_550_333, Step::Averaged));
        assert_eq!(e.next(1_545_000), (1_545_333, Step::Averaged), "the window keeps the last M = 3: 1550, 1541, 1545 K");
        assert_eq!(e.next(1_539_999), (1_545_333, Step::Kept), "just below Ω_min");
    }
}
