//! Property tests on random access sequences (seeded, many seeds): capacity, no stale data and
//! no lost writes for every algorithm and write policy; LRU and ARC against the reference
//! models; and the mechanisms of SARC, FussyCache and the partitioned cache.

use super::*;
use crate::reference::{RefArc, RefLru};
use nest_core::rng::RngStream;
use std::collections::HashMap;

/// A mixed stream: a hot set, a cold uniform range, sequential runs and occasional scans.
fn stream(seed: u64, n: usize, span: u64) -> Vec<(u64, bool, u8)> {
    let mut r = RngStream::from_seed(seed);
    let mut out = Vec::with_capacity(n);
    let mut seq = 0u64;
    while out.len() < n {
        let kind = r.next_u64() % 10;
        let write = r.next_u64().is_multiple_of(4);
        let class = (r.next_u64() % 5) as u8;
        match kind {
            0..=4 => out.push((r.next_u64() % (span / 8).max(1), write, class)),
            5..=7 => out.push((r.next_u64() % span, write, class)),
            _ => {
                if r.next_u64().is_multiple_of(3) {
                    seq = r.next_u64() % span;
                }
                for _ in 0..(1 + r.next_u64() % 12) {
                    out.push((seq, write, class));
                    seq += 1;
                }
            }
        }
    }
    out.truncate(n);
    out
}

fn all_params(cap: usize) -> Vec<CacheParams> {
    let mut v = Vec::new();
    for a in [Algorithm::Lru, Algorithm::Arc, Algorithm::Sarc, Algorithm::Fussy, Algorithm::FussyQos] {
        for wm in [WriteMiss::Through, WriteMiss::Allocate] {
            let mut p = CacheParams::new(a, cap);
            p.write_miss = wm;
            p.fussy.allocate = wm == WriteMiss::Allocate;
            p.fussy.warmup = 300;
            p.partitions.rebalance_every = 200;
            v.push(p);
        }
    }
    v
}

/// Runs `ops` against `cache` while keeping block versions for the device and the cached
/// copies; panics on a stale read, a lost write, or books that disagree with the cache.
fn check_consistency(p: &CacheParams, ops: &[(u64, bool, u8)]) {
    let mut cache = Cache::new(p).unwrap();
    let mut device: HashMap<u64, u64> = HashMap::new();
    let mut cached: HashMap<u64, u64> = HashMap::new();
    let mut latest: HashMap<u64, u64> = HashMap::new();
    let mut fx = Effects::default();
    let mut version = 0u64;
    let name = p.algorithm.name();
    for (k, &(b, write, class)) in ops.iter().enumerate() {
        let before = cache.lookup(b);
        let o = cache.access(b, write, class, &mut fx);
        assert!(cache.len() <= cache.capacity(), "{name}: {} blocks in a {}-block cache", cache.len(), cache.capacity());
        assert_eq!(o == Outcome::Hit, before.is_some(), "{name} op {k}: a hit must be on a cached block");
        let after = cache.lookup(b);
        // The access's own block first: it was served before any prefetch or promotion.
        if write {
            version += 1;
            latest.insert(b, version);
            let cached_dirty = after == Some(true) || fx.evicted.iter().any(|&(e, d)| e == b && d);
            if !cached_dirty {
                device.insert(b, version); // written through or around
            }
            if o != Outcome::Tracked {
                cached.insert(b, version);
            }
        } else {
            let want = *latest.get(&b).unwrap_or(&0);
            let got = match o {
                Outcome::Hit => *cached.get(&b).expect("hit block tracked"),
                _ => *device.get(&b).unwrap_or(&0),
            };
            assert_eq!(got, want, "{name} op {k}: stale read of block {b} ({o:?})");
            if o != Outcome::Tracked {
                cached.insert(b, got);
            }
        }
        // Then fetches and evictions. Within one access a block both fetched and evicted was
        // evicted first if it is cached now, fetched first otherwise.
        let evict = |e: u64, dirty: bool, cached: &mut HashMap<u64, u64>, device: &mut HashMap<u64, u64>| {
            let v = cached.remove(&e).unwrap_or_else(|| panic!("{name} op {k}: evicted block {e} was not cached"));
            if dirty {
                device.insert(e, v);
            }
        };
        let fetched_then_evicted = |e: u64| fx.fetched.contains(&e) && cache.lookup(e).is_none();
        for &(e, dirty) in &fx.evicted {
            if !fetched_then_evicted(e) {
                evict(e, dirty, &mut cached, &mut device);
            }
        }
        for &f in &fx.fetched {
            cached.insert(f, *device.get(&f).unwrap_or(&0));
        }
        for &(e, dirty) in &fx.evicted {
            if fetched_then_evicted(e) {
                evict(e, dirty, &mut cached, &mut device);
            }
        }
        fx.clear();
        // Books agree with the cache; a clean cached copy equals the device's (no lost write).
        if k % 97 == 0 || k + 1 == ops.len() {
            assert_eq!(cached.len(), cache.len(), "{name} op {k}: tracked copies vs cache length");
            for (&blk, &v) in &cached {
                let dirty = cache.lookup(blk).unwrap_or_else(|| panic!("{name} op {k}: block {blk} should be cached"));
                if !dirty {
                    assert_eq!(v, *device.get(&blk).unwrap_or(&0), "{name} op {k}: clean block {blk} differs from the device");
                }
            }
        }
    }
}

