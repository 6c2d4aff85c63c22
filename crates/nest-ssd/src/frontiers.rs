//! When a plane's write frontiers take their blocks. NeSt's default: when the first page is
//! wanted, so a full frontier is closed and the next write takes a free block. MQSim's
//! (`ModelSwitches::open_frontiers`): every plane's user, GC and translation frontiers are open
//! from the start (`src/ssd/Flash_Block_Manager_Base.cpp:54-56`) and a frontier that fills takes
//! its next block at once (`Flash_Block_Manager.cpp:30-33, 49-52`) — so the free pool is a block
//! lower from the start, and a GC job that begins a burst writes its moves into a GC frontier
//! that already has room instead of taking a block, which would start another job.
//!
//! Kept from MQSim's: only the user and GC frontiers (the translation one stays as
//! `pin_translation_page` takes it), and a user frontier replaced only while a free block stays
//! for GC (`gc_room`): MQSim would run the pool dry and crash (`Flash_Block_Manager_Base.cpp:108`).
//!
//! Streams (`ModelSwitches::stream_frontiers`): MQSim keeps a user frontier per plane *per flow*
//! (`Data_wf[stream_id]`, `Flash_Block_Manager.cpp:20-35`), a flow's pages — including the ones
//! its reads of never-written pages take (`online_create_entry_for_reads`) — on its own blocks.
//! NeSt finds a page's stream by its address (each MQSim flow has a slice of its own). One GC
//! frontier per plane.

use crate::ftl::{Front, Ftl, GC_RESERVE};

impl Ftl {
    /// `stream_frontiers`: the streams' first LPAs, rising (the first is stream 0's); each
    /// stream after the first gets a user frontier of its own on every plane.
    pub fn set_streams(&mut self, starts: &[u32]) {
        self.stream_starts = starts.iter().skip(1).copied().collect();
        self.stream_fronts = vec![None; self.planes.len() * self.stream_starts.len()];
    }

    /// The user frontier `lpa` writes to: its stream's.
    #[inline]
    pub fn user_front_of(&self, lpa: u32) -> Front {
        Front::User(if self.stream_starts.is_empty() { 0 } else { self.stream_starts.partition_point(|&b| b <= lpa) as u32 })
    }

    /// Whether a user (or cache flush) write can get a page on `plane` now: a free block is
    /// taken only beyond the reserve and what GC is owed (`gc_room`).
    #[inline]
    pub fn can_alloc_user(&self, plane: u32) -> bool {
        self.can_alloc_in(plane, Front::User(0))
    }

    /// `can_alloc_user` for a write of `lpa` (its stream's frontier, `stream_frontiers`).
    #[inline]
    pub fn can_alloc_user_for(&self, plane: u32, lpa: u32) -> bool {
        self.can_alloc_in(plane, self.user_front_of(lpa))
    }

    #[inline]
    fn can_alloc_in(&self, plane: u32, f: Front) -> bool {
        let pb = &self.planes[plane as usize];
        let room = self.front_has_room(self.front(plane, f));
        // MQSim's Stop_servicing_writes: no user write below the floor, frontier or not.
        (self.write_floor == 0 || pb.free.len() as u32 >= self.write_floor) && (room || (pb.free.len() > GC_RESERVE && self.block_spare_for_gc(plane)))
    }

    /// The page offset (in its block) the next `alloc(plane, f)` will return.
    #[inline]
    pub fn next_page_offset(&self, plane: u32, f: Front) -> u32 {
        let front = self.front(plane, f);
        match front {
            Some(b) if self.front_has_room(front) => self.blocks[b as usize].written,
            _ => 0,
        }
    }

    /// Every frontier a plane has: each stream's user frontier, then GC's.
    fn fronts(&self) -> impl Iterator<Item = Front> {
        (0..=self.stream_starts.len() as u32).map(Front::User).chain(std::iter::once(Front::Gc))
    }

    /// `plane`'s frontier `f`, if open.
    #[inline]
    pub(crate) fn front(&self, plane: u32, f: Front) -> Option<u32> {
        match f {
            Front::Gc => self.planes[plane as usize].gc_front,
            Front::User(0) => self.planes[plane as usize].user_front,
            Front::User(s) => self.stream_fronts[plane as usize * self.stream_starts.len() + s as usize - 1],
        }
    }

    /// `plane`'s frontier `f` has just filled: closed, or, with `open_frontiers`, replaced by a
    /// free block now.
    pub(crate) fn front_filled(&mut self, plane: u32, f: Front) {
        let next = (self.open_frontiers && self.may_open(plane, f)).then(|| self.take_free_block(plane));
        self.set_front(plane, f, next);
    }

