//! SRC's Algorithm 1 (SRC §III-C): on a congestion event that demands a data sending rate r,
//! pick the write weight w whose predicted read throughput is closest to r.
//!
//! PredictWeightRatio, as printed: start at w = 1; if the predicted read throughput is already
//! below r, keep 1; otherwise raise w one step at a time, keeping the w whose prediction is
//! closest to r, while the prediction still changes by at least τ (relative to the previous
//! step's). Two guards the paper does not need for its models and NeSt states: the search stops at
//! `w_max` (a model whose prediction never converges would loop forever), and when the previous
//! prediction is 0 (no relative change to compute; nothing lower to reach).

use super::monitor::{Features, WorkloadMonitor};
use nest_core::SimTime;

/// The throughput prediction model: (read, write) throughput, bytes/s, for features Ch and w.
pub trait ThroughputModel: Send + Sync {
    fn predict(&self, ch: &Features, w: u32) -> (f64, f64);
}

/// A model shared (a scenario's plan and the run hold the same one).
impl<T: ThroughputModel + ?Sized> ThroughputModel for std::sync::Arc<T> {
    fn predict(&self, ch: &Features, w: u32) -> (f64, f64) {
        (**self).predict(ch, w)
    }
}

/// PredictWeightRatio(r, Ch).
pub fn predict_weight_ratio(model: &dyn ThroughputModel, r: f64, ch: &Features, tau: f64, w_max: u32) -> u32 {
    let mut w = 1;
    let mut best = 1;
    let (mut read, _) = model.predict(ch, w);
    if read < r {
        return 1;
    }
    let mut min_dis = (read - r).abs();
    loop {
        if w >= w_max {
            return best;
        }
        w += 1;
        let pre = read;
        (read, _) = model.predict(ch, w);
        let dis = (read - r).abs();
        if dis < min_dis {
            min_dis = dis;
            best = w;
        }
        if pre <= 0.0 || (pre - read).abs() / pre < tau {
            return best;
        }
    }
}

/// DynamicAdjustment: the monitor's window and the model, applied at each congestion event.
pub struct DynamicAdjustment {
    pub monitor: WorkloadMonitor,
    model: Box<dyn ThroughputModel>,
    tau: f64,
    w_max: u32,
}

impl DynamicAdjustment {
    pub fn new(delta: SimTime, model: Box<dyn ThroughputModel>, tau: f64, w_max: u32) -> DynamicAdjustment {
        assert!(tau > 0.0 && w_max >= 1, "τ > 0 and w_max ≥ 1 (checked at resolution)");
        DynamicAdjustment { monitor: WorkloadMonitor::new(delta), model, tau, w_max }
    }

    /// A congestion event demanding read rate `r` (bytes/s) at `now`: the w to apply to the SSQ.
    /// (The paper's record WR of the weights is the run's `write_weight` time series.)
    pub fn decide(&mut self, now: SimTime, r: f64) -> u32 {
        let ch = self.monitor.features(now);
        self.decide_on(&ch, r)
    }

    /// The same, on features the caller already took from the monitor.
    pub fn decide_on(&self, ch: &Features, r: f64) -> u32 {
        predict_weight_ratio(self.model.as_ref(), r, ch, self.tau, self.w_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;

    /// Read throughput 10/w (units of r), write 1 + w; counts its calls.
    struct Stub(Arc<AtomicU32>);
    impl ThroughputModel for Stub {
        fn predict(&self, _ch: &Features, w: u32) -> (f64, f64) {
            self.0.fetch_add(1, Ordering::Relaxed);
            (10.0 / w as f64, 1.0 + w as f64)
        }
    }

    #[test]
    fn the_weight_whose_predicted_read_throughput_is_closest_to_the_demand_is_chosen() {
        let calls = Arc::new(AtomicU32::new(0));
        let m = Stub(calls.clone());
        let ch = Features::default();
        assert_eq!(predict_weight_ratio(&m, 12.0, &ch, 0.1, 64), 1, "10 < 12 at w = 1: keep 1");
        assert_eq!(calls.swap(0, Ordering::Relaxed), 1);
        assert_eq!(predict_weight_ratio(&m, 6.0, &ch, 0.1, 64), 2, "5 is closest to 6");
        // The search goes on while 10/w changes by ≥ 10 %: from w = 10 (1.0) to 11 (0.909) it
        // changes by 9.1 %: the last prediction is at w = 11.
        assert_eq!(calls.swap(0, Ordering::Relaxed), 11);
        assert_eq!(predict_weight_ratio(&m, 3.0, &ch, 0.1, 64), 3, "3.33 is closer to 3 than 2.5");
        assert_eq!(predict_weight_ratio(&m, 0.5, &ch, 0.1, 64), 11, "the lowest prediction the search reaches");
        assert_eq!(predict_weight_ratio(&m, 0.5, &ch, 0.1, 4), 4, "w_max stops it");
        assert_eq!(predict_weight_ratio(&m, 0.5, &ch, 0.5, 64), 3, "τ = 50 %: 5 → 3.33 changes by 33 %, the search stops at w = 3");
    }

    #[test]
    fn each_event_reads_the_monitor_window() {
        struct Speed;
        impl ThroughputModel for Speed {
            // Predicts the read flow speed the monitor saw, divided by w.
            fn predict(&self, ch: &Features, w: u32) -> (f64, f64) {
                (ch.speed[0] / w as f64, 0.0)
            }
        }
        let mut a = DynamicAdjustment::new(SimTime::from_ms(10), Box::new(Speed), 0.1, 64);
        for k in 0..100 {
            a.monitor.record(SimTime::from_us(100 * k), 50_000, false); // 500 MB/s over 10 ms
        }
        assert_eq!(a.decide(SimTime::from_us(9_950), 250e6), 2, "500 MB/s seen, 250 MB/s demanded: w = 2");
        assert_eq!(a.decide(SimTime::from_us(25_000), 250e6), 1, "15 ms later the window is empty: 0 predicted, w = 1");
    }
}
