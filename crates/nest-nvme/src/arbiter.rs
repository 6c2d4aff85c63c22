//! NVMe submission-queue arbitration: admin, then urgent (strict priority), then weighted
//! round-robin over High, Medium and Low (NVMe base specification, "Weighted Round Robin with
//! Urgent Priority Class" arbitration; SPEC §5, thesis 4.4.2).
//!
//! Model: every submission queue (SQ) belongs to one level and has a depth limit. Admin SQs are
//! served before everything, urgent SQs before any weighted level; within a level SQs are served
//! round-robin, taking up to `burst` commands from one SQ per turn (the arbitration burst).
//! Across High/Medium/Low the arbiter grants each level `weight` turns per round (default
//! 3:2:1), skipping levels with nothing queued so an idle level never wastes service; when no
//! level with work has credit left, a new round starts. This is sans-IO: `submit` and `next`
//! only, no time — the controller decides when to fetch.
//!
//! Not modelled here: the SQ/CQ doorbells and PCIe fetch latency, completion queues (the
//! controller's job), and SRC's read/write split queues (their own arbiter, later).

use nest_core::wrr::Wrr;
use std::collections::VecDeque;

/// Arbitration levels, highest priority first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Admin = 0,
    Urgent = 1,
    High = 2,
    Medium = 3,
    Low = 4,
}

impl Level {
    const WEIGHTED: [Level; 3] = [Level::High, Level::Medium, Level::Low];

