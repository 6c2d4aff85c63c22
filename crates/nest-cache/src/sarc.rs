//! SARC, Sequential prefetching in Adaptive Replacement Cache (Gill & Modha, USENIX ATC '05).
//!
//! The cache is split into two LRU lists: SEQ for blocks of detected sequential streams
//! (demand-read and prefetched) and RANDOM for the rest. A read miss on a block that continues
//! a run of `seq_threshold` consecutive blocks starts a stream: the next `prefetch_degree` blocks
//! are fetched into SEQ in the background, and a hit on the batch's middle block (the trigger)
//! fetches the next batch (asynchronous prefetch). Space moves between the lists by their
//! marginal utility, seen as hits near each list's LRU end: a hit in the bottom `bottom_fraction`
//! of SEQ grows SEQ's desired size by one block, one in RANDOM's bottom shrinks it (the paper
//! estimates "bottom" from access stamps instead of ranks, as here). On eviction SEQ gives up its
//! LRU block when it is over its desired size, otherwise RANDOM does.
//!
//! Simplification (docs/fussycache.md): the symmetric ±1 adaptation stands in for the paper's
//! rate-corrected ratio.

use crate::slab::{block_map, BlockMap, Slab};
use crate::{Effects, Outcome, Policy};

const RANDOM: u8 = 0;
const SEQ: u8 = 1;
/// `count` flag of a prefetch batch's trigger block.
const TRIGGER: u32 = 1;

#[derive(Clone, Debug)]
pub struct SarcParams {
    /// Blocks fetched ahead per batch.
    pub prefetch_degree: u32,
    /// Consecutive blocks that make a stream sequential.
    pub seq_threshold: u32,
    /// The share of a list counted as its bottom for adaptation.
    pub bottom_fraction: f64,
    /// Recently accessed blocks remembered for sequence detection.
    pub history: usize,
}

impl Default for SarcParams {
    fn default() -> Self {
        SarcParams { prefetch_degree: 8, seq_threshold: 2, bottom_fraction: 0.05, history: 1024 }
    }
}

pub struct Sarc {
    slab: Slab,
    map: BlockMap<u32>,
    cap: usize,
    allocate: bool,
    p: SarcParams,
    desired_seq: f64,
    clock: u64,
    /// Run length ending at each recently accessed block, and their order (bounded FIFO).
    runs: BlockMap<u32>,
    run_order: std::collections::VecDeque<u64>,
    pub prefetched: u64,
}

impl Sarc {
    pub fn new(cap: usize, allocate: bool, p: &SarcParams) -> Self {
        Sarc {
            slab: Slab::new(2, cap),
            map: block_map(cap),
            cap,
            allocate,
            p: p.clone(),
            desired_seq: 0.0,
            clock: 0,
            runs: block_map(p.history),
            run_order: std::collections::VecDeque::with_capacity(p.history),
            prefetched: 0,
        }
    }

    /// Blocks per prefetch batch: at most a quarter of the cache, so a batch never crowds out
    /// the stream it serves.
    fn degree(&self) -> u64 {
        (self.p.prefetch_degree as u64).min(self.cap as u64 / 4)
    }

    /// Records `block` in the sequence history and returns the run it ends.
    fn run_length(&mut self, block: u64) -> u32 {
        let run = block.checked_sub(1).and_then(|b| self.runs.get(&b)).map_or(1, |r| r + 1);
        if self.runs.insert(block, run).is_none() {
            self.run_order.push_back(block);
            if self.run_order.len() > self.p.history {
                let old = self.run_order.pop_front().expect("non-empty");
                self.runs.remove(&old);
            }
        }
        run
    }

