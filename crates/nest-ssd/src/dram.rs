//! The DRAM cache's access time: NeSt's linear reading and MQSim's row formula
//! (`switches::DramTiming`).

use crate::params::CacheParams;
use crate::switches::DramTiming;
use nest_core::SimTime;

impl CacheParams {
    #[inline]
    /// The DRAM's transfer rate in bytes per second (double data rate: two transfers of
    /// `dram_burst` bytes per clock of `dram_mts` MHz).
    pub fn dram_bytes_per_s(&self) -> f64 {
        2.0 * self.dram_burst as f64 * self.dram_mts as f64 * 1e6
    }

    pub fn access_time(&self, bytes: u64) -> SimTime {
        let transfer_ps = bytes * 1_000_000 / (2 * self.dram_burst as u64 * self.dram_mts as u64);
        SimTime(self.t_rcd.0 + self.t_cl.0 + transfer_ps)
    }

    /// An access of `bytes` timed as `timing` says.
    pub fn access_time_by(&self, bytes: u64, timing: DramTiming) -> SimTime {
        match timing {
            DramTiming::Linear => self.access_time(bytes),
            DramTiming::MqsimRows => self.mqsim_access_time(bytes),
        }
    }

    /// MQSim's `estimate_dram_access_time`, term by term in its nanosecond integers (see
    /// `DramTiming::MqsimRows`): `t` is its `dram_burst_transfer_time_ddr` (ns per transfer).
    fn mqsim_access_time(&self, bytes: u64) -> SimTime {
        let ns = |t: SimTime| t.0 / 1000;
        let (burst, row) = (self.dram_burst.max(1) as u64, self.row_bytes.max(1) as u64);
        let t = 1e9 / (self.dram_mts.max(1) as f64 * 1e6);
        let (rcd, cl, rp) = (ns(self.t_rcd), ns(self.t_cl), ns(self.t_rp));
        let total = if bytes <= row {
            rcd + cl + ((bytes / burst / 2) as f64 * t) as u64
        } else {
            let per_row = rcd + cl + ((row / burst / 2) as f64 * t) as u64 + rp;
            (per_row as f64 * (bytes / row / 2) as f64) as u64 + rcd + cl + ((bytes % row) as f64 / (burst as f64 * t)) as u64
        };
        SimTime::from_ns(total)
    }
}
