//! Fixed-interval time series: per series and per interval, a sum and a count.
//!
//! The caller registers series up front (an index per series, no hashing per sample) and adds
//! samples with their time; closed intervals are drained as columns, so a long run can write
//! them out incrementally instead of holding the whole history.

use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct IntervalSeries {
    interval: SimTime,
    names: Vec<(String, String)>,
    /// Index of the first interval not yet drained.
    base: u64,
    /// Open intervals: `open[k][series]` = (sum, count) of interval `base + k`.
    open: Vec<Vec<(f64, u64)>>,
}

/// Drained rows in long format: one row per (interval, series) that had samples.
#[derive(Clone, Debug, Default)]
pub struct SeriesColumns {
    pub time_s: Vec<f64>,
    pub series: Vec<u32>,
    pub sum: Vec<f64>,
    pub count: Vec<u64>,
}

impl IntervalSeries {
    pub fn new(interval: SimTime) -> Self {
        assert!(interval.0 > 0, "interval must be positive");
        IntervalSeries { interval, names: Vec::new(), base: 0, open: Vec::new() }
    }

    pub fn interval(&self) -> SimTime {
        self.interval
    }

    /// Registers a series (`entity`, `metric`) and returns its index.
    pub fn register(&mut self, entity: &str, metric: &str) -> u32 {
        self.names.push((entity.to_string(), metric.to_string()));
        for row in &mut self.open {
            row.push((0.0, 0));
        }
        (self.names.len() - 1) as u32
    }

    pub fn names(&self) -> &[(String, String)] {
        &self.names
    }

    #[inline]
    pub fn add(&mut self, at: SimTime, series: u32, value: f64) {
        let k = at.0 / self.interval.0;
        if k < self.base {
            // Already drained (a sample dated before the last drain): fold into the oldest open one.
            return self.add_at_index(0, series, value);
        }
        let slot = (k - self.base) as usize;
        while self.open.len() <= slot {
            self.open.push(vec![(0.0, 0); self.names.len()]);
        }
        self.add_at_index(slot, series, value);
    }

    fn add_at_index(&mut self, slot: usize, series: u32, value: f64) {
        if self.open.is_empty() {
            self.open.push(vec![(0.0, 0); self.names.len()]);
        }
        let cell = &mut self.open[slot][series as usize];
        cell.0 += value;
        cell.1 += 1;
    }

    /// Moves every interval that ends at or before `now` (all of them when `now` is `None`) into
    /// `out`; `time_s` is the interval's start.
    pub fn drain_until(&mut self, now: Option<SimTime>, out: &mut SeriesColumns) {
        let closed = match now {
            Some(t) => ((t.0 / self.interval.0).saturating_sub(self.base) as usize).min(self.open.len()),
            None => self.open.len(),
        };
        for (k, row) in self.open.drain(..closed).enumerate() {
            let t = (self.base + k as u64) as f64 * self.interval.as_secs_f64();
            for (s, &(sum, count)) in row.iter().enumerate() {
                if count > 0 {
                    out.time_s.push(t);
                    out.series.push(s as u32);
                    out.sum.push(sum);
                    out.count.push(count);
                }
            }
        }
        self.base += closed as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_land_in_their_interval_and_drain_in_order() {
        let mut s = IntervalSeries::new(SimTime::from_ms(1));
        let a = s.register("high", "read_bytes");
        let b = s.register("low", "read_bytes");
        s.add(SimTime::from_us(100), a, 4096.0);
        s.add(SimTime::from_us(900), a, 4096.0);
        s.add(SimTime::from_us(1500), b, 8192.0);
        let mut out = SeriesColumns::default();
        s.drain_until(Some(SimTime::from_us(1200)), &mut out);
        assert_eq!(out.time_s, vec![0.0]);
        assert_eq!(out.sum, vec![8192.0]);
        assert_eq!(out.count, vec![2]);
        s.drain_until(None, &mut out);
        assert_eq!(out.series, vec![a, b]);
        assert_eq!(out.time_s[1], 0.001);
    }
}
