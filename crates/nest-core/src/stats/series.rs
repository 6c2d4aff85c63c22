//! Fixed-interval time series: per series and per interval, a sum and a count.
//!
//! The caller registers series up front (an index per series, no hashing per sample) and adds
//! samples with their time; closed intervals are drained as columns, so a long run can write
//! them out incrementally instead of holding the whole history.
//!
//! Two kinds of series. An *event* series sums what happened in an interval (bytes completed,
//! latencies to average) and has a row only for intervals with events. A *gauge* samples a state
//! (a queue length, a window) once per interval. With [`Rows::Change`] a gauge has a row only when
//! its value (the mean of its samples in the interval) differs from its previous row, and at its
//! last sampled interval — read it forward-filled. That makes fine intervals
//! cost what the state's changes cost: at 1 µs on the DCTCP dumbbell only ~10 % of the samples
//! differ from the one before (issue 24).

use crate::time::SimTime;

/// Which intervals of a gauge get a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Rows {
    /// Every interval (the default): a table anyone can average row by row.
    #[default]
    Interval,
    /// Only the intervals where the gauge's value changed (and its first).
    Change,
}

/// A series kept as a change log rather than a dense column (a gauge with [`Rows::Change`]).
const CHANGE_LOG: u32 = u32::MAX;
/// Open intervals a sample may lie beyond the last open one before the dense buffer restarts
/// there (`IntervalSeries::skip_to`) instead of growing through the empty ones between.
const GAP: usize = 4096;

#[derive(Clone, Debug)]
pub struct IntervalSeries {
    interval: SimTime,
    names: Vec<(String, String)>,
    rows: Rows,
    /// Per series, its column among the open intervals' cells, or `CHANGE_LOG`.
    col: Vec<u32>,
    /// Cells per open interval.
    width: usize,
    /// Index of the first interval not yet drained.
    base: u64,
    /// Open intervals, flat: cell `k * width + col` = (sum, count) of interval `base + k`.
    /// One buffer reused for the whole run: no allocation per interval.
    open: Vec<(f64, u64)>,
    /// Per series (used by the change-logged gauges), its open interval and last row's value.
    pending: Vec<Pending>,
    /// Change-logged gauges' rows, (interval, series, sum, count), in time order unless
    /// `unsorted` (a gauge that skipped a tick closed its interval late).
    changes: Vec<(u64, u32, f64, u64)>,
    unsorted: bool,
    /// The interval of the latest sample, (start, end) in ps and its index, so that the samples
    /// of one tick (every series at once) need no division each.
    cur: (u64, u64, u64),
}

/// A change-logged gauge's open interval, what it gathered there, and its last row's value.
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    interval: u64,
    sum: f64,
    count: u64,
    last: Option<u64>,
    /// Its latest closed interval (interval, sum, count) when that got no row: written at the
    /// end of the run, so that a gauge's rows span its whole sampled time.
    held: Option<(u64, f64, u64)>,
}

/// Drained rows in long format: one row per (interval, series) that had samples.
#[derive(Clone, Debug, Default)]
pub struct SeriesColumns {
    pub time_s: Vec<f64>,
    pub series: Vec<u32>,
    pub sum: Vec<f64>,
    pub count: Vec<u64>,
}

impl SeriesColumns {
    fn push(&mut self, t: f64, series: u32, sum: f64, count: u64) {
        self.time_s.push(t);
        self.series.push(series);
        self.sum.push(sum);
        self.count.push(count);
    }
}

impl IntervalSeries {
    pub fn new(interval: SimTime) -> Self {
        assert!(interval.0 > 0, "interval must be positive");
        IntervalSeries {
            interval,
            names: Vec::new(),
            rows: Rows::Interval,
            col: Vec::new(),
            width: 0,
            base: 0,
            open: Vec::new(),
            pending: Vec::new(),
            changes: Vec::new(),
            unsorted: false,
            cur: (0, 0, 0),
        }
    }

    /// Which intervals of a gauge get a row (before any series is registered).
    pub fn with_rows(mut self, rows: Rows) -> Self {
        assert!(self.names.is_empty(), "the row policy is set before registering series");
        self.rows = rows;
        self
    }

    pub fn interval(&self) -> SimTime {
        self.interval
    }

    /// Registers an event series (`entity`, `metric`) and returns its index.
    pub fn register(&mut self, entity: &str, metric: &str) -> u32 {
        self.register_kind(entity, metric, false)
    }

    /// Registers a gauge: a state sampled once per interval.
    pub fn register_gauge(&mut self, entity: &str, metric: &str) -> u32 {
        self.register_kind(entity, metric, true)
    }

