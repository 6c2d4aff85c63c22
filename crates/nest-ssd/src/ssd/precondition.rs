//! Preconditioning: the drive filled to steady state before time 0.

use super::Ssd;
use crate::params::{Allocation, Precondition};
use nest_core::rng::RngStream;

impl Ssd {
    /// Fills the drive to steady state before time 0 (see `params::Precondition`): n pages in
    /// order, then random overwrites among them. Dynamic allocation spreads the writes
    /// over the planes in turn; with `dirty_cache` the write cache then holds the last of them.
    /// Fails only when the build's wall-clock deadline passes (`nest_core::deadline`).
    pub(super) fn precondition(&mut self, p: &Precondition, seed: u64, index: u64) -> Result<(), String> {
        let (occupancy, overwrites) = (p.occupancy, p.overwrites);
        let mut n = (self.logical_pages as f64 * occupancy) as u64;
        if self.layout.sets > 1 {
            n = n.min(self.layout.set_lpas * self.layout.sets as u64);
        }
        // With address domains each is filled to the occupancy of its own pages, as MQSim
        // preconditions each flow's (`precondition_lpa`).
        let filled: Vec<(u64, u64)> =
            self.layout.domains.as_ref().map_or(Vec::new(), |d| d.list().iter().map(|d| (d.first_lpa, (d.pages as f64 * occupancy) as u64)).collect());
        if !filled.is_empty() {
            n = filled.iter().map(|f| f.1).sum();
        }
        // The workloads' own pages (`from_workloads`), in the order they draw them.
        let filled = if p.replay.pages.is_empty() { filled } else { Vec::new() };
        if !p.replay.pages.is_empty() {
            n = p.replay.pages.len() as u64;
        }
        let m = (n as f64 * overwrites) as u64;
        // The last `keep` pages written (for the dirty cache).
        let keep = if p.dirty_cache { self.cache.as_ref().map_or(0, |c| c.slots.saturating_sub(c.reserve)) as u64 } else { 0 };
        let mut last = Recent::new(keep.min(n + m) as usize);
        let mut scratch = std::mem::take(&mut self.scratch);
        // Each domain's range of `i` (one of MQSim's flows, laid out on its own).
        let streams: Vec<(u64, u64)> =
            if filled.is_empty() { vec![(0, n)] } else { filled.iter().scan(0, |at, f| Some((std::mem::replace(at, *at + f.1), f.1))).collect() };
        if self.params.model.mean_field_layout {
            self.lay_out(occupancy, overwrites == 0.0, p.hot, &streams, &filled, &mut |lpa| last.push(lpa), &mut scratch);
        } else {
            // How many of each domain's first pages are hot.
            let hot_pages: Vec<u64> = match (p.hot, self.layout.domains.as_ref()) {
                (None, _) => Vec::new(),
                (Some((f, _)), None) => vec![((self.logical_pages as f64 * f) as u64).min(n)],
                (Some((f, _)), Some(d)) => d.list().iter().zip(&streams).map(|(d, s)| ((d.pages as f64 * f) as u64).min(s.1)).collect(),
            };
            let mut rng = RngStream::derive(seed, "ssd", index, "precondition");
            for k in 0..n + m {
                if k % (1 << 16) == 0 && nest_core::deadline::passed() {
                    self.scratch = scratch;
                    return Err(format!(
                        "stopped at the wall-clock budget while preconditioning the drive ({:.0} % of its {} page writes done)",
                        100.0 * k as f64 / (n + m) as f64,
                        n + m
                    ));
                }
                let i = if k < n { k } else { overwrite_index(&mut rng, n, p.hot, &streams, &hot_pages) };
                let lpa = self.precondition_lpa(i, &filled);
                let plane = self.precondition_plane(lpa, k);
                self.ftl.write_instant(lpa as u32, plane, &mut self.rng, &mut scratch);
                last.push(lpa as u32);
            }
        }
        self.scratch = scratch;
        self.warm_cmt(p, &streams, &filled, seed, index);
        if keep > 0 {
            self.preload_dirty_cache(&last.oldest_first(), keep as u32);
        }
        // Preconditioning is not part of the measured run.
        self.ftl.counters = Default::default();
        Ok(())
    }

