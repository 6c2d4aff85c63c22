//! Page-level FTL without time: the mapping table and its reverse, block states, write
//! frontiers, free-block pools, victim selection and wear levelling. The timed side (ssd.rs)
//! calls these when a program or erase actually happens on a die; preconditioning calls them
//! directly, so the steady state it builds is the one the same code produces.
//!
//! Validity needs no bitmap: a physical page is valid iff `map[rmap[ppa]] == ppa`.

use crate::block_heap::BlockHeap;
use crate::free_list::FreeList;
use crate::geometry::Layout;
use crate::lazy_vec::LazyVec;
use crate::params::{FtlParams, VictimPolicy};
use crate::sparse::SparseTable;
use nest_core::mqsim_rng::MqsimRng;
use nest_core::rng::RngStream;

pub use crate::block::{Block, BlockState};

#[derive(Debug)]
pub struct PlaneBlocks {
    pub free: FreeList,
    pub user_front: Option<u32>,
    pub gc_front: Option<u32>,
    /// `MappingWrites::Pinned`: the block MQSim's translation write-backs take pages of.
    pub pinned_front: Option<u32>,
    /// Free blocks this plane's frontiers have taken (a new GC job may start at each, as MQSim's
    /// `Check_gc_required` does: `ModelSwitches::gc_jobs_per_plane`).
    pub blocks_taken: u32,
    /// GC jobs running on this plane (several with `gc_jobs_per_plane`).
    pub gc_jobs: u32,
    /// Pages the running jobs still have to write (`gc_room`).
    pub gc_owed: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GcNeed {
    None,
    Soft,
    Hard,
}

#[derive(Clone, Debug, Default)]
pub struct FtlCounters {
    pub user_programs: u64,
    pub gc_programs: u64,
    pub erases: u64,
    pub gc_jobs: u64,
    pub wl_jobs: u64,
    pub precondition_programs: u64,
    /// `MappingWrites::Pinned`: blocks taken for good, and write-backs left unplaced because the
    /// plane was down to GC's hard threshold.
    pub pinned_blocks: u64,
    pub pinned_unplaced: u64,
}

pub struct Ftl {
    pub layout: Layout,
    /// LPA → PPA + 1 (0 = never written); chunks exist only where something was written.
    map: SparseTable,
    /// PPA → LPA + 1.
    rmap: Vec<u32>,
    /// Created as blocks are first used (an idle drive holds none).
    pub blocks: LazyVec<Block>,
    pub planes: Vec<PlaneBlocks>,
    /// Full blocks by victim key (valid pages, then index): the greedy choice, and the fallback
    /// of the sampling policies. Unused (empty) under FIFO, which scans.
    by_valid: BlockHeap,
    /// Full blocks by erase count, then index (static wear levelling's coldest block).
    by_erases: BlockHeap,
    /// Each plane's highest erase count (erase counts only grow).
    max_erases: Vec<u32>,
    close_seq: u64,
    pub soft_free: u32,
    pub hard_free: u32,
    victim: VictimPolicy,
    rga_d: u32,
    /// `RgaSampling::Mqsim` (set by the drive from its model switches).
    pub rga_mqsim: bool,
    /// `ModelSwitches::gc_floor_blocks`: user writes wait while a plane has fewer free blocks.
    pub write_floor: u32,
    /// `ModelSwitches::open_frontiers` (`frontiers`).
    pub open_frontiers: bool,
    /// `ModelSwitches::stream_frontiers` (`frontiers`): the first LPA of each stream after the
    /// first, and those streams' user frontiers, `plane × streams-after-the-first + stream − 1`.
    pub(crate) stream_starts: Vec<u32>,
    pub(crate) stream_fronts: Vec<Option<u32>>,
    pub(crate) static_wl: Option<u32>,
    /// `ModelSwitches::static_wl_block_ids`: MQSim's check replaces NeSt's (`wl_mqsim`).
    pub wl_block_ids: bool,
    pub counters: FtlCounters,
}

/// GC's order of full blocks: fewest valid pages first, then the lowest index (as a scan finds).
#[inline]
fn valid_key(blocks: &LazyVec<Block>, b: u32) -> u64 {
    (blocks[b as usize].valid as u64) << 32 | b as u64
}

/// Static wear levelling's order of full blocks: fewest erases first, then the lowest index.
#[inline]
fn erases_key(blocks: &LazyVec<Block>, b: u32) -> u64 {
    (blocks[b as usize].erases as u64) << 32 | b as u64
}

/// Which frontier of a plane: GC's, or the user frontier of a stream (0 without streams;
/// `frontiers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Front {
    Gc,
    User(u32),
}

