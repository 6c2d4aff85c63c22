//! SRC's workload monitor (SRC §III-B, §III-C): the features Ch of the requests that arrived at a
//! target over the last δ (10 ms in the paper), which the throughput prediction model reads with
//! the write weight w — the read share of requests, the squared coefficient of variation (SCV) of
//! request size and of inter-arrival time for reads and for writes, and the read and write
//! arrival "flow speed" (bytes arrived per second).
//!
//! The paper names "the ratio of read requests to write requests"; NeSt gives it bounded, as the
//! read share reads / (reads + writes) (a window of reads only has no finite ratio). Each type's
//! gaps are between consecutive arrivals of that type inside the window; with fewer than two
//! values an SCV is 0.

use nest_core::SimTime;
use std::collections::VecDeque;

/// Ch: the features of one window. Index 0 is reads, 1 writes.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Features {
    pub read_share: f64,
    pub scv_size: [f64; 2],
    pub scv_gap: [f64; 2],
    /// Bytes arrived per second.
    pub speed: [f64; 2],
}

impl Features {
    /// The model's input order (w is appended by the caller).
    pub fn as_array(&self) -> [f64; 7] {
        [self.read_share, self.scv_size[0], self.scv_size[1], self.scv_gap[0], self.scv_gap[1], self.speed[0], self.speed[1]]
    }
}

/// Names of [`Features::as_array`], for the training pipeline.
pub const FEATURE_NAMES: [&str; 7] = ["read_share", "scv_size_read", "scv_size_write", "scv_gap_read", "scv_gap_write", "speed_read", "speed_write"];

pub struct WorkloadMonitor {
    delta: SimTime,
    /// Arrivals inside the window: (time, bytes, write), oldest first.
    window: VecDeque<(SimTime, u32, bool)>,
}

/// The SCV of `xs`: population variance over the squared mean (0 with fewer than two values).
fn scv(xs: impl Iterator<Item = f64>) -> f64 {
    let (mut n, mut sum, mut sq) = (0.0f64, 0.0f64, 0.0f64);
    for x in xs {
        n += 1.0;
        sum += x;
        sq += x * x;
    }
    if n < 2.0 || sum <= 0.0 {
        return 0.0;
    }
    let mean = sum / n;
    ((sq / n - mean * mean) / (mean * mean)).max(0.0)
}

impl WorkloadMonitor {
    pub fn new(delta: SimTime) -> WorkloadMonitor {
        assert!(delta > SimTime::ZERO, "δ > 0 (checked at resolution)");
        WorkloadMonitor { delta, window: VecDeque::new() }
    }

    /// A request of `bytes` arrived at `now`.
    pub fn record(&mut self, now: SimTime, bytes: u32, write: bool) {
        self.evict(now);
        self.window.push_back((now, bytes, write));
    }

    fn evict(&mut self, now: SimTime) {
        let from = SimTime(now.0.saturating_sub(self.delta.0));
        while self.window.front().is_some_and(|&(t, _, _)| t < from) {
            self.window.pop_front();
        }
    }

    /// Ch over [now − δ, now].
    pub fn features(&mut self, now: SimTime) -> Features {
        self.evict(now);
        let mut f = Features::default();
        let (mut count, mut bytes) = ([0u64; 2], [0u64; 2]);
        for &(_, b, w) in &self.window {
            count[w as usize] += 1;
            bytes[w as usize] += b as u64;
        }
        let total = count[0] + count[1];
        f.read_share = if total > 0 { count[0] as f64 / total as f64 } else { 0.0 };
        let secs = self.delta.0 as f64 / 1e12;
        // `t` (read, write) indexes four arrays: a range loop reads best.
        #[allow(clippy::needless_range_loop)]
        for t in 0..2 {
            let of = |&&(_, _, w): &&(SimTime, u32, bool)| w as usize == t;
            f.scv_size[t] = scv(self.window.iter().filter(of).map(|&(_, b, _)| b as f64));
            // Gaps between consecutive arrivals of the type (no allocation: this runs at every
            // congestion event).
            let mut prev: Option<SimTime> = None;
            f.scv_gap[t] = scv(self.window.iter().filter(of).filter_map(|&(at, _, _)| prev.replace(at).map(|p| (at.0 - p.0) as f64)));
            f.speed[t] = bytes[t] as f64 / secs;
        }
        f
    }

    /// Requests in the window (as of the last call).
    pub fn len(&self) -> usize {
        self.window.len()
    }

    pub fn is_empty(&self) -> bool {
        self.window.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> SimTime {
        SimTime::from_us(x)
    }

    #[test]
    fn regular_arrivals_have_no_variation_and_their_speed_is_bytes_per_second() {
        let mut m = WorkloadMonitor::new(SimTime::from_ms(10));
        // A 4 KiB read every 10 µs and a 16 KiB write every 20 µs, for 10 ms.
        for k in 0..1000 {
            m.record(us(10 * k), 4096, false);
            if k % 2 == 0 {
                m.record(us(10 * k + 5), 16384, true);
            }
        }
        let f = m.features(us(9_999));
        assert!((f.read_share - 1000.0 / 1500.0).abs() < 1e-12);
        assert_eq!((f.scv_size, f.scv_gap), ([0.0; 2], [0.0; 2]));
        assert!((f.speed[0] - 4096.0 * 1000.0 / 0.01).abs() < 1e-3, "{}", f.speed[0]);
        assert!((f.speed[1] - 16384.0 * 500.0 / 0.01).abs() < 1e-3);
    }

    #[test]
    fn scvs_follow_their_definition_and_old_arrivals_leave_the_window() {
        let mut m = WorkloadMonitor::new(us(100));
        m.record(us(0), 1024, false);
        m.record(us(10), 3072, false);
        m.record(us(40), 1024, false);
        m.record(us(40), 3072, false);
        let f = m.features(us(50));
        // Sizes 1, 3, 1, 3 KiB: SCV 1/4; gaps 10, 30, 0 µs: mean 40/3, SCV (m2 − m²)/m² = 1000/3 / (1600/9) − 1 = 7/8.
        assert!((f.scv_size[0] - 0.25).abs() < 1e-12, "{}", f.scv_size[0]);
        assert!((f.scv_gap[0] - 0.875).abs() < 1e-12, "{}", f.scv_gap[0]);
        assert_eq!((f.read_share, f.scv_size[1], f.speed[1]), (1.0, 0.0, 0.0));
        // At 105 µs the arrival at 0 has left (the window is [5, 105] µs).
        assert_eq!(m.features(us(105)).speed[0], (3072.0 + 1024.0 + 3072.0) / 100e-6);
        m.features(us(141));
        assert_eq!(m.len(), 0, "[41, 141]: nothing left");
        assert_eq!(m.features(us(141)), Features::default());
    }
}
