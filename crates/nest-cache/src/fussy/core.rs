//! The FussyCache mechanism with fixed parameters (thesis 2.5.2–2.5.3, Algorithm 1): a data
//! cache DC (LRU, data) and a dynamic metadata cache DMC (block → access count and popular
//! flag, no data).
//!
//! - A DC hit is served from memory. In Fussy mode a DC miss goes to the device and is only
//!   counted in the DMC; a count that exceeds `freq_threshold` marks the block popular.
//! - Every `access_threshold` accesses (a *check*) the popular blocks move into the DC, their
//!   data fetched in the background ("identification"), and the DC's hit rate over the interval
//!   is compared with the previous interval's: after `hr_count` consecutive declines the cache
//!   switches to LRU mode (every miss admitted) and `hr_count` doubles ("cache change").
//! - In LRU mode the DMC keeps counting misses exactly as in Fussy mode, and identification
//!   keeps running: a block LRU has evicted yet which keeps coming back (a popular DMC block not
//!   in the DC) is fetched back into the DC at the next check — this is how "the DMC keeps
//!   feeding the LRU" (thesis 2.7, SWBUILD), defined here because the source does not. The
//!   cache switches back after `hr_count` checks, or earlier when more than half the DMC's
//!   blocks are popular (Algorithm 1 line 6: selective admission would pay again); `hr_count`
//!   doubles again.
//! - A block evicted from the DC enters the DMC with its count capped at `freq_threshold`, so one
//!   more miss makes it popular again ("a chance to be popular again", thesis 2.5.3); a dirty
//!   one is written back.
//! - The DMC, when full, drops the least-counted of its 8 oldest entries.

use crate::slab::{block_map, BlockMap, Slab};
use crate::{Effects, Outcome};

const DC: u8 = 0;
const DMC: u8 = 1;
/// `stamp` bit of a DMC entry marked popular.
const POPULAR: u64 = 1;
/// `stamp` bit of a DC block promoted and not hit since.
const UNUSED_PROMOTION: u64 = 2;
/// DMC entries examined from the old end when one must go.
const EVICTION_SCAN: usize = 8;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Fussy,
    Lru,
}

#[derive(Clone, Debug)]
pub struct CoreParams {
    pub freq_threshold: u32,
    pub access_threshold: u32,
    pub hr_count: u32,
    /// Whether the hit-rate switch to LRU is enabled ("do no harm").
    pub lru_fallback: bool,
    pub dmc_size: usize,
    pub allocate: bool,
}

pub struct FussyCore {
    slab: Slab,
    dc: BlockMap<u32>,
    dmc: BlockMap<u32>,
    pub cap: usize,
    pub p: CoreParams,
    popular: Vec<u64>,
    popular_in_dmc: usize,
    pub mode: Mode,
    since_accesses: u32,
    since_hits: u32,
    hitrate: f64,
    hr_measure: u32,
    lru_checks: u32,
    pub switches: u64,
    pub promoted: u64,
    /// Promoted blocks evicted without a single hit: fetches that bought nothing.
    pub wasted_promotions: u64,
    pub checks: u64,
}

impl FussyCore {
    pub fn new(cap: usize, p: CoreParams) -> Self {
        FussyCore {
            slab: Slab::new(2, cap + p.dmc_size.min(1 << 20)),
            dc: block_map(cap),
            dmc: block_map(p.dmc_size.min(1 << 20)),
            cap,
            p,
            popular: Vec::new(),
            popular_in_dmc: 0,
            mode: Mode::Fussy,
            since_accesses: 0,
            since_hits: 0,
            hitrate: 0.0,
            hr_measure: 0,
            lru_checks: 0,
            switches: 0,
            promoted: 0,
            wasted_promotions: 0,
            checks: 0,
        }
    }

    pub fn dc_len(&self) -> usize {
        self.slab.len(DC)
    }
    pub fn dmc_len(&self) -> usize {
        self.slab.len(DMC)
    }
    pub fn lookup(&self, block: u64) -> Option<bool> {
        self.dc.get(&block).map(|&i| self.slab.node(i).dirty)
    }
    pub fn dirty(&self) -> usize {
        self.slab.count_dirty(self.dc.values())
    }
    pub fn dmc_has(&self, block: u64) -> bool {
        self.dmc.contains_key(&block)
    }

    #[inline]
    pub fn access(&mut self, block: u64, write: bool, fx: &mut Effects) -> Outcome {
        self.since_accesses += 1;
        let o = if let Some(&i) = self.dc.get(&block) {
            self.slab.move_to_head(i, DC);
            let n = self.slab.node_mut(i);
            n.dirty |= write;
            n.count = n.count.saturating_add(1);
            n.stamp &= !UNUSED_PROMOTION;
            self.since_hits += 1;
            Outcome::Hit
        } else {
            let count = self.track(block);
            match self.mode {
                Mode::Fussy => Outcome::Tracked,
                Mode::Lru => {
                    self.admit(block, count, write && self.p.allocate, fx);
                    Outcome::Admitted
                }
            }
        };
        if self.since_accesses >= self.p.access_threshold {
            self.check(fx);
        }
        o
    }

    /// Counts a miss in the DMC; returns the block's count.
    fn track(&mut self, block: u64) -> u32 {
        let i = match self.dmc.get(&block) {
            Some(&i) => {
                self.slab.move_to_head(i, DMC);
                i
            }
            None => {
                self.make_dmc_room();
                let i = self.slab.push(DMC, block);
                self.dmc.insert(block, i);
                i
            }
        };
        let ft = self.p.freq_threshold;
        let n = self.slab.node_mut(i);
        n.count = n.count.saturating_add(1);
        let count = n.count;
        if count > ft && n.stamp & POPULAR == 0 {
            n.stamp |= POPULAR;
            self.popular_in_dmc += 1;
            self.popular.push(block);
        }
        count
    }

