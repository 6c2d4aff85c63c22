//! FussyCache v2 (thesis 2.9, proposed there and never built): cache space partitioned per QoS
//! class. Urgent keeps a fixed reserved share; High, Medium and Low each run a FussyCache in
//! their own partition, and every `rebalance_every` accesses the boundaries between them move by
//! `step` of the cache towards the class whose DMC shows the highest weighted marginal utility.
//!
//! A partition's marginal utility is the rate of its misses on blocks its DMC still remembers
//! (re-references a larger partition would have held), per block of partition, times the
//! class's weight (High 3 : Medium 2 : Low 1 by default, the NVMe WRR weights). A class never
//! drops below `min_share`. Design and rationale: docs/fussycache.md.

use crate::fussy::{FussyCache, FussyParams};
use crate::{Effects, Outcome, Policy};

#[derive(Clone, Debug)]
pub struct PartitionParams {
    /// Share reserved for Urgent (memory-like traffic), never lent.
    pub urgent_share: f64,
    /// Weights of High, Medium, Low.
    pub weights: [f64; 3],
    /// Floor of each High/Medium/Low partition, as a share of the cache.
    pub min_share: f64,
    /// Share of the cache moved per rebalance.
    pub step: f64,
    pub rebalance_every: u32,
}

impl Default for PartitionParams {
    fn default() -> Self {
        PartitionParams { urgent_share: 0.05, weights: [3.0, 2.0, 1.0], min_share: 0.05, step: 0.02, rebalance_every: 2048 }
    }
}

pub struct Partitioned {
    parts: Vec<FussyCache>,
    cap: usize,
    p: PartitionParams,
    accesses: u32,
    /// Per partition: misses on blocks the DMC remembered, since the last rebalance.
    ghost_hits: [u64; 4],
    pub moves: u64,
}

/// Request priority (0 Urgent … 3 Low, 4 best effort) → partition.
#[inline]
fn part_of(class: u8) -> usize {
    (class as usize).min(3)
}

impl Partitioned {
    pub fn new(cap: usize, fp: &FussyParams, p: &PartitionParams) -> Result<Self, String> {
        if !(0.0..1.0).contains(&p.urgent_share) || p.min_share * 3.0 + p.urgent_share > 1.0 || p.step <= 0.0 {
            return Err("fussy-qos: urgent_share in [0, 1), 3·min_share + urgent_share ≤ 1 and step > 0 are required".into());
        }
        if cap < 8 {
            return Err("fussy-qos needs at least 8 blocks".into());
        }
        let urgent = ((cap as f64 * p.urgent_share).round() as usize).max(1);
        let rest = cap - urgent;
        let total_w: f64 = p.weights.iter().sum();
        let mut sizes = [urgent, 0, 0, 0];
        for k in 0..3 {
            sizes[k + 1] = ((rest as f64 * p.weights[k] / total_w) as usize).max(1);
        }
        sizes[1] += rest - sizes[1..].iter().sum::<usize>();
        let parts = sizes.iter().map(|&s| FussyCache::new(s, fp)).collect::<Result<Vec<_>, _>>()?;
        Ok(Partitioned { parts, cap, p: p.clone(), accesses: 0, ghost_hits: [0; 4], moves: 0 })
    }

    pub fn sizes(&self) -> [usize; 4] {
        [0, 1, 2, 3].map(|k| self.parts[k].capacity())
    }

    fn rebalance(&mut self, fx: &mut Effects) {
        let step = ((self.cap as f64 * self.p.step) as usize).max(1);
        let floor = ((self.cap as f64 * self.p.min_share) as usize).max(1);
        let utility = |k: usize, parts: &[FussyCache], g: &[u64; 4], w: &[f64; 3]| w[k - 1] * g[k] as f64 / parts[k].capacity().max(1) as f64;
        let (mut best, mut worst) = (1, 1);
        for k in 1..4 {
            let u = utility(k, &self.parts, &self.ghost_hits, &self.p.weights);
            if u > utility(best, &self.parts, &self.ghost_hits, &self.p.weights) {
                best = k;
            }
            if u < utility(worst, &self.parts, &self.ghost_hits, &self.p.weights) {
                worst = k;
            }
        }
        self.ghost_hits = [0; 4];
        if best == worst || self.parts[worst].capacity() < floor + step {
            return;
        }
        let (w, b) = (self.parts[worst].capacity() - step, self.parts[best].capacity() + step);
        self.parts[worst].set_capacity(w, fx);
        self.parts[best].set_capacity(b, fx);
        self.moves += 1;
    }
}

impl Policy for Partitioned {
    fn access(&mut self, block: u64, write: bool, class: u8, fx: &mut Effects) -> Outcome {
        let k = part_of(class);
        // A block lives in one partition: the one that holds its data or its DMC entry, else the
        // accessing class's. A block another class holds is served from there (no duplicate
        // copies, and no two partitions promoting the same block).
        let held = |j: usize| self.parts[j].lookup(block).is_some() || self.parts[j].core_dmc_has(block);
        let owner = if held(k) { k } else { (0..4).find(|&j| j != k && held(j)).unwrap_or(k) };
        let remembered = self.parts[owner].core_dmc_has(block);
        let o = self.parts[owner].access(block, write, class, fx);
        if o != Outcome::Hit && remembered {
            self.ghost_hits[owner] += 1;
        }
        self.accesses += 1;
        if self.accesses >= self.p.rebalance_every {
            self.accesses = 0;
            self.rebalance(fx);
        }
        o
    }
    fn len(&self) -> usize {
        self.parts.iter().map(|p| p.len()).sum()
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn lookup(&self, block: u64) -> Option<bool> {
        self.parts.iter().find_map(|p| p.lookup(block))
    }
    fn dirty(&self) -> usize {
        self.parts.iter().map(|p| p.dirty()).sum()
    }
    fn extra(&self) -> Vec<(&'static str, f64)> {
        let s = self.sizes();
        vec![
            ("urgent_blocks", s[0] as f64),
            ("high_blocks", s[1] as f64),
            ("medium_blocks", s[2] as f64),
            ("low_blocks", s[3] as f64),
            ("rebalances", self.moves as f64),
        ]
    }
}
