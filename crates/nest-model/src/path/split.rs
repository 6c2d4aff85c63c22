//! Requests split into device parts (volumes, host caches): parts queued at the host, the
//! parent completing with its last part (state in `crate::host::volume`).

use crate::events::Event;
use crate::host::volume::map_target;
use crate::request::{Kind, ReqId, Request};
use crate::sim::Simulation;
use nest_core::queue::PendingEvents;
use nest_core::{DeviceId, SimTime};
use nest_workload::Op;

impl Simulation {
    /// A `Split` request leaves its application: through its host's cache if there is one,
    /// else straight into device parts.
    pub(crate) fn issue_split(&mut self, r: ReqId) {
        let req = *self.pool.get(r);
        if self.caches[req.host.ix()].is_some() {
            return self.issue_cached(r);
        }
        let n = self.spawn_parts(r, &[(req.offset, req.size as u64)]);
        self.pool.get_mut(r).pending = n;
        if n == 0 {
            self.finish(r, false);
        }
        self.try_dispatch(req.host);
    }

    /// Queues the (volume) extents of request `r` at its host as `Child` requests, one per
    /// device part; returns how many.
    pub(crate) fn spawn_parts(&mut self, r: ReqId, extents: &[(u64, u64)]) -> u32 {
        let now = self.now;
        let req = *self.pool.get(r);
        let wl = &self.workloads[req.workload as usize];
        let (prio, volume) = (wl.prio, wl.volume);
        if let Some(v) = volume.filter(|&v| self.volumes[v as usize].pool.is_some() && req.op == Op::Read) {
            self.pool_sync(v);
        }
        let mut parts = std::mem::take(&mut self.map_scratch);
        for &(offset, size) in extents {
            let dead = self.faults.as_ref().map(|f| &f.known_dead[..]);
            map_target(&mut self.volumes, volume, req.device, req.op == Op::Write, req.dt, offset, size, dead, &mut parts);
        }
        let n = parts.len() as u32;
        for &(device, offset, size) in &parts {
            let mut child = Request {
                kind: Kind::Child,
                parent: Some(r),
                device: DeviceId(device as u32),
                served: DeviceId(device as u32),
                offset,
                size: size as u32,
                ..req
            };
            child.stamp_all(now);
            let c = self.pool.alloc(child);
            self.parts.issue(1);
            if self.hosts[req.host.ix()].enqueue(c, DeviceId(device as u32), prio) {
                self.waiting_hosts.insert(req.host.ix());
            }
        }
        parts.clear();
        self.map_scratch = parts;
        n
    }

    /// A device part or a cache background I/O left its device.
    pub(crate) fn complete_part(&mut self, r: ReqId) {
        let now = self.now;
        let req = {
            let q = self.pool.get_mut(r);
            q.t_complete = now;
            *q
        };
        self.pool.release(r);
        self.stats.record_device_io(&req);
        let h = req.host.ix();
        self.hosts[h].completed();
        if req.kind == Kind::Background {
            let rt = self.caches[h].as_mut().expect("background I/O of a host with a cache");
            rt.background.complete(1);
            if let Some(block) = rt.fetching.remove(&(r.0 as u64)) {
                if rt.inflight.get(&block) == Some(&r.0) {
                    rt.inflight.remove(&block);
                }
            }
            if let Some(waiting) = rt.waiters.remove(&(r.0 as u64)) {
                for p in waiting {
                    self.part_done(ReqId(p), &req);
                }
            }
        } else {
            self.parts.complete(1);
            self.part_done(req.parent.expect("a device part has a parent"), &req);
        }
        self.try_dispatch(req.host);
    }

    /// One of `parent`'s device parts (a child, or a fetch it waited for) is done.
    pub(crate) fn part_done(&mut self, parent: ReqId, part: &Request) {
        let now = self.now;
        let p = self.pool.get_mut(parent);
        p.pending -= 1;
        if p.pending == 0 {
            // The last part defines the request's path: its host wait, network, queues and
            // device time.
            p.take_path(part);
            let cpu = p.cache_ps;
            self.queue.schedule(now + SimTime(cpu), Event::PartsDone(parent));
        }
    }
}