    /// Fills the write cache with `want` dirty pages: `written` (oldest first; a page written
    /// twice is held once, as the newer write), then the lowest LPAs not among them. They
    /// belong to no tenant: the lowest class's.
    fn preload_dirty_cache(&mut self, written: &[u32], want: u32) {
        let lowest = (super::CLASSES - 1) as u8;
        let limit = self.logical_pages;
        let Some(cache) = self.cache.as_mut() else { return };
        for &lpa in written {
            cache.preload_dirty(lpa, lowest);
        }
        let mut lpa = 0;
        while cache.dirty_slots() < want && lpa < limit {
            if cache.slot_of(lpa).is_none() {
                cache.preload_dirty(lpa, lowest);
            }
            lpa += 1;
        }
    }

    /// The plane preconditioning writes `lpa`, its `k`-th page, to: its home plane under static
    /// allocation; under dynamic allocation the planes of its channel group in turn.
    pub(super) fn precondition_plane(&self, lpa: u64, k: u64) -> u32 {
        match self.params.ftl.allocation {
            Allocation::Static(_) => self.layout.data_plane(lpa),
            Allocation::Dynamic => {
                let pps = (self.layout.planes / self.layout.groups) as u64;
                self.layout.group_of_lpa(lpa) * pps as u32 + (k % pps) as u32
            }
        }
    }

    /// The `i`-th page preconditioning fills: LPA `i` on a one-set drive; with NVM sets, the
    /// sets in turn from the start of each one's range, so every set is filled alike.
    pub(super) fn precondition_lpa(&self, i: u64, filled: &[(u64, u64)]) -> u64 {
        if let Some(&lpa) = self.params.precondition.as_ref().and_then(|p| p.replay.pages.get(i as usize)) {
            return lpa as u64;
        }
        if !filled.is_empty() {
            // The `i`th page written: the domains' filled pages one after another.
            let mut i = i;
            for &(first, n) in filled {
                if i < n {
                    return first + i;
                }
                i -= n;
            }
        }
        let sets = self.layout.sets as u64;
        if sets == 1 {
            return i;
        }
        (i % sets) * self.layout.set_lpas + i / sets
    }
}

/// The page number `i` an overwrite rewrites: uniform over the `n` filled pages; with a hot/cold
/// skew `(_, share)`, in the domain so drawn, among its `hot_pages` first pages with probability
/// `share`, else among the rest.
fn overwrite_index(rng: &mut RngStream, n: u64, hot: Option<(f64, f64)>, streams: &[(u64, u64)], hot_pages: &[u64]) -> u64 {
    let i = rng.below(n);
    let Some((_, share)) = hot else { return i };
    let s = streams.partition_point(|&(from, _)| from <= i) - 1;
    let ((from, count), h) = (streams[s], hot_pages[s]);
    if h == 0 || h >= count {
        return i;
    }
    from + if rng.bernoulli(share) { rng.below(h) } else { h + rng.below(count - h) }
}

/// The last `keep` pages written, kept in a ring.
struct Recent {
    keep: usize,
    buf: Vec<u32>,
    written: usize,
}

impl Recent {
    fn new(keep: usize) -> Self {
        Recent { keep, buf: Vec::with_capacity(keep), written: 0 }
    }

    fn push(&mut self, lpa: u32) {
        if self.keep == 0 {
            return;
        }
        if self.buf.len() < self.keep {
            self.buf.push(lpa);
        } else {
            self.buf[self.written % self.keep] = lpa;
        }
        self.written += 1;
    }

    /// Oldest first, so the cache's LRU order is the order they were written.
    fn oldest_first(mut self) -> Vec<u32> {
        if self.buf.len() == self.keep && self.keep > 0 {
            self.buf.rotate_left(self.written % self.keep);
        }
        self.buf
    }
}
