//! Weighted round-robin over three levels (High, Medium, Low), the rule shared by NVMe
//! submission-queue arbitration and the SSD's per-class chip queues (thesis 4.4.2, Fig 4.6).
//!
//! Each level gets `weight` turns per round; a level with nothing to do is skipped without
//! spending credit, so an idle class never wastes service; when every level that has work is
//! out of credit, a new round starts. The turn stays with a level until its credit is spent,
//! which makes a backlogged 3:2:1 mix come out as H H H M M L.

#[derive(Clone, Debug)]
pub struct Wrr {
    weights: [u32; 3],
    credit: [u32; 3],
    turn: usize,
}

impl Wrr {
    /// `weights` must be ≥ 1 each (callers validate and report the key).
    pub fn new(weights: [u32; 3]) -> Self {
        let weights = weights.map(|w| w.max(1));
        Wrr { weights, credit: weights, turn: 0 }
    }

    pub fn weights(&self) -> [u32; 3] {
        self.weights
    }

    /// Picks the level (0 = High, 1 = Medium, 2 = Low) that gets the next turn among those for
    /// which `has_work` is true, spending one credit. `None` if no level has work.
    #[inline]
    pub fn pick(&mut self, has_work: impl Fn(usize) -> bool) -> Option<usize> {
        let work = [has_work(0), has_work(1), has_work(2)];
        if !work.iter().any(|w| *w) {
            return None;
        }
        loop {
            for k in 0..3 {
                let i = (self.turn + k) % 3;
                if self.credit[i] > 0 && work[i] {
                    self.credit[i] -= 1;
                    self.turn = if self.credit[i] == 0 { (i + 1) % 3 } else { i };
                    return Some(i);
                }
            }
            self.credit = self.weights;
        }
    }

    /// The class served next under urgent + WRR (thesis Fig 4.6): 0 (urgent) when `urgent`
    /// has work, else the WRR pick among classes 1–3 (High, Medium, Low) for which
    /// `has_work(class)` holds. `None` if nothing has work.
    #[inline]
    pub fn pick_class(&mut self, urgent: bool, has_work: impl Fn(usize) -> bool) -> Option<usize> {
        if urgent {
            return Some(0);
        }
        self.pick(|i| has_work(i + 1)).map(|i| i + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backlogged_levels_share_by_weight() {
        let mut w = Wrr::new([3, 2, 1]);
        let mut n = [0; 3];
        let seq: Vec<usize> = (0..12).map(|_| w.pick(|_| true).unwrap()).collect();
        for &i in &seq {
            n[i] += 1;
        }
        assert_eq!(n, [6, 4, 2]);
        assert_eq!(&seq[..6], &[0, 0, 0, 1, 1, 2]);
    }

    #[test]
    fn idle_levels_spend_nothing() {
        let mut w = Wrr::new([3, 2, 1]);
        let seq: Vec<usize> = (0..6).map(|_| w.pick(|i| i != 0).unwrap()).collect();
        assert_eq!(seq.iter().filter(|&&i| i == 1).count(), 4);
        assert_eq!(seq.iter().filter(|&&i| i == 2).count(), 2);
        assert_eq!(w.pick(|_| false), None);
    }
}
