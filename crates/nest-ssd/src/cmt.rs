//! Cached mapping table (DFTL-style): the page-level map lives on flash in translation pages;
//! DRAM caches part of it, LRU. A lookup that misses costs a flash read of the translation
//! page; evicting a dirty entry costs a flash write of its translation page.
//!
//! What is cached is a model switch (`CmtGranularity`): whole translation pages (NeSt's default:
//! a miss brings a page of neighbouring entries, which sequential access reuses) or single
//! entries (MQSim: more distinct pages' entries fit, a neighbour's lookup misses again). With
//! `MappingWrites::Never` (MQSim's quirk) a dirty eviction programs nothing and its translation
//! page counts as in memory from then on, so later misses on it are free. With
//! `evicted_entry_misfiled` (MQSim's bug) a dirty entry evicted to make room for LPA x is filed
//! under x: x's translation page is the one written back, and x arrives mapped (clean).
//!
//! Caching single entries, writing a translation page back persists every cached entry of it,
//! so they are all clean afterwards (MQSim cleans them in the same loop that sizes the merge
//! read). Each translation page counts its write-backs (`tp_epoch`); an entry is dirty only if it
//! was dirtied since its page's last write-back (its `dirty` mark holds that count + 1): O(1)
//! instead of a scan of the page's entries.
//!
//! A merge read moves the whole translation page, or (`MergeRead::CleanCachedSectors`, MQSim)
//! the 512 B sectors holding the page's clean cached entries; for that each page counts its
//! cached and its dirty entries per sector.

use crate::cmt_siblings::Siblings;
use crate::divisor::Div32;
use crate::geometry::NONE;
use crate::lazy_vec::LazyVec;
use crate::lru::LruList;
use crate::sparse::SparseTable;
use crate::switches::{CmtGranularity, MappingWrites, MergeRead};

pub struct Cmt {
    /// Mapping entries per translation page.
    pub entries_per_page: u32,
    /// `entries_per_page` as a divisor (`tpage` runs on every lookup).
    per_page: Div32,
    granularity: CmtGranularity,
    mapping_writes: MappingWrites,
    /// Cached units (translation pages or entries) at most, per partition.
    capacity: u32,
    /// Translation pages, or entry slots: one list per partition — one, or one per address
    /// domain, each of the full `capacity`, with `per_domain` (`set_domains`).
    lru: Vec<LruList>,
    /// Page mode, per unit: dirty.
    dirty: LazyVec<bool>,
    /// Entry mode, per unit: 0 when clean, else 1 + its translation page's write-back count
    /// when it was dirtied (a later write-back cleaned it). One word, so the check reads the
    /// unit once (a second per-unit array cost a cache miss per insert); page mode keeps a bool
    /// (a word per translation page grew the 10,000-drive run by 20 MB).
    dirty_mark: LazyVec<u32>,
    /// Entry mode: write-backs per translation page so far.
    tp_epoch: LazyVec<u32>,
    /// `MergeRead::CleanCachedSectors`: per translation page and sector (`sectors` each), the
    /// cached entries (low 16 bits) and the dirty ones among them (high 16 bits): one load.
    sector_counts: LazyVec<u32>,
    sectors: u32,
    /// Bytes of one entry on flash (which sector of its page an entry is in).
    flash_entry_bytes: u32,
    /// Entry mode: LPA → slot + 1, the LPA in each slot, the free slots.
    index: SparseTable,
    slot_lpa: Vec<u32>,
    free: Vec<u32>,
    /// Head of the list of transactions waiting for this translation page (linked through the
    /// transactions), or NONE when the page is not being fetched. Chunked: filled in at set-up
    /// it wrote 124 KB per stock drive, 1.2 GB for 10,000 drives (issue 24).
    waiting: LazyVec<u32>,
    /// `MappingWrites::Never`: translation pages whose write-back was queued and never served.
    departed: Vec<bool>,
    /// Translation pages whose dirty entries were evicted, for the caller to write back (with
    /// `MappingWrites::Never` the caller does the merge read only).
    pub write_backs: Vec<u32>,
    /// The bytes each write-back's merge read moves (entry mode), in step with `write_backs`.
    pub merge_bytes: Vec<u32>,
    page_size: u32,
    pub hits: u64,
    pub misses: u64,
    /// Misses served without a flash read (a departed translation page).
    pub free_misses: u64,
    /// `evicted_entry_misfiled`: the LPAs under which an evicted entry was filed (MQSim's global
    /// mapping table entries that hold a mapping), one bit each.
    misfiled: Option<Vec<u64>>,
    /// MQSim's per-stream address domains (`ModelSwitches::mapping_domains`), as their first
    /// LPAs in rising order; empty: one. A dirty entry evicted by a miss in another domain is
    /// written back in the missing LPA's domain, at the evicted entry's offset in its own.
    pub domains: Vec<u32>,
    /// `ModelSwitches::writeback_refreshes_siblings`: each translation page's cached entries, so a
    /// write-back can make its page's dirty ones the most recently used (entry mode).
    siblings: Option<Siblings>,
    /// The dirty siblings of a write-back, (LPA, slot), put in LPA order.
    sibling_scratch: Vec<(u32, u32)>,
}

