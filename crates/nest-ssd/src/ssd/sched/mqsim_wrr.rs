//! MQSim's weighted round-robin over High/Medium/Low (`PRIORITY_OUT_OF_ORDER`,
//! `src/ssd/TSU_Priority_OutOfOrder.cpp:301-333, 437-469`), as written, asked where MQSim asks
//! it. Urgent goes first. Otherwise a pointer steps through High, Medium, Low; each step onto
//! High lowers a running weight (back to High's weight below 1), and a class with work is served
//! when its weight reaches the running weight — after at most High's-weight steps onto High. So
//! a lone low-weight class is found only when the running weight has come down to its own: with
//! only Low waiting, half the asks find nothing, and the chip turns to its writes (or, for
//! writes, to erases) instead.
//!
//! Every ask moves the pointer, whether the chip can start or not, and MQSim asks on every visit
//! of its scheduler to a chip — busy chips included (`visit_busy`). Which asks a visit makes
//! follows `service_read_transaction` and `service_write_transaction` (`:338-548`): with GC
//! "urgent" (non-preemptible, MQSim's default) the read round-robin is asked for a partner of a
//! mapping or GC read, the write round-robin for a partner of a GC write, and a waiting GC write
//! or erase keeps user reads from being asked at all; with preemptible GC a chip that finds no
//! read class asks the write round-robin once only to test it (`:398`) before asking it again.
//!
//! Against credit-based WRR (`urgent_wrr`) on a four-class mix (docs/mqsim.md): MQSim's serves
//! Low reads later (their p99 5.3 ms, against 1.9 with credits) and Low writes sooner.

use super::order::{self, take_class};
use super::{DiePolicy, Unit};
use crate::params::SchedParams;
use crate::ssd::txn::{Q_GC, Q_GC_ERASE, Q_GC_READ, Q_MAP_READ, Q_MAP_WRITE};
use std::sync::OnceLock;

/// MQSim's High, Medium and Low weights (`Host_Interface_NVMe_Priorities.h:20-35`).
const MQSIM_WEIGHTS: [u32; 3] = [4, 2, 1];

/// One ask of MQSim's round-robin, as written: from the pointer `next` (0 before the first
/// step, then 1 High … 3 Low) and the running weight `current`, over the classes whose bit
/// (`c - 1`) is set in `work`: the new pointer and weight, and the class found.
fn step(weights: [u32; 3], mut next: usize, mut current: i64, work: usize) -> (usize, i64, Option<usize>) {
    let high = weights[0] as i64;
    let mut tries = 0;
    while tries < high {
        next = next % 3 + 1;
        if next == 1 {
            tries += 1;
            current -= 1;
            if current <= 0 {
                current = high;
            }
        }
        if weights[next - 1] as i64 >= current && work & (1 << (next - 1)) != 0 {
            return (next, current, Some(next));
        }
    }
    (next, current, None)
}

/// `step` under MQSim's weights for every pointer (0–3), running weight (1–4) and work (3
/// bits): the new pointer (bits 0–1), weight − 1 (bits 2–3) and class found (bits 4–5, 0 none).
fn mqsim_steps() -> &'static [u8; 128] {
    static STEPS: OnceLock<[u8; 128]> = OnceLock::new();
    STEPS.get_or_init(|| {
        let mut t = [0u8; 128];
        for (i, e) in t.iter_mut().enumerate() {
            let (next, current, work) = (i / 32, (i / 8) % 4 + 1, i % 8);
            let (n, c, got) = step(MQSIM_WEIGHTS, next, current as i64, work);
            *e = (n | (c as usize - 1) << 2 | got.unwrap_or(0) << 4) as u8;
        }
        t
    })
}

#[derive(Clone, Debug)]
pub(crate) struct MqsimWrr {
    /// High, Medium and Low's weights.
    weights: [u32; 3],
    /// Per kind (reads, writes): the class the pointer is on (0 before the first step) and the
    /// running weight.
    next: [usize; 2],
    current: [i64; 2],
}

impl MqsimWrr {
    /// `get_next_read_service_queue` (`kind` 0) or `get_next_write_service_queue` (1), over
    /// the queues for which `h` holds.
    #[inline]
    fn ask_of(&mut self, h: impl Fn(usize) -> bool, kind: usize) -> Option<usize> {
        self.class(kind, |c| h(2 * c + kind))
    }

