//! Preconditioning: the drive filled to steady state before time 0.

use super::Ssd;
use crate::params::Allocation;
use nest_core::rng::RngStream;

impl Ssd {
    /// Fills the drive to steady state before time 0 (see `params::Precondition`): LPAs
    /// 0..n in order, then random overwrites among them. Dynamic allocation spreads the writes
    /// over the planes in turn.
    pub(super) fn precondition(&mut self, occupancy: f64, overwrites: f64, seed: u64, index: u64) {
        let n = (self.logical_pages as f64 * occupancy) as u64;
        let m = (n as f64 * overwrites) as u64;
        let mut rng = RngStream::derive(seed, "ssd", index, "precondition");
        let mut scratch = std::mem::take(&mut self.scratch);
        for k in 0..n + m {
            let lpa = if k < n { k } else { rng.below(n) };
            let plane = match self.params.ftl.allocation {
                Allocation::Static(_) => self.layout.static_plane(lpa),
                Allocation::Dynamic => (k % self.layout.planes as u64) as u32,
            };
            self.ftl.write_instant(lpa as u32, plane, &mut self.rng, &mut scratch);
        }
        self.scratch = scratch;
        // Preconditioning is not part of the measured run.
        self.ftl.counters = Default::default();
    }
}