/// What a transaction does to its mapping entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Update {
    None,
    /// A program: the entry changes.
    Program,
    /// A read of a page never written, which maps it (`unwritten_read_maps`): the entry changes
    /// once, unless it arrives mapped.
    Maps,
}

pub enum Lookup {
    Hit,
    /// Missing; `fetch` is true for the first miss (the caller issues the mapping read).
    Miss {
        tp: u32,
        fetch: bool,
    },
}

impl Cmt {
    /// The first transaction waiting for translation page `tp` (`NONE`: none).
    #[inline]
    pub fn waiting_head(&self, tp: u32) -> u32 {
        self.waiting[tp as usize]
    }

    /// Makes `t` the first transaction waiting for `tp`.
    #[inline]
    pub fn set_waiting_head(&mut self, tp: u32, t: u32) {
        self.waiting[tp as usize] = t;
    }

    /// Takes the list of transactions waiting for `tp` (its head, `NONE` when empty).
    #[inline]
    pub fn take_waiting(&mut self, tp: u32) -> u32 {
        std::mem::replace(&mut self.waiting[tp as usize], NONE)
    }

    /// `bytes` of DRAM; translation pages of `page_size` holding `entries_per_page` entries;
    /// entries of `entry_bytes` in entry mode.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        logical_pages: u64,
        page_size: u32,
        bytes: u64,
        entries_per_page: u32,
        granularity: CmtGranularity,
        entry_bytes: u32,
        mapping_writes: MappingWrites,
        misfiled: bool,
        merge_read: MergeRead,
    ) -> Self {
        let entries_per_page = entries_per_page.max(1);
        let sectors = page_size.div_ceil(512).max(1);
        let tpages = logical_pages.div_ceil(entries_per_page as u64) as usize;
        let (capacity, units, indexed) = match granularity {
            CmtGranularity::TranslationPage => {
                let c = (bytes / page_size as u64).max(1) as u32;
                (c, tpages, 0)
            }
            CmtGranularity::Entry => {
                let c = (bytes / entry_bytes.max(1) as u64).clamp(1, u32::MAX as u64 / 2) as u32;
                (c, c as usize, logical_pages as usize)
            }
        };
        Cmt {
            entries_per_page,
            per_page: Div32::new(entries_per_page),
            granularity,
            mapping_writes,
            capacity,
            lru: vec![LruList::new(units)],
            dirty: LazyVec::new(if indexed > 0 { 0 } else { units }, false),
            dirty_mark: LazyVec::new(if indexed > 0 { units } else { 0 }, 0),
            tp_epoch: LazyVec::new(if indexed > 0 { tpages } else { 0 }, 0),
            sector_counts: LazyVec::new(if indexed > 0 && merge_read == MergeRead::CleanCachedSectors { tpages * sectors as usize } else { 0 }, 0),
            sectors,
            flash_entry_bytes: page_size / entries_per_page,
            index: SparseTable::new(indexed),
            slot_lpa: if indexed > 0 { vec![NONE; units] } else { Vec::new() },
            free: if indexed > 0 { (0..capacity).rev().collect() } else { Vec::new() },
            waiting: LazyVec::new(tpages, NONE),
            departed: vec![false; if mapping_writes.programmed() { 0 } else { tpages }],
            write_backs: Vec::new(),
            merge_bytes: Vec::new(),
            page_size,
            hits: 0,
            misses: 0,
            free_misses: 0,
            misfiled: misfiled.then(|| vec![0u64; logical_pages.div_ceil(64) as usize]),
            domains: Vec::new(),
            siblings: None,
            sibling_scratch: Vec::new(),
        }
    }

    /// MQSim's address domains (`ModelSwitches::mapping_domains`) as their first LPAs, rising.
    /// With `per_domain` each gets a partition of the full capacity of its own, as MQSim
    /// 7ec40e3 builds one: its `SHARED` mode creates the "shared" table inside the loop over
    /// the domains (`Address_Mapping_Unit_Page_Level.cpp:322-338` — a bug), so each flow
    /// caches as much as the whole CMT and never evicts another's entries.
    pub fn set_domains(&mut self, starts: Vec<u32>, per_domain: bool) {
        let parts = if per_domain { starts.len().max(1) } else { 1 };
        if parts > 1 {
            let units = if self.granularity == CmtGranularity::Entry {
                // Room for every partition's entries: the slots are shared out as they fill.
                let all = self.capacity as usize * parts;
                self.slot_lpa = vec![NONE; all];
                self.dirty_mark = LazyVec::new(all, 0);
                self.free = (0..all as u32).rev().collect();
                all
            } else {
                self.waiting.len() // translation pages
            };
            self.lru = (0..parts).map(|_| LruList::new(units)).collect();
        }
        self.domains = starts;
    }

    /// The address domain `lpa` lies in (0 without domains).
    fn domain(&self, lpa: u32) -> usize {
        self.domains.partition_point(|&b| b <= lpa).saturating_sub(1)
    }

    /// The partition `lpa`'s entry caches in: its domain's with `per_domain`, else the one.
    #[inline]
    fn part(&self, lpa: u32) -> usize {
        if self.lru.len() > 1 {
            self.domain(lpa)
        } else {
            0
        }
    }

    /// The number of translation pages.
    pub fn translation_pages(&self) -> u32 {
        self.waiting.len() as u32
    }

    #[inline]
    pub fn tpage(&self, lpa: u32) -> u32 {
        self.per_page.quotient(lpa)
    }

    /// The cached unit holding `lpa`'s entry, if cached; `part` is `lpa`'s partition.
    #[inline]
    fn unit(&self, lpa: u32, part: usize) -> Option<u32> {
        match self.granularity {
            CmtGranularity::TranslationPage => {
                let tp = self.tpage(lpa);
                self.lru[part].contains(tp).then_some(tp)
            }
            CmtGranularity::Entry => match self.index.get(lpa as usize) {
                0 => None,
                s => Some(s - 1),
            },
        }
    }

    /// Whether `update` changes a cached unit: a program always; a mapping read only a cached
    /// translation page (a cached single entry was mapped when it came in).
    #[inline]
    fn changes_cached(&self, update: Update) -> bool {
        update == Update::Program || (update == Update::Maps && self.granularity == CmtGranularity::TranslationPage)
    }

    /// `lpa` moved into `of`'s address domain at the same offset (`domains`): where MQSim files
    /// an entry evicted by a miss of another stream (`Address_Mapping_Unit_Page_Level.cpp:1549-1564`
    /// writes the evicted, stream-local LPA back in the missing stream's domain).
    fn in_domain_of(&self, lpa: u32, of: u32) -> u32 {
        let (a, b) = (self.domain(lpa), self.domain(of));
        if a == b {
            return lpa;
        }
        let moved = self.domains[b] as u64 + (lpa - self.domains[a]) as u64;
        let end = self.domains.get(b + 1).map_or(self.index.len() as u64, |&e| e as u64);
        moved.min(end.saturating_sub(1)) as u32
    }

    /// Looks `lpa` up; `update` says whether the access changes its entry.
    #[inline]
    pub fn lookup(&mut self, lpa: u32, update: Update) -> Lookup {
        let part = self.part(lpa);
        if let Some(u) = self.unit(lpa, part) {
            self.hits += 1;
            self.lru[part].touch(u);
            if self.changes_cached(update) {
                self.mark_dirty(u, lpa);
            }
            return Lookup::Hit;
        }
        self.misses += 1;
        let tp = self.tpage(lpa);
        if self.departed.get(tp as usize).copied().unwrap_or(false) {
            // MQSim keeps a page whose write-back is pending readable from DRAM.
            self.free_misses += 1;
            self.insert(lpa, update);
            return Lookup::Hit;
        }
        Lookup::Miss { tp, fetch: self.waiting[tp as usize] == NONE }
    }

    /// Marks an update of a cached entry (GC moves); uncached ones are written through to the
    /// translation page lazily, at no modelled cost.
    #[inline]
    pub fn note_update(&mut self, lpa: u32) {
        if let Some(u) = self.unit(lpa, self.part(lpa)) {
            self.mark_dirty(u, lpa);
        }
    }

    /// Unit `u`, holding `lpa`'s entry, now differs from flash.
    #[inline]
    fn mark_dirty(&mut self, u: u32, lpa: u32) {
        match self.granularity {
            CmtGranularity::TranslationPage => self.dirty[u as usize] = true,
            CmtGranularity::Entry => {
                let mark = self.mark_of(self.tpage(lpa));
                if !self.sector_counts.is_empty() && self.dirty_mark[u as usize] != mark {
                    let i = self.sector_slot(lpa);
                    self.sector_counts[i] += DIRTY_ONE;
                }
                self.dirty_mark[u as usize] = mark;
            }
        }
    }

    /// Entry mode: the mark of an entry dirtied now in translation page `tp`.
    #[inline]
    fn mark_of(&self, tp: u32) -> u32 {
        self.tp_epoch[tp as usize].wrapping_add(1).max(1)
    }

    #[inline]
    fn clear_dirty(&mut self, u: u32) {
        match self.granularity {
            CmtGranularity::TranslationPage => self.dirty[u as usize] = false,
            CmtGranularity::Entry => self.dirty_mark[u as usize] = 0,
        }
    }

    /// `lpa`'s (translation page, sector) place in the per-sector counts.
    #[inline]
    fn sector_slot(&self, lpa: u32) -> usize {
        let tp = self.tpage(lpa);
        let s = (lpa - tp * self.entries_per_page) * self.flash_entry_bytes / 512;
        (tp * self.sectors + s.min(self.sectors - 1)) as usize
    }

    /// Bytes the merge read of translation page `tp` moves, and its dirty entries counted clean.
    fn merge_read(&mut self, tp: u32) -> u32 {
        if self.sector_counts.is_empty() {
            return self.page_size;
        }
        let base = (tp * self.sectors) as usize;
        let mut n = 0;
        for i in base..base + self.sectors as usize {
            let c = self.sector_counts[i];
            n += (c & 0xffff > c >> 16) as u32;
            if c >> 16 != 0 {
                self.sector_counts[i] = c & 0xffff;
            }
        }
        n * 512
    }

    /// MQSim's write-back loop (`writeback_refreshes_siblings`): each dirty cached entry of
    /// translation page `tp`, in LPA order, becomes the most recently used. Run before the
    /// write-back cleans them.
    fn refresh_dirty_entries(&mut self, tp: u32) {
        let Some(sib) = &self.siblings else { return };
        let mut found = std::mem::take(&mut self.sibling_scratch);
        found.clear();
        found.extend(sib.of(tp).map(|u| (self.slot_lpa[u as usize], u)).filter(|&(_, u)| self.is_dirty(u, tp)));
        found.sort_unstable();
        for &(lpa, u) in &found {
            let part = self.part(lpa);
            self.lru[part].touch(u);
        }
        self.sibling_scratch = found;
    }

    /// Turns `ModelSwitches::writeback_refreshes_siblings` on (entry mode; after `set_domains`,
    /// which sizes the slots).
    pub fn refresh_siblings_on_write_back(&mut self) {
        if self.granularity == CmtGranularity::Entry {
            self.siblings = Some(Siblings::new(self.waiting.len(), self.slot_lpa.len()));
        }
    }

    /// Whether unit `u` (an entry of translation page `tp` in entry mode) differs from flash:
    /// dirtied, and not written back with its page since.
    #[inline]
    fn is_dirty(&self, u: u32, tp: u32) -> bool {
        match self.granularity {
            CmtGranularity::TranslationPage => self.dirty[u as usize],
            CmtGranularity::Entry => {
                let d = self.dirty_mark[u as usize];
                d != 0 && d == self.mark_of(tp)
            }
        }
    }

    /// `lpa`'s entry arrived from flash (with its whole translation page in page mode). A
    /// dirty unit evicted to make room is queued in `write_backs` (or, with
    /// `MappingWrites::Never`, its page marked departed).
    pub fn insert(&mut self, lpa: u32, update: Update) {
        let part = self.part(lpa);
        if let Some(u) = self.unit(lpa, part) {
            self.lru[part].touch(u);
            if self.changes_cached(update) {
                self.mark_dirty(u, lpa);
            }
            return;
        }
        if self.lru[part].len() >= self.capacity {
            if let Some(v) = self.lru[part].pop_lru() {
                let mut evicted = NONE;
                let tp = match self.granularity {
                    CmtGranularity::TranslationPage => v,
                    CmtGranularity::Entry => {
                        let old = std::mem::replace(&mut self.slot_lpa[v as usize], NONE);
                        if let Some(sib) = &mut self.siblings {
                            sib.remove(self.per_page.quotient(old), v);
                        }
                        evicted = old;
                        self.index.set(old as usize, 0);
                        self.free.push(v);
                        if !self.sector_counts.is_empty() {
                            let (i, d) = (self.sector_slot(old), self.is_dirty(v, self.tpage(old)));
                            self.sector_counts[i] -= 1 + d as u32 * DIRTY_ONE;
                        }
                        self.tpage(old)
                    }
                };
                let dirty = self.is_dirty(v, tp);
                self.clear_dirty(v);
                if dirty {
                    let tp = match &mut self.misfiled {
                        Some(bits) => {
                            bits[lpa as usize / 64] |= bit(lpa);
                            self.tpage(lpa)
                        }
                        None if evicted != NONE && self.domains.len() > 1 => self.tpage(self.in_domain_of(evicted, lpa)),
                        None => tp,
                    };
                    self.write_backs.push(tp);
                    if self.granularity == CmtGranularity::Entry {
                        if self.siblings.is_some() {
                            self.refresh_dirty_entries(tp);
                        }
                        let bytes = self.merge_read(tp);
                        self.merge_bytes.push(bytes);
                        // The write-back persists every cached entry of the page.
                        let e = &mut self.tp_epoch[tp as usize];
                        *e = e.wrapping_add(1);
                    }
                    if !self.mapping_writes.programmed() {
                        self.departed[tp as usize] = true;
                    }
                }
            }
        }
        let u = match self.granularity {
            CmtGranularity::TranslationPage => self.tpage(lpa),
            CmtGranularity::Entry => {
                let s = self.free.pop().expect("a slot was freed above");
                self.slot_lpa[s as usize] = lpa;
                self.index.set(lpa as usize, s + 1);
                if let Some(sib) = &mut self.siblings {
                    sib.add(self.per_page.quotient(lpa), s);
                }
                if !self.sector_counts.is_empty() {
                    let i = self.sector_slot(lpa);
                    self.sector_counts[i] += 1;
                }
                s
            }
        };
        self.lru[part].touch(u);
        let dirty = match update {
            Update::None => false,
            Update::Program => true,
            Update::Maps => self.misfiled.as_ref().is_none_or(|b| b[lpa as usize / 64] & bit(lpa) == 0),
        };
        if dirty {
            self.mark_dirty(u, lpa);
        } else {
            self.clear_dirty(u);
        }
    }

    /// Units cached (translation pages or entries), over every partition.
    pub fn cached_units(&self) -> usize {
        self.lru.iter().map(|l| l.len() as usize).sum()
    }

    /// Units one partition caches at most.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    pub fn hit_rate(&self) -> f64 {
        let n = self.hits + self.misses;
        if n == 0 {
            0.0
        } else {
            self.hits as f64 / n as f64
        }
    }
}

/// One dirty entry in a `sector_counts` word.
const DIRTY_ONE: u32 = 1 << 16;

/// `lpa`'s bit in its word of a one-bit-per-LPA set.
#[inline]
fn bit(lpa: u32) -> u64 {
    1u64 << (lpa % 64)
}

#[cfg(test)]
mod tests;
