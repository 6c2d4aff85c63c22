//! An intrusive doubly linked LRU list over a dense index space (translation pages, cache
//! slots): O(1) touch, remove and pop without hashing or allocation.

use crate::geometry::NONE;
use crate::lazy_vec::LazyVec;

/// The `prev` of a non-member (a member's is another member or NONE).
const ABSENT: u32 = NONE - 1;

#[derive(Clone, Debug)]
pub struct LruList {
    /// Per index `[prev, next]`, in chunks created on first use: a CMT's list spans every
    /// translation page of the drive but a run touches a scattered few (growing a dense vector
    /// to the highest page touched was a third of the page faults of a 10,000-drive run).
    links: LazyVec<[u32; 2]>,
    /// Most recently used.
    head: u32,
    /// Least recently used.
    tail: u32,
    len: u32,
}

impl LruList {
    /// A list whose members may be `0..n`.
    pub fn new(n: usize) -> Self {
        assert!(n < ABSENT as usize, "LRU of {n} members");
        LruList { links: LazyVec::new(n, [ABSENT, ABSENT]), head: NONE, tail: NONE, len: 0 }
    }

    pub fn len(&self) -> u32 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        (i as usize) < self.links.len() && self.links[i as usize][0] != ABSENT
    }

    #[inline]
    pub fn remove(&mut self, i: u32) {
        if !self.contains(i) {
            return;
        }
        let [p, n] = self.links[i as usize];
        if p != NONE {
            self.links[p as usize][1] = n;
        } else {
            self.head = n;
        }
        if n != NONE {
            self.links[n as usize][0] = p;
        } else {
            self.tail = p;
        }
        self.links[i as usize] = [ABSENT, ABSENT];
        self.len -= 1;
    }

    /// Makes `i` the most recently used (inserting it if absent).
    #[inline]
    pub fn touch(&mut self, i: u32) {
        assert!((i as usize) < self.links.len(), "LRU member {i} of {}", self.links.len());
        if self.head == i {
            return;
        }
        self.remove(i);
        self.links[i as usize] = [NONE, self.head];
        if self.head != NONE {
            self.links[self.head as usize][0] = i;
        } else {
            self.tail = i;
        }
        self.head = i;
        self.len += 1;
    }

    /// The least recently used member, if any.
    #[inline]
    pub fn lru(&self) -> Option<u32> {
        (self.tail != NONE).then_some(self.tail)
    }

    #[inline]
    pub fn pop_lru(&mut self) -> Option<u32> {
        let t = self.lru()?;
        self.remove(t);
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used() {
        let mut l = LruList::new(8);
        for i in 0..4 {
            l.touch(i);
        }
        l.touch(0);
        assert_eq!(l.pop_lru(), Some(1));
        l.remove(2);
        assert_eq!(l.pop_lru(), Some(3));
        assert_eq!(l.pop_lru(), Some(0));
        assert_eq!(l.pop_lru(), None);
        assert!(l.is_empty());
    }

    #[test]
    fn touching_the_head_and_sparse_members() {
        let mut l = LruList::new(1 << 20);
        for i in [900_000, 7, 900_000, 500_000, 7, 7] {
            l.touch(i);
        }
        assert_eq!(l.len(), 3);
        assert!(l.contains(500_000) && !l.contains(500_001) && !l.contains(1 << 20));
        assert_eq!(l.links.chunks_created(), 3, "only the chunks of members touched");
        let order: Vec<u32> = std::iter::from_fn(|| l.pop_lru()).collect();
        assert_eq!(order, vec![900_000, 500_000, 7]);
        assert!(l.is_empty() && !l.contains(7));
    }
}