/// User writes stop taking new blocks when a plane is down to this many free blocks: they are
/// kept for GC, whose moves always fit in one block (a victim has at least one invalid page).
pub(crate) const GC_RESERVE: usize = 1;

impl Ftl {
    pub fn new(layout: Layout, logical_pages: u64, ftl: &FtlParams, soft_free: u32, hard_free: u32) -> Self {
        let planes = layout.planes as usize;
        let bpp = layout.blocks_per_plane;
        let nblocks = planes * bpp as usize;
        let npages = nblocks * layout.pages_per_block as usize;
        let blocks = LazyVec::new(nblocks, Block::FREE);
        let planes_v = (0..planes as u32)
            .map(|p| PlaneBlocks {
                free: FreeList::new(p * bpp..(p + 1) * bpp, ftl.dynamic_wl),
                user_front: None,
                gc_front: None,
                pinned_front: None,
                blocks_taken: 0,
                gc_jobs: 0,
                gc_owed: 0,
            })
            .collect();
        Ftl {
            layout,
            map: SparseTable::new(logical_pages as usize),
            rmap: vec![0; npages],
            blocks,
            planes: planes_v,
            by_valid: BlockHeap::new(if ftl.victim == VictimPolicy::Fifo { 0 } else { planes }, if ftl.victim == VictimPolicy::Fifo { 0 } else { nblocks }),
            by_erases: BlockHeap::new(if ftl.static_wl_threshold.is_some() { planes } else { 0 }, if ftl.static_wl_threshold.is_some() { nblocks } else { 0 }),
            max_erases: vec![0; planes],
            close_seq: 0,
            soft_free,
            hard_free,
            victim: ftl.victim,
            rga_d: ftl.rga_d,
            rga_mqsim: false,
            write_floor: 0,
            open_frontiers: false,
            stream_starts: Vec::new(),
            stream_fronts: Vec::new(),
            static_wl: ftl.static_wl_threshold,
            wl_block_ids: false,
            counters: FtlCounters::default(),
        }
    }

    pub fn logical_pages(&self) -> u32 {
        self.map.len() as u32
    }

    #[inline]
    pub fn lookup(&self, lpa: u32) -> Option<u32> {
        match self.map.get(lpa as usize) {
            0 => None,
            p => Some(p - 1),
        }
    }

    /// A hint that `lpa`'s entry will be read (a transaction waiting for its mapping page): the
    /// line that locates it. `warm_entry`, later, asks for the entry's own line. Two steps, as
    /// the entry's address needs the first line: together they hide both dependent misses of
    /// the lookup the transaction makes once its mapping is in (issue 24).
    #[inline]
    pub fn warm(&self, lpa: u32) {
        self.map.prefetch_slot(lpa as usize);
    }

    #[inline]
    pub fn warm_entry(&self, lpa: u32) {
        self.map.prefetch_entry(lpa as usize);
    }

    #[inline]
    pub fn is_valid(&self, ppa: u32) -> bool {
        match self.rmap[ppa as usize] {
            0 => false,
            l => self.map.get((l - 1) as usize) == ppa + 1,
        }
    }

    #[inline]
    pub fn lpa_at(&self, ppa: u32) -> u32 {
        self.rmap[ppa as usize].wrapping_sub(1)
    }

    pub fn free_blocks(&self, plane: u32) -> usize {
        self.planes[plane as usize].free.len()
    }

    #[inline]
    pub(crate) fn front_has_room(&self, front: Option<u32>) -> bool {
        front.is_some_and(|b| self.blocks[b as usize].written < self.layout.pages_per_block)
    }

    pub fn gc_need(&self, plane: u32) -> GcNeed {
        let free = self.planes[plane as usize].free.len() as u32;
        if free < self.hard_free || !self.can_alloc_user(plane) {
            GcNeed::Hard
        } else if free < self.soft_free {
            GcNeed::Soft
        } else {
            GcNeed::None
        }
    }

