//! Slow, obviously-correct models written straight from the published pseudocode, for the
//! property tests: the fast implementations must make the same decisions.

use std::collections::VecDeque;

/// LRU over a vector, MRU first.
pub struct RefLru {
    items: VecDeque<u64>,
    cap: usize,
}

impl RefLru {
    pub fn new(cap: usize) -> Self {
        RefLru { items: VecDeque::new(), cap }
    }
    /// Returns (hit, evicted block).
    pub fn access(&mut self, b: u64) -> (bool, Option<u64>) {
        if let Some(pos) = self.items.iter().position(|&x| x == b) {
            self.items.remove(pos);
            self.items.push_front(b);
            return (true, None);
        }
        self.items.push_front(b);
        let ev = if self.items.len() > self.cap { self.items.pop_back() } else { None };
        (false, ev)
    }
    pub fn contents(&self) -> Vec<u64> {
        self.items.iter().copied().collect()
    }
}

/// ARC exactly as Fig. 4 of Megiddo & Modha (FAST '03); lists are MRU first.
pub struct RefArc {
    t1: VecDeque<u64>,
    t2: VecDeque<u64>,
    b1: VecDeque<u64>,
    b2: VecDeque<u64>,
    c: usize,
    p: f64,
}

fn take(l: &mut VecDeque<u64>, x: u64) -> bool {
    match l.iter().position(|&y| y == x) {
        Some(i) => {
            l.remove(i);
            true
        }
        None => false,
    }
}

impl RefArc {
    pub fn new(c: usize) -> Self {
        RefArc { t1: VecDeque::new(), t2: VecDeque::new(), b1: VecDeque::new(), b2: VecDeque::new(), c, p: 0.0 }
    }

    fn replace(&mut self, x_in_b2: bool) -> u64 {
        let t1 = self.t1.len() as f64;
        if !self.t1.is_empty() && ((x_in_b2 && t1 == self.p) || t1 > self.p) {
            let y = self.t1.pop_back().unwrap();
            self.b1.push_front(y);
            y
        } else {
            let y = self.t2.pop_back().expect("REPLACE from T2 needs T2 non-empty");
            self.b2.push_front(y);
            y
        }
    }

    /// Returns (hit, evicted data block).
    pub fn access(&mut self, x: u64) -> (bool, Option<u64>) {
        let c = self.c as f64;
        if take(&mut self.t1, x) || take(&mut self.t2, x) {
            self.t2.push_front(x);
            return (true, None);
        }
        if self.b1.contains(&x) {
            let d = if self.b1.len() >= self.b2.len() { 1.0 } else { self.b2.len() as f64 / self.b1.len() as f64 };
            self.p = (self.p + d).min(c);
            let ev = self.replace(false);
            take(&mut self.b1, x);
            self.t2.push_front(x);
            return (false, Some(ev));
        }
        if self.b2.contains(&x) {
            let d = if self.b2.len() >= self.b1.len() { 1.0 } else { self.b1.len() as f64 / self.b2.len() as f64 };
            self.p = (self.p - d).max(0.0);
            let ev = self.replace(true);
            take(&mut self.b2, x);
            self.t2.push_front(x);
            return (false, Some(ev));
        }
        let mut ev = None;
        let l1 = self.t1.len() + self.b1.len();
        let total = l1 + self.t2.len() + self.b2.len();
        if l1 == self.c {
            if self.t1.len() < self.c {
                self.b1.pop_back();
                ev = Some(self.replace(false));
            } else {
                ev = self.t1.pop_back();
            }
        } else if total >= self.c {
            if total == 2 * self.c {
                self.b2.pop_back();
            }
            ev = Some(self.replace(false));
        }
        self.t1.push_front(x);
        (false, ev)
    }

    pub fn cached(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self.t1.iter().chain(self.t2.iter()).copied().collect();
        v.sort_unstable();
        v
    }
}