    #[inline]
    fn ask(&mut self, u: &impl Unit, kind: usize) -> Option<usize> {
        self.ask_of(|qi| u.has(qi), kind)
    }

    /// The asks of MQSim's read service on a chip, in GC's urgent mode: whether it asked.
    #[inline]
    fn urgent_read_asks(h: impl Fn(usize) -> bool) -> bool {
        let (map, gc_read) = (h(Q_MAP_READ), h(Q_GC_READ));
        map != gc_read || (!map && !h(Q_GC) && !h(Q_GC_ERASE))
    }
}

impl DiePolicy for MqsimWrr {
    const NAME: &'static str = "mqsim-wrr";

    fn new(p: &SchedParams) -> Self {
        let high = p.weights[0] as i64;
        MqsimWrr { weights: p.weights, next: [0, 0], current: [high, high] }
    }

    fn class(&mut self, kind: usize, has: impl Fn(usize) -> bool) -> Option<usize> {
        if has(0) {
            return Some(0);
        }
        let work = (1..=3).fold(0, |m, c| m | (has(c) as usize) << (c - 1));
        if self.weights == MQSIM_WEIGHTS {
            // A busy chip's visits ask by the million: MQSim's weights' outcomes are looked up.
            let e = mqsim_steps()[(self.next[kind] * 4 + self.current[kind] as usize - 1) * 8 + work];
            self.next[kind] = (e & 3) as usize;
            self.current[kind] = ((e >> 2) & 3) as i64 + 1;
            return (e >> 4 != 0).then_some((e >> 4) as usize);
        }
        let (next, current, got) = step(self.weights, self.next[kind], self.current[kind], work);
        (self.next[kind], self.current[kind]) = (next, current);
        got
    }

    /// MQSim's read service, then its write service, then its erase service on an idle chip
    /// (`TSU_Priority_OutOfOrder.cpp:338-562`).
    fn pick(&mut self, gc_first: bool, u: &mut impl Unit) -> bool {
        if gc_first {
            // Mapping reads, then GC reads, each asking the read round-robin for a partner
            // queue (a GC read's partner wins over a mapping read's); a GC write or erase
            // waiting keeps user reads out; a GC write asks the write round-robin likewise.
            if u.has(Q_MAP_READ) || u.has(Q_GC_READ) {
                if Self::urgent_read_asks(|qi| u.has(qi)) {
                    self.ask(u, 0);
                }
                return u.take(Q_MAP_READ) || u.take(Q_GC_READ);
            }
            if u.has(Q_GC) {
                self.ask(u, 1);
                return order::take_gc(u);
            }
            if u.has(Q_GC_ERASE) {
                return order::take_gc(u);
            }
            if let Some(c) = self.ask(u, 0) {
                return take_class(u, 0, c);
            }
            return self.ask(u, 1).is_some_and(|c| take_class(u, 1, c)) || u.take(Q_MAP_WRITE);
        }
        if u.gc_turn() {
            return true;
        }
        if u.has(Q_MAP_READ) {
            self.ask(u, 0);
            return u.take(Q_MAP_READ);
        }
        if let Some(c) = self.ask(u, 0) {
            return take_class(u, 0, c);
        }
        if self.ask(u, 1).is_none() && u.take(Q_GC_READ) {
            return true;
        }
        self.ask(u, 1).is_some_and(|c| take_class(u, 1, c)) || order::take_gc(u) || u.take(Q_MAP_WRITE)
    }

