//! Host caches (SPEC §3 "Host cache", thesis ch. 2): LRU, ARC, SARC, FussyCache and a
//! QoS-partitioned FussyCache, over 4 KiB blocks.
//!
//! The caches are sans-IO: [`Cache::access`] takes one block access and says what happened
//! ([`Outcome`]) and what the caller must do besides ([`Effects`]: dirty blocks to write back,
//! blocks to fetch in the background). The host model turns that into device I/O and latency
//! (the cost model of [`cost`]); tests drive the same calls against reference models.
//!
//! The caches hold no data: a block's presence and dirtiness are the state. Stale-data tests
//! keep versions beside the cache (tests.rs).

pub mod arc;
pub mod cost;
pub mod fussy;
pub mod lru;
pub mod partitioned;
pub mod sarc;
pub mod slab;

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

pub use cost::CostModel;

/// Cache block size: requests are split into 4 KiB blocks.
pub const BLOCK: u64 = 4096;

/// What one block access did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Served from the cache (a write hit dirties the block).
    Hit,
    /// A miss whose block is now cached: a read is filled from the device; a write is written
    /// through and cached clean, or cached dirty without a device write under
    /// [`WriteMiss::Allocate`]. Costs data management (L_dm).
    Admitted,
    /// A miss recorded in metadata only (FussyCache's DMC): the device serves it and nothing
    /// is cached. Costs metadata management (L_mdm).
    Tracked,
}

/// What happens to a write that misses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WriteMiss {
    /// Written to the device on the request's path; an admitting cache then holds it clean.
    Through,
    /// Write-allocate: cached dirty, written back only on eviction (FussyCache still sends an
    /// unpopular block's write to the device).
    Allocate,
}

/// Side effects of accesses, appended by the caches and drained by the caller.
#[derive(Default, Debug, Clone)]
pub struct Effects {
    /// Blocks that left the cache and whether they were dirty (a dirty block is written back).
    pub evicted: Vec<(u64, bool)>,
    /// Blocks brought in without a demand miss (FussyCache promotions and warm-up fill, SARC
    /// prefetches): each is a background device read.
    pub fetched: Vec<u64>,
}

impl Effects {
    pub fn clear(&mut self) {
        self.evicted.clear();
        self.fetched.clear();
    }
}

/// One replacement policy. `class` is the request's QoS priority (0 = Urgent … 3 = Low);
/// only the partitioned cache uses it.
pub trait Policy {
    fn access(&mut self, block: u64, write: bool, class: u8, fx: &mut Effects) -> Outcome;
    /// Data blocks held.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn capacity(&self) -> usize;
    /// Whether `block`'s data is cached, and if so whether it is dirty.
    fn lookup(&self, block: u64) -> Option<bool>;
    /// Dirty blocks held (written by the application, not yet on the device). O(n): reports only.
    fn dirty(&self) -> usize;
    /// Algorithm-specific statistics for the summary.
    fn extra(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Lru,
    Arc,
    Sarc,
    Fussy,
    FussyQos,
}

impl Algorithm {
    pub const NAMES: [&'static str; 5] = ["lru", "arc", "sarc", "fussy", "fussy-qos"];
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "lru" => Algorithm::Lru,
            "arc" => Algorithm::Arc,
            "sarc" => Algorithm::Sarc,
            "fussy" | "fussycache" => Algorithm::Fussy,
            "fussy-qos" => Algorithm::FussyQos,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Everything needed to build a cache.
#[derive(Clone, Debug)]
pub struct CacheParams {
    pub algorithm: Algorithm,
    /// Capacity in blocks.
    pub blocks: usize,
    pub write_miss: WriteMiss,
    pub fussy: fussy::FussyParams,
    pub sarc: sarc::SarcParams,
    pub partitions: partitioned::PartitionParams,
}

impl CacheParams {
    pub fn new(algorithm: Algorithm, blocks: usize) -> Self {
        CacheParams {
            algorithm,
            blocks,
            write_miss: WriteMiss::Through,
            fussy: fussy::FussyParams::default(),
            sarc: sarc::SarcParams::default(),
            partitions: partitioned::PartitionParams::default(),
        }
    }
}

/// Totals over all accesses, kept by [`Cache`] whatever the policy.
#[derive(Default, Clone, Debug, PartialEq)]
pub struct Counters {
    pub accesses: u64,
    pub hits: u64,
    pub reads: u64,
    pub read_hits: u64,
    pub writes: u64,
    pub write_hits: u64,
    pub admitted: u64,
    pub tracked: u64,
    pub evictions: u64,
    pub writebacks: u64,
    pub fetched: u64,
}

/// A cache: the chosen policy plus the counters every policy shares.
pub struct Cache {
    policy: Box<dyn PolicyObj + Send + Sync>,
    pub counters: Counters,
    pub algorithm: Algorithm,
}

/// Object-safe alias of [`Policy`] (boxed once per cache; a cache access is not an event-loop
/// hot path the way a packet hop is, and one indirect call is a few ns of a ~100 ns access).
trait PolicyObj: Policy {}
impl<T: Policy> PolicyObj for T {}

impl Cache {
    pub fn new(p: &CacheParams) -> Result<Self, String> {
        if p.blocks == 0 {
            return Err("a cache needs at least one block".into());
        }
        let alloc = p.write_miss == WriteMiss::Allocate;
        let policy: Box<dyn PolicyObj + Send + Sync> = match p.algorithm {
            Algorithm::Lru => Box::new(lru::Lru::new(p.blocks, alloc)),
            Algorithm::Arc => Box::new(arc::Arc::new(p.blocks, alloc)),
            Algorithm::Sarc => Box::new(sarc::Sarc::new(p.blocks, alloc, &p.sarc)),
            Algorithm::Fussy => Box::new(fussy::FussyCache::new(p.blocks, &p.fussy)?),
            Algorithm::FussyQos => Box::new(partitioned::Partitioned::new(p.blocks, &p.fussy, &p.partitions)?),
        };
        Ok(Cache { policy, counters: Counters::default(), algorithm: p.algorithm })
    }

    #[inline]
    pub fn access(&mut self, block: u64, write: bool, class: u8, fx: &mut Effects) -> Outcome {
        let (ev, fe) = (fx.evicted.len(), fx.fetched.len());
        let o = self.policy.access(block, write, class, fx);
        let c = &mut self.counters;
        c.accesses += 1;
        if write {
            c.writes += 1;
        } else {
            c.reads += 1;
        }
        match o {
            Outcome::Hit => {
                c.hits += 1;
                if write {
                    c.write_hits += 1;
                } else {
                    c.read_hits += 1;
                }
            }
            Outcome::Admitted => c.admitted += 1,
            Outcome::Tracked => c.tracked += 1,
        }
        c.evictions += (fx.evicted.len() - ev) as u64;
        c.writebacks += fx.evicted[ev..].iter().filter(|e| e.1).count() as u64;
        c.fetched += (fx.fetched.len() - fe) as u64;
        o
    }

    pub fn len(&self) -> usize {
        self.policy.len()
    }
    pub fn is_empty(&self) -> bool {
        self.policy.len() == 0
    }
    pub fn capacity(&self) -> usize {
        self.policy.capacity()
    }
    pub fn lookup(&self, block: u64) -> Option<bool> {
        self.policy.lookup(block)
    }
    pub fn dirty(&self) -> usize {
        self.policy.dirty()
    }
    pub fn extra(&self) -> Vec<(&'static str, f64)> {
        self.policy.extra()
    }
    pub fn hit_rate(&self) -> f64 {
        self.counters.hits as f64 / self.counters.accesses.max(1) as f64
    }
}
