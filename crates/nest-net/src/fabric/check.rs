//! The fabric's conservation check (SPEC §1): bytes and packets accounted on every link and at
//! every switch, and no drop in a lossless fabric but to a failed link.

use super::Fabric;

impl Fabric {
    /// Packet and byte conservation on every link and switch, and over the whole fabric:
    /// sent = arrived + lost with the link + on the wire per link; into a switch = out of it +
    /// buffered + dropped; injected = delivered + dropped + alive. Lossless mode must have
    /// dropped nothing to a full buffer (a failed link's drops are the fault's).
    pub fn check_conservation(&self) -> Result<(), String> {
        for (i, rt) in self.ports.iter().enumerate() {
            if rt.stats.tx_bytes != rt.stats.arrived_bytes + rt.stats.lost_bytes + rt.on_wire {
                return Err(format!(
                    "link at port {i}: {} B sent, {} B arrived, {} B lost with the link, {} B on the wire",
                    rt.stats.tx_bytes, rt.stats.arrived_bytes, rt.stats.lost_bytes, rt.on_wire
                ));
            }
        }
        for (node, n) in self.topo.nodes.iter().enumerate() {
            let sw = self.switch_of[node];
            if sw == u32::MAX {
                continue;
            }
            // Bytes into this switch arrive over its ports' peers; bytes out leave by its ports.
            let inb: u64 = n.ports.iter().map(|&p| self.ports[self.topo.ports[p as usize].peer as usize].stats.arrived_bytes).sum();
            let outb: u64 = n.ports.iter().map(|&p| self.ports[p as usize].stats.tx_bytes).sum();
            let dropped: u64 = n.ports.iter().map(|&p| self.ports[p as usize].stats.dropped_bytes).sum();
            let buffered: u64 = n.ports.iter().map(|&p| self.ports[p as usize].queued_bytes()).sum();
            if inb != outb + buffered + dropped {
                return Err(format!("switch '{}': {inb} B in, {outb} B out, {buffered} B buffered, {dropped} B dropped", n.name));
            }
            if buffered != self.switches[sw as usize].used {
                return Err(format!("switch '{}': buffer accounts {} B but queues hold {buffered} B", n.name, self.switches[sw as usize].used));
            }
        }
        let t = &self.totals;
        if t.injected != t.delivered + t.dropped + self.pool.live() {
            return Err(format!("fabric: {} packets injected, {} delivered, {} dropped, {} alive", t.injected, t.delivered, t.dropped, self.pool.live()));
        }
        if t.lossless_drops > 0 {
            return Err(format!("lossless fabric dropped {} packets (PFC headroom too small for the buffer)", t.lossless_drops));
        }
        Ok(())
    }
}
