//! DRAM data cache: page-sized slots holding the newest copy of a logical page. Write-back:
//! host writes complete once in DRAM; dirty slots are flushed to flash LRU-first when free
//! and clean slots run short. Read caching keeps pages read from flash (clean, LRU).
//! Slots are found through a table of the cached LPAs (`SlotIndex`).
//!
//! With eager destage (MQSim's destage buffer, `Destage::Eager`) a page not written within the
//! hot window is sent to flash as soon as it is written, and a finished write-back frees its slot
//! instead of leaving it clean.

use crate::geometry::NONE;
use crate::lru::LruList;
use crate::slot_index::SlotIndex;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    Free,
    Clean,
    Dirty,
    /// Being written to flash.
    Flushing,
    /// Rewritten by the host while its flush was in flight: dirty again when the flush ends.
    FlushingDirty,
}

pub struct DataCache {
    pub slots: u32,
    /// Per slot used so far (slots are taken lowest first, so these grow as the cache fills:
    /// an idle drive's cache holds none of them).
    lpa: Vec<u32>,
    pub state: Vec<Slot>,
    pub class: Vec<u8>,
    /// LPA → slot + 1, for the cached pages only.
    index: SlotIndex,
    /// Slots freed since they were first used (taken last in, first out).
    free: Vec<u32>,
    /// Slots `fresh..slots` have never been used; they go after `free`'s, lowest first. (A list
    /// of every slot up front cost 4 B per slot before the drive served anything.)
    fresh: u32,
    clean: LruList,
    dirty: LruList,
    pub flushing: u32,
    /// Of the slots being flushed, those the host rewrote meanwhile (dirty again after).
    rewritten: u32,
    /// Start flushing when free + clean slots — counting those a flush in flight will make
    /// clean — fall below this.
    pub reserve: u32,
    /// Bytes the host wrote into each slot's page since it was last written back.
    pub written: Vec<u32>,
    page_size: u32,
    /// Eager destage: the hot window in ps, the current window (+1), and the LPAs written in it
    /// (a page is hot when written again within its window; older windows do not matter).
    eager_window: Option<u64>,
    window: u32,
    in_window: SlotIndex,
    /// `HotReset::AfterWrite`: the window ends at the first admission after `milestone`.
    reset_after_write: bool,
    milestone: u64,
    pub read_hits: u64,
    pub read_misses: u64,
    pub write_hits: u64,
    pub write_misses: u64,
}

impl DataCache {
    /// `eager_window`: `Some(hot window in ps)` for eager destage.
    pub fn new(slots: u32, reserve_fraction: f64, page_size: u32, eager_window: Option<u64>) -> Self {
        let n = slots as usize;
        DataCache {
            slots,
            // Filled in up front, the stock drive's 32 K slots cost ~1 MB with their LRU links
            // for each of thousands of drives that may never be used (issue 24).
            lpa: Vec::new(),
            state: Vec::new(),
            class: Vec::new(),
            index: SlotIndex::new(),
            free: Vec::new(),
            fresh: 0,
            clean: LruList::new(n),
            dirty: LruList::new(n),
            flushing: 0,
            rewritten: 0,
            reserve: ((slots as f64 * reserve_fraction).ceil() as u32).max(1),
            written: Vec::new(),
            page_size,
            eager_window,
            window: 0,
            in_window: SlotIndex::new(),
            reset_after_write: false,
            milestone: 0,
            read_hits: 0,
            read_misses: 0,
            write_hits: 0,
            write_misses: 0,
        }
    }

    #[inline]
    pub fn slot_of(&self, lpa: u32) -> Option<u32> {
        match self.index.get(lpa) {
            0 => None,
            s => Some(s - 1),
        }
    }

    /// Slots a write could take now without waiting for a flush.
    #[inline]
    pub fn available(&self) -> u32 {
        self.free.len() as u32 + (self.slots - self.fresh) + self.clean.len()
    }

    pub fn dirty_slots(&self) -> u32 {
        self.dirty.len() + self.flushing
    }

    fn take_slot(&mut self) -> Option<u32> {
        if let Some(s) = self.free.pop() {
            return Some(s);
        }
        if self.fresh < self.slots {
            self.fresh += 1;
            self.lpa.push(NONE);
            self.state.push(Slot::Free);
            self.class.push(0);
            self.written.push(0);
            return Some(self.fresh - 1);
        }
        let s = self.clean.pop_lru()?;
        self.index.set(self.lpa[s as usize], 0);
        Some(s)
    }

    /// MQSim's hot-window reset (`HotReset::AfterWrite`).
    pub fn reset_hot_window_after_writes(&mut self) {
        self.reset_after_write = true;
    }

    /// An admission of host write pages ended at `now_ps`: with `HotReset::AfterWrite`, the
    /// first one past the milestone forgets the pages written (its own too) and sets the next
    /// milestone a window on.
    pub fn admission_done(&mut self, now_ps: u64) {
        if let (true, Some(window)) = (self.reset_after_write, self.eager_window) {
            if now_ps > self.milestone {
                self.in_window.clear();
                self.milestone = now_ps + window;
            }
        }
    }

