//! A die's transaction queues, allocated on the die's first transaction.
//!
//! Eleven `VecDeque`s (twelve since GC reads got their own) are 352 bytes, half of a die's state; written for every die at set-up
//! they were ~22 KB per drive of MQSim's stock geometry (64 dies), 220 MB over 10,000 drives
//! most of whose dies never queue anything (issue 24). An idle die holds one null pointer, and
//! the state the scheduler reads on every transaction (phase, batch, end) fits in fewer cache
//! lines.

use super::txn::NQ;
use std::collections::VecDeque;
use std::ops::{Index, IndexMut};

/// What a queue of a die without queues reads as.
static EMPTY: VecDeque<u32> = VecDeque::new();

#[derive(Default)]
pub(super) struct DieQueues(Option<Box<[VecDeque<u32>; NQ]>>);

impl DieQueues {
    /// Every queue, in index order (empty ones too).
    pub(super) fn iter(&self) -> impl Iterator<Item = &VecDeque<u32>> + '_ {
        (0..NQ).map(move |qi| &self[qi])
    }

    /// Bit `qi` set for each queue holding a transaction.
    #[inline]
    pub(super) fn nonempty(&self) -> u32 {
        self.0.as_ref().map_or(0, |q| q.iter().enumerate().fold(0, |m, (qi, q)| m | ((!q.is_empty() as u32) << qi)))
    }

    /// The number of queues (`NQ`).
    pub(super) fn len(&self) -> usize {
        NQ
    }
}

impl Index<usize> for DieQueues {
    type Output = VecDeque<u32>;

    #[inline]
    fn index(&self, qi: usize) -> &VecDeque<u32> {
        match &self.0 {
            Some(q) => &q[qi],
            None => {
                assert!(qi < NQ, "queue {qi} of {NQ}");
                &EMPTY
            }
        }
    }
}

impl IndexMut<usize> for DieQueues {
    #[inline]
    fn index_mut(&mut self, qi: usize) -> &mut VecDeque<u32> {
        &mut self.0.get_or_insert_with(Default::default)[qi]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_exist_once_written_and_read_empty_before() {
        let mut q = DieQueues::default();
        assert!(q.0.is_none() && q.iter().all(VecDeque::is_empty) && q[NQ - 1].is_empty() && q.nonempty() == 0);
        q[3].push_back(7);
        q[3].push_back(9);
        assert!(q.0.is_some());
        assert_eq!(q.iter().map(VecDeque::len).collect::<Vec<_>>(), (0..NQ).map(|i| if i == 3 { 2 } else { 0 }).collect::<Vec<_>>());
        assert_eq!(q[3].front(), Some(&7));
        assert_eq!(q.len(), NQ);
        assert_eq!(q.nonempty(), 1 << 3);
        q[NQ - 1].push_back(1);
        assert_eq!(q.nonempty(), 1 << 3 | 1 << (NQ - 1));
    }

    #[test]
    #[should_panic(expected = "queue 13 of 13")]
    fn a_queue_past_the_last_panics_like_an_array_even_unallocated() {
        let q = DieQueues::default();
        let _ = &q[NQ];
    }
}
