//! The time a data transfer takes on the host's PCIe link, framed as `switches::PcieFraming`
//! says.

use crate::params::HostIfParams;
use crate::switches::PcieFraming;
use nest_core::SimTime;

impl HostIfParams {
    /// PCIe payload time of `bytes` framed as `framing` says.
    #[inline]
    pub fn transfer_time_by(&self, bytes: u64, framing: PcieFraming) -> SimTime {
        match framing {
            PcieFraming::Tlp256 => self.transfer_time(bytes),
            PcieFraming::Mqsim => {
                // 128 B TLPs with 28 B of overhead each; whole bytes per lane; the nanoseconds
                // truncated (MQSim's cast to sim_time_type).
                let wire = bytes / 128 * (128 + 28) + if bytes.is_multiple_of(128) { 0 } else { bytes % 128 + 28 };
                let per_lane = wire.div_ceil(self.pcie_lanes.max(1) as u64);
                SimTime::from_ns((per_lane as f64 / (self.lane_bytes_per_s / 1e9)) as u64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mqsim_frames_128_byte_tlps_with_28_bytes_each() {
        let h = HostIfParams { pcie_lanes: 4, lane_bytes_per_s: 1e9, queue_depth: 64, command_overhead: SimTime::ZERO };
        // MQSim's stock link (4 lanes × 1 GB/s): 64 KiB = 512 TLPs × 156 B = 79,872 B, 19,968 per lane.
        assert_eq!(h.transfer_time_by(65536, PcieFraming::Mqsim), SimTime::from_ns(19_968));
        assert_eq!(h.transfer_time_by(4096, PcieFraming::Mqsim), SimTime::from_ns(1_248));
        // A partial TLP: 100 B + 28 = 128 B, 32 per lane.
        assert_eq!(h.transfer_time_by(100, PcieFraming::Mqsim), SimTime::from_ns(32));
        // NeSt's: 24 B per 256 B; 64 KiB = 71,680 B over 4 GB/s.
        assert_eq!(h.transfer_time_by(65536, PcieFraming::Tlp256), SimTime::from_ns(17_920));
    }
}
