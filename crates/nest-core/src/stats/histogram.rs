//! A log-linear (HDR-style) histogram of non-negative integer values (picoseconds).
//!
//! Values below 256 are counted exactly; above, each power of two is split into 128 equal
//! sub-buckets, so a bucket is at most 1/128 of its lower edge wide and the reported midpoint is
//! within 0.4% of any value in it — inside the ≤1% error SPEC §2 allows. Mean, min and max are
//! exact. Recording is an index computation and an increment: no allocation once the histogram
//! has grown to the largest and smallest values seen. It keeps only the buckets from its smallest
//! value's to its largest's: summaries merge one per stream into per-device, per-class and
//! per-op totals, and zero-filled buckets below the smallest latency were most of those (issue
//! 24: ~12 KB each, a fifth of a 10,000-drive run's page faults).

const EXACT: u64 = 256;
const HALF: u64 = 128;

#[derive(Clone, Debug, Default)]
pub struct LatencyHistogram {
    /// `counts[k]` is bucket `base + k`.
    counts: Vec<u64>,
    base: usize,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

/// Mean and the percentiles NeSt reports everywhere, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LatencySummary {
    pub mean_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub p99_9_us: f64,
    pub max_us: f64,
}

#[inline]
fn index_of(v: u64) -> usize {
    if v < EXACT {
        return v as usize;
    }
    let msb = 63 - v.leading_zeros() as u64;
    let shift = msb - 7;
    let top = v >> shift;
    (EXACT + (shift - 1) * HALF + (top - HALF)) as usize
}

/// The lowest value and the width of bucket `idx`.
#[inline]
fn bucket_bounds(idx: usize) -> (u64, u64) {
    let idx = idx as u64;
    if idx < EXACT {
        return (idx, 1);
    }
    let rel = idx - EXACT;
    let shift = rel / HALF + 1;
    let top = rel % HALF + HALF;
    (top << shift, 1u64 << shift)
}

