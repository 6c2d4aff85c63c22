//! MQSim's preconditioning (`model.mean_field_layout`): no page is written in time order.
//! Each flow's preconditioned pages go to their planes, and each plane's are laid into blocks
//! by the steady state the flow's writes would reach (`mean_field`): so many blocks holding
//! each count of valid pages, fullest first, the rest of every block invalid, over a goal of
//! `blocks − ⌊threshold / 2⌋` blocks a plane (its share where flows share it)
//! (`src/ssd/FTL.cpp:430-634`, `Address_Mapping_Unit_Page_Level.cpp:611-740`). Random writes
//! then leave a plane of an SLC drive 41 / 25 / 13 free blocks at 50 / 70 / 90 % full (MQSim's,
//! instrumented: 39–42 / 25–27 / 12–14) where NeSt's overwrites leave 30–35 / 24 / 24 — which
//! decides whether the run's first seconds collect garbage.

use super::Ssd;
use crate::mean_field;

impl Ssd {
    /// Lays out the preconditioned pages: `streams` are the flows' ranges of page numbers `i`
    /// (`precondition_lpa(i, filled)` is the page), `stream` whether the flows stream (the
    /// preconditioning writes no overwrites) rather than write at random. `laid` sees every page
    /// in the order laid. Pages a plane's goal has no room for (where MQSim stops with an error)
    /// are written as preconditioning otherwise writes them.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lay_out(
        &mut self,
        occupancy: f64,
        stream: bool,
        hot: Option<(f64, f64)>,
        streams: &[(u64, u64)],
        filled: &[(u64, u64)],
        laid: &mut dyn FnMut(u32),
        scratch: &mut Vec<(u32, u32)>,
    ) {
        let (g, ftl) = (&self.params.geometry, &self.params.ftl);
        let (bpp, ppb) = (g.blocks_per_plane, g.pages_per_block);
        // MQSim's GC threshold in blocks, raised to its ten GC jobs (`GC_and_WL_Unit_Base.cpp:
        // 22-33`; `gc_floor_blocks`), which its estimate of the valid fraction and the goal leave free.
        let threshold = ((ftl.gc_soft * bpp as f64) as u32).max(1).max(self.params.model.gc_floor_blocks);
        // Laying stops short of the blocks every frontier and GC still need (MQSim would take
        // them and fail); the pages left are written as preconditioning otherwise writes them.
        let keep_free = self.params.hard_free_blocks() + streams.len() as u32 + 2;
        let rho = occupancy * (1.0 - ftl.overprovisioning) / (1.0 - threshold as f64 / bpp as f64);
        let dist = match hot {
            _ if stream => mean_field::streaming(ppb, rho),
            // MQSim estimates a skew of hot pages above 30 % as uniform (`FTL.cpp:118-120`).
            Some((fraction, share)) if fraction <= 0.3 => mean_field::hot_cold(&mean_field::uniform(ftl.victim, ftl.rga_d, ppb, rho), fraction, share),
            _ => mean_field::uniform(ftl.victim, ftl.rga_d, ppb, rho),
        };
        let planes = self.layout.planes as usize;
        // Each flow's pages by plane, rising, and how many flows each plane serves.
        let mut by_plane: Vec<Vec<Vec<u32>>> = Vec::with_capacity(streams.len());
        let mut sharers = vec![0u32; planes];
        for &(from, count) in streams {
            let mut pages = vec![Vec::new(); planes];
            for i in from..from + count {
                let lpa = self.precondition_lpa(i, filled);
                pages[self.precondition_plane(lpa, i) as usize].push(lpa as u32);
            }
            pages.iter().enumerate().filter(|(_, p)| !p.is_empty()).for_each(|(p, _)| sharers[p] += 1);
            by_plane.push(pages);
        }
        for pages in by_plane {
            for (plane, mut lpas) in pages.into_iter().enumerate() {
                // MQSim keeps them in a sorted map; a workload's pages (`from_workloads`) come
                // in the order drawn.
                lpas.sort_unstable();
                let Some(&first) = lpas.first() else { continue };
                let share = 1.0 / sharers[plane] as f64;
                // Pages beyond the plane's share of its physical pages are not preconditioned.
                lpas.truncate((share * (bpp as u64 * ppb as u64) as f64) as usize);
                let goal = ((bpp - threshold / 2) as f64 * share) as u32;
                let front = self.ftl.user_front_of(first);
                for valid in mean_field::block_plan(&dist, goal, lpas.len()) {
                    // MQSim takes a plane's pages from the top, highest LPA first.
                    let from = lpas.len() - valid as usize;
                    if self.ftl.free_blocks(plane as u32) <= keep_free as usize
                        || !self.ftl.lay_block(plane as u32, front, lpas[from..].iter().rev().copied().inspect(|&l| laid(l)))
                    {
                        break;
                    }
                    lpas.truncate(from);
                }
                for lpa in lpas.into_iter().rev() {
                    self.ftl.write_instant(lpa, plane as u32, &mut self.rng, scratch);
                    laid(lpa);
                }
            }
        }
    }
}
