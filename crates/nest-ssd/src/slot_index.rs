//! LPA → DRAM-cache slot: an open-addressed table sized to the slots in use.
//!
//! The cache holds at most a few tens of thousands of pages (the stock drive: 32 K slots of
//! 8 KiB), but its LPAs range over the whole drive (64 M on the stock drive). An LPA-indexed
//! table (`SparseTable`) cost two dependent cache misses per lookup (directory page, then chunk)
//! on every command, and kept a 512 B chunk alive for every stretch of LPAs ever cached: on a
//! uniform random workload it grew with the pages written, not with the cache (issue 24).
//! Here the table holds only the cached pages, at most half full: ≤ 512 KB for the stock
//! drive's cache, starting at 16 entries for a drive that has cached nothing. Linear probing
//! with backward-shift deletion (no tombstones), Fibonacci hashing: deterministic, and a probe
//! is usually one cache line.

/// An unused entry (no LPA reaches it: the geometry check keeps physical pages below 2^31).
const EMPTY: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct SlotIndex {
    /// (LPA, value) pairs; `EMPTY` keys are free. Length a power of two.
    table: Vec<(u32, u32)>,
    len: usize,
    bits: u32,
}

impl Default for SlotIndex {
    fn default() -> Self {
        SlotIndex::new()
    }
}

impl SlotIndex {
    pub fn new() -> Self {
        SlotIndex { table: vec![(EMPTY, 0); 16], len: 0, bits: 4 }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn home(&self, lpa: u32) -> usize {
        (lpa.wrapping_mul(0x9E37_79B9) >> (32 - self.bits)) as usize
    }

    /// The value kept for `lpa`, 0 when none (values are slot + 1).
    #[inline]
    pub fn get(&self, lpa: u32) -> u32 {
        let mask = self.table.len() - 1;
        let mut i = self.home(lpa);
        loop {
            let (k, v) = self.table[i];
            if k == lpa {
                return v;
            }
            if k == EMPTY {
                return 0;
            }
            i = (i + 1) & mask;
        }
    }

    /// Keeps `v` for `lpa`; `v = 0` removes it.
    #[inline]
    pub fn set(&mut self, lpa: u32, v: u32) {
        debug_assert!(lpa != EMPTY);
        if v == 0 {
            self.remove(lpa);
        } else {
            self.insert(lpa, v);
        }
    }

    /// Forgets every entry, keeping the table's size.
    pub fn clear(&mut self) {
        self.table.fill((EMPTY, 0));
        self.len = 0;
    }

    fn insert(&mut self, lpa: u32, v: u32) {
        if 2 * (self.len + 1) > self.table.len() {
            self.grow();
        }
        let mask = self.table.len() - 1;
        let mut i = self.home(lpa);
        loop {
            let k = self.table[i].0;
            if k == lpa || k == EMPTY {
                self.len += (k == EMPTY) as usize;
                self.table[i] = (lpa, v);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    fn remove(&mut self, lpa: u32) {
        let mask = self.table.len() - 1;
        let mut hole = self.home(lpa);
        loop {
            let k = self.table[hole].0;
            if k == EMPTY {
                return; // not held
            }
            if k == lpa {
                break;
            }
            hole = (hole + 1) & mask;
        }
        // Backward shift: an entry further along the run moves into the hole unless its home
        // lies after the hole (then the hole would cut it off from its home).
        let mut j = (hole + 1) & mask;
        loop {
            let k = self.table[j].0;
            if k == EMPTY {
                break;
            }
            let h = self.home(k);
            if (j.wrapping_sub(h) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.table[hole] = self.table[j];
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.table[hole] = (EMPTY, 0);
        self.len -= 1;
    }

    fn grow(&mut self) {
        self.bits += 1;
        let old = std::mem::replace(&mut self.table, vec![(EMPTY, 0); 1 << self.bits]);
        self.len = 0;
        for (k, v) in old {
            if k != EMPTY {
                self.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn agrees_with_a_map_under_random_inserts_updates_and_removals() {
        // Keys from a small range so runs collide and removals shift entries back.
        let mut idx = SlotIndex::new();
        let mut map = BTreeMap::new();
        let mut x: u64 = 12345;
        for step in 0..200_000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let lpa = ((x >> 33) % 5_000) as u32 * 7919 % 1_000_003;
            if (x >> 20).is_multiple_of(3) {
                idx.set(lpa, 0);
                map.remove(&lpa);
            } else {
                idx.set(lpa, step + 1);
                map.insert(lpa, step + 1);
            }
            if step % 997 == 0 {
                assert_eq!(idx.len(), map.len());
                for probe in 0..64u32 {
                    let k = probe * 7919 % 1_000_003;
                    assert_eq!(idx.get(k), map.get(&k).copied().unwrap_or(0), "key {k} at step {step}");
                }
            }
        }
        for (&k, &v) in &map {
            assert_eq!(idx.get(k), v);
        }
        assert!(idx.table.len() <= 4 * 5_000, "at most half full at its peak, and no larger than that needs");
    }

    #[test]
    fn an_unused_index_is_small() {
        let idx = SlotIndex::new();
        assert_eq!(idx.get(42), 0);
        assert_eq!(idx.table.len(), 16);
    }
}