    /// Whether node `i` sits in the bottom of its list (judged by access stamps).
    fn in_bottom(&self, i: u32) -> bool {
        let list = self.slab.node(i).list;
        let len = self.slab.len(list) as f64;
        let bottom = (self.p.bottom_fraction * self.cap as f64).max(1.0);
        if len <= bottom {
            return true;
        }
        let (Some(t), Some(h)) = (self.slab.tail(list), self.slab.head(list)) else { return true };
        let (st, sh, si) = (self.slab.node(t).stamp, self.slab.node(h).stamp, self.slab.node(i).stamp);
        ((si - st) as f64) * len <= bottom * (sh - st) as f64
    }

    fn make_room(&mut self, fx: &mut Effects) {
        if self.slab.len(RANDOM) + self.slab.len(SEQ) < self.cap {
            return;
        }
        let seq = self.slab.len(SEQ);
        let mut from = if (seq as f64 > self.desired_seq && seq > 0) || self.slab.len(RANDOM) == 0 { SEQ } else { RANDOM };
        // Never evict a block this very access brought in (its demand block or a prefetch of
        // the same batch) while the other list has an older one: a batch must not push itself out.
        let other = 1 - from;
        let current = |l: u8| self.slab.tail(l).is_some_and(|t| self.slab.node(t).stamp == self.clock);
        if current(from) && self.slab.tail(other).is_some() && !current(other) {
            from = other;
        }
        let i = self.slab.tail(from).expect("a full cache has a victim");
        let n = self.slab.remove(i);
        self.map.remove(&n.block);
        fx.evicted.push((n.block, n.dirty));
    }

    fn insert(&mut self, list: u8, block: u64, dirty: bool, flags: u32, fx: &mut Effects) {
        self.make_room(fx);
        let i = self.slab.push(list, block);
        let n = self.slab.node_mut(i);
        n.dirty = dirty;
        n.count = flags;
        n.stamp = self.clock;
        self.map.insert(block, i);
    }

    /// Prefetches the batch after block `after` into SEQ.
    fn prefetch_after(&mut self, after: u64, fx: &mut Effects) {
        let d = self.degree();
        for k in 1..=d {
            let b = after + k;
            if self.map.contains_key(&b) {
                continue;
            }
            let flags = if k == d.div_ceil(2) && d >= 2 { TRIGGER } else { 0 };
            self.insert(SEQ, b, false, flags, fx);
            fx.fetched.push(b);
            self.prefetched += 1;
        }
    }
}

impl Policy for Sarc {
    fn access(&mut self, block: u64, write: bool, _class: u8, fx: &mut Effects) -> Outcome {
        self.clock += 1;
        let run = self.run_length(block);
        if let Some(&i) = self.map.get(&block) {
            let list = self.slab.node(i).list;
            if self.in_bottom(i) {
                let max = self.cap as f64;
                self.desired_seq = if list == SEQ { (self.desired_seq + 1.0).min(max) } else { (self.desired_seq - 1.0).max(0.0) };
            }
            let trigger = self.slab.node(i).count & TRIGGER != 0;
            self.slab.move_to_head(i, list);
            let n = self.slab.node_mut(i);
            n.dirty |= write;
            n.stamp = self.clock;
            n.count &= !TRIGGER;
            if trigger && !write {
                let d = self.degree();
                self.prefetch_after(block + (d - d.div_ceil(2)), fx);
            }
            return Outcome::Hit;
        }
        let sequential = run >= self.p.seq_threshold;
        self.insert(if sequential { SEQ } else { RANDOM }, block, write && self.allocate, 0, fx);
        if sequential && !write {
            self.prefetch_after(block, fx);
        }
        Outcome::Admitted
    }

    fn len(&self) -> usize {
        self.slab.len(RANDOM) + self.slab.len(SEQ)
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn lookup(&self, block: u64) -> Option<bool> {
        self.map.get(&block).map(|&i| self.slab.node(i).dirty)
    }
    fn dirty(&self) -> usize {
        self.slab.count_dirty(self.map.values())
    }
    fn extra(&self) -> Vec<(&'static str, f64)> {
        vec![("desired_seq", self.desired_seq), ("seq", self.slab.len(SEQ) as f64), ("prefetched", self.prefetched as f64)]
    }
}