    /// The asks of a visit to a busy chip: the read service's, then the write service's
    /// (`Schedule()` and the channel-idle handler visit a channel's chips in turn, busy or
    /// not, `TSU_Priority_OutOfOrder.cpp:276-297`, `TSU_Base.cpp:47-59`).
    fn visit_busy(&mut self, gc_first: bool, work: u32) {
        let h = |qi: usize| work & (1 << qi) != 0;
        if gc_first {
            if Self::urgent_read_asks(h) {
                self.ask_of(h, 0);
            }
            if h(Q_GC) || !h(Q_GC_ERASE) {
                self.ask_of(h, 1);
            }
            return;
        }
        if self.ask_of(h, 0).is_none() && !h(Q_MAP_READ) {
            self.ask_of(h, 1);
        }
        self.ask_of(h, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> MqsimWrr {
        MqsimWrr::new(&SchedParams { weights: [4, 2, 1], ..SchedParams::default() })
    }

    fn shares(waiting: &[usize]) -> [u32; 4] {
        let mut p = policy();
        let mut n = [0; 4];
        for _ in 0..7000 {
            match p.class(0, |c| waiting.contains(&c)) {
                Some(c) => n[c] += 1,
                None => n[0] += 1, // no class found (0 is never waiting here)
            }
        }
        n
    }

    #[test]
    fn all_backlogged_the_weights_hold_and_a_lone_low_class_is_found_half_the_time() {
        // [nothing found, High, Medium, Low] over 7000 picks.
        assert_eq!(shares(&[1, 2, 3]), [0, 4000, 2000, 1000]);
        assert_eq!(shares(&[2, 3]), [0, 0, 4667, 2333]);
        assert_eq!(shares(&[3]), [3500, 0, 0, 3500]);
        assert_eq!(policy().class(1, |c| c == 0 || c == 3), Some(0), "urgent first");
    }

    #[test]
    fn the_looked_up_asks_are_the_loops_and_other_weights_loop() {
        for next in 0..=3 {
            for current in 1..=4 {
                for work in 0..8usize {
                    let mut p = policy();
                    (p.next, p.current) = ([next; 2], [current; 2]);
                    let got = p.class(0, |c| c > 0 && work & (1 << (c - 1)) != 0);
                    assert_eq!((p.next[0], p.current[0], got), step(MQSIM_WEIGHTS, next, current, work), "{next} {current} {work}");
                }
            }
        }
        // Weights of one's own: the loop itself (8:2:1, every class backlogged).
        let mut p = MqsimWrr::new(&SchedParams { weights: [8, 2, 1], ..SchedParams::default() });
        let mut n = [0; 4];
        (0..1100).for_each(|_| n[p.class(0, |c| c > 0).unwrap()] += 1);
        assert_eq!(n, [0, 800, 200, 100]);
    }

    /// A unit whose queues hold `work` (queue indices); `take` always succeeds.
    struct Fake {
        work: Vec<usize>,
        taken: Vec<usize>,
    }

    impl Unit for Fake {
        fn has(&self, qi: usize) -> bool {
            self.work.contains(&qi)
        }
        fn take(&mut self, qi: usize) -> bool {
            let got = self.has(qi);
            if got {
                self.taken.push(qi);
            }
            got
        }
        fn gc_turn(&mut self) -> bool {
            false
        }
    }

    /// Picks of an idle chip holding only Low writes (queue 7): how many of `n` start one.
    fn low_writes_started(gc_first: bool, n: usize) -> usize {
        let mut p = policy();
        let mut u = Fake { work: vec![2 * 3 + 1], taken: Vec::new() };
        (0..n).filter(|_| p.pick(gc_first, &mut u)).count()
    }

    #[test]
    fn the_write_round_robin_is_asked_twice_only_with_preemptible_gc() {
        // Urgent GC (MQSim's default): one ask per pick, and a lone Low class is found half the
        // time. Preemptible GC: the read service's test ask finds Low on every other ask — each
        // time the test — and the write service's ask after it never does: an idle chip alone
        // never starts a lone Low write (only other asks, on busy visits, shift the phase).
        assert_eq!(low_writes_started(true, 800), 400);
        assert_eq!(low_writes_started(false, 800), 0);
    }

    #[test]
    fn a_visit_to_a_busy_chip_moves_the_pointer_and_a_gc_erase_keeps_both_round_robins_still() {
        let idle_after_visits = |visits: usize, work: Vec<usize>| {
            let mut p = policy();
            let bits = work.iter().fold(0u32, |m, &qi| m | 1 << qi);
            for _ in 0..visits {
                p.visit_busy(true, bits);
            }
            (p.next, p.current)
        };
        let low_write = vec![2 * 3 + 1];
        assert_ne!(idle_after_visits(1, low_write.clone()), idle_after_visits(0, low_write.clone()));
        // A GC erase waiting: neither service asks (`:362-365`, `:483-486`).
        assert_eq!(idle_after_visits(3, vec![Q_GC_ERASE, 2 * 3 + 1, 2 * 3]), idle_after_visits(0, vec![]));
    }
}