    pub(crate) fn take_free_block(&mut self, plane: u32) -> u32 {
        // Dynamic wear levelling (the least-erased free block) is the free list's own order.
        let b = self.planes[plane as usize].free.take().expect("a free block");
        self.planes[plane as usize].blocks_taken += 1;
        self.blocks[b as usize].state = BlockState::Open;
        b
    }

    /// Takes the next page of the plane's user or GC frontier. Callers check `can_alloc_user`
    /// for user writes; GC always finds a page while the reserve holds.
    pub fn alloc(&mut self, plane: u32, f: Front) -> u32 {
        let front = self.front(plane, f);
        let b = if self.front_has_room(front) {
            front.unwrap()
        } else {
            assert!(!self.planes[plane as usize].free.is_empty(), "plane {plane} has no free block (GC reserve violated)");
            let b = self.take_free_block(plane);
            self.set_front(plane, f, Some(b));
            b
        };
        let blk = &mut self.blocks[b as usize];
        let ppa = b * self.layout.pages_per_block + blk.written;
        blk.written += 1;
        if blk.written == self.layout.pages_per_block {
            self.close_block(plane, b, f);
        }
        ppa
    }

    /// Frontier block `b` of `plane` is written to its end (the rest of its pages left invalid
    /// if it was not): full, no longer a frontier, a GC candidate.
    pub(crate) fn close_block(&mut self, plane: u32, b: u32, f: Front) {
        let blk = &mut self.blocks[b as usize];
        blk.written = self.layout.pages_per_block;
        blk.state = BlockState::Full;
        blk.closed_at = self.close_seq;
        self.close_seq += 1;
        // A full block is no longer a frontier. Left as one, GC could pick it as its victim
        // and erase it while the frontier still pointed at it: the next write would then
        // fill a block that was also in the free pool (found by the victim-index test).
        self.front_filled(plane, f);
        self.indexed_full(plane, b);
    }

    /// `MappingWrites::Pinned`: a translation write-back takes the next page of `plane`'s pinned
    /// block, which is never full, never a GC victim and never erased. True when it took a new
    /// block from the free pool.
    pub fn pin_translation_page(&mut self, plane: u32) -> bool {
        let front = self.planes[plane as usize].pinned_front;
        if self.front_has_room(front) {
            self.blocks[front.unwrap() as usize].written += 1;
            return false;
        }
        if self.planes[plane as usize].free.len() as u32 <= self.hard_free.max(GC_RESERVE as u32) || !self.block_spare_for_gc(plane) {
            self.counters.pinned_unplaced += 1;
            return false;
        }
        let b = self.take_free_block(plane);
        self.blocks[b as usize].written = 1;
        self.planes[plane as usize].pinned_front = Some(b);
        self.counters.pinned_blocks += 1;
        true
    }

    /// A block just became full: a candidate for GC and for wear levelling.
    fn indexed_full(&mut self, plane: u32, b: u32) {
        let blocks = &self.blocks;
        if self.victim != VictimPolicy::Fifo {
            self.by_valid.insert(plane, b, |x| valid_key(blocks, x));
        }
        if self.static_wl.is_some() {
            self.by_erases.insert(plane, b, |x| erases_key(blocks, x));
        }
    }

    /// Block `b`'s valid count changed: re-place it among the GC candidates if it is one.
    #[inline]
    fn valid_changed(&mut self, b: u32) {
        if self.by_valid.contains(b) {
            let blocks = &self.blocks;
            self.by_valid.update(self.layout.plane_of_block(b), b, |x| valid_key(blocks, x));
        }
    }

    #[inline]
    fn invalidate(&mut self, ppa: u32) {
        let b = self.layout.block_of_ppa(ppa);
        self.blocks[b as usize].valid -= 1;
        self.valid_changed(b);
    }

    /// A host write of `lpa` programmed at `ppa`: the old copy becomes invalid.
    #[inline]
    pub fn program_user(&mut self, lpa: u32, ppa: u32) {
        if let Some(old) = self.lookup(lpa) {
            self.invalidate(old);
        }
        self.map.set(lpa as usize, ppa + 1);
        self.rmap[ppa as usize] = lpa + 1;
        let b = self.layout.block_of_ppa(ppa);
        self.blocks[b as usize].valid += 1;
        self.valid_changed(b);
        self.counters.user_programs += 1;
    }