    /// Places a host write of `bytes` of `lpa` at `now_ps` (the caller checked there is room).
    /// Returns the slot to write back at once under eager destage (a cold page), if any.
    pub fn write(&mut self, lpa: u32, class: u8, bytes: u32, now_ps: u64) -> Option<u32> {
        self.place(lpa, class, bytes);
        let window = self.eager_window?;
        let w = (now_ps / window + 1) as u32;
        if w != self.window && !self.reset_after_write {
            self.window = w;
            self.in_window.clear();
        }
        let hot = self.in_window.get(lpa) != 0;
        self.in_window.set(lpa, 1);
        let s = self.slot_of(lpa).expect("just placed");
        (!hot && self.state[s as usize] == Slot::Dirty).then_some(s)
    }

    fn place(&mut self, lpa: u32, class: u8, bytes: u32) {
        if let Some(s) = self.slot_of(lpa) {
            self.write_hits += 1;
            self.class[s as usize] = class;
            self.written[s as usize] = (self.written[s as usize] + bytes).min(self.page_size);
            match self.state[s as usize] {
                Slot::Flushing => {
                    self.state[s as usize] = Slot::FlushingDirty;
                    self.rewritten += 1;
                }
                Slot::FlushingDirty => {}
                _ => {
                    self.clean.remove(s);
                    self.state[s as usize] = Slot::Dirty;
                    self.dirty.touch(s);
                }
            }
            return;
        }
        self.write_misses += 1;
        let s = self.take_slot().expect("admission checked room");
        self.lpa[s as usize] = lpa;
        self.index.set(lpa, s + 1);
        self.class[s as usize] = class;
        self.written[s as usize] = bytes.min(self.page_size);
        self.state[s as usize] = Slot::Dirty;
        self.dirty.touch(s);
    }

    /// Before time 0 (preconditioning): `lpa` held dirty, as if written whole, counted as
    /// neither a hit nor a miss.
    pub fn preload_dirty(&mut self, lpa: u32, class: u8) {
        let (hits, misses) = (self.write_hits, self.write_misses);
        self.place(lpa, class, self.page_size);
        (self.write_hits, self.write_misses) = (hits, misses);
    }

    /// Starts writing dirty slot `s` back now (eager destage): (lpa, class, bytes written).
    pub fn flush_now(&mut self, s: u32) -> (u32, u8, u32) {
        debug_assert_eq!(self.state[s as usize], Slot::Dirty);
        self.dirty.remove(s);
        self.state[s as usize] = Slot::Flushing;
        self.flushing += 1;
        (self.lpa[s as usize], self.class[s as usize], std::mem::take(&mut self.written[s as usize]))
    }

    /// A read of `lpa`: true when DRAM has it.
    #[inline]
    pub fn read(&mut self, lpa: u32) -> bool {
        match self.slot_of(lpa) {
            Some(s) => {
                self.read_hits += 1;
                if self.state[s as usize] == Slot::Clean {
                    self.clean.touch(s);
                }
                true
            }
            None => {
                self.read_misses += 1;
                false
            }
        }
    }

    /// Keeps a page just read from flash (read caching), if a slot is free or clean.
    pub fn fill(&mut self, lpa: u32) {
        if self.slot_of(lpa).is_some() {
            return;
        }
        if let Some(s) = self.take_slot() {
            self.lpa[s as usize] = lpa;
            self.index.set(lpa, s + 1);
            self.state[s as usize] = Slot::Clean;
            self.clean.touch(s);
        }
    }

    /// Slots available now plus those that flushes in flight will make clean.
    #[inline]
    pub fn soon_available(&self) -> u32 {
        self.available() + self.flushing - self.rewritten
    }

    /// The next dirty slot to write back, if flushing is due — fewer than `reserve` (or
    /// `want`) slots available soon: (slot, lpa, class, bytes written). Slots already being flushed count,
    /// or every dirty slot would be sent to flash the moment the reserve is crossed.
    pub fn next_flush(&mut self, want: u32) -> Option<(u32, u32, u8, u32)> {
        if self.soon_available() >= self.reserve.max(want) {
            return None;
        }
        let s = self.dirty.lru()?;
        let (lpa, class, bytes) = self.flush_now(s);
        Some((s, lpa, class, bytes))
    }

    pub fn flush_done(&mut self, s: u32) {
        self.flushing -= 1;
        if self.state[s as usize] == Slot::FlushingDirty {
            self.rewritten -= 1;
            self.state[s as usize] = Slot::Dirty;
            self.dirty.touch(s);
        } else if self.eager_window.is_some() {
            // MQSim's destage buffer drops a page once it is on flash.
            self.index.set(self.lpa[s as usize], 0);
            self.lpa[s as usize] = NONE;
            self.state[s as usize] = Slot::Free;
            self.free.push(s);
        } else {
            self.state[s as usize] = Slot::Clean;
            self.clean.touch(s);
        }
    }

