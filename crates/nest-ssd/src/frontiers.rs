//! When a plane's write frontiers take their blocks. NeSt's default: when the first page is
//! wanted, so a full frontier is closed and the next write takes a free block. MQSim's
//! (`ModelSwitches::open_frontiers`): every plane's user, GC and translation frontiers are open
//! from the start (`src/ssd/Flash_Block_Manager_Base.cpp:54-56`) and a frontier that fills takes
//! its next block at once (`Flash_Block_Manager.cpp:30-33, 49-52`) — so the free pool is a block
//! lower from the start, and a GC job that begins a burst writes its moves into a GC frontier
//! that already has room instead of taking a block, which would start another job.
//!
//! Kept from MQSim's: only the user and GC frontiers (the translation one stays as
//! `pin_translation_page` takes it), one set per plane rather than one per flow, and a user
//! frontier replaced only while a free block stays for GC (`gc_room`): MQSim would run the
//! pool dry and crash (`Flash_Block_Manager_Base.cpp:108`).

use crate::ftl::{Ftl, GC_RESERVE};

impl Ftl {
    /// The user (`for_gc` false) or GC frontier of `plane` has just filled: closed, or, with
    /// `open_frontiers`, replaced by a free block now.
    pub(crate) fn front_filled(&mut self, plane: u32, for_gc: bool) {
        let next = (self.open_frontiers && self.may_open(plane, for_gc)).then(|| self.take_free_block(plane));
        self.set_front(plane, for_gc, next);
    }

    /// Makes `block` (or none) `plane`'s user or GC frontier.
    pub(crate) fn set_front(&mut self, plane: u32, for_gc: bool, block: Option<u32>) {
        let pb = &mut self.planes[plane as usize];
        if for_gc {
            pb.gc_front = block;
        } else {
            pb.user_front = block;
        }
    }

    /// Whether a frontier of `plane` may take a free block ahead of any write.
    fn may_open(&self, plane: u32, for_gc: bool) -> bool {
        let free = self.planes[plane as usize].free.len();
        if for_gc {
            free > 0
        } else {
            free > GC_RESERVE && self.block_spare_for_gc(plane)
        }
    }

    /// `open_frontiers`: opens every plane's user and GC frontier that is not open yet (once
    /// the drive is built and preconditioned).
    pub fn open_all_frontiers(&mut self) {
        for plane in 0..self.planes.len() as u32 {
            for for_gc in [false, true] {
                let pb = &self.planes[plane as usize];
                let open = if for_gc { pb.gc_front } else { pb.user_front }.is_some();
                if !open && self.may_open(plane, for_gc) {
                    let b = self.take_free_block(plane);
                    self.set_front(plane, for_gc, Some(b));
                }
            }
        }
    }
}