    /// The SQ level of a class: urgent strict, High/Medium/Low weighted (best effort shares
    /// Low); without QoS (`wrr` false) every class on one round-robin level.
    pub fn of_class(class: nest_core::Priority, wrr: bool) -> Level {
        use nest_core::Priority as P;
        match (wrr, class) {
            (false, _) => Level::Medium,
            (true, P::Urgent) => Level::Urgent,
            (true, P::High) => Level::High,
            (true, P::Medium) => Level::Medium,
            (true, P::Low | P::BestEffort) => Level::Low,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SqId(pub u32);

/// The command was refused: its SQ is at its depth limit (the host must hold it).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SqFull(pub SqId);

#[derive(Clone, Debug, PartialEq)]
pub struct ArbiterConfig {
    /// WRR weights of High, Medium, Low (turns per round), each ≥ 1.
    pub weights: [u32; 3],
    /// Arbitration burst: commands taken from one SQ per turn (NVMe allows 1–128 or unlimited).
    pub burst: u32,
}

impl Default for ArbiterConfig {
    fn default() -> Self {
        ArbiterConfig { weights: [3, 2, 1], burst: 1 }
    }
}

struct Sq<C> {
    level: Level,
    depth: usize,
    cmds: VecDeque<C>,
}

pub struct Arbiter<C> {
    cfg: ArbiterConfig,
    sqs: Vec<Sq<C>>,
    /// (order key, SQ id) of each level's SQs, sorted by key: the round-robin order. Keys are
    /// the creation order unless given ([`Arbiter::add_sq_at`]), so SQs created late, as their
    /// first command comes, take the place they would have had.
    members: [Vec<(u64, u32)>; 5],
    /// Per level, the key the next round-robin turn starts from (after the last SQ served). A
    /// key, not a position, so that SQs joining do not move it.
    rr: [u64; 5],
    /// Key of the next SQ created without one.
    next_key: u64,
    /// The SQ currently in its burst and how many commands it may still give.
    in_burst: Option<(u32, u32)>,
    wrr: Wrr,
    queued: [usize; 5],
}

impl<C> Arbiter<C> {
    pub fn new(cfg: ArbiterConfig) -> Result<Self, String> {
        if cfg.weights.contains(&0) || cfg.burst == 0 {
            return Err(format!("WRR weights and burst must be at least 1 (got {:?}, burst {})", cfg.weights, cfg.burst));
        }
        let wrr = Wrr::new(cfg.weights);
        Ok(Arbiter { cfg, sqs: Vec::new(), members: Default::default(), rr: [0; 5], next_key: 0, in_burst: None, wrr, queued: [0; 5] })
    }

    /// Creates a submission queue at `level` holding at most `depth` commands.
    pub fn add_sq(&mut self, level: Level, depth: usize) -> SqId {
        let key = self.next_key;
        self.add_sq_at(level, depth, key)
    }

    /// Creates a submission queue whose place in its level's round robin is `key` (keys order
    /// the SQs; an empty SQ is passed over, so creating one when its first command comes serves
    /// the same order as creating them all up front with these keys).
    pub fn add_sq_at(&mut self, level: Level, depth: usize, key: u64) -> SqId {
        let id = self.sqs.len() as u32;
        self.sqs.push(Sq { level, depth: depth.max(1), cmds: VecDeque::new() });
        let m = &mut self.members[level as usize];
        let at = m.partition_point(|&(k, _)| k < key);
        debug_assert!(m.get(at).is_none_or(|&(k, _)| k != key), "two SQs with key {key}");
        m.insert(at, (key, id));
        self.next_key = self.next_key.max(key + 1);
        SqId(id)
    }

    pub fn submit(&mut self, sq: SqId, cmd: C) -> Result<(), SqFull> {
        let q = &mut self.sqs[sq.0 as usize];
        if q.cmds.len() >= q.depth {
            return Err(SqFull(sq));
        }
        q.cmds.push_back(cmd);
        self.queued[q.level as usize] += 1;
        Ok(())
    }

    /// Commands waiting in all SQs.
    pub fn len(&self) -> usize {
        self.queued.iter().sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn sq_len(&self, sq: SqId) -> usize {
        self.sqs[sq.0 as usize].cmds.len()
    }
    /// Whether `sq` can take one more command.
    #[inline]
    pub fn has_room(&self, sq: SqId) -> bool {
        let q = &self.sqs[sq.0 as usize];
        q.cmds.len() < q.depth
    }
    /// Commands waiting at each level (Admin, Urgent, High, Medium, Low).
    pub fn queued_by_level(&self) -> [usize; 5] {
        self.queued
    }

    fn take(&mut self, sq: u32) -> C {
        let q = &mut self.sqs[sq as usize];
        self.queued[q.level as usize] -= 1;
        q.cmds.pop_front().expect("chosen SQs are non-empty")
    }

    /// Round-robin within a level: the next non-empty SQ after the last one served.
    fn pick_rr(&mut self, level: Level) -> Option<u32> {
        let l = level as usize;
        let m = &self.members[l];
        let n = m.len();
        let start = m.partition_point(|&(k, _)| k < self.rr[l]);
        for j in 0..n {
            let (key, sq) = m[(start + j) % n];
            if !self.sqs[sq as usize].cmds.is_empty() {
                self.rr[l] = key + 1;
                return Some(sq);
            }
        }
        None
    }

    /// The next command to fetch, and the SQ it came from. Not an `Iterator`: each call is a
    /// fetch decision that moves the arbitration state, and the caller stops when the device is full.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<(SqId, C)> {
        // Strict levels first; they interrupt a weighted burst.
        for level in [Level::Admin, Level::Urgent] {
            if self.queued[level as usize] > 0 {
                let sq = self.pick_rr(level).expect("queued > 0");
                return Some((SqId(sq), self.take(sq)));
            }
        }
        // Continue a burst in progress while its SQ has commands.
        if let Some((sq, left)) = self.in_burst {
            if left > 0 && !self.sqs[sq as usize].cmds.is_empty() {
                self.in_burst = Some((sq, left - 1));
                return Some((SqId(sq), self.take(sq)));
            }
            self.in_burst = None;
        }
        let queued = self.queued;
        let i = self.wrr.pick(|i| queued[Level::WEIGHTED[i] as usize] > 0)?;
        let sq = self.pick_rr(Level::WEIGHTED[i]).expect("queued > 0");
        self.in_burst = Some((sq, self.cfg.burst - 1));
        Some((SqId(sq), self.take(sq)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backlogged(cfg: ArbiterConfig, sqs_per_level: usize, n: usize) -> (Arbiter<u32>, Vec<SqId>) {
        let mut a = Arbiter::new(cfg).unwrap();
        let mut ids = Vec::new();
        for level in [Level::High, Level::Medium, Level::Low] {
            for _ in 0..sqs_per_level {
                let sq = a.add_sq(level, 100_000);
                for c in 0..n {
                    a.submit(sq, c as u32).unwrap();
                }
                ids.push(sq);
            }
        }
        (a, ids)
    }

    fn served_by_level(a: &mut Arbiter<u32>, ids: &[SqId], per_level: usize, n: usize) -> [usize; 3] {
        let mut counts = [0; 3];
        for _ in 0..n {
            let (sq, _) = a.next().unwrap();
            let idx = ids.iter().position(|s| *s == sq).unwrap() / per_level;
            counts[idx] += 1;
        }
        counts
    }

    #[test]
    fn backlogged_levels_share_by_weight() {
        for burst in [1, 4] {
            let (mut a, ids) = backlogged(ArbiterConfig { weights: [3, 2, 1], burst }, 2, 10_000);
            let c = served_by_level(&mut a, &ids, 2, 6_000);
            assert_eq!(c, [3_000, 2_000, 1_000], "burst {burst}");
        }
        let (mut a, ids) = backlogged(ArbiterConfig { weights: [8, 4, 1], burst: 1 }, 1, 10_000);
        assert_eq!(served_by_level(&mut a, &ids, 1, 1_300), [800, 400, 100]);
    }

    #[test]
    fn admin_and_urgent_preempt_weighted_levels() {
        let (mut a, _) = backlogged(ArbiterConfig { weights: [3, 2, 1], burst: 8 }, 1, 100);
        a.next().unwrap(); // a High burst starts
        let u = a.add_sq(Level::Urgent, 10);
        let ad = a.add_sq(Level::Admin, 10);
        a.submit(u, 900).unwrap();
        a.submit(ad, 901).unwrap();
        assert_eq!(a.next(), Some((ad, 901)));
        assert_eq!(a.next(), Some((u, 900)));
    }

    #[test]
    fn idle_levels_waste_nothing_and_sqs_in_a_level_alternate() {
        let mut a: Arbiter<u32> = Arbiter::new(ArbiterConfig::default()).unwrap();
        let l1 = a.add_sq(Level::Low, 10);
        let l2 = a.add_sq(Level::Low, 10);
        let _h = a.add_sq(Level::High, 10);
        for c in 0..3 {
            a.submit(l1, c).unwrap();
            a.submit(l2, 10 + c).unwrap();
        }
        let order: Vec<(SqId, u32)> = std::iter::from_fn(|| a.next()).collect();
        assert_eq!(order, vec![(l1, 0), (l2, 10), (l1, 1), (l2, 11), (l1, 2), (l2, 12)]);
    }

    #[test]
    fn depth_limits_are_enforced() {
        let mut a: Arbiter<u32> = Arbiter::new(ArbiterConfig::default()).unwrap();
        let s = a.add_sq(Level::Medium, 2);
        a.submit(s, 1).unwrap();
        a.submit(s, 2).unwrap();
        assert_eq!(a.submit(s, 3), Err(SqFull(s)));
        assert_eq!(a.len(), 2);
        assert!(Arbiter::<u32>::new(ArbiterConfig { weights: [1, 0, 1], burst: 1 }).is_err());
    }

    #[test]
    fn every_command_comes_out_once_in_fifo_order_per_sq() {
        let mut rng = 12345u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut a: Arbiter<u64> = Arbiter::new(ArbiterConfig { weights: [3, 2, 1], burst: 2 }).unwrap();
        let levels = [Level::Admin, Level::Urgent, Level::High, Level::Medium, Level::Low];
        let sqs: Vec<SqId> = (0..10).map(|i| a.add_sq(levels[i % 5], 50)).collect();
        let mut sent = vec![Vec::new(); sqs.len()];
        let mut got = vec![Vec::new(); sqs.len()];
        let mut seq = 0u64;
        for _ in 0..20_000 {
            if next() % 3 != 0 {
                let i = (next() % sqs.len() as u64) as usize;
                if a.submit(sqs[i], seq).is_ok() {
                    sent[i].push(seq);
                }
                seq += 1;
            } else if let Some((sq, c)) = a.next() {
                got[sq.0 as usize].push(c);
            }
        }
        while let Some((sq, c)) = a.next() {
            got[sq.0 as usize].push(c);
        }
        assert_eq!(sent, got);
    }

    /// SQs created as their first command comes, each at the key it would have had, serve the
    /// same commands in the same order as SQs created up front — under WRR with bursts and on
    /// one round-robin level.
    #[test]
    fn sqs_created_late_at_their_key_serve_as_if_created_up_front() {
        for (weights, burst, levels) in [([3, 2, 1], 2, [Level::High, Level::Medium, Level::Low]), ([1, 1, 1], 1, [Level::Low; 3])] {
            let cfg = ArbiterConfig { weights, burst };
            let mut eager = Arbiter::new(cfg.clone()).unwrap();
            let mut lazy = Arbiter::new(cfg).unwrap();
            let n = 12;
            let eager_ids: Vec<SqId> = (0..n).map(|i| eager.add_sq(levels[i % 3], 4)).collect();
            let mut lazy_ids: Vec<Option<SqId>> = vec![None; n];
            let mut rng = nest_core::rng::RngStream::derive(11, "arb", 0, "t");
            for step in 0..5000u32 {
                if rng.below(3) > 0 {
                    let i = rng.below(n as u64) as usize;
                    let id = *lazy_ids[i].get_or_insert_with(|| lazy.add_sq_at(levels[i % 3], 4, i as u64));
                    assert_eq!(eager.submit(eager_ids[i], step).is_ok(), lazy.submit(id, step).is_ok(), "step {step}");
                } else {
                    assert_eq!(eager.next().map(|x| x.1), lazy.next().map(|x| x.1), "step {step}");
                }
            }
            assert!(lazy_ids.iter().any(|x| x.is_some()));
        }
    }
}
