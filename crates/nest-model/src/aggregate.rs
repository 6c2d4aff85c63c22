//! SRC's aggregate throughput (SRC §IV-B, Fig 7–8, Table IV): the read bytes completed at the
//! initiators plus the write bytes the drives completed, per millisecond, and its mean over the
//! run's timeline with the first and last 10 % trimmed, as the paper reports it. Kept for runs
//! with an `src` coordinator (16 bytes per simulated millisecond).

use crate::request::Request;
use nest_workload::Op;
use serde_json::{json, Value};

/// One bin: 1 ms in ps.
const BIN_PS: u64 = 1_000_000_000;
/// The share of the timeline trimmed at each end.
const TRIM: f64 = 0.1;

#[derive(Default)]
pub struct Aggregate {
    /// Bytes per 1 ms bin: reads by their completion at the initiator, writes by their
    /// completion at the drive.
    read: Vec<u64>,
    write: Vec<u64>,
}

fn add(bins: &mut Vec<u64>, at_ps: u64, bytes: u64) {
    let b = (at_ps / BIN_PS) as usize;
    if bins.len() <= b {
        bins.resize(b + 1, 0);
    }
    bins[b] += bytes;
}

impl Aggregate {
    /// An application request completed at its host.
    #[inline]
    pub fn record(&mut self, req: &Request) {
        match req.op {
            Op::Read => add(&mut self.read, req.t_complete.0, req.size as u64),
            Op::Write => add(&mut self.write, req.t_dev_done.0, req.size as u64),
        }
    }

    /// Means per ms over the trimmed timeline (bin 0 to the last completion), and in Gb/s.
    pub fn summary(&self) -> Value {
        let n = self.read.len().max(self.write.len());
        let lo = (TRIM * n as f64) as usize;
        let hi = (lo + 1).max(((1.0 - TRIM) * n as f64) as usize).min(n);
        let mean = |bins: &[u64]| {
            if hi <= lo {
                return 0.0;
            }
            let sum: u64 = (lo..hi).map(|b| bins.get(b).copied().unwrap_or(0)).sum();
            sum as f64 / (hi - lo) as f64
        };
        let (r, w) = (mean(&self.read), mean(&self.write));
        let gbps = |bytes_per_ms: f64| crate::stats::r6(bytes_per_ms * 8.0 / 1e6);
        json!({
            "bin_ms": 1, "bins": n, "trimmed_bins": [lo, hi],
            "read_bytes_per_ms": crate::stats::r6(r), "write_bytes_per_ms": crate::stats::r6(w), "total_bytes_per_ms": crate::stats::r6(r + w),
            "read_gbps": gbps(r), "write_gbps": gbps(w), "total_gbps": gbps(r + w),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_is_over_the_timeline_with_a_tenth_trimmed_at_each_end() {
        let mut a = Aggregate::default();
        // 20 bins: reads of 100 B in every bin, a 1,000 B write in bins 0 and 19 only (trimmed).
        for b in 0..20u64 {
            add(&mut a.read, b * BIN_PS + 5, 100);
        }
        add(&mut a.write, 0, 1000);
        add(&mut a.write, 19 * BIN_PS, 1000);
        let s = a.summary();
        assert_eq!(s["trimmed_bins"], json!([2, 18]));
        assert_eq!(s["read_bytes_per_ms"], 100.0);
        assert_eq!(s["write_bytes_per_ms"], 0.0, "the writes fall in the trimmed ends");
        assert_eq!(s["total_gbps"], 0.0008);
        // A write completing at the drive in bin 25 lengthens the timeline for both.
        add(&mut a.write, 25 * BIN_PS, 2300);
        let s = a.summary();
        assert_eq!((s["bins"].as_u64(), s["trimmed_bins"].clone()), (Some(26), json!([2, 23])));
        assert_eq!(s["read_bytes_per_ms"], crate::stats::r6(1800.0 / 21.0), "bins 2–19 hold reads, 20–22 none");
    }
}