    /// Gives never-written `lpa` the next page of `plane`'s user frontier without programming
    /// it, as MQSim does for a read of such a page (`online_create_entry_for_reads`,
    /// `Address_Mapping_Unit_Page_Level.cpp:1225-1388`): the page is valid from then on and the
    /// frontier has moved. `None` (nothing placed) where a user write could not take a page now.
    pub fn place_unwritten(&mut self, lpa: u32, plane: u32) -> Option<u32> {
        if self.lookup(lpa).is_some() || !self.can_alloc_user_for(plane, lpa) {
            return None;
        }
        let ppa = self.alloc(plane, self.user_front_of(lpa));
        self.program_user(lpa, ppa);
        self.counters.user_programs -= 1; // placed, not programmed
        self.program_issued(ppa); // MQSim: a program issued that never completes
        Some(ppa)
    }

    /// A GC move of `lpa` from `old` to `new`. If the host rewrote the page meanwhile, the
    /// copy is garbage on arrival (it counts as programmed but is not mapped).
    #[inline]
    pub fn program_move(&mut self, lpa: u32, old: u32, new: u32) -> bool {
        self.rmap[new as usize] = lpa + 1;
        self.counters.gc_programs += 1;
        if self.map.get(lpa as usize) != old + 1 {
            return false;
        }
        self.invalidate(old);
        self.map.set(lpa as usize, new + 1);
        let b = self.layout.block_of_ppa(new);
        self.blocks[b as usize].valid += 1;
        self.valid_changed(b);
        true
    }

    /// Valid pages of `block` as (ppa, lpa).
    pub fn valid_pages(&self, block: u32, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let base = block * self.layout.pages_per_block;
        for ppa in base..base + self.blocks[block as usize].written {
            if self.is_valid(ppa) {
                out.push((ppa, self.lpa_at(ppa)));
            }
        }
    }

    /// Chooses a victim on `plane` and marks it; returns it and whether it is a static
    /// wear-levelling migration rather than a space reclaim.
    pub fn start_gc(&mut self, plane: u32, rng: &mut RngStream) -> Option<(u32, bool)> {
        let (b, wl) = self.pick_gc_victim(plane, rng, None)?;
        self.claim_victim(plane, b, wl);
        Some((b, wl))
    }

    /// The victim `start_gc` would choose, unmarked (`mqsim`: MQSim's GC generator, which draws
    /// RGA's samples when given, `ModelSwitches::gc_seed`).
    pub fn pick_gc_victim(&self, plane: u32, rng: &mut RngStream, mqsim: Option<&mut MqsimRng>) -> Option<(u32, bool)> {
        let bpp = self.layout.blocks_per_plane;
        let ppb = self.layout.pages_per_block;
        let range = plane * bpp..(plane + 1) * bpp;
        let full = |b: &Block| b.state == BlockState::Full;
        let mut wl = false;
        // The full block with the fewest valid pages (the lowest-numbered among equals), if it
        // has an invalid page to reclaim.
        let fewest_valid = self.by_valid.top(plane).filter(|&b| self.blocks[b as usize].valid < ppb);
        let mut chosen = match self.victim {
            VictimPolicy::Greedy => fewest_valid,
            VictimPolicy::Fifo => {
                // The oldest block that is not fully valid: a scan (FIFO is rare; an index by
                // age would still have to skip the fully valid ones).
                let mut best: Option<(u64, u32)> = None;
                for b in range.clone() {
                    let blk = &self.blocks[b as usize];
                    if !full(blk) || blk.valid >= ppb {
                        continue;
                    }
                    if best.is_none_or(|(k, _)| blk.closed_at < k) {
                        best = Some((blk.closed_at, b));
                    }
                }
                best.map(|(_, b)| b)
            }
            VictimPolicy::Rga if self.rga_mqsim => self.mqsim_rga_pick(plane, self.rga_d, rng, mqsim),
            VictimPolicy::Random | VictimPolicy::Rga => {
                let d = if self.victim == VictimPolicy::Random { 1 } else { self.rga_d };
                let mut best: Option<u32> = None;
                // Sample among full blocks; a fully valid sample is useless and retried a few
                // times, then greedy decides (so GC always makes progress).
                for _ in 0..d * 4 {
                    let b = plane * bpp + rng.below(bpp as u64) as u32;
                    let blk = &self.blocks[b as usize];
                    if full(blk) && blk.valid < ppb && best.is_none_or(|x| blk.valid < self.blocks[x as usize].valid) {
                        best = Some(b);
                    }
                    if best.is_some() && d == 1 {
                        break;
                    }
                }
                best.or(fewest_valid)
            }
        };
        // Static wear levelling: when the erase-count spread of the plane reaches the
        // threshold, migrate the coldest full block instead (it holds the coldest data).
        if let Some(th) = self.static_wl.filter(|_| !self.wl_block_ids) {
            let hi = self.max_erases[plane as usize];
            if let Some(cold) = self.by_erases.top(plane) {
                if hi - self.blocks[cold as usize].erases >= th && self.planes[plane as usize].free.len() as u32 >= self.hard_free {
                    chosen = Some(cold);
                    wl = true;
                }
            }
        }
        chosen.map(|b| (b, wl))
    }

