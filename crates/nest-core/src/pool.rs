//! A free-list pool: items addressed by a dense `u32` index, freed slots reused last-in first-out,
//! so a steady state allocates nothing. Requests, packets, the SSD's commands and transactions
//! and the host caches' nodes all live in one. (Reuse order is part of a run's trajectory: ids
//! appear in events, so it must not change.)

use std::ops::{Index, IndexMut};

#[derive(Debug, Clone)]
pub struct Pool<T> {
    slots: Vec<T>,
    free: Vec<u32>,
    live: u64,
}

impl<T> Default for Pool<T> {
    fn default() -> Self {
        Pool { slots: Vec::new(), free: Vec::new(), live: 0 }
    }
}

impl<T> Pool<T> {
    pub fn with_capacity(n: usize) -> Self {
        Pool { slots: Vec::with_capacity(n), free: Vec::new(), live: 0 }
    }

    /// Stores `x` in the most recently freed slot, or a new one.
    #[inline]
    pub fn alloc(&mut self, x: T) -> u32 {
        self.live += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = x;
                i
            }
            None => {
                self.slots.push(x);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Frees slot `i` (its item stays readable until the slot is reused).
    #[inline]
    pub fn release(&mut self, i: u32) {
        debug_assert!((i as usize) < self.slots.len(), "release of a slot never allocated");
        self.live -= 1;
        self.free.push(i);
    }

    /// Slot `i` if it was ever allocated (live or freed).
    #[inline]
    pub fn try_get(&self, i: u32) -> Option<&T> {
        self.slots.get(i as usize)
    }

    #[inline]
    pub fn get(&self, i: u32) -> &T {
        &self.slots[i as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut T {
        &mut self.slots[i as usize]
    }

    /// Items allocated and not freed.
    #[inline]
    pub fn live(&self) -> u64 {
        self.live
    }

    /// Slots ever allocated (the peak number alive at once).
    #[inline]
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

impl<T> Index<usize> for Pool<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.slots[i]
    }
}

impl<T> IndexMut<usize> for Pool<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.slots[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused_last_in_first_out() {
        let mut p = Pool::default();
        let ids: Vec<u32> = (0..4).map(|k| p.alloc(k * 10)).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        p.release(1);
        p.release(3);
        assert_eq!(p.live(), 2);
        assert_eq!(p.alloc(99), 3, "the last freed slot first");
        assert_eq!(p.alloc(98), 1);
        assert_eq!(p.alloc(97), 4, "then new slots");
        assert_eq!((p[3], *p.get(1), p[4]), (99, 98, 97));
        *p.get_mut(0) += 1;
        p[2] += 2;
        assert_eq!((p[0], p[2]), (1, 22));
        assert_eq!((p.live(), p.capacity()), (5, 5));
    }
}
