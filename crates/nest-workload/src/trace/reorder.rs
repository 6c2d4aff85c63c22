//! A bounded reorder window: holds up to N records and releases the earliest, so traces that
//! are only locally out of order (SYSTOR, Tencent, FlashNet) replay in time order while memory
//! stays bounded. Ties keep file order.

use super::RawRecord;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Keyed(i128, u64, [u64; 4]);

pub struct ReorderWindow {
    heap: BinaryHeap<Reverse<Keyed>>,
    cap: usize,
    seq: u64,
}

fn encode(r: &RawRecord) -> [u64; 4] {
    [r.op as u64, r.offset, r.size, r.device]
}

fn decode(t: i128, f: [u64; 4]) -> RawRecord {
    let op = if f[0] == 0 { crate::Op::Read } else { crate::Op::Write };
    RawRecord { time_ps: t, op, offset: f[1], size: f[2], device: f[3] }
}

impl ReorderWindow {
    pub fn new(cap: usize) -> Self {
        ReorderWindow { heap: BinaryHeap::new(), cap, seq: 0 }
    }
    pub fn is_full(&self) -> bool {
        self.heap.len() >= self.cap
    }
    pub fn push(&mut self, r: RawRecord) {
        self.heap.push(Reverse(Keyed(r.time_ps, self.seq, encode(&r))));
        self.seq += 1;
    }
    pub fn pop(&mut self) -> Option<RawRecord> {
        self.heap.pop().map(|Reverse(Keyed(t, _, f))| decode(t, f))
    }
}