    /// Marks `b` as `plane`'s GC victim (a wear-levelling migration if `wl`).
    pub fn claim_victim(&mut self, plane: u32, b: u32, wl: bool) {
        let blocks = &self.blocks;
        self.by_valid.remove(plane, b, |x| valid_key(blocks, x));
        self.by_erases.remove(plane, b, |x| erases_key(blocks, x));
        self.blocks[b as usize].state = BlockState::Victim;
        if wl {
            self.counters.wl_jobs += 1;
        } else {
            self.counters.gc_jobs += 1;
        }
    }

    /// The victim's pages have been moved and it was erased.
    pub fn erase(&mut self, block: u32) {
        let plane = self.layout.plane_of_block(block);
        let blk = &mut self.blocks[block as usize];
        debug_assert_eq!(blk.valid, 0, "erasing a block with valid pages");
        blk.valid = 0;
        blk.written = 0;
        blk.erases += 1;
        blk.state = BlockState::Free;
        (blk.gc_flagged, blk.programs_in_flight) = (false, 0);
        let erases = blk.erases;
        self.max_erases[plane as usize] = self.max_erases[plane as usize].max(erases);
        self.counters.erases += 1;
        let pb = &mut self.planes[plane as usize];
        pb.free.push(block, erases);
    }

    /// GC done instantly (preconditioning): pick, move, erase.
    pub fn gc_instant(&mut self, plane: u32, rng: &mut RngStream, scratch: &mut Vec<(u32, u32)>) -> bool {
        let Some((victim, _)) = self.start_gc(plane, rng) else { return false };
        self.valid_pages(victim, scratch);
        for &(old, lpa) in scratch.iter() {
            let new = self.alloc(plane, Front::Gc);
            self.program_move(lpa, old, new);
        }
        self.erase(victim);
        true
    }

    /// Writes `lpa` on `plane` instantly, collecting garbage first as the device would.
    pub fn write_instant(&mut self, lpa: u32, plane: u32, rng: &mut RngStream, scratch: &mut Vec<(u32, u32)>) {
        while self.gc_need(plane) != GcNeed::None {
            if !self.gc_instant(plane, rng, scratch) {
                break;
            }
        }
        let ppa = self.alloc(plane, self.user_front_of(lpa));
        self.program_user(lpa, ppa);
        self.counters.precondition_programs += 1;
    }

    /// Mean, min and max erase counts.
    pub fn erase_spread(&self) -> (f64, u32, u32) {
        // Blocks never used were never erased: only the created ones are scanned.
        let n = self.blocks.len().max(1) as f64;
        let (mut sum, mut lo, mut hi) = (0u64, u32::MAX, 0u32);
        for (_, b) in self.blocks.created() {
            sum += b.erases as u64;
            lo = lo.min(b.erases);
            hi = hi.max(b.erases);
        }
        if self.blocks.not_created() > 0 || self.blocks.is_empty() {
            lo = 0;
        }
        (sum as f64 / n, lo, hi)
    }