#[test]
fn every_algorithm_respects_capacity_and_never_serves_stale_data() {
    for seed in 0..6 {
        for cap in [8usize, 37, 256] {
            let ops = stream(seed, 4000, 1500);
            for p in all_params(cap) {
                check_consistency(&p, &ops);
            }
        }
    }
}

#[test]
fn lru_matches_the_reference_model() {
    for seed in 0..20 {
        let cap = 1 + (seed as usize * 7) % 60;
        let mut fast = lru::Lru::new(cap, false);
        let mut slow = RefLru::new(cap);
        let mut fx = Effects::default();
        for (k, (b, w, _)) in stream(100 + seed, 3000, 400).into_iter().enumerate() {
            let o = fast.access(b, w, 0, &mut fx);
            let (hit, ev) = slow.access(b);
            assert_eq!(o == Outcome::Hit, hit, "seed {seed} op {k}");
            assert_eq!(fx.evicted.first().map(|e| e.0), ev, "seed {seed} op {k}");
            fx.clear();
        }
        assert_eq!(fast.blocks(), slow.contents());
    }
}

#[test]
fn arc_matches_the_reference_model() {
    for seed in 0..20 {
        let cap = 1 + (seed as usize * 11) % 80;
        let mut fast = arc::Arc::new(cap, false);
        let mut slow = RefArc::new(cap);
        let mut fx = Effects::default();
        for (k, (b, w, _)) in stream(200 + seed, 3000, 500).into_iter().enumerate() {
            let o = fast.access(b, w, 0, &mut fx);
            let (hit, ev) = slow.access(b);
            assert_eq!(o == Outcome::Hit, hit, "seed {seed} op {k}");
            assert_eq!(fx.evicted.first().map(|e| e.0), ev, "seed {seed} op {k}");
            assert!(fx.evicted.len() <= 1);
            fx.clear();
            if k % 50 == 0 {
                assert_eq!(fast.cached(), slow.cached(), "seed {seed} op {k}");
            }
        }
    }
}

#[test]
fn arc_resists_a_scan_that_flushes_lru() {
    // A hot set accessed twice, then a long one-time scan, then the hot set again.
    let hot: Vec<u64> = (0..50).collect();
    let mut seq: Vec<u64> = hot.iter().chain(hot.iter()).copied().collect();
    seq.extend(1000..1400);
    seq.extend(hot.iter());
    let hits = |a: Algorithm| {
        let mut c = Cache::new(&CacheParams::new(a, 100)).unwrap();
        let mut fx = Effects::default();
        let tail = seq.len() - 50;
        seq.iter().enumerate().filter(|&(k, &b)| c.access(b, false, 2, &mut fx) == Outcome::Hit && k >= tail).count()
    };
    assert_eq!(hits(Algorithm::Lru), 0, "LRU: the scan flushed the hot set");
    assert!(hits(Algorithm::Arc) >= 45, "ARC keeps the twice-seen hot set in T2: {}", hits(Algorithm::Arc));
}

#[test]
fn sarc_prefetches_sequential_reads_and_hits_them() {
    let mut c = Cache::new(&CacheParams::new(Algorithm::Sarc, 256)).unwrap();
    let mut fx = Effects::default();
    let outcomes: Vec<Outcome> = (5000..5200u64).map(|b| c.access(b, false, 2, &mut fx)).collect();
    let hits = outcomes.iter().filter(|&&o| o == Outcome::Hit).count();
    assert!(hits >= 190, "a sequential stream is prefetched ahead of its reads: {hits} hits of 200");
    assert!(c.counters.fetched >= 190, "prefetches are background fetches: {}", c.counters.fetched);
    // A random stream prefetches nothing.
    let mut r = Cache::new(&CacheParams::new(Algorithm::Sarc, 256)).unwrap();
    let mut g = RngStream::from_seed(3);
    for _ in 0..500 {
        r.access(g.next_u64() % 1_000_000 * 3, false, 2, &mut fx);
    }
    assert_eq!(r.counters.fetched, 0);
}

