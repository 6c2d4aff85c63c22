//! What observers read of the fabric between events: a port's counters, paused time and queue,
//! a switch's buffer and drops (the time series, the summary, the storage side's checks).

use super::{Fabric, PortStats};
use nest_core::SimTime;

impl Fabric {
    pub fn port_stats(&self, port: u32) -> &PortStats {
        &self.ports[port as usize].stats
    }

    /// Time `port` has spent paused up to `now`, counting a pause still in force.
    pub fn paused_ps_until(&self, port: u32, now: SimTime) -> u64 {
        let rt = &self.ports[port as usize];
        let open = if rt.paused.iter().any(|&x| x) { (now - rt.paused_since).0 } else { 0 };
        rt.stats.paused_ps + open
    }

    /// Bytes waiting in `port`'s egress queues now.
    pub fn queue_bytes(&self, port: u32) -> u64 {
        self.ports[port as usize].queued_bytes()
    }

    pub fn switch_buffer_used(&self, node: u32) -> u64 {
        let sw = self.switch_of[node as usize];
        if sw == u32::MAX {
            0
        } else {
            self.switches[sw as usize].used
        }
    }

    pub fn switch_drops(&self, node: u32) -> u64 {
        let sw = self.switch_of[node as usize];
        if sw == u32::MAX {
            0
        } else {
            self.switches[sw as usize].dropped
        }
    }
}