    pub fn lpa_of(&self, s: u32) -> u32 {
        self.lpa[s as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 64 slots, reserve 8; `dirty` pages written.
    fn filled(dirty: u32) -> DataCache {
        let mut c = DataCache::new(64, 0.125, 4096, None);
        assert_eq!(c.reserve, 8);
        for lpa in 0..dirty {
            c.write(lpa, 0, 4096, 0);
        }
        c
    }

    fn drain(c: &mut DataCache, want: u32) -> Vec<u32> {
        std::iter::from_fn(|| c.next_flush(want).map(|(s, ..)| s)).collect()
    }

    /// An idle cache holds no per-slot state whatever its size; slots come into use lowest
    /// first and bring their state with them.
    #[test]
    fn per_slot_state_grows_with_the_slots_used() {
        let mut c = DataCache::new(1 << 20, 0.125, 4096, None);
        assert_eq!((c.lpa.len(), c.state.len(), c.clean.len()), (0, 0, 0));
        assert_eq!(c.available(), 1 << 20);
        for lpa in [9, 4, 9, 100] {
            c.write(lpa, 0, 4096, 0);
        }
        assert_eq!((c.lpa.len(), c.state.len(), c.written.len()), (3, 3, 3), "three distinct pages, three slots");
        assert_eq!(c.available(), (1 << 20) - 3);
    }

    #[test]
    fn crossing_the_reserve_flushes_the_shortfall_not_every_dirty_slot() {
        // 60 dirty, 4 free: 4 short of the reserve. Slots being flushed will be free soon, so
        // four flushes cover it; starting all 60 at once is the storm that stalled reads.
        let mut c = filled(60);
        assert_eq!(drain(&mut c, 0).len(), 4);
        assert_eq!(c.flushing, 4);
        // While those are in flight nothing more is due; as they land the reserve holds.
        assert!(drain(&mut c, 0).is_empty());
        let done: Vec<u32> = (0..4).collect();
        for s in done {
            c.flush_done(s);
        }
        assert_eq!(c.available(), 8);
        assert!(drain(&mut c, 0).is_empty());
    }

    #[test]
    fn a_waiting_write_larger_than_the_reserve_gets_the_flushes_it_needs() {
        let mut c = filled(60);
        assert_eq!(drain(&mut c, 20).len(), 16, "4 free + 16 flushing = the 20 it waits for");
    }

    #[test]
    fn a_page_rewritten_while_flushing_does_not_count_as_soon_free() {
        let mut c = filled(60);
        let first = drain(&mut c, 0);
        assert_eq!(first.len(), 4);
        // The host rewrites one of the four: its slot stays dirty after the flush, so one more
        // flush is due.
        c.write(c.lpa_of(first[0]), 0, 4096, 0);
        assert_eq!(drain(&mut c, 0).len(), 1);
    }

    #[test]
    fn eager_destage_writes_cold_pages_back_at_once_and_keeps_hot_ones() {
        let ms = 1_000_000_000u64;
        let mut c = DataCache::new(64, 0.125, 4096, Some(1000 * ms));
        // First write of a page in the window: cold, written back now with the bytes written.
        let s = c.write(7, 1, 2048, 5 * ms).expect("cold page");
        assert_eq!(c.flush_now(s), (7, 1, 2048));
        // Written again while in flight, then after: hot within the same window.
        assert_eq!(c.write(7, 1, 4096, 10 * ms), None);
        c.flush_done(s);
        assert_eq!(c.state[s as usize], Slot::Dirty, "rewritten during the write-back");
        assert_eq!(c.write(7, 1, 4096, 20 * ms), None, "hot: stays dirty in DRAM");
        // In the next window the page is cold again, and a finished write-back frees the slot.
        let s2 = c.write(7, 1, 4096, 1500 * ms).expect("cold in a new window");
        c.flush_now(s2);
        c.flush_done(s2);
        assert_eq!((c.state[s2 as usize], c.slot_of(7)), (Slot::Free, None));
    }

    /// `HotReset::AfterWrite` (MQSim): the first admission past the milestone forgets every page
    /// written — its own too — and the next milestone is a window after it, not on a grid.
    #[test]
    fn mqsims_hot_window_restarts_after_the_first_write_past_its_milestone() {
        let ms = 1_000_000_000u64;
        let mut c = DataCache::new(64, 0.125, 4096, Some(1000 * ms));
        c.reset_hot_window_after_writes();
        let cold = |c: &mut DataCache, lpa: u32, t: u64| {
            let s = c.write(lpa, 0, 4096, t);
            if let Some(s) = s {
                c.flush_now(s);
                c.flush_done(s);
            }
            c.admission_done(t);
            s.is_some()
        };
        // Past the first milestone (0): written, then forgotten with the reset it triggers.
        assert!(cold(&mut c, 7, 5 * ms));
        assert!(cold(&mut c, 7, 10 * ms), "forgotten by the reset at 5 ms");
        assert!(!cold(&mut c, 7, 20 * ms), "hot until the milestone at 1,005 ms");
        // Past 1,000 ms — a grid's window edge — still hot; past 1,005 ms the write is judged
        // hot, then the filter resets after it.
        assert!(!cold(&mut c, 7, 1002 * ms));
        assert!(!cold(&mut c, 7, 1006 * ms));
        assert!(cold(&mut c, 7, 1007 * ms));
    }
}