impl LatencyHistogram {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        let i = index_of(v);
        match self.counts.get_mut(i.wrapping_sub(self.base)) {
            Some(c) => *c += 1,
            None => {
                self.cover(i, i);
                self.counts[i - self.base] += 1;
            }
        }
        if self.count == 0 || v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
        self.count += 1;
        self.sum += v as u128;
    }

    pub fn count(&self) -> u64 {
        self.count
    }
    pub fn min(&self) -> u64 {
        self.min
    }
    pub fn max(&self) -> u64 {
        self.max
    }
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// The value at percentile `p` (0–100): the smallest recorded value such that at least
    /// p% of values are ≤ it, reported as its bucket's midpoint clamped to [min, max].
    pub fn percentile(&self, p: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((p / 100.0) * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (k, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, w) = bucket_bounds(self.base + k);
                let mid = lo + (w - 1) / 2;
                return mid.clamp(self.min, self.max);
            }
        }
        self.max
    }

    pub fn merge(&mut self, other: &LatencyHistogram) {
        if other.count == 0 {
            return;
        }
        // Only the buckets between the other's min and max hold counts.
        let (lo, hi) = (index_of(other.min), index_of(other.max));
        self.cover(lo, hi);
        let theirs = &other.counts[lo - other.base..=hi - other.base];
        for (a, b) in self.counts[lo - self.base..=hi - self.base].iter_mut().zip(theirs) {
            *a += b;
        }
        if self.count == 0 || other.min < self.min {
            self.min = other.min;
        }
        self.max = self.max.max(other.max);
        self.count += other.count;
        self.sum += other.sum;
    }

    /// Makes room for buckets `lo..=hi`.
    fn cover(&mut self, lo: usize, hi: usize) {
        if self.counts.is_empty() {
            self.base = lo;
            self.counts.resize(hi - lo + 1, 0);
            return;
        }
        if lo < self.base {
            self.counts.splice(0..0, std::iter::repeat_n(0, self.base - lo));
            self.base = lo;
        }
        if hi >= self.base + self.counts.len() {
            self.counts.resize(hi + 1 - self.base, 0);
        }
    }

    /// Summary with values converted from picoseconds to microseconds.
    pub fn summary_us(&self) -> LatencySummary {
        let us = |ps: u64| ps as f64 / 1e6;
        LatencySummary {
            mean_us: self.mean() / 1e6,
            p50_us: us(self.percentile(50.0)),
            p90_us: us(self.percentile(90.0)),
            p99_us: us(self.percentile(99.0)),
            p99_9_us: us(self.percentile(99.9)),
            max_us: us(self.max),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::RngStream;

    #[test]
    fn bucket_index_and_bounds_agree() {
        for v in [0u64, 1, 255, 256, 257, 511, 512, 1000, 123_456_789, u64::MAX / 3, u64::MAX] {
            let (lo, w) = bucket_bounds(index_of(v));
            assert!(lo <= v && v - lo < w, "v={v} lo={lo} w={w}");
            assert!(w == 1 || (w as f64) / (lo as f64) <= 1.0 / 128.0 + 1e-12);
        }
    }

    #[test]
    fn percentiles_within_one_percent_of_exact() {
        let mut r = RngStream::from_seed(3);
        let mut h = LatencyHistogram::new();
        let mut xs: Vec<u64> = (0..100_000).map(|_| (r.exponential(80e6) as u64) + 1_000_000).collect();
        for &x in &xs {
            h.record(x);
        }
        xs.sort_unstable();
        for p in [50.0, 90.0, 99.0, 99.9] {
            let rank = ((p / 100.0) * xs.len() as f64).ceil() as usize;
            let exact = xs[rank - 1] as f64;
            let got = h.percentile(p) as f64;
            assert!((got - exact).abs() / exact < 0.01, "p{p}: got {got}, exact {exact}");
        }
        let exact_mean = xs.iter().map(|&x| x as f64).sum::<f64>() / xs.len() as f64;
        assert!((h.mean() - exact_mean).abs() < 1e-6 * exact_mean);
        assert_eq!(h.max(), *xs.last().unwrap());
    }

    #[test]
    fn recording_in_any_order_gives_the_same_percentiles() {
        let xs: Vec<u64> = (1..3000u64).map(|v| (v * 7919) % 2999 * 1_000_003 + v).collect();
        let (mut fwd, mut sorted) = (LatencyHistogram::new(), LatencyHistogram::new());
        xs.iter().for_each(|&x| fwd.record(x));
        let mut ys = xs.clone();
        ys.sort_unstable_by(|a, b| b.cmp(a)); // largest first: every new bucket lies below
        ys.iter().for_each(|&x| sorted.record(x));
        for p in [0.1, 10.0, 50.0, 90.0, 99.9, 100.0] {
            assert_eq!(fwd.percentile(p), sorted.percentile(p));
        }
        assert_eq!(fwd.counts, sorted.counts);
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let (mut a, mut b, mut all) = (LatencyHistogram::new(), LatencyHistogram::new(), LatencyHistogram::new());
        for v in 0..5000u64 {
            let x = v * v * 37;
            if v % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            all.record(x);
        }
        a.merge(&b);
        // And in the other order, onto an empty one, and from a histogram whose values lie below.
        let mut c = LatencyHistogram::new();
        c.merge(&b);
        c.merge(&LatencyHistogram::new());
        let mut low = LatencyHistogram::new();
        for v in 0..5000u64 {
            if v % 3 == 0 {
                low.record(v * v * 37)
            }
        }
        c.merge(&low);
        assert_eq!((c.count(), c.min(), c.max()), (all.count(), all.min(), all.max()));
        assert!(c.counts.len() <= index_of(all.max()) - index_of(all.min()) + 1);
        assert_eq!(a.count(), all.count());
        for p in [1.0, 50.0, 99.0] {
            assert_eq!(a.percentile(p), all.percentile(p));
            assert_eq!(c.percentile(p), all.percentile(p));
        }
    }
}