    /// Makes `block` (or none) `plane`'s frontier `f`.
    pub(crate) fn set_front(&mut self, plane: u32, f: Front, block: Option<u32>) {
        match f {
            Front::Gc => self.planes[plane as usize].gc_front = block,
            Front::User(0) => self.planes[plane as usize].user_front = block,
            Front::User(s) => {
                let n = self.stream_starts.len();
                self.stream_fronts[plane as usize * n + s as usize - 1] = block;
            }
        }
    }

    /// Whether a frontier of `plane` may take a free block ahead of any write.
    fn may_open(&self, plane: u32, f: Front) -> bool {
        let free = self.planes[plane as usize].free.len();
        match f {
            Front::Gc => free > 0,
            Front::User(_) => free > GC_RESERVE && self.block_spare_for_gc(plane),
        }
    }

    /// `precondition_closes_frontiers`: every plane's partly written frontier is closed, the
    /// rest of its pages left invalid, as MQSim's preconditioning fills each block it writes to
    /// the end and then takes a fresh one (`Flash_Block_Manager.cpp:57-90`): the run's first
    /// writes start every plane at a block's first page, so the planes of a die write the same
    /// page offsets and pair in multi-plane programs (`multiplane_same_page`).
    pub fn close_partial_frontiers(&mut self) {
        for plane in 0..self.planes.len() as u32 {
            for f in self.fronts().collect::<Vec<_>>() {
                if let Some(b) = self.front(plane, f).filter(|&b| self.blocks[b as usize].written > 0) {
                    self.close_block(plane, b, f);
                }
            }
        }
    }

    /// `open_frontiers`, as the drive is built: every plane's frontiers take its first blocks in
    /// MQSim's order — the user frontier block 0, the translation frontier (`pinned`, where
    /// write-backs take pinned pages) block 1, GC's block 2 (`Flash_Block_Manager_Base.cpp:50-56`),
    /// then the other streams' user frontiers (MQSim gives each stream a translation and a GC
    /// frontier of its own, `[data, translation, GC]` per stream). The numbers matter to MQSim's
    /// wear levelling (`wl_mqsim`) and its RGA draw (`rga_mqsim`), which prefer low numbers.
    pub fn open_frontiers_at_build(&mut self, pinned: bool) {
        for plane in 0..self.planes.len() as u32 {
            let user = self.take_free_block(plane);
            self.set_front(plane, Front::User(0), Some(user));
            if pinned {
                // Empty: the table's pages and the write-backs fill it (`pin_translation_page`).
                self.planes[plane as usize].pinned_front = Some(self.take_free_block(plane));
            }
            let gc = self.take_free_block(plane);
            self.set_front(plane, Front::Gc, Some(gc));
        }
        self.open_all_frontiers();
    }

    /// `open_frontiers`: opens every plane's frontiers that are not open yet (once the drive is
    /// built and preconditioned).
    pub fn open_all_frontiers(&mut self) {
        for plane in 0..self.planes.len() as u32 {
            for f in self.fronts().collect::<Vec<_>>() {
                if self.front(plane, f).is_none() && self.may_open(plane, f) {
                    let b = self.take_free_block(plane);
                    self.set_front(plane, f, Some(b));
                }
            }
        }
    }
}

impl Ftl {
    /// `mean_field_layout`: programs `lpas` into the first pages of a fresh block of `plane`'s
    /// frontier `f` and closes it, the rest of its pages invalid — one block of MQSim's
    /// preconditioning (`Allocate_Pages_in_block_and_invalidate_remaining_for_preconditioning`,
    /// `Flash_Block_Manager.cpp:57-89`). False (nothing laid) when the plane has no free block.
    pub fn lay_block(&mut self, plane: u32, f: Front, lpas: impl Iterator<Item = u32>) -> bool {
        let b = loop {
            match self.front(plane, f) {
                Some(b) if self.blocks[b as usize].written == 0 => break b,
                // A partly written frontier is closed first (and, with `open_frontiers`, replaced).
                Some(b) => self.close_block(plane, b, f),
                None if self.planes[plane as usize].free.is_empty() => return false,
                None => {
                    let b = self.take_free_block(plane);
                    self.set_front(plane, f, Some(b));
                    break b;
                }
            }
        };
        for lpa in lpas {
            let ppa = self.alloc(plane, f);
            self.program_user(lpa, ppa);
        }
        if self.blocks[b as usize].state != crate::block::BlockState::Full {
            self.close_block(plane, b, f);
        }
        true
    }
}
