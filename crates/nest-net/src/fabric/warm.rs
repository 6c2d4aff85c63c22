//! Cache warming for the next event: a fabric of a thousand hosts keeps tens of thousands of
//! packets in flight, more than the L2 holds, so each arrival starts with a miss.

use super::Fabric;

impl Fabric {
    /// Asks for what an arrival of `pkt` on `port` will read first (its packet record, the
    /// port's state), so that the next event's cache misses overlap the current one's work (the
    /// caller peeks at the next event). At k = 16 the packet record's first load was a third of
    /// an arrival's time (BENCHMARKS.md).
    #[inline]
    pub fn warm_arrival(&self, port: u32, pkt: u32) {
        if let Some(p) = self.pool.try_get(pkt) {
            nest_core::hint::prefetch(p);
        }
        if let Some(rt) = self.ports.get(port as usize) {
            nest_core::hint::prefetch(rt);
        }
        // The link's far end (node and port), the arrival's first dependent load.
        if let Some(spec) = self.topo.ports.get(port as usize) {
            nest_core::hint::prefetch(spec);
        }
    }
}