    fn register_kind(&mut self, entity: &str, metric: &str, gauge: bool) -> u32 {
        self.names.push((entity.to_string(), metric.to_string()));
        self.pending.push(Pending::default());
        if gauge && self.rows == Rows::Change {
            self.col.push(CHANGE_LOG);
        } else {
            self.col.push(self.width as u32);
            if self.width > 0 && !self.open.is_empty() {
                // Widen every open interval by one cell (registration normally precedes samples).
                let old: Vec<(f64, u64)> = std::mem::take(&mut self.open);
                for row in old.chunks(self.width) {
                    self.open.extend_from_slice(row);
                    self.open.push((0.0, 0));
                }
            }
            self.width += 1;
        }
        (self.names.len() - 1) as u32
    }

    pub fn names(&self) -> &[(String, String)] {
        &self.names
    }

    #[inline]
    pub fn add(&mut self, at: SimTime, series: u32, value: f64) {
        let k = if at.0 >= self.cur.0 && at.0 < self.cur.1 { self.cur.2 } else { self.enter(at) };
        // A sample dated before the last drain folds into the oldest open interval.
        let slot = k.max(self.base) - self.base;
        let col = self.col[series as usize];
        if col == CHANGE_LOG {
            let interval = self.base + slot;
            let p = &mut self.pending[series as usize];
            if p.count > 0 && p.interval == interval {
                p.sum += value;
                p.count += 1;
                return;
            }
            if p.count > 0 {
                self.close(series);
            }
            self.pending[series as usize] = Pending { interval, sum: value, count: 1, ..self.pending[series as usize] };
            return;
        }
        let mut at = slot as usize * self.width + col as usize;
        if self.open.len() <= at {
            // Growing: only here can the sample lie far past the open intervals.
            let slot = if slot as usize >= self.open.len() / self.width + GAP { self.skip_to(self.base + slot) } else { slot };
            at = slot as usize * self.width + col as usize;
            self.open_through(slot as usize);
        }
        let cell = &mut self.open[at];
        cell.0 += value;
        cell.1 += 1;
    }

    /// The interval of `at`, which becomes the current one. Out of line, with the rest of the
    /// rare paths, so that `add` inlines into a sampling loop.
    #[inline(never)]
    fn enter(&mut self, at: SimTime) -> u64 {
        let k = at.0 / self.interval.0;
        let start = k * self.interval.0;
        self.cur = (start, start.saturating_add(self.interval.0), k);
        k
    }

    /// Closes a change-logged gauge's open interval: a row if its mean differs from the
    /// previous row's. Inline: it runs for nearly every sample of a gauge (each tick opens the
    /// next interval); only writing the row is out of line.
    #[inline]
    fn close(&mut self, series: u32) {
        let p = &mut self.pending[series as usize];
        let mean = if p.count == 1 { p.sum } else { p.sum / p.count as f64 };
        let closed = (p.interval, p.sum, p.count);
        p.count = 0;
        if p.last == Some(mean.to_bits()) {
            p.held = Some(closed);
        } else {
            p.last = Some(mean.to_bits());
            p.held = None;
            self.log(closed.0, series, closed.1, closed.2);
        }
    }

    #[inline(never)]
    fn log(&mut self, interval: u64, series: u32, sum: f64, count: u64) {
        if self.changes.last().is_some_and(|c| c.0 > interval) {
            self.unsorted = true;
        }
        self.changes.push((interval, series, sum, count));
    }

    /// A sample far past the open intervals (an idle stretch the sampler skipped): the open dense
    /// rows move into the row log, in the order a drain would give them, and the dense buffer
    /// restarts at `interval` — instead of growing through every empty interval between (a
    /// 10⁶-second gap at 1 ms asked for 448 GB: issue 63, S1). Returns the new slot (0).
    #[inline(never)]
    fn skip_to(&mut self, interval: u64) -> u64 {
        if std::mem::take(&mut self.unsorted) {
            self.changes.sort_by_key(|c| c.0);
        }
        let old = std::mem::take(&mut self.changes);
        let mut merged = Vec::with_capacity(old.len() + self.open.len());
        let mut c = 0;
        if self.width > 0 {
            for (k, row) in self.open.chunks_exact(self.width).enumerate() {
                let iv = self.base + k as u64;
                while c < old.len() && old[c].0 < iv {
                    merged.push(old[c]);
                    c += 1;
                }
                for (s, &col) in self.col.iter().enumerate() {
                    if col != CHANGE_LOG && row[col as usize].1 > 0 {
                        merged.push((iv, s as u32, row[col as usize].0, row[col as usize].1));
                    }
                }
            }
        }
        merged.extend_from_slice(&old[c..]);
        self.changes = merged;
        self.open.clear();
        self.base = interval;
        0
    }

