//! Cached mapping table (DFTL-style): translation pages of the page-level map are cached in
//! DRAM, LRU. A lookup that misses costs a flash read of the translation page; evicting a dirty
//! translation page costs a flash write. Caching whole translation pages (page_size / 4
//! entries) rather than MQSim's individual entries is a documented simplification: it favours
//! sequential access slightly and is identical for uniformly random access over a large space.

use crate::geometry::NONE;
use crate::lru::LruList;

pub struct Cmt {
    pub entries_per_page: u32,
    capacity: u32,
    lru: LruList,
    dirty: Vec<bool>,
    /// Head of the list of transactions waiting for this translation page (linked through the
    /// transactions), or NONE when the page is not being fetched.
    pub waiting: Vec<u32>,
    pub hits: u64,
    pub misses: u64,
}

pub enum Lookup {
    Hit,
    /// Missing; `fetch` is true for the first miss (the caller issues the mapping read).
    Miss { tp: u32, fetch: bool },
}

impl Cmt {
    pub fn new(logical_pages: u64, page_size: u32, bytes: u64) -> Self {
        let entries_per_page = (page_size / 4).max(1);
        let tpages = logical_pages.div_ceil(entries_per_page as u64) as usize;
        let capacity = (bytes / page_size as u64).max(1) as u32;
        Cmt { entries_per_page, capacity, lru: LruList::new(tpages), dirty: vec![false; tpages], waiting: vec![NONE; tpages], hits: 0, misses: 0 }
    }

    #[inline]
    pub fn tpage(&self, lpa: u32) -> u32 {
        lpa / self.entries_per_page
    }

    #[inline]
    pub fn lookup(&mut self, lpa: u32, update: bool) -> Lookup {
        let tp = self.tpage(lpa);
        if self.lru.contains(tp) {
            self.hits += 1;
            self.lru.touch(tp);
            if update {
                self.dirty[tp as usize] = true;
            }
            return Lookup::Hit;
        }
        self.misses += 1;
        Lookup::Miss { tp, fetch: self.waiting[tp as usize] == NONE }
    }

    /// Marks an update of a cached entry (GC moves); uncached ones are written through to the
    /// translation page lazily, at no modelled cost.
    #[inline]
    pub fn note_update(&mut self, lpa: u32) {
        let tp = self.tpage(lpa);
        if self.lru.contains(tp) {
            self.dirty[tp as usize] = true;
        }
    }

    /// The translation page arrived from flash; returns a dirty page evicted to make room.
    pub fn insert(&mut self, tp: u32, dirty: bool) -> Option<u32> {
        let mut evicted = None;
        if self.lru.len() >= self.capacity {
            if let Some(v) = self.lru.pop_lru() {
                if std::mem::take(&mut self.dirty[v as usize]) {
                    evicted = Some(v);
                }
            }
        }
        self.lru.touch(tp);
        self.dirty[tp as usize] = dirty;
        evicted
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