fn fussy(cap: usize, ft: u32, at: u32) -> CacheParams {
    let mut p = CacheParams::new(Algorithm::Fussy, cap);
    p.fussy.freq_threshold = Some(ft);
    p.fussy.access_threshold = Some(at);
    p.fussy.warmup = 0;
    p.fussy.dmc_size = Some(4 * cap);
    p
}

#[test]
fn fussy_admits_only_popular_blocks_at_checks() {
    let mut c = Cache::new(&fussy(64, 2, 10)).unwrap();
    let mut fx = Effects::default();
    // Block 7 is accessed 3 times (> freq_threshold 2) before the first check; others once.
    let ops = [7, 100, 7, 101, 7, 102, 103, 104, 105];
    for b in ops {
        assert_ne!(c.access(b, false, 2, &mut fx), Outcome::Hit);
        assert_eq!(c.lookup(7), None, "nothing moves before a check");
    }
    c.access(106, false, 2, &mut fx); // the 10th access: a check
    assert_eq!(c.lookup(7), Some(false), "popular block promoted at the check");
    assert_eq!(fx.fetched, vec![7], "promotion fetches the block's data in the background");
    assert_eq!(c.len(), 1, "unpopular blocks stay in the DMC only");
    assert_eq!(c.access(7, false, 2, &mut fx), Outcome::Hit);
    assert_eq!(c.counters.tracked, 10, "every miss was recorded in metadata only");
}

#[test]
fn fussy_switches_to_lru_after_hr_count_declines_and_back_with_doubling() {
    let mut p = fussy(32, 1, 20);
    p.fussy.hr_count = 2;
    let mut c = Cache::new(&p).unwrap();
    let mut fx = Effects::default();
    // From round 10 on, each round has two fewer hot accesses: a hit rate falling check by check.
    let mut b = 0u64;
    let mut switched_at = None;
    for round in 0..200u64 {
        let hot = if round < 10 { 20 } else { 20u64.saturating_sub((round - 9) * 2) };
        for k in 0..20u64 {
            let blk = if k < hot { k % 8 } else { 1000 + b };
            b += 1;
            c.access(blk, false, 2, &mut fx);
        }
        if switched_at.is_none() && c.extra().iter().any(|&(k, v)| k == "lru_mode" && v == 1.0) {
            switched_at = Some(round);
        }
    }
    let extra: HashMap<_, _> = c.extra().into_iter().collect();
    let at = switched_at.expect("declining hit rate switches FussyCache to LRU");
    assert!(at >= 11, "needs hr_count consecutive declines first (switched in round {at})");
    assert!(extra["mode_switches"] >= 2.0, "it also switches back: {extra:?}");
    assert!(extra["hr_count"] >= 8.0, "hr_count doubles on each switch: {extra:?}");
}

#[test]
fn fussy_in_lru_mode_admits_every_miss() {
    let mut p = fussy(16, 1, 1_000_000);
    p.fussy.lru_fallback = true;
    let mut c = fussy::FussyCache::new(16, &p.fussy).unwrap();
    c.core.mode = fussy::core::Mode::Lru;
    let mut fx = Effects::default();
    assert_eq!(c.access(5, false, 2, &mut fx), Outcome::Admitted);
    assert_eq!(c.lookup(5), Some(false));
}

#[test]
fn fussy_warmup_tunes_within_range_and_sizes_the_dmc() {
    let mut p = CacheParams::new(Algorithm::Fussy, 200);
    p.fussy.warmup = 2000;
    let mut c = fussy::FussyCache::new(200, &p.fussy).unwrap();
    let mut fx = Effects::default();
    for (b, w, _) in stream(9, 2000, 3000) {
        c.access(b, w, 2, &mut fx);
    }
    let t = c.tuned.clone().expect("warm-up ended after 2000 accesses");
    assert!((1..=16).contains(&t.freq_threshold), "{t:?}");
    assert!([64, 128, 256, 512, 1024, 2048].contains(&t.access_threshold), "{t:?}");
    assert!(t.replays > 4, "the searches replayed the window: {t:?}");
    let e: HashMap<_, _> = c.extra().into_iter().collect();
    assert!(e["dmc_size"] >= 50.0 && e["dmc_size"] <= 800.0, "DMC sized from its warm-up occupancy, clamped: {e:?}");
    assert!(c.len() > 0, "the DC starts pre-populated");
}