    /// Checks the books: per-block valid counts equal the pages the map points at.
    pub fn check(&self) -> Result<(), String> {
        // Counted lazily as the blocks are: an idle drive's check touches nothing.
        let mut counted = LazyVec::new(self.blocks.len(), 0u32);
        for (first, chunk) in self.map.written() {
            // The reverse entries of a chunk's pages are scattered: asked for together first,
            // their misses overlap.
            for &p in chunk.iter().filter(|&&p| p != 0) {
                nest_core::hint::prefetch(&self.rmap[p as usize - 1]);
            }
            for (j, &p) in chunk.iter().enumerate().filter(|(_, &p)| p != 0) {
                let (lpa, ppa) = (first + j, p - 1);
                if self.rmap[ppa as usize] != lpa as u32 + 1 {
                    return Err(format!("lpa {lpa} maps to ppa {ppa} whose reverse entry is {}", self.rmap[ppa as usize] as i64 - 1));
                }
                counted[self.layout.block_of_ppa(ppa) as usize] += 1;
            }
        }
        // Every block with a valid count or a mapped page is in a created chunk of one of them.
        for (b, blk) in self.blocks.created() {
            if blk.valid != counted[b] {
                return Err(format!("block {b}: valid count {} but {} mapped pages", blk.valid, counted[b]));
            }
        }
        if let Some((b, n)) = counted.created().find(|&(b, &n)| n > 0 && !self.blocks.is_created(b)) {
            return Err(format!("block {b}: valid count 0 but {n} mapped pages"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::SsdParams;

    /// The scans the indexes replaced: the full block with the fewest valid pages (first among
    /// equals) that has an invalid page, and the full block with the fewest erases.
    fn scanned(f: &Ftl, plane: u32) -> (Option<u32>, Option<u32>) {
        let bpp = f.layout.blocks_per_plane;
        let range = plane * bpp..(plane + 1) * bpp;
        let full = |b: &u32| f.blocks[*b as usize].state == BlockState::Full;
        let greedy = range.clone().filter(full).filter(|&b| f.blocks[b as usize].valid < f.layout.pages_per_block).min_by_key(|&b| f.blocks[b as usize].valid);
        let cold = range.clone().filter(full).min_by_key(|&b| f.blocks[b as usize].erases);
        let hi = range.map(|b| f.blocks[b as usize].erases).max().unwrap_or(0);
        assert_eq!(hi, f.max_erases[plane as usize]);
        (greedy, cold)
    }

    /// Under random overwrites with GC and static wear levelling, the indexed choices are the
    /// scanned ones at every step (so results did not move when the scans went).
    #[test]
    fn indexed_victims_are_the_scanned_ones() {
        for victim in [VictimPolicy::Greedy, VictimPolicy::Rga] {
            let mut p = crate::presets::preset("mqsim-default").unwrap();
            p.geometry.blocks_per_plane = 128;
            p.geometry.pages_per_block = 32;
            p.geometry.channels = 2;
            p.geometry.chips_per_channel = 1;
            p.ftl.victim = victim;
            p.ftl.static_wl_threshold = Some(3);
            let p: SsdParams = p;
            let layout = Layout::new(&p.geometry, &p.ftl.allocation);
            let logical = p.logical_pages();
            let mut f = Ftl::new(layout, logical, &p.ftl, p.soft_free_blocks(), p.hard_free_blocks());
            let mut rng = RngStream::derive(5, "ftl", 0, "t");
            let mut scratch = Vec::new();
            let planes = f.layout.planes;
            for k in 0..logical * 4 {
                let lpa = if k < logical { k } else { rng.below(logical * 8 / 10) };
                let plane = (k % planes as u64) as u32;
                if k % 3 != 0 {
                    f.write_instant(lpa as u32, plane, &mut rng, &mut scratch);
                    continue;
                }
                let (greedy, cold) = scanned(&f, plane);
                if let Some(t) = f.by_valid.top(plane) {
                    let b = &f.blocks[t as usize];
                    assert!(
                        b.state == BlockState::Full && f.layout.plane_of_block(t) == plane,
                        "{victim:?} step {k}: top {t} of plane {plane}: {b:?}, plane {}",
                        f.layout.plane_of_block(t)
                    );
                }
                assert_eq!(f.by_valid.top(plane).filter(|&b| f.blocks[b as usize].valid < f.layout.pages_per_block), greedy, "{victim:?} step {k}");
                if f.static_wl.is_some() {
                    assert_eq!(f.by_erases.top(plane), cold, "{victim:?} step {k}");
                }
                f.write_instant(lpa as u32, plane, &mut rng, &mut scratch);
            }
            assert!(f.counters.gc_jobs > 100 && f.counters.wl_jobs > 0, "{victim:?}: {} GC, {} WL jobs", f.counters.gc_jobs, f.counters.wl_jobs);
            f.check().unwrap();
        }
    }
}
