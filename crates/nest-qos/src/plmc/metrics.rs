//! PLMC's per-window metrics of a host (PLMC Definitions 1–3) and their percentiles over the
//! run's windows, as the paper's Fig. 8 reports them:
//! - utilization u_j(n) = C^used / C^alloc (windows with an allocation);
//! - deficiency v_j(n) = (R^m − C^used) / R^m when the demand exceeds what was used, else 0
//!   (windows with demand);
//! - the 90th-percentile latency of the host's reads that completed in the window (windows
//!   with any), and of those of them the copy in DTWin served (one reading of the paper's p90
//!   "when the DTWin period ends", PLMC §IV-A; reported beside).

use nest_core::SimTime;

#[derive(Clone, Debug, Default)]
pub struct HostWindows {
    pub utilization: Vec<f64>,
    pub deficiency: Vec<f64>,
    /// Per-window p90 read latency, µs: all reads, and the reads served in DTWin.
    pub p90_us: Vec<f64>,
    pub p90_dt_us: Vec<f64>,
    /// Read latencies (ps) completed in the open window: all, and those served in DTWin.
    open: Vec<u64>,
    open_dt: Vec<u64>,
}

impl HostWindows {
    #[inline]
    pub fn read_done(&mut self, latency: SimTime, dt: bool) {
        self.open.push(latency.0);
        if dt {
            self.open_dt.push(latency.0);
        }
    }

    /// Closes a window in which the host was allocated `alloc` counts, used `used` of them and
    /// demanded `demand`.
    pub fn close(&mut self, alloc: u64, used: u64, demand: u64) {
        if alloc > 0 {
            self.utilization.push(used as f64 / alloc as f64);
        }
        if demand > 0 {
            self.deficiency.push(if demand > used { (demand - used) as f64 / demand as f64 } else { 0.0 });
        }
        for (open, out) in [(&mut self.open, &mut self.p90_us), (&mut self.open_dt, &mut self.p90_dt_us)] {
            if !open.is_empty() {
                let k = ((open.len() as f64 * 0.9).ceil() as usize).clamp(1, open.len()) - 1;
                let (_, v, _) = open.select_nth_unstable(k);
                out.push(*v as f64 / 1e6);
                open.clear();
            }
        }
    }
}

/// The `p`-th percentile (0–100, nearest rank) of `xs`; NaN when empty.
pub fn percentile(xs: &[f64], p: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let k = ((v.len() as f64 * p / 100.0).ceil() as usize).clamp(1, v.len()) - 1;
    v[k]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_yields_utilization_deficiency_and_the_p90_of_its_reads() {
        let mut h = HostWindows::default();
        for us in 1..=10 {
            h.read_done(SimTime::from_us(us), us <= 5);
        }
        h.close(100, 80, 120);
        assert_eq!(h.utilization, vec![0.8]);
        assert!((h.deficiency[0] - 40.0 / 120.0).abs() < 1e-12);
        assert_eq!(h.p90_us, vec![9.0], "nearest rank: the 9th of 10");
        assert_eq!(h.p90_dt_us, vec![5.0], "of the five served in DTWin (1–5 µs), the 5th");
        h.close(0, 0, 0);
        assert_eq!((h.utilization.len(), h.deficiency.len(), h.p90_us.len()), (1, 1, 1), "an empty window adds nothing");
        h.close(50, 50, 30);
        assert_eq!(h.deficiency[1], 0.0, "demand covered");
        assert_eq!(percentile(&[3.0, 1.0, 2.0, 4.0], 50.0), 2.0);
        assert_eq!(percentile(&[3.0, 1.0, 2.0, 4.0], 90.0), 4.0);
        assert!(percentile(&[], 50.0).is_nan());
    }
}
