//! A host cache on the request path (SPEC §3, thesis ch. 2): between a host's workloads and
//! its host queues. An application request is split into 4 KiB block accesses; hits are served
//! from memory, the runs of consecutive blocks that must reach the device become `Child`
//! requests through the host queue, and the cache's side effects — dirty blocks written back,
//! popular blocks promoted, sequential blocks prefetched — become `Background` device I/Os that
//! load the device but that no application waits for.
//!
//! The cache's CPU work (the cost model, `nest_cache::cost`) is added between the last child's
//! device completion and the request's completion. It does not contend: one cache thread per
//! host at ~0.1–1 µs per block access saturates only above ~1 M block accesses per second,
//! far beyond the traces replayed here.

use crate::host::Host;
use crate::request::{Kind, ReqId, Request, RequestPool};
use nest_cache::slab::{block_map, BlockMap};
use nest_cache::{Cache, CostModel, Effects, WriteMiss, BLOCK};
use nest_config::resolve::cache::CachePlan;
use nest_config::resolve::Priority;
use nest_core::conservation::Conservation;
use nest_core::DeviceId;
use nest_core::SimTime;
use nest_workload::Op;

pub struct HostCacheRt {
    pub cache: Cache,
    pub costs: CostModel,
    pub(crate) allocate: bool,
    pub(crate) fx: Effects,
    /// Runs [first, end) of blocks the current request sends to the device (scratch).
    pub(crate) runs: Vec<(u64, u64)>,
    pub background: Conservation,
    pub background_reads: u64,
    pub background_writes: u64,
    /// Per class index: (block accesses, block hits).
    pub per_class: Vec<(u64, u64)>,
    pub requests: u64,
    pub full_hits: u64,
    /// Blocks whose background fetch is still at the device → that fetch's request.
    pub(crate) inflight: BlockMap<u32>,
    /// Background fetch → requests that hit its block and wait for its data.
    pub(crate) waiters: BlockMap<Vec<u32>>,
    /// Background fetch → the cache block it brings in.
    pub(crate) fetching: BlockMap<u64>,
    /// Fetches the current request waits for (scratch).
    pub(crate) wait_on: Vec<u32>,
    /// Read hits on a block whose fetch had not completed (they wait for it).
    pub delayed_hits: u64,
}

impl HostCacheRt {
    pub fn new(plan: &CachePlan, classes: usize) -> Result<Self, String> {
        Ok(HostCacheRt {
            cache: Cache::new(&plan.params)?,
            costs: plan.costs,
            allocate: plan.params.write_miss == WriteMiss::Allocate,
            fx: Effects::default(),
            runs: Vec::new(),
            background: Conservation::default(),
            background_reads: 0,
            background_writes: 0,
            per_class: vec![(0, 0); classes],
            requests: 0,
            full_hits: 0,
            inflight: block_map(64),
            waiters: block_map(64),
            fetching: block_map(64),
            wait_on: Vec::new(),
            delayed_hits: 0,
        })
    }
}

/// Queues a cache write-back (`write`) or fetch of one block (at `offset` of `device`) at the
/// host, on behalf of `req`'s class; nobody waits for it unless a request hits the fetched
/// block meanwhile.
#[allow(clippy::too_many_arguments)]
pub(crate) fn spawn_background(
    pool: &mut RequestPool,
    host: &mut Host,
    rt: &mut HostCacheRt,
    req: &Request,
    device: DeviceId,
    offset: u64,
    write: bool,
    prio: Priority,
    now: SimTime,
) -> ReqId {
    let bg = Request {
        kind: Kind::Background,
        parent: None,
        op: if write { Op::Write } else { Op::Read },
        device,
        served: device,
        offset,
        size: BLOCK as u32,
        pending: 0,
        cache_ps: 0,
        hit_blocks: 0,
        dt: true,
        buffered: false,
        ..*req
    };
    let mut bg = bg;
    bg.stamp_all(now);
    let id = pool.alloc(bg);
    rt.background.issue(1);
    if write {
        rt.background_writes += 1;
    } else {
        rt.background_reads += 1;
    }
    // The caller lists the host among the waiting ones (it holds them, this does not).
    let _ = host.enqueue(id, device, prio);
    id
}
