//! The room a plane keeps for the pages its running GC jobs still have to write (`gc_owed`),
//! so that several jobs per plane (`gc_jobs_per_plane`) always finish: another job starts only
//! when the plane's free pages — its GC frontier's and its free blocks' — hold every page the
//! running jobs and the new victim have to move, and a user or pinned translation frontier takes
//! a free block only when what is left still does. MQSim checks nothing of the kind: it starts a
//! job at each block a frontier takes and runs a plane's pool dry if it must, then crashes
//! (`Flash_Block_Manager_Base.cpp:108`); where it does not crash, this lets as many jobs run.
//! With one job per plane the rule is the reserve's: a victim has at most a block's pages less
//! one to move.

use crate::ftl::Ftl;

impl Ftl {
    /// Free pages GC could write on `plane` if `given` free blocks went to other frontiers.
    fn gc_room(&self, plane: u32, given: u32) -> u64 {
        let pb = &self.planes[plane as usize];
        let ppb = self.layout.pages_per_block as u64;
        let front = pb.gc_front.map_or(0, |b| ppb - self.blocks[b as usize].written as u64);
        front + (pb.free.len() as u64).saturating_sub(given as u64) * ppb
    }

    /// Whether `plane` can start another GC job, on a victim with `valid` pages to move.
    pub fn room_for_gc_job(&self, plane: u32, valid: u32) -> bool {
        self.gc_room(plane, 0) >= self.planes[plane as usize].gc_owed as u64 + valid as u64
    }

    /// Whether `plane` can give a free block to a user or pinned frontier and still hold every
    /// page its GC jobs owe.
    #[inline]
    pub(crate) fn block_spare_for_gc(&self, plane: u32) -> bool {
        let owed = self.planes[plane as usize].gc_owed;
        owed == 0 || self.gc_room(plane, 1) >= owed as u64
    }

    /// A job on `plane` started with `pages` to move.
    pub fn gc_owe(&mut self, plane: u32, pages: u32) {
        self.planes[plane as usize].gc_owed += pages;
    }

    /// One of them was written, or went stale before its move.
    pub fn gc_paid(&mut self, plane: u32) {
        let owed = &mut self.planes[plane as usize].gc_owed;
        *owed = owed.saturating_sub(1);
    }
}
