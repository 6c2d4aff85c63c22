//! MQSim's RGA victim draw (`switches::RgaSampling::Mqsim`): d distinct blocks of the plane among
//! those that are neither a write frontier nor in GC nor programming a user page, free blocks
//! included; the lowest-numbered
//! of them, replaced by any fully written one with more invalid pages
//! (`src/ssd/GC_and_WL_Unit_Page_Level.cpp:69-86`, 7ec40e3); no GC when the block chosen has no
//! invalid page (`:143-145`).
//!
//! With `ModelSwitches::gc_seed` the blocks are drawn by MQSim's own generator (MQSim's GC unit
//! is seeded 432 on every drive), so that checks made in MQSim's order pick MQSim's victims.

use crate::ftl::{BlockState, Ftl};
use nest_core::mqsim_rng::MqsimRng;
use nest_core::rng::RngStream;

impl Ftl {
    /// A user program placed at `ppa` (its block is not drawn by MQSim's RGA until it is done).
    #[inline]
    pub fn program_issued(&mut self, ppa: u32) {
        let b = self.layout.block_of_ppa(ppa);
        self.blocks[b as usize].programs_in_flight += 1;
    }

    /// The user program at `ppa` is done. (Saturating: under NeSt's own samplers, which do not
    /// look at the count, a block may be erased with a program in flight, and an erase clears it.)
    #[inline]
    pub fn program_done(&mut self, ppa: u32) {
        let b = self.layout.block_of_ppa(ppa);
        let n = &mut self.blocks[b as usize].programs_in_flight;
        *n = n.saturating_sub(1);
    }

    pub(crate) fn mqsim_rga_pick(&self, plane: u32, d: u32, rng: &mut RngStream, mut mqsim: Option<&mut MqsimRng>) -> Option<u32> {
        let bpp = self.layout.blocks_per_plane;
        let ppb = self.layout.pages_per_block;
        // Write frontiers and pinned translation blocks are open (MQSim: a frontier, or a program
        // in flight), victims in GC: neither is drawn; nor a block with a user program in flight
        // (`is_safe_gc_wl_candidate`, `GC_and_WL_Unit_Base.cpp:236-239`) — for good where a read
        // of a never-written page took a page there, which MQSim counts as a program issued that
        // never completes (`online_create_entry_for_reads`, `Address_Mapping_Unit_Page_Level.cpp:1407`).
        let safe = |b: u32| {
            let blk = &self.blocks[b as usize];
            matches!(blk.state, BlockState::Free | BlockState::Full) && blk.programs_in_flight == 0 && !blk.gc_flagged
        };
        let mut set: Vec<u32> = Vec::with_capacity(d as usize);
        // MQSim draws until it has d; a plane with fewer safe blocks would loop for ever there.
        let mut tries = 0;
        while set.len() < d.min(bpp) as usize && tries < 64 * bpp {
            tries += 1;
            let draw = match mqsim.as_deref_mut() {
                Some(g) => g.uniform_uint(0, bpp - 1),
                None => rng.below(bpp as u64) as u32,
            };
            let b = plane * bpp + draw;
            if safe(b) && !set.contains(&b) {
                set.push(b);
            }
        }
        let invalid = |b: u32| {
            let blk = &self.blocks[b as usize];
            blk.written - blk.valid
        };
        let full = |b: u32| self.blocks[b as usize].written == ppb;
        // std::set iterates in order: the first is the lowest-numbered, and of blocks with as
        // many invalid pages the lowest-numbered wins (the comparison is strict).
        set.sort_unstable();
        let mut chosen = *set.first()?;
        for &b in &set {
            if invalid(b) > invalid(chosen) && full(b) {
                chosen = b;
            }
        }
        let blk = &self.blocks[chosen as usize];
        (blk.state == BlockState::Full && invalid(chosen) > 0).then_some(chosen)
    }
}