    fn make_dmc_room(&mut self) {
        if self.slab.len(DMC) < self.p.dmc_size {
            return;
        }
        let Some(mut i) = self.slab.tail(DMC) else { return };
        let mut victim = i;
        for _ in 1..EVICTION_SCAN {
            match self.slab.newer(i) {
                Some(j) => {
                    i = j;
                    if self.slab.node(j).count < self.slab.node(victim).count {
                        victim = j;
                    }
                }
                None => break,
            }
        }
        self.drop_dmc(victim);
    }

    fn drop_dmc(&mut self, i: u32) -> u32 {
        let n = self.slab.remove(i);
        self.dmc.remove(&n.block);
        if n.stamp & POPULAR != 0 {
            self.popular_in_dmc -= 1;
        }
        n.count
    }

    /// Puts `block` in the DC (its data is there), evicting the LRU block into the DMC.
    fn admit(&mut self, block: u64, count: u32, dirty: bool, fx: &mut Effects) {
        while self.slab.len(DC) >= self.cap {
            self.evict_dc(fx);
        }
        let i = self.slab.push(DC, block);
        let n = self.slab.node_mut(i);
        n.count = count;
        n.dirty = dirty;
        self.dc.insert(block, i);
    }

    fn evict_dc(&mut self, fx: &mut Effects) {
        let t = self.slab.tail(DC).expect("a full DC has a tail");
        let n = self.slab.remove(t);
        self.dc.remove(&n.block);
        fx.evicted.push((n.block, n.dirty));
        if n.stamp & UNUSED_PROMOTION != 0 {
            self.wasted_promotions += 1;
        }
        let keep = n.count.min(self.p.freq_threshold);
        match self.dmc.get(&n.block) {
            Some(&j) => {
                let m = self.slab.node_mut(j);
                m.count = m.count.max(keep);
            }
            None => {
                self.make_dmc_room();
                let j = self.slab.push(DMC, n.block);
                self.slab.node_mut(j).count = keep;
                self.dmc.insert(n.block, j);
            }
        }
    }

    /// Moves the blocks marked popular since the last check from the DMC into the DC.
    fn identify(&mut self, fx: &mut Effects) {
        let popular = std::mem::take(&mut self.popular);
        for &b in &popular {
            let Some(&i) = self.dmc.get(&b) else { continue };
            if self.slab.node(i).stamp & POPULAR == 0 {
                continue;
            }
            let count = self.drop_dmc(i);
            if self.dc.contains_key(&b) {
                continue;
            }
            self.admit(b, count, false, fx);
            let i = self.dc[&b];
            self.slab.node_mut(i).stamp |= UNUSED_PROMOTION;
            fx.fetched.push(b);
            self.promoted += 1;
        }
        self.popular = popular;
        self.popular.clear();
    }

    /// Identification and cache change, every `access_threshold` accesses (Algorithm 1).
    pub fn check(&mut self, fx: &mut Effects) {
        self.checks += 1;
        let hr = self.since_hits as f64 / self.since_accesses.max(1) as f64;
        self.since_accesses = 0;
        self.since_hits = 0;
        match self.mode {
            Mode::Lru => {
                self.lru_checks += 1;
                let back = self.popular_in_dmc > self.slab.len(DMC) / 2 || self.lru_checks >= self.p.hr_count;
                self.identify(fx);
                if back {
                    self.switch(Mode::Fussy);
                }
            }
            Mode::Fussy => {
                self.identify(fx);
                let previous = self.hitrate;
                self.hitrate = hr;
                self.hr_measure = if hr < previous { self.hr_measure + 1 } else { 0 };
                if self.p.lru_fallback && self.hr_measure >= self.p.hr_count {
                    self.switch(Mode::Lru);
                }
            }
        }
    }

    fn switch(&mut self, to: Mode) {
        self.p.hr_count = self.p.hr_count.saturating_mul(2);
        self.hitrate = 0.0;
        self.hr_measure = 0;
        self.lru_checks = 0;
        self.mode = to;
        self.switches += 1;
    }

    /// Fills the DC's free room with the DMC's most-counted blocks seen at least twice (the
    /// pre-populated DC after warm-up); returns how many were fetched.
    pub fn prefill(&mut self, fx: &mut Effects) -> usize {
        let room = self.cap.saturating_sub(self.slab.len(DC));
        let mut cands: Vec<(u32, u64)> = self.dmc.iter().map(|(&b, &i)| (self.slab.node(i).count, b)).filter(|&(c, _)| c >= 2).collect();
        cands.sort_unstable_by(|a, b| b.cmp(a));
        cands.truncate(room);
        for &(_, b) in &cands {
            let i = self.dmc[&b];
            let count = self.drop_dmc(i);
            self.admit(b, count, false, fx);
            fx.fetched.push(b);
        }
        cands.len()
    }

    /// Sets the DMC's bound, dropping entries over it.
    pub fn set_dmc_size(&mut self, n: usize) {
        self.p.dmc_size = n.max(1);
        while self.slab.len(DMC) > self.p.dmc_size {
            self.make_dmc_room();
        }
    }

    /// Sets the DC's capacity; shrinking evicts LRU blocks (into the DMC, dirty ones written
    /// back).
    pub fn set_capacity(&mut self, cap: usize, fx: &mut Effects) {
        self.cap = cap.max(1);
        while self.slab.len(DC) > self.cap {
            self.evict_dc(fx);
        }
    }
}
