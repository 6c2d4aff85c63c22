//! The queues the calendar is measured against (`make bench`, BENCHMARKS.md) and checked
//! against (the property test): `std`'s binary heap, the baseline, and a monotone radix heap.

use super::{pack, unpack_time, Entry, PendingEvents};
use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

struct StdEntry<E: Copy>(u128, E);
impl<E: Copy> PartialEq for StdEntry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.0 == o.0
    }
}
impl<E: Copy> Eq for StdEntry<E> {}
impl<E: Copy> PartialOrd for StdEntry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<E: Copy> Ord for StdEntry<E> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.cmp(&o.0)
    }
}

/// `std::collections::BinaryHeap` with the same key; the baseline of the comparison.
pub struct StdHeap<E: Copy> {
    heap: BinaryHeap<Reverse<StdEntry<E>>>,
    seq: u64,
}

impl<E: Copy> Default for StdHeap<E> {
    fn default() -> Self {
        Self::with_capacity(1024)
    }
}

impl<E: Copy> StdHeap<E> {
    pub fn with_capacity(n: usize) -> Self {
        StdHeap { heap: BinaryHeap::with_capacity(n), seq: 0 }
    }
}

impl<E: Copy> PendingEvents<E> for StdHeap<E> {
    fn schedule(&mut self, at: SimTime, ev: E) {
        let key = pack(at, self.seq);
        self.seq += 1;
        self.heap.push(Reverse(StdEntry(key, ev)));
    }
    fn pop(&mut self) -> Option<(SimTime, E)> {
        self.heap.pop().map(|Reverse(StdEntry(k, e))| (unpack_time(k), e))
    }
    fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse(StdEntry(k, _))| unpack_time(*k))
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
}

/// A monotone radix heap over the packed key: valid because a DES never schedules before the
/// last popped time and `seq` only grows, so every new key exceeds the last popped one.
/// Bucket `b` holds keys whose highest bit differing from `last` is `b - 1`.
pub struct RadixHeap<E: Copy> {
    buckets: Vec<Vec<Entry<E>>>,
    last: u128,
    len: usize,
    seq: u64,
}

impl<E: Copy> Default for RadixHeap<E> {
    fn default() -> Self {
        RadixHeap { buckets: (0..129).map(|_| Vec::new()).collect(), last: 0, len: 0, seq: 0 }
    }
}

impl<E: Copy> RadixHeap<E> {
    pub fn with_capacity(_n: usize) -> Self {
        Self::default()
    }

    #[inline]
    fn bucket_of(&self, key: u128) -> usize {
        (128 - (key ^ self.last).leading_zeros()) as usize
    }
}

impl<E: Copy> PendingEvents<E> for RadixHeap<E> {
    fn schedule(&mut self, at: SimTime, ev: E) {
        let key = pack(at, self.seq);
        self.seq += 1;
        assert!(key >= self.last, "radix heap: event scheduled in the past");
        let b = self.bucket_of(key);
        self.buckets[b].push(Entry { key, ev });
        self.len += 1;
    }
    fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.len == 0 {
            return None;
        }
        if self.buckets[0].is_empty() {
            let b = (1..129).find(|&b| !self.buckets[b].is_empty()).expect("len > 0");
            let moved = std::mem::take(&mut self.buckets[b]);
            self.last = moved.iter().map(|e| e.key).min().expect("non-empty");
            for e in &moved {
                let nb = self.bucket_of(e.key);
                self.buckets[nb].push(*e);
            }
            // Give the allocation back to the emptied bucket so it is reused, not freed.
            let mut moved = moved;
            moved.clear();
            self.buckets[b] = moved;
        }
        // Bucket 0 holds exactly one key (keys are unique), equal to `last`.
        let e = self.buckets[0].pop().expect("bucket 0 filled above");
        self.len -= 1;
        Some((unpack_time(e.key), e.ev))
    }
    fn peek_time(&self) -> Option<SimTime> {
        if self.len == 0 {
            return None;
        }
        if !self.buckets[0].is_empty() {
            return Some(unpack_time(self.last));
        }
        let b = (1..129).find(|&b| !self.buckets[b].is_empty())?;
        self.buckets[b].iter().map(|e| unpack_time(e.key)).min()
    }
    fn len(&self) -> usize {
        self.len
    }
}
