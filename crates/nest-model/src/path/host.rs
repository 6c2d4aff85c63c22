//! A request's way from its workload to its device's doorstep: the workload issues it (open
//! loop at its next arrival, closed loop to keep its target outstanding), the host's admission
//! gate lets it pass or holds it for a coordinator's budget, the host queue takes it by
//! priority, and dispatch sends it over NVMe-oF or submits it to a local device.

use crate::request::{Kind, ReqId, Request};
use crate::sim::Simulation;
use crate::workload::Source;
use nest_core::queue::PendingEvents;
use nest_core::HostId;

impl Simulation {
    /// Workload `w`'s wake-up: its next request (open loop), or a top-up (closed loop).
    pub(crate) fn on_wake(&mut self, w: u32) -> Result<(), String> {
        self.workloads[w as usize].wake_pending = false;
        if self.host_crashed(self.workloads[w as usize].host) {
            return Ok(()); // its applications died with it
        }
        if let Source::Closed { .. } = self.workloads[w as usize].source {
            self.refill(w);
            return Ok(());
        }
        let io = self.workloads[w as usize].take_io();
        self.issue(w, io);
        if let Some(t) = self.workloads[w as usize].advance()? {
            self.wake_at(w, t.max(self.now));
        }
        Ok(())
    }

    /// Closed loop: issue until `target` requests are outstanding, or wait for the next on period.
    pub(crate) fn refill(&mut self, w: u32) {
        loop {
            let wl = &self.workloads[w as usize];
            let Source::Closed { gen, target } = &wl.source else { return };
            // A crashed host's applications issue nothing more.
            if wl.in_flight >= *target || self.host_crashed(wl.host) {
                return;
            }
            match gen.gate(self.now) {
                None => return,
                Some(t) if t > self.now => {
                    if !wl.wake_pending {
                        self.wake_at(w, t);
                    }
                    return;
                }
                Some(_) => {
                    let io = self.workloads[w as usize].take_io();
                    self.issue(w, io);
                }
            }
        }
    }

    fn issue(&mut self, w: u32, io: nest_workload::IoDesc) {
        let wl = &mut self.workloads[w as usize];
        wl.in_flight += 1;
        wl.books.issue(1);
        let (host, device) = (wl.host, wl.device);
        let split = self.caches[host.ix()].is_some() || wl.volume.is_some();
        let req = Request {
            kind: if split { Kind::Split } else { Kind::App },
            parent: None,
            pending: 0,
            cache_ps: 0,
            hit_blocks: 0,
            dt: true,
            buffered: false,
            tag: 0,
            seq: self.next_seq,
            workload: w,
            class: wl.class,
            host,
            device,
            served: device,
            op: io.op,
            size: io.size,
            offset: io.offset,
            t_arrive: self.now,
            t_dispatch: self.now,
            t_tgt_arrive: self.now,
            t_sq: self.now,
            t_dev_start: self.now,
            t_dev_done: self.now,
            t_resp_sent: self.now,
            t_resp_arrive: self.now,
            t_complete: self.now,
            dev_parts: Default::default(),
        };
        self.next_seq += 1;
        let r = self.pool.alloc(req);
        if self.dt_label(r) {
            self.pass_gate(r);
        }
    }

    /// Request `r` meets its host's admission gate, if it has one.
    pub(crate) fn pass_gate(&mut self, r: ReqId) {
        let host = self.pool.get(r).host;
        if let Some(gate) = self.gates[host.ix()].as_mut() {
            if !gate.offer(self.now, r) {
                return; // held until a coordinator grants budget
            }
        }
        self.admit(r);
    }

    /// Application request `r` passed its host's admission gate: into the host queue (or the
    /// host cache / volume that splits it).
    pub(crate) fn admit(&mut self, r: ReqId) {
        let req = self.pool.get(r);
        if req.kind == Kind::Split {
            return self.issue_split(r);
        }
        let (host, device, prio) = (req.host, req.device, self.workloads[req.workload as usize].prio);
        if self.hosts[host.ix()].enqueue(r, device, prio) {
            self.waiting_hosts.insert(host.ix());
        }
        self.try_dispatch(host);
    }

    pub(crate) fn try_dispatch(&mut self, h: HostId) {
        loop {
            let (devices, pool, tagging, nvmeof) = (&self.devices, &self.pool, &self.resolved.tagging, self.nvmeof.as_deref());
            let pick = self.hosts[h.ix()].next_dispatch(|r, d| {
                let level = tagging.nvme[pool.get(r).class as usize];
                match nvmeof {
                    Some(n) if n.is_remote(h, d) => n.initiator.has_credit(h, d, level),
                    _ => devices[d.ix()].can_accept(h, level),
                }
            });
            let Some((r, d)) = pick else { return };
            let (now, fast) = (self.now, self.fails_fast(h, d));
            let req = self.pool.get_mut(r);
            req.t_dispatch = now;
            let level = self.resolved.tagging.nvme[req.class as usize];
            if fast {
                // The host's driver fails I/O to a device it took as dead (or whose connection
                // is down) without sending it, after its error path (FAIL_FAST).
                self.queue.schedule(now + crate::fault::FAIL_FAST, crate::events::Event::IoTimeout(r, false));
                continue;
            }
            if self.nvmeof.as_ref().is_some_and(|n| n.is_remote(h, d)) {
                self.send_command(r, level);
            } else {
                req.t_tgt_arrive = now;
                req.t_sq = now;
                self.submit_to_device(d, r, h, level);
            }
        }
    }
}