    #[inline(never)]
    fn open_through(&mut self, slot: usize) {
        self.open.resize((slot + 1) * self.width, (0.0, 0));
    }

    /// Moves every interval that ends at or before `now` (all of them when `now` is `None`) into
    /// `out`, in time order; `time_s` is the interval's start. Within an interval the dense
    /// series come first, in registration order, then the gauges' changes in sample order.
    pub fn drain_until(&mut self, now: Option<SimTime>, out: &mut SeriesColumns) {
        let end_k = now.map_or(u64::MAX, |t| t.0 / self.interval.0);
        let open_rows = self.open.len().checked_div(self.width).unwrap_or(0);
        let closed = (end_k.saturating_sub(self.base) as usize).min(open_rows);
        for s in 0..self.col.len() {
            let p = &self.pending[s];
            if self.col[s] == CHANGE_LOG && p.count > 0 && p.interval < end_k {
                self.close(s as u32);
            }
            if now.is_none() {
                // The run is over: each gauge's last sampled interval gets its row.
                if let Some((interval, sum, count)) = self.pending[s].held.take() {
                    self.log(interval, s as u32, sum, count);
                }
            }
        }
        if std::mem::take(&mut self.unsorted) {
            self.changes.sort_by_key(|c| c.0); // stable: sample order within an interval
        }
        let changes = self.changes.partition_point(|c| c.0 < end_k);
        let step = self.interval.as_secs_f64();
        let mut c = 0;
        if self.width > 0 {
            for (k, row) in self.open[..closed * self.width].chunks_exact(self.width).enumerate() {
                let interval = self.base + k as u64;
                let t = interval as f64 * step;
                for (s, &col) in self.col.iter().enumerate() {
                    if col != CHANGE_LOG {
                        let (sum, count) = row[col as usize];
                        if count > 0 {
                            out.push(t, s as u32, sum, count);
                        }
                    }
                }
                while c < changes && self.changes[c].0 == interval {
                    let (_, s, sum, count) = self.changes[c];
                    out.push(t, s, sum, count);
                    c += 1;
                }
            }
        }
        // Intervals past the dense rows: only changes.
        for &(interval, s, sum, count) in &self.changes[c..changes] {
            out.push(interval as f64 * step, s, sum, count);
        }
        let next = self.changes[..changes].last().map_or(0, |c| c.0 + 1);
        self.open.drain(..closed * self.width);
        self.changes.drain(..changes);
        // Everything before `end_k` is closed now, drained or empty.
        self.base = match now {
            Some(_) => self.base.max(end_k),
            None => (self.base + closed as u64).max(next),
        };
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

    #[test]
    fn a_sample_after_a_long_idle_gap_needs_no_row_per_empty_interval() {
        // Issue 63, S1: the next sample 10⁶ s on at 1 ms intervals once asked for 448 GB.
        let mut s = IntervalSeries::new(SimTime::from_ms(1));
        let a = s.register("high", "read_bytes");
        let b = s.register("low", "read_bytes");
        s.add(SimTime::from_us(100), b, 1.0);
        s.add(SimTime::from_us(200), a, 2.0);
        let far = SimTime::from_secs_f64(1e6).unwrap();
        s.add(far, a, 3.0);
        s.add(far + SimTime::from_ms(1), b, 4.0);
        assert!(s.open.len() <= 2 * s.width, "the dense buffer restarted at the far interval: {}", s.open.len());
        let mut out = SeriesColumns::default();
        s.drain_until(Some(SimTime::from_secs_f64(10.0).unwrap()), &mut out);
        // The first interval drains as it would have: dense series in registration order.
        assert_eq!((out.series.clone(), out.sum.clone()), (vec![a, b], vec![2.0, 1.0]));
        s.drain_until(None, &mut out);
        assert_eq!(out.series, vec![a, b, a, b]);
        assert_eq!(out.sum, vec![2.0, 1.0, 3.0, 4.0]);
        assert_eq!(out.time_s[2], 1e6);
        assert!((out.time_s[3] - (1e6 + 0.001)).abs() < 1e-6);
    }

    #[test]
    fn a_late_sample_folds_into_the_oldest_open_interval() {
        let mut s = IntervalSeries::new(SimTime::from_us(10));
        let a = s.register("x", "read_bytes");
        s.add(SimTime::from_us(25), a, 1.0);
        let mut out = SeriesColumns::default();
        s.drain_until(Some(SimTime::from_us(20)), &mut out);
        assert!(out.time_s.is_empty());
        s.add(SimTime::from_us(5), a, 2.0);
        s.drain_until(None, &mut out);
        assert_eq!((out.time_s.clone(), out.sum.clone(), out.count.clone()), (vec![20e-6], vec![3.0], vec![2]));
    }

    /// Samples a gauge `g` and an event series `e` over five 1 µs ticks, draining after the
    /// third: the gauge reads 2, 2, 5, 5, 2.
    fn five_ticks(rows: Rows) -> SeriesColumns {
        let mut s = IntervalSeries::new(SimTime::from_us(1)).with_rows(rows);
        let e = s.register("class:a", "read_bytes");
        let g = s.register_gauge("port:p", "queue_kib");
        let mut out = SeriesColumns::default();
        for (i, v) in [2.0, 2.0, 5.0, 5.0, 2.0].into_iter().enumerate() {
            let t = SimTime::from_us(i as u64);
            s.add(t, g, v);
            if i % 2 == 0 {
                s.add(t, e, 4096.0);
            }
            if i == 2 {
                s.drain_until(Some(SimTime::from_us(3)), &mut out);
            }
        }
        s.drain_until(None, &mut out);
        out
    }

    #[test]
    fn change_rows_keep_a_gauge_only_where_it_moved() {
        let every = five_ticks(Rows::Interval);
        assert_eq!(every.series.iter().filter(|&&s| s == 1).count(), 5);
        let change = five_ticks(Rows::Change);
        let gauge: Vec<(f64, f64)> = (0..change.series.len()).filter(|&i| change.series[i] == 1).map(|i| (change.time_s[i] * 1e6, change.sum[i])).collect();
        // Across the drain too: the tick at 3 µs repeats the value drained at 2 µs.
        assert_eq!(gauge.len(), 3);
        for ((t, v), (et, ev)) in gauge.iter().zip([(0.0, 2.0), (2.0, 5.0), (4.0, 2.0)]) {
            assert!((t - et).abs() < 1e-9 && *v == ev, "{gauge:?}");
        }
        // Event series are untouched: a row for every interval with events.
        let events = |c: &SeriesColumns| c.series.iter().filter(|&&s| s == 0).count();
        assert_eq!((events(&every), events(&change)), (3, 3));
    }

    #[test]
    fn registering_after_samples_widens_the_open_intervals() {
        let mut s = IntervalSeries::new(SimTime::from_us(1));
        let a = s.register("x", "read_bytes");
        s.add(SimTime::from_us(0), a, 1.0);
        s.add(SimTime::from_us(1), a, 2.0);
        let b = s.register_gauge("y", "queue_kib");
        s.add(SimTime::from_us(1), b, 7.0);
        let mut out = SeriesColumns::default();
        s.drain_until(None, &mut out);
        assert_eq!(out.series, vec![a, a, b]);
        assert_eq!(out.sum, vec![1.0, 2.0, 7.0]);
    }

    #[test]
    fn a_gauge_row_is_its_interval_mean_and_rows_stay_in_time_order() {
        let mut s = IntervalSeries::new(SimTime::from_us(1)).with_rows(Rows::Change);
        let a = s.register_gauge("a", "queue_kib");
        let b = s.register_gauge("b", "queue_kib");
        s.add(SimTime::from_ns(0), a, 1.0);
        s.add(SimTime::from_ns(500), a, 3.0); // same interval: the row is the mean, 2
        for i in 0..4u64 {
            s.add(SimTime::from_us(i), b, i as f64);
        }
        // `a` skips intervals 1 and 2: its interval 0 closes only now, after `b`'s rows of 1 and 2.
        s.add(SimTime::from_us(3), a, 2.0);
        let mut out = SeriesColumns::default();
        s.drain_until(None, &mut out);
        let rows: Vec<(u64, u32, f64, u64)> =
            (0..out.series.len()).map(|i| ((out.time_s[i] * 1e6).round() as u64, out.series[i], out.sum[i], out.count[i])).collect();
        // `a` at 3 µs repeats its mean 2 (from sum 4 over 2 samples): a row only because it is
        // its last.
        assert_eq!(rows, vec![(0, b, 0.0, 1), (0, a, 4.0, 2), (1, b, 1.0, 1), (2, b, 2.0, 1), (3, a, 2.0, 1), (3, b, 3.0, 1)]);
    }
}
