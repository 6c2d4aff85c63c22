//! The thesis' cost model (eqs. 2.1/2.2): a block access costs `lookup`; a miss admitted into
//! the cache also costs data management `dm` (insertion, list moves, eviction); a miss recorded
//! in metadata only costs `mdm` (FussyCache's DMC update). Moving a block's 4 KiB between the
//! cache and the application costs `copy` — on a hit (cache → application) and on an admitted
//! miss (device buffer → cache); a metadata-only miss is delivered straight to the
//! application's buffer and copies nothing.
//!
//!   classic:    L = L_lookup + (1 − h)(L_device + L_dm)
//!   FussyCache: L = L_lookup + (1 − h)[L_device + (1 − f)·L_dm + f·L_mdm]
//!
//! The defaults were measured from these implementations by [`measure`] (`make bench` prints
//! fresh measurements beside them; BENCHMARKS.md records the machine). A scenario can override
//! each value.

use crate::{Algorithm, Cache, CacheParams, Effects, Outcome};
use nest_core::rng::RngStream;

/// Per-operation costs in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    pub lookup_ns: f64,
    pub dm_ns: f64,
    pub mdm_ns: f64,
    pub copy_ns: f64,
}

impl CostModel {
    /// Measured on the project's reference machine (BENCHMARKS.md, "Host cache").
    pub fn default_for(a: Algorithm) -> Self {
        let (lookup_ns, dm_ns, mdm_ns) = match a {
            Algorithm::Lru => (LRU.0, LRU.1, 0.0),
            Algorithm::Arc => (ARC.0, ARC.1, 0.0),
            Algorithm::Sarc => (SARC.0, SARC.1, 0.0),
            Algorithm::Fussy | Algorithm::FussyQos => (FUSSY.0, FUSSY.1, FUSSY.2),
        };
        CostModel { lookup_ns, dm_ns, mdm_ns, copy_ns: COPY_4K_NS }
    }

    /// CPU time of one block access with outcome `o`, in picoseconds.
    #[inline]
    pub fn block_ps(&self, o: Outcome) -> u64 {
        let ns = self.lookup_ns
            + match o {
                Outcome::Hit => self.copy_ns,
                Outcome::Admitted => self.dm_ns + self.copy_ns,
                Outcome::Tracked => self.mdm_ns,
            };
        (ns * 1000.0).round() as u64
    }
}

// (lookup, dm, mdm) in ns — see BENCHMARKS.md for the run that produced them.
// Measured 2026-11-22 on the 2-core AMD EPYC VM of BENCHMARKS.md (`nest-bench cache`, 1 M
// timed accesses each). The copy is of a cold 4 KiB block (a cache of GiBs is not in the CPU's
// caches); warm copies are ~10× cheaper.
const LRU: (f64, f64) = (18.0, 19.0);
const ARC: (f64, f64) = (24.0, 22.0);
const SARC: (f64, f64) = (54.0, 24.0);
const FUSSY: (f64, f64, f64) = (29.0, 67.0, 46.0);
const COPY_4K_NS: f64 = 1090.0;

/// Measures `lookup`, `dm` and `mdm` of algorithm `a` by timing each access of a skewed random
/// block stream (16 Ki-block cache, 64 Ki distinct blocks), grouped by outcome, minus the
/// timer's own cost; and `copy` as the time to copy 4 KiB between random places of a 64 MiB
/// arena (cold-ish caches, as a block buffer pool would be).
pub fn measure(a: Algorithm, accesses: usize) -> CostModel {
    use std::time::Instant;
    let mut p = CacheParams::new(a, 16 * 1024);
    p.fussy.warmup = 2000;
    let mut cache = Cache::new(&p).expect("valid parameters");
    let mut rng = RngStream::from_seed(7);
    let mut fx = Effects::default();
    // The timer's own cost.
    let mut overhead = f64::MAX;
    for _ in 0..1000 {
        let t = Instant::now();
        let d = t.elapsed().as_nanos() as f64;
        overhead = overhead.min(d);
    }
    let mut sum = [0.0f64; 3];
    let mut n = [0u64; 3];
    for k in 0..accesses {
        // 80 % of accesses on 20 % of the blocks.
        let hot = rng.next_u64() % 10 < 8;
        let b = if hot { rng.next_u64() % (13 * 1024) } else { 13 * 1024 + rng.next_u64() % (51 * 1024) };
        let write = rng.next_u64() % 10 < 3;
        let t = Instant::now();
        let o = cache.access(b, write, 2, &mut fx);
        let d = (t.elapsed().as_nanos() as f64 - overhead).max(0.0);
        fx.clear();
        if k < accesses / 10 {
            continue; // warm-up
        }
        let i = o as usize;
        sum[i] += d;
        n[i] += 1;
    }
    let mean = |i: usize| if n[i] > 0 { sum[i] / n[i] as f64 } else { 0.0 };
    let lookup = mean(Outcome::Hit as usize);
    let arena = vec![1u8; 64 << 20];
    let mut dst = vec![0u8; 64 << 20];
    let blocks = (64 << 20) / 4096;
    let reps = 20_000;
    let t = Instant::now();
    for _ in 0..reps {
        let (s, d) = ((rng.next_u64() % blocks) as usize * 4096, (rng.next_u64() % blocks) as usize * 4096);
        dst[d..d + 4096].copy_from_slice(&arena[s..s + 4096]);
    }
    let copy = t.elapsed().as_nanos() as f64 / reps as f64;
    std::hint::black_box(&dst);
    CostModel {
        lookup_ns: lookup,
        dm_ns: (mean(Outcome::Admitted as usize) - lookup).max(0.0),
        mdm_ns: if n[Outcome::Tracked as usize] > 0 { (mean(Outcome::Tracked as usize) - lookup).max(0.0) } else { 0.0 },
        copy_ns: copy,
    }
}