#[test]
fn fussy_keeps_one_time_blocks_out_where_lru_lets_them_flush_the_hot_set() {
    // A hot set of 40 blocks re-read between one-time blocks: LRU (cache 48) is flushed by the
    // cold blocks; FussyCache only ever admits the hot set.
    let mut r = RngStream::from_seed(5);
    let mut ops = Vec::new();
    let mut cold = 10_000u64;
    for _ in 0..20_000 {
        if r.next_u64().is_multiple_of(2) {
            ops.push(r.next_u64() % 40);
        } else {
            ops.push(cold);
            cold += 1;
        }
    }
    let hit_rate = |p: &CacheParams| {
        let mut c = Cache::new(p).unwrap();
        let mut fx = Effects::default();
        for &b in &ops {
            c.access(b, false, 2, &mut fx);
            fx.clear();
        }
        c.hit_rate()
    };
    let lru = hit_rate(&CacheParams::new(Algorithm::Lru, 48));
    let fc = hit_rate(&fussy(48, 2, 256));
    assert!(fc > lru + 0.1, "FussyCache {fc:.3} vs LRU {lru:.3}");
}

#[test]
fn partitioned_cache_protects_a_high_class_from_a_low_scan() {
    // High re-reads a 300-block working set; Low scans once-only blocks, 3 accesses to High's 1.
    let mut r = RngStream::from_seed(8);
    let mut ops = Vec::new();
    let mut scan = 1_000_000u64;
    for _ in 0..40_000 {
        if r.next_u64().is_multiple_of(4) {
            ops.push((r.next_u64() % 300, 1u8));
        } else {
            ops.push((scan, 3u8));
            scan += 1;
        }
    }
    let high_hits = |p: &CacheParams| {
        let mut c = Cache::new(p).unwrap();
        let mut fx = Effects::default();
        let mut h = 0;
        for (k, &(b, class)) in ops.iter().enumerate() {
            let o = c.access(b, false, class, &mut fx);
            assert!(c.len() <= c.capacity());
            fx.clear();
            if class == 1 && o == Outcome::Hit && k > ops.len() / 2 {
                h += 1;
            }
        }
        h
    };
    let shared = high_hits(&CacheParams::new(Algorithm::Lru, 400));
    let mut p = CacheParams::new(Algorithm::FussyQos, 400);
    p.fussy.warmup = 500;
    let parted = high_hits(&p);
    assert!(parted > 2 * shared.max(1), "partitioned FussyCache keeps High's set: {parted} vs shared LRU {shared}");
}

#[test]
fn partitions_always_sum_to_the_capacity() {
    let mut p = CacheParams::new(Algorithm::FussyQos, 500);
    p.partitions.rebalance_every = 100;
    let mut c = partitioned::Partitioned::new(500, &p.fussy, &p.partitions).unwrap();
    let mut fx = Effects::default();
    for (b, w, class) in stream(4, 20_000, 5000) {
        c.access(b, w, class, &mut fx);
        assert_eq!(c.sizes().iter().sum::<usize>(), 500);
        assert!(c.len() <= 500);
    }
    assert!(c.moves > 0, "boundaries moved");
}

#[test]
fn bad_parameters_are_errors_not_panics() {
    assert!(Cache::new(&CacheParams::new(Algorithm::Lru, 0)).is_err());
    let mut p = CacheParams::new(Algorithm::Fussy, 10);
    p.fussy.hr_count = 0;
    assert!(Cache::new(&p).is_err());
    let mut p = CacheParams::new(Algorithm::FussyQos, 100);
    p.partitions.urgent_share = 1.5;
    assert!(Cache::new(&p).is_err());
    assert!(Cache::new(&CacheParams::new(Algorithm::FussyQos, 4)).is_err());
}

#[test]
fn cost_model_charges_by_outcome() {
    let m = CostModel { lookup_ns: 10.0, dm_ns: 50.0, mdm_ns: 20.0, copy_ns: 300.0 };
    assert_eq!(m.block_ps(Outcome::Hit), 310_000);
    assert_eq!(m.block_ps(Outcome::Admitted), 360_000);
    assert_eq!(m.block_ps(Outcome::Tracked), 30_000);
}
