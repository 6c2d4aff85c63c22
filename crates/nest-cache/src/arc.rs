//! ARC, Adaptive Replacement Cache (Megiddo & Modha, FAST '03, Fig. 4): T1 holds blocks seen
//! once recently, T2 blocks seen at least twice; the ghost lists B1/B2 remember blocks evicted
//! from each (no data), and a ghost hit moves the target size `p` of T1 towards the list that
//! would have hit. `p` is real-valued, as in the paper.

use crate::slab::{block_map, BlockMap, Slab};
use crate::{Effects, Outcome, Policy};

const T1: u8 = 0;
const T2: u8 = 1;
const B1: u8 = 2;
const B2: u8 = 3;

pub struct Arc {
    slab: Slab,
    map: BlockMap<u32>,
    c: usize,
    p: f64,
    allocate: bool,
}

impl Arc {
    pub fn new(c: usize, allocate: bool) -> Self {
        Arc { slab: Slab::new(4, 2 * c), map: block_map(2 * c), c, p: 0.0, allocate }
    }

    /// Cached blocks, sorted.
    pub fn cached(&self) -> Vec<u64> {
        let mut v = self.slab.blocks(T1);
        v.extend(self.slab.blocks(T2));
        v.sort_unstable();
        v
    }

    /// REPLACE(x, p): demote the LRU of T1 or T2 to its ghost list (the data leaves).
    fn replace(&mut self, in_b2: bool, fx: &mut Effects) {
        let t1 = self.slab.len(T1);
        let from_t1 = t1 >= 1 && ((in_b2 && t1 as f64 == self.p) || t1 as f64 > self.p);
        let (from, to) = if from_t1 || self.slab.len(T2) == 0 { (T1, B1) } else { (T2, B2) };
        let i = self.slab.tail(from).expect("REPLACE runs with a full cache");
        let n = *self.slab.node(i);
        fx.evicted.push((n.block, n.dirty));
        self.slab.move_to_head(i, to);
        self.slab.node_mut(i).dirty = false;
    }

    fn drop_tail(&mut self, list: u8) {
        let i = self.slab.tail(list).expect("non-empty list");
        let n = self.slab.remove(i);
        self.map.remove(&n.block);
    }
}

impl Policy for Arc {
    fn access(&mut self, block: u64, write: bool, _class: u8, fx: &mut Effects) -> Outcome {
        let c = self.c as f64;
        if let Some(&i) = self.map.get(&block) {
            match self.slab.node(i).list {
                T1 | T2 => {
                    // Case I: a cache hit.
                    self.slab.move_to_head(i, T2);
                    self.slab.node_mut(i).dirty |= write;
                    return Outcome::Hit;
                }
                B1 => {
                    // Case II: recency would have hit — grow T1's target.
                    let (b1, b2) = (self.slab.len(B1) as f64, self.slab.len(B2) as f64);
                    let d = if b1 >= b2 { 1.0 } else { b2 / b1 };
                    self.p = (self.p + d).min(c);
                    self.replace(false, fx);
                }
                _ => {
                    // Case III: frequency would have hit — shrink T1's target.
                    let (b1, b2) = (self.slab.len(B1) as f64, self.slab.len(B2) as f64);
                    let d = if b2 >= b1 { 1.0 } else { b1 / b2 };
                    self.p = (self.p - d).max(0.0);
                    self.replace(true, fx);
                }
            }
            self.slab.move_to_head(i, T2);
            self.slab.node_mut(i).dirty = write && self.allocate;
            return Outcome::Admitted;
        }
        // Case IV: not in any list.
        let l1 = self.slab.len(T1) + self.slab.len(B1);
        let total = l1 + self.slab.len(T2) + self.slab.len(B2);
        if l1 == self.c {
            if self.slab.len(T1) < self.c {
                self.drop_tail(B1);
                self.replace(false, fx);
            } else {
                let i = self.slab.tail(T1).expect("T1 holds c blocks");
                let n = self.slab.remove(i);
                self.map.remove(&n.block);
                fx.evicted.push((n.block, n.dirty));
            }
        } else if total >= self.c {
            if total == 2 * self.c {
                self.drop_tail(B2);
            }
            self.replace(false, fx);
        }
        let i = self.slab.push(T1, block);
        self.slab.node_mut(i).dirty = write && self.allocate;
        self.map.insert(block, i);
        Outcome::Admitted
    }

    fn len(&self) -> usize {
        self.slab.len(T1) + self.slab.len(T2)
    }
    fn capacity(&self) -> usize {
        self.c
    }
    fn lookup(&self, block: u64) -> Option<bool> {
        let &i = self.map.get(&block)?;
        let n = self.slab.node(i);
        (n.list == T1 || n.list == T2).then_some(n.dirty)
    }
    fn dirty(&self) -> usize {
        self.slab.count_dirty(self.map.values())
    }
    fn extra(&self) -> Vec<(&'static str, f64)> {
        vec![("target_t1", self.p), ("t1", self.slab.len(T1) as f64), ("t2", self.slab.len(T2) as f64)]
    }
}
