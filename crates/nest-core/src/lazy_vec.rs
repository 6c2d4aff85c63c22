//! A vector whose elements are created in small chunks on first write: reading an element of a
//! chunk never written returns the fill value without creating it.
//!
//! For per-entity tables sized by a drive's geometry or by the number of hosts, most of which a
//! run never touches. Filled in at set-up, they were most of an idle drive's memory in a run with
//! thousands of drives (issue 24, item 4): the FTL's per-block records and the GC indexes'
//! places (10 MiB for MQSim's stock geometry), the CMT's per-translation-page lists, an NVMe
//! controller's SQ per host. Even a zero fill does not help there: the allocator reuses freed
//! heap memory and must clear it, so every page is touched.

use std::ops::{Index, IndexMut};

/// Elements per chunk (4 KiB of block records: a drive that has written one block per plane
/// holds one chunk per plane).
const CHUNK_BITS: u32 = 7;
const CHUNK: usize = 1 << CHUNK_BITS;
type Chunk<T> = Box<[T; CHUNK]>;

#[derive(Debug, Clone)]
pub struct LazyVec<T: Copy> {
    /// Chunk `c` holds elements `c·CHUNK ..`, `None` until one of them is written. The
    /// directory itself is created with the first chunk: allocated at set-up, it was 16 KB per
    /// table of 2¹⁸ blocks, cleared even when allocated zeroed (the allocator hands out reused
    /// memory) — 480 MB over 10,000 drives' block records and GC indexes, most never written
    /// (issue 24). A two-level directory saved the same but cost a dependent load per access
    /// (5–7 % of a busy drive's CPU).
    chunks: Vec<Option<Chunk<T>>>,
    len: usize,
    fill: T,
}

impl<T: Copy> LazyVec<T> {
    /// `n` elements, each `fill`.
    pub fn new(n: usize, fill: T) -> Self {
        LazyVec { chunks: Vec::new(), len: n, fill }
    }

    /// Chunk `c`, if created.
    #[inline]
    fn chunk(&self, c: usize) -> Option<&Chunk<T>> {
        self.chunks.get(c).and_then(Option::as_ref)
    }

    /// Every created chunk with its number, in order.
    fn chunks(&self) -> impl Iterator<Item = (usize, &Chunk<T>)> + '_ {
        self.chunks.iter().enumerate().filter_map(|(k, c)| c.as_ref().map(|c| (k, c)))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every element in order (an unwritten chunk's as the fill value).
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(move |i| &self[i])
    }

    /// Chunks created so far (for tests of what an idle structure holds).
    pub fn chunks_created(&self) -> usize {
        self.chunks().count()
    }

    /// The elements of the chunks created so far, with their indexes: every other element is
    /// the fill value. A scan over these costs what was used, not the whole length (the summary
    /// of 2,000 idle drives scanned 5 × 10⁸ free blocks).
    pub fn created(&self) -> impl Iterator<Item = (usize, &T)> + '_ {
        self.chunks().flat_map(|(k, c)| c.iter().enumerate().map(move |(j, x)| ((k << CHUNK_BITS) + j, x))).filter(move |(i, _)| *i < self.len)
    }

    /// Elements in chunks not created yet (all the fill value).
    pub fn not_created(&self) -> usize {
        self.len - self.created().count()
    }

    /// Whether element `i`'s chunk exists.
    pub fn is_created(&self, i: usize) -> bool {
        self.chunk(i >> CHUNK_BITS).is_some()
    }
}

impl<T: Copy> Index<usize> for LazyVec<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        assert!(i < self.len, "index {i} out of range ({})", self.len);
        match self.chunk(i >> CHUNK_BITS) {
            Some(c) => &c[i & (CHUNK - 1)],
            None => &self.fill,
        }
    }
}

impl<T: Copy> IndexMut<usize> for LazyVec<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        assert!(i < self.len, "index {i} out of range ({})", self.len);
        if self.chunks.is_empty() {
            self.chunks = (0..self.len.div_ceil(CHUNK)).map(|_| None).collect();
        }
        let fill = self.fill;
        let chunk = self.chunks[i >> CHUNK_BITS].get_or_insert_with(|| Box::new([fill; CHUNK]));
        &mut chunk[i & (CHUNK - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwritten_elements_read_the_fill_and_take_no_chunk() {
        let mut t = LazyVec::new(1000, 5u32);
        assert_eq!(t.len(), 1000);
        assert!(t.iter().all(|&x| x == 5));
        assert_eq!(t.chunks_created(), 0);
        t[999] = 3;
        t[130] = 7;
        assert_eq!((t[999], t[130], t[131], t[0]), (3, 7, 5, 5));
        // Only the chunks of elements 130 and 999 exist.
        assert_eq!(t.chunks_created(), 2);
        // The last chunk holds 1000 - 896 = 104 elements.
        assert_eq!(t.created().count(), 128 + 104);
        assert_eq!(t.not_created(), 1000 - 232);
        assert!(t.is_created(131) && !t.is_created(0));
        let changed: Vec<(usize, u32)> = t.created().filter(|&(_, &x)| x != 5).map(|(i, &x)| (i, x)).collect();
        assert_eq!(changed, vec![(130, 7), (999, 3)]);
        assert_eq!(t.iter().filter(|&&x| x != 5).count(), 2);
    }

    #[test]
    fn elements_far_apart_are_kept_apart_and_listed_in_order() {
        const PAGE: usize = 64;
        let n = 2 * PAGE * CHUNK + 300;
        assert_eq!(LazyVec::new(n, 0u64).chunks.capacity(), 0, "no directory before a write");
        let mut t = LazyVec::new(n, 0u64);
        let picks = [n - 1, PAGE * CHUNK, PAGE * CHUNK - 1, 5, 2 * PAGE * CHUNK + 17];
        for (k, &i) in picks.iter().enumerate() {
            t[i] = k as u64 + 1;
        }
        for (k, &i) in picks.iter().enumerate() {
            assert_eq!(t[i], k as u64 + 1, "element {i}");
        }
        assert_eq!(t.chunks_created(), 5);
        let mut want: Vec<(usize, u64)> = picks.iter().enumerate().map(|(k, &i)| (i, k as u64 + 1)).collect();
        want.sort_unstable();
        let got: Vec<(usize, u64)> = t.created().filter(|&(_, &x)| x != 0).map(|(i, &x)| (i, x)).collect();
        assert_eq!(got, want);
        // Four whole chunks and the last, which holds what is left past its start.
        assert_eq!(t.created().count(), 4 * CHUNK + (n - (n - 1) / CHUNK * CHUNK));
        assert_eq!(t.iter().filter(|&&x| x != 0).count(), 5);
    }

    #[test]
    #[should_panic(expected = "index 1000 out of range (1000)")]
    fn an_index_past_the_end_panics_like_a_vector() {
        let t = LazyVec::new(1000, 0u8);
        let _ = &t[1000];
    }
}
