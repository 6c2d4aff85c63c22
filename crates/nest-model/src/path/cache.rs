//! Host caches on the request path: a request meets its host's cache block by block; the
//! misses become device parts, the cache's side effects background I/O (state in
//! `crate::host_cache`).

use crate::events::Event;
use crate::host::volume::map_target;
use crate::host_cache::spawn_background;
use crate::request::ReqId;
use crate::sim::Simulation;
use nest_cache::{Outcome, BLOCK};
use nest_core::queue::PendingEvents;
use nest_core::DeviceId;
use nest_workload::Op;

impl Simulation {
    /// Request `r` (already in the pool, `Kind::Split`) meets its host's cache, block by
    /// block. A read hit on a block whose background fetch is still at the device waits for it
    /// (a prefetch or promotion is not data in hand yet).
    pub(crate) fn issue_cached(&mut self, r: ReqId) {
        let now = self.now;
        let req = *self.pool.get(r);
        let h = req.host.ix();
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
                    map_target(&mut self.volumes, vol, req.device, true, true, block * BLOCK, BLOCK, None, &mut targets);
                    for &(d, off, _) in &targets {
                        spawn_background(&mut self.pool, &mut self.hosts[h], rt, &req, DeviceId(d as u32), off, true, prio, now);
                        self.waiting_hosts.insert(h);
                    }
                    targets.clear();
                }
            }
            for i in 0..rt.fx.fetched.len() {
                let block = rt.fx.fetched[i];
                map_target(&mut self.volumes, vol, req.device, false, true, block * BLOCK, BLOCK, None, &mut targets);
                for &(d, off, _) in &targets {
                    let id = spawn_background(&mut self.pool, &mut self.hosts[h], rt, &req, DeviceId(d as u32), off, false, prio, now);
                    self.waiting_hosts.insert(h);
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
