//! Least recently used: every miss is admitted at the MRU end, the LRU block leaves.

use crate::slab::{block_map, BlockMap, Slab};
use crate::{Effects, Outcome, Policy};

pub struct Lru {
    slab: Slab,
    map: BlockMap<u32>,
    cap: usize,
    allocate: bool,
}

impl Lru {
    pub fn new(cap: usize, allocate: bool) -> Self {
        Lru { slab: Slab::new(1, cap), map: block_map(cap), cap, allocate }
    }
    /// Cached blocks, MRU first.
    pub fn blocks(&self) -> Vec<u64> {
        self.slab.blocks(0)
    }
}

impl Policy for Lru {
    #[inline]
    fn access(&mut self, block: u64, write: bool, _class: u8, fx: &mut Effects) -> Outcome {
        if let Some(&i) = self.map.get(&block) {
            self.slab.move_to_head(i, 0);
            self.slab.node_mut(i).dirty |= write;
            return Outcome::Hit;
        }
        if self.slab.len(0) == self.cap {
            let t = self.slab.tail(0).expect("full list has a tail");
            let n = self.slab.remove(t);
            self.map.remove(&n.block);
            fx.evicted.push((n.block, n.dirty));
        }
        let i = self.slab.push(0, block);
        self.slab.node_mut(i).dirty = write && self.allocate;
        self.map.insert(block, i);
        Outcome::Admitted
    }
    fn len(&self) -> usize {
        self.slab.len(0)
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
}
