//! Index-linked lists over one slab of nodes, and the block → node map.
//!
//! Every algorithm here is a few LRU-ordered lists (ARC's T1/T2/B1/B2, SARC's RANDOM/SEQ,
//! FussyCache's DC and DMC); they share this slab so moving a block between lists is O(1) and
//! allocates nothing once the slab has grown to the cache's size.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

pub const NIL: u32 = u32::MAX;

/// Block numbers are already well spread in their low bits for sequential runs and poorly for
/// strided ones; one multiply-xorshift mixes both, far cheaper than SipHash (no DoS concern:
/// the keys are the user's own trace).
#[derive(Default, Clone, Copy)]
pub struct BlockHasher(u64);

impl Hasher for BlockHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        let z = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = z ^ (z >> 29);
    }
}

pub type BlockMap<V> = HashMap<u64, V, BuildHasherDefault<BlockHasher>>;

/// Initial reservations stop here; a larger cache grows its tables as it fills (a cache sized
/// for a whole volume need not allocate for it up front).
const RESERVE_MAX: usize = 1 << 16;

pub fn block_map<V>(capacity: usize) -> BlockMap<V> {
    HashMap::with_capacity_and_hasher(capacity.min(RESERVE_MAX), BuildHasherDefault::default())
}

#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub block: u64,
    prev: u32,
    next: u32,
    pub list: u8,
    pub dirty: bool,
    /// Algorithm-specific: an access count (FussyCache), a last-access stamp (SARC)…
    pub count: u32,
    pub stamp: u64,
}

/// One list's ends and length. `head` is the most recently used end.
#[derive(Clone, Copy, Debug)]
struct Ends {
    head: u32,
    tail: u32,
    len: usize,
}

#[derive(Clone, Debug)]
pub struct Slab {
    nodes: nest_core::Pool<Node>,
    lists: Vec<Ends>,
}

impl Slab {
    pub fn new(lists: usize, capacity: usize) -> Self {
        Slab { nodes: nest_core::Pool::with_capacity(capacity.min(RESERVE_MAX)), lists: vec![Ends { head: NIL, tail: NIL, len: 0 }; lists] }
    }

    #[inline]
    pub fn node(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }
    #[inline]
    pub fn node_mut(&mut self, i: u32) -> &mut Node {
        &mut self.nodes[i as usize]
    }
    #[inline]
    pub fn len(&self, list: u8) -> usize {
        self.lists[list as usize].len
    }
    /// Least recently used node of `list`.
    #[inline]
    pub fn tail(&self, list: u8) -> Option<u32> {
        let t = self.lists[list as usize].tail;
        (t != NIL).then_some(t)
    }
    /// Most recently used node of `list`.
    #[inline]
    pub fn head(&self, list: u8) -> Option<u32> {
        let h = self.lists[list as usize].head;
        (h != NIL).then_some(h)
    }
    /// The next node towards the MRU end (for bounded scans from the tail).
    #[inline]
    pub fn newer(&self, i: u32) -> Option<u32> {
        let p = self.nodes[i as usize].prev;
        (p != NIL).then_some(p)
    }

    /// A new node for `block` at the MRU end of `list`.
    #[inline]
    pub fn push(&mut self, list: u8, block: u64) -> u32 {
        let n = Node { block, prev: NIL, next: NIL, list, dirty: false, count: 0, stamp: 0 };
        let i = self.nodes.alloc(n);
        self.link_head(list, i);
        i
    }

    /// Moves `i` to the MRU end of `list` (its own or another).
    #[inline]
    pub fn move_to_head(&mut self, i: u32, list: u8) {
        self.unlink(i);
        self.link_head(list, i);
    }

    /// Removes node `i` and frees its slot.
    #[inline]
    pub fn remove(&mut self, i: u32) -> Node {
        self.unlink(i);
        self.nodes.release(i);
        self.nodes[i as usize]
    }

    #[inline]
    fn link_head(&mut self, list: u8, i: u32) {
        let e = &mut self.lists[list as usize];
        let old = e.head;
        let n = &mut self.nodes[i as usize];
        n.prev = NIL;
        n.next = old;
        n.list = list;
        if old != NIL {
            self.nodes[old as usize].prev = i;
        } else {
            e.tail = i;
        }
        e.head = i;
        e.len += 1;
    }

    #[inline]
    fn unlink(&mut self, i: u32) {
        let Node { prev, next, list, .. } = self.nodes[i as usize];
        let e = &mut self.lists[list as usize];
        if prev != NIL {
            self.nodes[prev as usize].next = next;
        } else {
            e.head = next;
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
        } else {
            e.tail = prev;
        }
        e.len -= 1;
    }

    /// How many of the nodes `ids` are dirty (reports; O(n)).
    pub fn count_dirty<'a>(&self, ids: impl Iterator<Item = &'a u32>) -> usize {
        ids.filter(|&&i| self.nodes[i as usize].dirty).count()
    }

    /// Blocks of `list` from MRU to LRU (tests and reports; O(n)).
    pub fn blocks(&self, list: u8) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.len(list));
        let mut i = self.lists[list as usize].head;
        while i != NIL {
            out.push(self.nodes[i as usize].block);
            i = self.nodes[i as usize].next;
        }
        out
    }
}
