//! A plane's free blocks. Blocks are handed out oldest first. With dynamic wear levelling, the
//! least-erased block goes first, and the oldest among equals, which is what a scan of the list
//! in order found.
//!
//! Both orders cost O(log n) per block. The scan and `Vec::remove` they replace cost O(free
//! blocks) per block. On a drive with 10⁵ blocks per plane, preconditioning alone took minutes.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::ops::Range;

#[derive(Debug, Clone)]
pub struct FreeList {
    /// Blocks never used yet, in order: they arrived first and have never been erased, so they
    /// go before every block in `used` in both orders. Kept as a range, they cost nothing until
    /// taken — a drive that serves little keeps most of its blocks here (item 4 of issue 24: an
    /// idle drive's memory does not grow with its geometry).
    fresh: Range<u32>,
    used: Used,
}

#[derive(Debug, Clone)]
enum Used {
    /// Oldest first.
    Fifo(VecDeque<u32>),
    /// Least erased first, then oldest: (erases, arrival, block). A free block's erase count
    /// does not change while it is free, so its key is fixed when it arrives.
    ByWear { heap: BinaryHeap<Reverse<(u32, u64, u32)>>, arrivals: u64 },
}

impl FreeList {
    /// `blocks`, in order, all with `erases` 0.
    pub fn new(blocks: Range<u32>, dynamic_wl: bool) -> Self {
        let used = if dynamic_wl { Used::ByWear { heap: BinaryHeap::new(), arrivals: 0 } } else { Used::Fifo(VecDeque::new()) };
        FreeList { fresh: blocks, used }
    }

    pub fn len(&self) -> usize {
        self.fresh.len()
            + match &self.used {
                Used::Fifo(q) => q.len(),
                Used::ByWear { heap, .. } => heap.len(),
            }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A block arrives (just erased, `erases` times in all).
    pub fn push(&mut self, block: u32, erases: u32) {
        match &mut self.used {
            Used::Fifo(q) => q.push_back(block),
            Used::ByWear { heap, arrivals } => {
                heap.push(Reverse((erases, *arrivals, block)));
                *arrivals += 1;
            }
        }
    }

    /// The next block to use.
    pub fn take(&mut self) -> Option<u32> {
        // A fresh block is the oldest arrival with the fewest erases (0): first in both orders.
        self.fresh.next().or_else(|| match &mut self.used {
            Used::Fifo(q) => q.pop_front(),
            Used::ByWear { heap, .. } => heap.pop().map(|Reverse((_, _, b))| b),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nest_core::rng::RngStream;

    /// Against the list it replaced: a Vec scanned for its first least-erased block.
    #[test]
    fn takes_what_a_scan_of_the_list_took() {
        for dynamic in [false, true] {
            let mut erases = vec![0u32; 64];
            let mut list: Vec<u32> = (0..32).collect();
            let mut fl = FreeList::new(0..32, dynamic);
            let mut used: Vec<u32> = (32..64).collect();
            let mut rng = RngStream::derive(3, "free", 0, "t");
            for step in 0..5000 {
                if rng.below(2) == 0 && !used.is_empty() {
                    let b = used.swap_remove(rng.below(used.len() as u64) as usize);
                    erases[b as usize] += 1;
                    list.push(b);
                    fl.push(b, erases[b as usize]);
                } else if !list.is_empty() {
                    let i = if dynamic {
                        (0..list.len()).fold(0, |best, i| if erases[list[i] as usize] < erases[list[best] as usize] { i } else { best })
                    } else {
                        0
                    };
                    let want = list.remove(i);
                    assert_eq!(fl.take(), Some(want), "dynamic {dynamic} step {step}");
                    used.push(want);
                }
                assert_eq!(fl.len(), list.len());
            }
        }
    }
}
