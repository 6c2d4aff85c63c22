//! An intrusive doubly linked LRU list over a dense index space (translation pages, cache
//! slots): O(1) touch, remove and pop without hashing or allocation.

use crate::geometry::NONE;

#[derive(Clone, Debug)]
pub struct LruList {
    /// Links and membership of the members so far: the vectors grow to the highest member
    /// index (cache slots are taken lowest first), so an idle list holds nothing.
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Most recently used.
    head: u32,
    /// Least recently used.
    tail: u32,
    len: u32,
    member: Vec<bool>,
    /// Members may be `0..n`.
    n: usize,
}

impl LruList {
    pub fn new(n: usize) -> Self {
        LruList { prev: Vec::new(), next: Vec::new(), head: NONE, tail: NONE, len: 0, member: Vec::new(), n }
    }

    pub fn len(&self) -> u32 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.member.get(i as usize).copied().unwrap_or(false)
    }

    #[inline]
    pub fn remove(&mut self, i: u32) {
        if !self.contains(i) {
            return;
        }
        let (p, n) = (self.prev[i as usize], self.next[i as usize]);
        if p != NONE {
            self.next[p as usize] = n;
        } else {
            self.head = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        } else {
            self.tail = p;
        }
        self.member[i as usize] = false;
        self.len -= 1;
    }

    /// Makes `i` the most recently used (inserting it if absent).
    #[inline]
    pub fn touch(&mut self, i: u32) {
        if i as usize >= self.member.len() {
            assert!((i as usize) < self.n, "LRU member {i} of {}", self.n);
            let len = i as usize + 1;
            self.prev.resize(len, NONE);
            self.next.resize(len, NONE);
            self.member.resize(len, false);
        }
        self.remove(i);
        self.prev[i as usize] = NONE;
        self.next[i as usize] = self.head;
        if self.head != NONE {
            self.prev[self.head as usize] = i;
        } else {
            self.tail = i;
        }
        self.head = i;
        self.member[i as usize] = true;
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
}
