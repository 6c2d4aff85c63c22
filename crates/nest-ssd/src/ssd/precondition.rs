//! Preconditioning: the drive filled to steady state before time 0.

use super::Ssd;
use crate::params::Allocation;
use nest_core::rng::RngStream;

impl Ssd {
    /// Fills the drive to steady state before time 0 (see `params::Precondition`): n pages in
    /// order, then random overwrites among them. Dynamic allocation spreads the writes
    /// over the planes in turn.
    /// Fails only when the build's wall-clock deadline passes (`nest_core::deadline`).
    pub(super) fn precondition(&mut self, occupancy: f64, overwrites: f64, seed: u64, index: u64) -> Result<(), String> {
        let mut n = (self.logical_pages as f64 * occupancy) as u64;
        if self.layout.sets > 1 {
            n = n.min(self.layout.set_lpas * self.layout.sets as u64);
        }
        let m = (n as f64 * overwrites) as u64;
        let mut rng = RngStream::derive(seed, "ssd", index, "precondition");
        let mut scratch = std::mem::take(&mut self.scratch);
        for k in 0..n + m {
            if k % (1 << 16) == 0 && nest_core::deadline::passed() {
                self.scratch = scratch;
                return Err(format!(
                    "stopped at the wall-clock budget while preconditioning the drive ({:.0} % of its {} page writes done)",
                    100.0 * k as f64 / (n + m) as f64,
                    n + m
                ));
            }
            let lpa = self.precondition_lpa(if k < n { k } else { rng.below(n) });
            let plane = match self.params.ftl.allocation {
                Allocation::Static(_) => self.layout.data_plane(lpa),
                Allocation::Dynamic => {
                    // Over the planes of the page's channel group, in turn.
                    let pps = (self.layout.planes / self.layout.groups) as u64;
                    self.layout.group_of_lpa(lpa) * pps as u32 + (k % pps) as u32
                }
            };
            self.ftl.write_instant(lpa as u32, plane, &mut self.rng, &mut scratch);
        }
        self.scratch = scratch;
        // Preconditioning is not part of the measured run.
        self.ftl.counters = Default::default();
        Ok(())
    }

    /// The `i`-th page preconditioning fills: LPA `i` on a one-set drive; with NVM sets, the
    /// sets in turn from the start of each one's range, so every set is filled alike.
    fn precondition_lpa(&self, i: u64) -> u64 {
        let sets = self.layout.sets as u64;
        if sets == 1 {
            return i;
        }
        (i % sets) * self.layout.set_lpas + i / sets
    }
}
