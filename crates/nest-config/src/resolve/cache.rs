//! Resolution of a host's `cache = { … }`: algorithm, capacity, write policy, FussyCache and
//! SARC parameters, and cost overrides, each checked at its key.

use super::Ctx;
pub use crate::plan::cache::CachePlan;
use crate::schema::HostCacheConfig;
use nest_cache::{Algorithm, CacheParams, CostModel, WriteMiss, BLOCK};

pub(super) fn resolve_cache(cx: &mut Ctx, key: &str, c: &HostCacheConfig) -> Option<CachePlan> {
    let Some(algorithm) = Algorithm::parse(&c.algorithm) else {
        cx.err(&format!("{key}.algorithm"), format!("unknown cache algorithm '{}'; expected one of {}", c.algorithm, Algorithm::NAMES.join(", ")));
        return None;
    };
    let blocks = match (&c.size, c.blocks) {
        (Some(s), None) => cx.size(&format!("{key}.size"), s).map(|b| b / BLOCK),
        (None, Some(b)) => Some(b),
        _ => {
            cx.err(key, "give the cache's capacity as exactly one of size (bytes, e.g. \"64MiB\") or blocks (4 KiB each)");
            None
        }
    }?;
    if blocks == 0 || blocks > (1 << 32) {
        cx.err(key, format!("capacity of {blocks} blocks: must be between 1 block (4 KiB) and 2^32 blocks"));
        return None;
    }
    let mut p = CacheParams::new(algorithm, blocks as usize);
    match c.write_miss.as_deref() {
        None | Some("through") => {}
        Some("allocate") => p.write_miss = WriteMiss::Allocate,
        Some(o) => cx.err(&format!("{key}.write_miss"), format!("'{o}': expected through or allocate")),
    }
    p.fussy.allocate = p.write_miss == WriteMiss::Allocate;
    let positive = |cx: &mut Ctx, name: &str, v: Option<u32>| {
        if v == Some(0) {
            cx.err(&format!("{key}.{name}"), "must be at least 1");
        }
    };
    positive(cx, "freq_threshold", c.freq_threshold);
    positive(cx, "access_threshold", c.access_threshold);
    positive(cx, "hr_count", c.hr_count);
    positive(cx, "prefetch_degree", c.prefetch_degree);
    positive(cx, "rebalance_every", c.rebalance_every);
    p.fussy.freq_threshold = c.freq_threshold;
    p.fussy.access_threshold = c.access_threshold;
    if let Some(h) = c.hr_count {
        p.fussy.hr_count = h.max(1);
    }
    if let Some(w) = c.warmup {
        p.fussy.warmup = w;
    }
    if let Some(d) = c.dmc_size {
        if d == 0 {
            cx.err(&format!("{key}.dmc_size"), "must be at least 1");
        }
        p.fussy.dmc_size = Some(d.max(1) as usize);
    }
    if let Some(f) = c.lru_fallback {
        p.fussy.lru_fallback = f;
    }
    if let Some(d) = c.prefetch_degree {
        p.sarc.prefetch_degree = d.max(1);
    }
    if let Some(u) = c.urgent_share {
        if !(0.0..0.85).contains(&u) {
            cx.err(&format!("{key}.urgent_share"), format!("{u}: must be in [0, 0.85)"));
        }
        p.partitions.urgent_share = u;
    }
    if let Some(r) = c.rebalance_every {
        p.partitions.rebalance_every = r.max(1);
    }
    let mut costs = CostModel::default_for(algorithm);
    if let Some(k) = &c.costs {
        for (name, v, slot) in [
            ("lookup", &k.lookup, &mut costs.lookup_ns),
            ("dm", &k.dm, &mut costs.dm_ns),
            ("mdm", &k.mdm, &mut costs.mdm_ns),
            ("copy", &k.copy, &mut costs.copy_ns),
        ] {
            if let Some(s) = v {
                if let Some(t) = cx.dur(&format!("{key}.costs.{name}"), s) {
                    *slot = t.0 as f64 / 1000.0;
                }
            }
        }
    }
    // Parameter combinations the cache itself rejects (e.g. a partitioned cache under 8 blocks).
    if let Err(e) = nest_cache::Cache::new(&p) {
        cx.err(key, e);
        return None;
    }
    Some(CachePlan { params: p, costs })
}
