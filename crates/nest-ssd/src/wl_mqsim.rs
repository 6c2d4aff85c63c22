//! MQSim 7ec40e3's static wear levelling (`switches::ModelSwitches::static_wl_block_ids`).
//!
//! At the end of every erase MQSim asks `check_static_wl_required`: is the erase-count spread of
//! the plane at least the threshold? But `Get_min_max_erase_difference` finds the most- and
//! least-erased blocks and returns the difference of their *numbers*, not of their counts
//! (`src/ssd/Flash_Block_Manager_Base.cpp:146-162`: `max_erased_block - min_erased_block`, both
//! block IDs, unsigned) — **a bug**. So the first erase of a block numbered at or above the
//! threshold, while block 0 has never been erased, "needs" wear levelling, and
//! `run_static_wearleveling` (`src/ssd/GC_and_WL_Unit_Base.cpp:157-159, 250-301`) migrates the
//! least-erased block of the lowest number — block 0, the first block preconditioning filled, its
//! pages all valid — beside the plane's GC jobs, without their limit. Once block 0 has been
//! erased the least-erased block is block 1, MQSim's translation frontier (never safe: it holds
//! write-backs MQSim never programs), and the plane migrates nothing more: one migration of a
//! full block per plane early in a GC-bound run. MQSim's instrumented hot/cold run at 70 % full:
//! 31 migrations over 32 planes, each of a block of 128 valid pages.
//!
//! A candidate that is free MQSim would "migrate" too (no page to move, an erase of a free block
//! that then enters the free pool a second time); NeSt leaves free blocks alone.

use crate::block::BlockState;
use crate::ftl::Ftl;

impl Ftl {
    /// MQSim's check after an erase on `plane`: the block it would migrate, if the check passes
    /// and the block is full (neither a frontier nor GC's) with no user program in flight.
    pub(crate) fn mqsim_wl_candidate(&self, plane: u32) -> Option<u32> {
        let threshold = self.static_wl?;
        let bpp = self.layout.blocks_per_plane;
        let first = plane * bpp;
        let erases = |i: u32| self.blocks[(first + i) as usize].erases;
        // As MQSim scans: the lowest-numbered block with the most erases, and with the fewest.
        let (mut most, mut fewest) = (0u32, 0u32);
        for i in 1..bpp {
            if erases(i) > erases(most) {
                most = i;
            }
            if erases(i) < erases(fewest) {
                fewest = i;
            }
        }
        if most.wrapping_sub(fewest) < threshold {
            return None;
        }
        let b = first + fewest;
        let blk = &self.blocks[b as usize];
        (blk.state == BlockState::Full && blk.programs_in_flight == 0 && !blk.gc_flagged).then_some(b)
    }

    /// What MQSim marks when it starts migrating `block`: `run_static_wearleveling` passes the
    /// block's *number* to `GC_WL_started`, which takes a page address, so the number becomes a
    /// channel (`src/ssd/GC_and_WL_Unit_Base.cpp:268`, the implicit `Physical_Page_Address`
    /// constructor) — **a bug** — and block 0 of that channel's first plane is marked as in GC,
    /// for good: its own erase never comes, as MQSim's RGA and wear levelling pass it by. So
    /// MQSim migrates block 0 of 31 planes of 32 (its candidates are block 0), never of
    /// channel 0's first plane. A number of a channel that does not exist is out of MQSim's
    /// bounds (undefined there); nothing is marked. (MQSim would also start a job on the marked
    /// block when a user read or program there completes, `:61-100`, without locking its LPAs:
    /// the first page that job moves fails MQSim's unlock and stops it, so a finished MQSim run
    /// has not moved a page that way. Not reproduced.)
    pub(crate) fn mqsim_wl_misfiled_mark(&mut self, block: u32) {
        let number = block % self.layout.blocks_per_plane;
        let [channels, chips, dies, planes] = self.layout.dims;
        if number < channels {
            let plane = number * chips * dies * planes;
            self.blocks[(plane * self.layout.blocks_per_plane) as usize].gc_flagged = true;
        }
    }
}
