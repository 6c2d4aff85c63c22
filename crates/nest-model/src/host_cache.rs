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

use crate::events::Event;
use crate::split::map_target;
use crate::host::Host;
use crate::request::{Kind, ReqId, Request, RequestPool, NO_PARENT};
use crate::sim::Simulation;
use nest_cache::slab::{block_map, BlockMap};
use nest_cache::{Cache, CostModel, Effects, Outcome, WriteMiss, BLOCK};
use nest_config::resolve::cache::CachePlan;
use nest_core::conservation::Conservation;
use nest_config::resolve::Priority;
use nest_core::queue::PendingEvents;
use nest_core::SimTime;
use nest_workload::Op;

pub struct HostCacheRt {
    pub cache: Cache,
    pub costs: CostModel,
    allocate: bool,
    fx: Effects,
    /// Runs [first, end) of blocks the current request sends to the device (scratch).
    runs: Vec<(u64, u64)>,
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
    wait_on: Vec<u32>,
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

impl Simulation {
    /// Request `r` (already in the pool, `Kind::Split`) meets its host's cache, block by
    /// block. A read hit on a block whose background fetch is still at the device waits for it
    /// (a prefetch or promotion is not data in hand yet).
    pub(crate) fn issue_cached(&mut self, r: ReqId) {
        let now = self.now;
        let req = *self.pool.get(r);
        let h = req.host as usize;
        let prio = self.workloads[req.workload as usize].prio;
        let rt = self.caches[h].as_mut().expect("a cached request's host has a cache");
        let write = req.op == Op::Write;
        let (first, last) = (req.offset / BLOCK, (req.offset + req.size.max(1) as u64 - 1) / BLOCK);
        let (mut cpu, mut hits) = (0u64, 0u32);
        rt.runs.clear();
        rt.wait_on.clear();
        let vol = self.workloads[req.workload as usize].volume;
        let mut targets = std::mem::take(&mut self.map_scratch);
        for b in first..=last {
            let o = rt.cache.access(b, write, prio as u8, &mut rt.fx);
            cpu += rt.costs.block_ps(o);
            let to_device = match o {
                Outcome::Hit => {
                    hits += 1;
                    // Only reads wait, and only while fetches are out (no hashing otherwise).
                    if !write && !rt.inflight.is_empty() {
                        if let Some(&fetch) = rt.inflight.get(&b) {
                            if !rt.wait_on.contains(&fetch) {
                                rt.wait_on.push(fetch);
                                rt.delayed_hits += 1;
                            }
                        }
                    }
                    false
                }
                Outcome::Tracked => true,
                Outcome::Admitted => !(write && rt.allocate),
            };
            if to_device {
                match rt.runs.last_mut() {
                    Some(run) if run.1 == b => run.1 = b + 1,
                    _ => rt.runs.push((b, b + 1)),
                }
            }
            // The access's side effects become device I/O now, so a later block of this same
            // request can find its prefetch in flight.
            for i in 0..rt.fx.evicted.len() {
                let (block, dirty) = rt.fx.evicted[i];
                rt.inflight.remove(&block);
                if dirty {
                    map_target(&mut self.volumes, vol, req.device, true, block * BLOCK, BLOCK, &mut targets);
                    for &(d, off, _) in &targets {
                        spawn_background(&mut self.pool, &mut self.hosts[h], rt, &req, d as u32, off, true, prio, now);
                    }
                    targets.clear();
                }
            }
            for i in 0..rt.fx.fetched.len() {
                let block = rt.fx.fetched[i];
                map_target(&mut self.volumes, vol, req.device, false, block * BLOCK, BLOCK, &mut targets);
                for &(d, off, _) in &targets {
                    let id = spawn_background(&mut self.pool, &mut self.hosts[h], rt, &req, d as u32, off, false, prio, now);
                    rt.inflight.insert(block, id.0);
                    rt.fetching.insert(id.0 as u64, block);
                }
                targets.clear();
            }
            rt.fx.clear();
        }
        let blocks = last - first + 1;
        let pc = &mut rt.per_class[req.class as usize];
        pc.0 += blocks;
        pc.1 += hits as u64;
        rt.requests += 1;
        if hits as u64 == blocks {
            rt.full_hits += 1;
        }
        self.map_scratch = targets;
        let end = req.offset + req.size as u64;
        let mut extents = std::mem::take(&mut rt.runs);
        for e in extents.iter_mut() {
            let offset = (e.0 * BLOCK).max(req.offset);
            *e = (offset, (e.1 * BLOCK).min(end) - offset);
        }
        let mut pending = 0u32;
        for &fetch in &rt.wait_on {
            rt.waiters.entry(fetch as u64).or_default().push(r.0);
            pending += 1;
        }
        pending += self.spawn_parts(r, &extents);
        extents.clear();
        self.caches[h].as_mut().expect("cache").runs = extents;
        let p = self.pool.get_mut(r);
        p.pending = pending;
        p.cache_ps = cpu;
        p.hit_blocks = hits;
        if pending == 0 {
            self.queue.schedule(now + nest_core::SimTime(cpu), Event::PartsDone(r));
        }
        self.try_dispatch(req.host);
    }
}

/// Queues a cache write-back (`write`) or fetch of one block (at `offset` of `device`) at the
/// host, on behalf of `req`'s class; nobody waits for it unless a request hits the fetched
/// block meanwhile.
#[allow(clippy::too_many_arguments)]
fn spawn_background(pool: &mut RequestPool, host: &mut Host, rt: &mut HostCacheRt, req: &Request, device: u32, offset: u64, write: bool, prio: Priority, now: SimTime) -> ReqId {
    let bg = Request {
        kind: Kind::Background,
        parent: NO_PARENT,
        op: if write { Op::Write } else { Op::Read },
        device,
        offset,
        size: BLOCK as u32,
        pending: 0,
        cache_ps: 0,
        hit_blocks: 0,
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
    host.enqueue(id, device, prio);
    id
}
