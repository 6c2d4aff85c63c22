//! A host's admission gate, between its applications and its host queues (SPEC §8, §10: the
//! point where PLMC's DT-count budgets and Haechi's tokens are enforced). A request passes while
//! the host's budget lasts; after that it is held, in arrival order, until a coordinator grants
//! a new budget. Hosts no coordinator covers have no gate at all.

use crate::request::ReqId;
use nest_core::conservation::Conservation;
use nest_core::SimTime;
use std::collections::VecDeque;

#[derive(Default)]
pub struct AdmissionGate {
    /// Requests that may still pass in this budget.
    budget: u64,
    /// Requests waiting for budget, with when they arrived.
    held: VecDeque<(ReqId, SimTime)>,
    /// Every request offered: issued when offered, completed when it passed.
    pub books: Conservation,
    /// Requests that had to wait, their total wait (ps), the longest wait, the most held at once.
    pub waited: u64,
    pub wait_ps: u64,
    pub max_wait: SimTime,
    pub max_held: usize,
    /// Budgets granted, and their total.
    pub grants: u64,
    pub granted: u64,
}

impl AdmissionGate {
    /// Request `r` arrives: true when it may pass now (it spends budget), false when it is held.
    #[inline]
    pub fn offer(&mut self, now: SimTime, r: ReqId) -> bool {
        self.books.issue(1);
        if self.budget > 0 && self.held.is_empty() {
            self.budget -= 1;
            self.books.complete(1);
            return true;
        }
        self.held.push_back((r, now));
        self.max_held = self.max_held.max(self.held.len());
        false
    }

    /// A new budget replaces what was left.
    pub fn set_budget(&mut self, ios: u64) {
        self.budget = ios;
        self.grants += 1;
        self.granted += ios;
    }

    /// The next held request that the budget now lets through.
    pub fn release(&mut self, now: SimTime) -> Option<ReqId> {
        if self.budget == 0 {
            return None;
        }
        let (r, since) = self.held.pop_front()?;
        self.budget -= 1;
        self.books.complete(1);
        let wait = now - since;
        self.waited += 1;
        self.wait_ps += wait.0;
        self.max_wait = self.max_wait.max(wait);
        Some(r)
    }

    /// Requests held now.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// Held requests of which `is_app` says they are application requests sent as they are (not
    /// split): those are counted by no host queue yet.
    pub fn held_where(&self, is_app: impl Fn(ReqId) -> bool) -> u64 {
        self.held.iter().filter(|(r, _)| is_app(*r)).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_while_the_budget_lasts_then_holds_in_order_until_a_new_budget() {
        let mut g = AdmissionGate::default();
        let t = SimTime::from_us;
        assert!(!g.offer(t(0), ReqId(9)), "no budget yet");
        g.set_budget(2);
        assert_eq!(g.release(t(1)), Some(ReqId(9)));
        assert!(g.offer(t(2), ReqId(1)), "one request of budget left");
        assert!(!g.offer(t(3), ReqId(2)));
        assert!(!g.offer(t(4), ReqId(3)));
        assert_eq!(g.release(t(5)), None, "budget spent");
        g.set_budget(1);
        assert_eq!(g.release(t(10)), Some(ReqId(2)));
        assert_eq!(g.release(t(10)), None);
        assert_eq!(g.held(), 1);
        // A request arriving while others are held waits behind them even with budget.
        g.set_budget(5);
        assert!(!g.offer(t(11), ReqId(4)));
        assert_eq!(g.release(t(12)), Some(ReqId(3)));
        assert_eq!(g.release(t(12)), Some(ReqId(4)));
        assert_eq!((g.books.issued, g.books.completed), (5, 5));
        assert_eq!(g.waited, 4);
        assert_eq!(g.max_wait, t(8));
        assert_eq!(g.wait_ps, (t(1) + t(7) + t(8) + t(1)).0);
        assert_eq!((g.grants, g.granted, g.max_held), (3, 8, 2));
    }
}
