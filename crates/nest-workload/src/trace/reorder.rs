//! A bounded reorder window: holds up to N records and releases the earliest, so traces that
//! are only locally out of order (SYSTOR, Tencent, FlashNet) replay in time order while memory
//! stays bounded. Ties keep file order.
//!
//! Most traces are already in time order, and a heap of 64 K records costs ~16 dependent cache
//! misses per pop (a tenth of a 1 M-record replay). So the window keeps two parts: a FIFO of the
//! records that arrived in order (each no earlier than the FIFO's last) and a heap of the rest.
//! Keys are (time, file position), unique and totally ordered, so the FIFO is sorted and the
//! earlier of its front and the heap's top is the window's earliest: the same records leave in
//! the same order as from one heap, and an in-order trace never touches the heap.

use super::RawRecord;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Keyed(i128, u64, [u64; 4]);

pub struct ReorderWindow {
    in_order: VecDeque<Keyed>,
    heap: BinaryHeap<Reverse<Keyed>>,
    cap: usize,
    seq: u64,
}

fn encode(r: &RawRecord) -> [u64; 4] {
    [r.op as u64, r.offset, r.size, r.device]
}

fn decode(k: Keyed) -> RawRecord {
    let Keyed(t, _, f) = k;
    let op = if f[0] == 0 { crate::Op::Read } else { crate::Op::Write };
    RawRecord { time_ps: t, op, offset: f[1], size: f[2], device: f[3] }
}

impl ReorderWindow {
    pub fn new(cap: usize) -> Self {
        ReorderWindow { in_order: VecDeque::new(), heap: BinaryHeap::new(), cap, seq: 0 }
    }
    fn len(&self) -> usize {
        self.in_order.len() + self.heap.len()
    }
    pub fn is_full(&self) -> bool {
        self.len() >= self.cap
    }
    pub fn push(&mut self, r: RawRecord) {
        let k = Keyed(r.time_ps, self.seq, encode(&r));
        self.seq += 1;
        // The sequence number only grows, so a time no earlier than the FIFO's last keeps it sorted.
        if self.in_order.back().is_none_or(|b| b.0 <= k.0) {
            self.in_order.push_back(k);
        } else {
            self.heap.push(Reverse(k));
        }
    }
    pub fn pop(&mut self) -> Option<RawRecord> {
        let from_heap = match (self.in_order.front(), self.heap.peek()) {
            (None, None) => return None,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (Some(f), Some(Reverse(h))) => h < f,
        };
        let k = if from_heap { self.heap.pop().map(|Reverse(k)| k) } else { self.in_order.pop_front() };
        k.map(decode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(t: i128, offset: u64) -> RawRecord {
        RawRecord { time_ps: t, op: crate::Op::Read, offset, size: 4096, device: 0 }
    }

    /// What one heap over (time, position) releases: the reference the two-part window must match.
    fn by_heap(times: &[i128], cap: usize) -> Vec<(i128, u64)> {
        let mut heap = BinaryHeap::new();
        let mut out = Vec::new();
        for (i, &t) in times.iter().enumerate() {
            if heap.len() >= cap {
                let Reverse((t, o)) = heap.pop().unwrap();
                out.push((t, o));
            }
            heap.push(Reverse((t, i as u64)));
        }
        while let Some(Reverse(x)) = heap.pop() {
            out.push(x);
        }
        out
    }

    fn by_window(times: &[i128], cap: usize) -> Vec<(i128, u64)> {
        let mut w = ReorderWindow::new(cap);
        let mut out = Vec::new();
        for (i, &t) in times.iter().enumerate() {
            if w.is_full() {
                let r = w.pop().unwrap();
                out.push((r.time_ps, r.offset));
            }
            w.push(rec(t, i as u64));
        }
        while let Some(r) = w.pop() {
            out.push((r.time_ps, r.offset));
        }
        out
    }

    #[test]
    fn releases_what_a_single_heap_releases() {
        // In order, ties, local disorder, a record far too late for the window, and a reversal.
        let mut x: u64 = 7;
        let mut noisy = Vec::new();
        for i in 0..2000i128 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            noisy.push(i * 10 + (x >> 60) as i128 * 7 - 50);
        }
        let cases: Vec<Vec<i128>> =
            vec![(0..100).collect(), vec![5, 5, 5, 3, 3, 9, 1, 9, 9, 0], noisy, (0..300).rev().collect(), vec![10, 20, 30, 1, 40, 50, 2, 60]];
        for times in &cases {
            for cap in [1, 2, 3, 16, 4096] {
                assert_eq!(by_window(times, cap), by_heap(times, cap), "cap {cap}, times {:?}…", &times[..times.len().min(12)]);
            }
        }
    }

    #[test]
    fn an_in_order_trace_never_uses_the_heap() {
        let mut w = ReorderWindow::new(64);
        for t in [1, 2, 2, 3, 8] {
            w.push(rec(t, 0));
        }
        assert_eq!((w.in_order.len(), w.heap.len()), (5, 0));
        w.push(rec(4, 0));
        assert_eq!((w.in_order.len(), w.heap.len(), w.len()), (5, 1, 6));
        let order: Vec<i128> = std::iter::from_fn(|| w.pop().map(|r| r.time_ps)).collect();
        assert_eq!(order, vec![1, 2, 2, 3, 4, 8]);
    }
}
