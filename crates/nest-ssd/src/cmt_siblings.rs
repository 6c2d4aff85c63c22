//! The cached entries of each translation page, as lists threaded through the CMT's entry slots
//! — what MQSim's write-back loop walks (`ModelSwitches::writeback_refreshes_siblings`). MQSim
//! scans every LPA of the page (~1,365); a page of random 4 KiB requests' entries holds a few,
//! so the lists keep that rule's cost per write-back to the entries there are (a scan of the
//! page's range cost the 10⁶-request reference run 17 % more CPU).

use crate::geometry::NONE;
use crate::lazy_vec::LazyVec;

pub struct Siblings {
    /// Per translation page, its first slot (NONE: none cached).
    head: LazyVec<u32>,
    /// Per slot, the next and previous slot of the same page (NONE at the ends).
    next: Vec<u32>,
    prev: Vec<u32>,
}

impl Siblings {
    pub fn new(tpages: usize, slots: usize) -> Self {
        Siblings { head: LazyVec::new(tpages, NONE), next: vec![NONE; slots], prev: vec![NONE; slots] }
    }

    /// Slot `s` now holds an entry of translation page `tp`.
    pub fn add(&mut self, tp: u32, s: u32) {
        let h = self.head[tp as usize];
        self.next[s as usize] = h;
        self.prev[s as usize] = NONE;
        if h != NONE {
            self.prev[h as usize] = s;
        }
        self.head[tp as usize] = s;
    }

    /// Slot `s`, holding an entry of `tp`, was freed.
    pub fn remove(&mut self, tp: u32, s: u32) {
        let (n, p) = (self.next[s as usize], self.prev[s as usize]);
        if p != NONE {
            self.next[p as usize] = n;
        } else {
            self.head[tp as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }

    /// The slots holding `tp`'s cached entries (most recently added first).
    pub fn of(&self, tp: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(Some(self.head[tp as usize]).filter(|&s| s != NONE), move |&s| Some(self.next[s as usize]).filter(|&n| n != NONE))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_join_and_leave_their_pages_list() {
        let mut s = Siblings::new(4, 8);
        for (tp, slot) in [(1, 3), (1, 5), (2, 0), (1, 7)] {
            s.add(tp, slot);
        }
        assert_eq!(s.of(1).collect::<Vec<_>>(), vec![7, 5, 3]);
        s.remove(1, 5);
        assert_eq!(s.of(1).collect::<Vec<_>>(), vec![7, 3]);
        s.remove(1, 7);
        s.remove(1, 3);
        assert_eq!(s.of(1).count(), 0);
        assert_eq!(s.of(2).collect::<Vec<_>>(), vec![0]);
        s.add(1, 5);
        assert_eq!(s.of(1).collect::<Vec<_>>(), vec![5]);
    }
}
