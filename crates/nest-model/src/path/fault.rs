//! Faults as scenario events (`[[fault]]`, docs/faults.md): a device that stops answering, and
//! what its hosts do about it; an SSD whose flash array turns slow (fail-slow) and back.
//!
//! - From the fault on, the device answers nothing: a command inside it runs to its end inside
//!   the device, but its completion never reaches the host; a command sent to it is never taken.
//! - A host gives an unanswered I/O `io_timeout` (Linux's `nvme_core.io_timeout`) from its
//!   dispatch. Then it takes the device as dead: an I/O it sends there afterwards fails at once.
//! - A timed-out read of a replicated volume is retried on a live replica, and later reads skip
//!   the dead one; a write's part on a dead replica is dropped (the volume runs degraded) while
//!   another replica takes it. Anything else fails: the request is counted as failed, never
//!   silently dropped (issued = completed + failed + in flight).
//! - A storage server that stops takes every device in it. Its hosts find out at the first I/O
//!   timeout, or sooner by keep-alive (`[nvmeof] keep_alive`): then they give up at once on
//!   everything they had sent it.

use crate::events::Event;
use crate::fault::{Subject, FAIL_FAST};
use crate::request::{Kind, ReqId, Request};
use crate::sim::Simulation;
use nest_config::resolve::volume::Layout;
use nest_config::resolve::FaultKind;
use nest_core::queue::PendingEvents;
use nest_core::{DeviceId, SimTime};
use nest_workload::Op;

/// When hosts that lost a controller (a device's, or their connection to a server) at
/// `lost_at` remove it: at their last reconnect attempt, ⌈ctrl_loss_tmo / reconnect_delay⌉
/// delays after the loss, as Linux counts them (`ctrl_loss_tmo` after it when they reconnect at
/// once). None: they try for ever.
pub(crate) fn removal_time(lost_at: SimTime, ctrl_loss_tmo: Option<SimTime>, reconnect_delay: Option<SimTime>) -> Option<SimTime> {
    let span = match reconnect_delay {
        Some(delay) => ctrl_loss_tmo?.0.div_ceil(delay.0).saturating_mul(delay.0),
        None => ctrl_loss_tmo?.0,
    };
    Some(SimTime(lost_at.0.saturating_add(span)))
}

/// Their first reconnect attempt at or after `now`: one every `delay` from the loss, the first
/// a whole delay after it.
pub(crate) fn next_attempt(lost_at: SimTime, now: SimTime, delay: SimTime) -> SimTime {
    SimTime(lost_at.0.saturating_add((now.0 - lost_at.0).div_ceil(delay.0).max(1).saturating_mul(delay.0)))
}

impl Simulation {
    pub(crate) fn faults_start(&mut self) {
        self.connections_start();
        let Some(f) = self.faults.as_ref() else { return };
        let times: Vec<SimTime> = f.plan.iter().map(|p| p.at).collect();
        self.pending_faults = times.len();
        for (i, at) in times.into_iter().enumerate() {
            self.queue.schedule(at, Event::Fault(i as u32));
        }
    }

    pub(crate) fn on_fault(&mut self, i: u32) {
        let now = self.now;
        self.pending_faults -= 1;
        let f = self.faults.as_mut().expect("a fault event comes from the run's faults");
        let kind = f.plan[i as usize].kind.clone();
        let subject = match (&kind, kind.device()) {
            (_, Some(d)) => Subject::Device(d),
            (FaultKind::Link { name, switch: false, .. }, _) => Subject::Link(name.clone()),
            (FaultKind::Link { name, switch: true, .. }, _) => Subject::Switch(name.clone()),
            (FaultKind::Server { name, .. } | FaultKind::KeepAliveLost { name, .. }, _) => Subject::Server(name.clone()),
            (FaultKind::HostCrash { host }, _) => Subject::Host(*host),
            _ => Subject::Routes,
        };
        f.happened.push((now, kind.name(), subject));
        match kind {
            FaultKind::DeviceFail { device } => f.dead[device] = true,
            // Back: it answers what it is sent from now on, and its hosts reconnect at once
            // (what it lost while dead stays lost: those requests time out and fail or retry).
            FaultKind::DeviceBack { device } => self.device_back(device),
            // A fail-slow drive: its flash array's operations take `factor` times longer from
            // now on; those already started end when they were to.
            FaultKind::DeviceSlow { device, factor } => {
                let crate::device::DeviceRt::Ssd(dev) = &mut self.devices[device] else { unreachable!("resolution checked device_slow names an SSD") };
                let base = f.base_timing[device].get_or_insert_with(|| dev.ssd.params.timing.clone());
                dev.ssd.params.timing = base.scaled(factor);
            }
            // A link fails or comes back; the routes change only at the `Reroute` that
            // follows, `detect` later (the routing protocol's convergence).
            FaultKind::Link { ports, up, .. } => {
                let net = self.net.as_deref_mut().expect("resolution checked link faults have a network");
                let mut q = crate::net::Sched(&mut self.queue);
                for port in ports {
                    if up {
                        net.fabric.link_up(now, port, &mut q);
                    } else {
                        net.fabric.link_down(now, port, &mut q);
                    }
                }
                self.paths_changed();
            }
            FaultKind::GcStorm { device, on } => {
                let crate::device::DeviceRt::Ssd(dev) = &mut self.devices[device] else { unreachable!("resolution checked gc_storm names an SSD") };
                dev.ssd.set_gc_storm(now, on, &mut dev.out);
                self.drain_ssd(device as u32);
            }
            FaultKind::Reroute => {
                self.net.as_deref_mut().expect("resolution checked link faults have a network").fabric.reroute();
                self.routes_changed();
            }
            FaultKind::Server { devices, up: false, .. } => devices.into_iter().for_each(|d| f.dead[d] = true),
            FaultKind::Server { devices, up: true, .. } => devices.into_iter().for_each(|d| self.device_back(d)),
            FaultKind::HostCrash { host } => self.host_crash(host),
            // A Keep Alive went unanswered: the hosts tear the connections down, give up on
            // every command they had sent the server, and fail over from its devices.
            FaultKind::KeepAliveLost { devices, .. } => {
                let lost: Vec<ReqId> = f.hanging.keys().map(|&r| ReqId(r)).filter(|&r| devices.contains(&self.pool.get(r).served.ix())).collect();
                for &d in &devices {
                    self.lose(d);
                }
                for r in lost {
                    self.faults.as_mut().expect("faults").hanging.remove(&r.0);
                    self.give_up(r, true);
                }
            }
        }
    }

    /// Host `h` crashes with its applications: its workloads issue nothing more; what they had
    /// in flight is lost — counted now, per workload — and what waits in the host's queues is
    /// gone. The rest of those requests are still out (at a device, a target, on the network):
    /// they run their course and end without their host (`ghost_ends`).
    fn host_crash(&mut self, h: usize) {
        // What waits in its queues: application requests, and device parts of split (volume)
        // requests. A dropped part counts as done for its request, which ends (a ghost, let go
        // by `ghost_ends`) with its last part, as one whose parts are out does.
        let mut ended = 0;
        for r in self.hosts[h].drop_waiting() {
            let req = *self.pool.get(r);
            self.pool.release(r);
            if req.kind == Kind::Child {
                self.parts.drop_n(1);
                self.part_done(req.parent.expect("a device part has a parent"), &req);
            } else {
                ended += 1;
            }
        }
        let f = self.faults.as_mut().expect("faults");
        f.crashed[h] = true;
        let mut lost = 0;
        for (w, wl) in self.workloads.iter_mut().enumerate().filter(|(_, wl)| wl.host.ix() == h) {
            let n = wl.in_flight as u64;
            wl.books.drop_n(n);
            wl.in_flight = 0;
            f.lost_by_workload[w] += n;
            lost += n;
        }
        f.lost += lost;
        f.ghosts += lost - ended;
    }

    /// Whether host `h` has crashed.
    #[inline]
    pub(crate) fn host_crashed(&self, h: nest_core::HostId) -> bool {
        self.faults.as_ref().is_some_and(|f| f.crashed[h.ix()])
    }

    /// Request `r` ends (completes or fails) after its host crashed: it is only let go — it was
    /// counted lost at the crash. Whether it was.
    pub(crate) fn ghost_ends(&mut self, r: ReqId) -> bool {
        if !self.host_crashed(self.pool.get(r).host) {
            return false;
        }
        self.pool.release(r);
        self.faults.as_mut().expect("faults").ghosts -= 1;
        true
    }

    /// Device `d` answers again. A host that took it as dead uses it again at once when it is
    /// its own; over NVMe-oF at its next reconnect attempt (every `reconnect_delay` from when it
    /// lost it).
    fn device_back(&mut self, d: usize) {
        self.faults.as_mut().expect("faults").dead[d] = false;
        self.plan_reconnect(d);
    }

    /// Device `d` answers: hosts that took it as lost use it again — at once when it is their
    /// own, else at their next reconnect attempt, if their attempts have not run out.
    fn plan_reconnect(&mut self, d: usize) {
        let now = self.now;
        let delay = self.nvmeof.as_deref().filter(|n| n.target_of[d].is_some()).and_then(|n| n.plan.reconnect_delay);
        let removal = self.removal_at(d);
        let f = self.faults.as_mut().expect("faults");
        if f.removed[d] {
            return; // its controller is gone: the hosts no longer try
        }
        match delay {
            Some(delay) if f.known_dead[d] => {
                let at = next_attempt(f.lost_at[d], now, delay);
                match removal {
                    // Their last attempt, before it came back, failed: they removed it then.
                    Some(r) if at > r => self.remove_controller(d, r),
                    // After the run's duration nothing new is sent: a later attempt would only
                    // stretch a draining run's clock.
                    _ if self.resolved.run.duration.is_none_or(|end| at <= end) => self.queue.schedule(at, Event::Reconnect(d as u32)),
                    _ => {}
                }
            }
            _ if f.known_dead[d] && removal.is_some_and(|r| now > r) => self.remove_controller(d, removal.expect("checked")),
            _ => f.known_dead[d] = false,
        }
    }

    /// The hosts take device `d` as lost (a timeout, or a keep-alive unanswered). Over NVMe-oF
    /// they remove its controller if their reconnect attempts run out before it answers: that
    /// is settled when it comes back (`device_back`; no event waits for it, which would keep a
    /// draining run's clock going), or at once for a `ctrl_loss_tmo` of 0. A device that is in
    /// fact alive (a command sent while it was dead timed out after it came back) answers their
    /// next attempt — as a controller reset or reconnect finds it.
    fn lose(&mut self, d: usize) {
        let now = self.now;
        if !self.faults.as_mut().expect("faults").take_as_dead(d, now) {
            return;
        }
        if self.removal_at(d) == Some(now) {
            self.remove_controller(d, now);
        } else if !self.faults.as_ref().expect("faults").dead[d] {
            self.plan_reconnect(d);
        }
    }

    /// When the hosts give up reconnecting to device `d` (lost at `lost_at[d]`, `removal_time`).
    /// None: never — the device is their own, or they try for ever.
    fn removal_at(&self, d: usize) -> Option<SimTime> {
        let n = self.nvmeof.as_deref().filter(|n| n.target_of[d].is_some())?;
        removal_time(self.faults.as_ref()?.lost_at[d], n.plan.ctrl_loss_tmo, n.plan.reconnect_delay)
    }

    /// The hosts removed device `d`'s controller at `at` (now, or their last attempt before now).
    fn remove_controller(&mut self, d: usize, at: SimTime) {
        let f = self.faults.as_mut().expect("faults");
        f.removed[d] = true;
        f.happened.push((at, "controller_removed", Subject::Device(d)));
    }

    /// The hosts' reconnect attempt to device `d`, made once it answers again: it succeeds.
    pub(crate) fn on_reconnect(&mut self, d: usize) {
        let now = self.now;
        let f = self.faults.as_mut().expect("reconnects come from faults");
        if !f.dead[d] && f.known_dead[d] && !f.removed[d] {
            f.known_dead[d] = false;
            f.happened.push((now, "reconnect", Subject::Device(d)));
        }
    }

    /// Whether device `d` answers nothing (a fault killed it).
    #[inline]
    pub(crate) fn device_dead(&self, d: usize) -> bool {
        self.faults.as_ref().is_some_and(|f| f.dead[d])
    }

    /// Request `r` sits at a dead device: its host hears nothing, and gives up `io_timeout` after
    /// dispatching it — after [`FAIL_FAST`] when the host has taken the device as dead since
    /// (a command over NVMe-oF sent before it knew; what it dispatches afterwards fails at its
    /// driver, `try_dispatch`).
    pub(crate) fn hang(&mut self, r: ReqId) {
        if self.let_go_stranded(r) {
            return; // its host aborted it already: nobody waits for it
        }
        self.untime(r);
        let req = self.pool.get(r);
        let f = self.faults.as_ref().expect("only a dead device hangs");
        let at =
            if f.known_dead[req.served.ix()] { self.now + FAIL_FAST } else { (req.t_dispatch + self.resolved.hosts[req.host.ix()].io_timeout).max(self.now) };
        self.faults.as_mut().expect("faults").hanging.insert(r.0, at);
        self.queue.schedule(at, Event::IoTimeout(r, true));
    }

    /// The host gives up on request `r` (dispatched to a dead device; `sent`: its command went
    /// out, else the host's driver failed it without sending it).
    pub(crate) fn on_io_timeout(&mut self, r: ReqId, sent: bool) {
        if sent {
            // A sent command's host gives up once: this event is stale if a keep-alive gave up
            // on it earlier (`r` may even be another request by now).
            let f = self.faults.as_mut().expect("timeouts come from faults");
            if f.hanging.get(&r.0) != Some(&self.now) {
                return;
            }
            f.hanging.remove(&r.0);
        }
        self.give_up(r, sent);
    }

    fn give_up(&mut self, r: ReqId, sent: bool) {
        let req = *self.pool.get(r);
        let crashed = self.host_crashed(req.host);
        let f = self.faults.as_mut().expect("timeouts come from faults");
        // A crashed host times nothing out (its request is only let go, below): the device is
        // not taken as dead on its account. Only a command sent and unanswered is news of a
        // dead device; one the driver failed without sending it is the host's own verdict, and
        // one due just after the device came back must not take it as dead again.
        if !crashed {
            f.timeouts += 1;
            if sent {
                self.lose(req.served.ix());
            }
        }
        if sent {
            self.untime(r);
        }
        let remote = sent && self.nvmeof.as_deref().is_some_and(|rt| rt.is_remote(req.host, req.device));
        self.host_gives_up(r, crashed, remote, false);
    }

    /// The host side of giving up on request `r` (a timeout at a dead device, or its connection
    /// torn down; `crashed`: its host is gone): its queue-depth slot is free; over NVMe-oF
    /// (`remote`) the command is aborted — its SQ slot is free again, no response will come,
    /// and its target buffer is given back unless the target still holds it (`stranded`: then
    /// the request is let go when the target has finished it, `let_go_stranded`). The request
    /// fails, or a device part is retried on a replica.
    pub(crate) fn host_gives_up(&mut self, r: ReqId, crashed: bool, remote: bool, stranded: bool) {
        let req = *self.pool.get(r);
        self.hosts[req.host.ix()].completed();
        if remote {
            let level = self.resolved.tagging.nvme[req.class as usize];
            let rt = self.nvmeof.as_deref_mut().expect("a remote command went over NVMe-oF");
            rt.initiator.return_credit(req.host, req.device, level);
            rt.books.timed_out += 1;
            if !stranded {
                self.buffer_release(r);
            }
        }
        match req.kind {
            // Its workload hears the failure now; a stranded request's slot waits for its target.
            Kind::App if stranded => {
                if !crashed {
                    self.failed(&req);
                }
            }
            // `fail` lets the host dispatch again.
            Kind::App => self.fail(r),
            Kind::Child => {
                self.parts.complete(1);
                if !stranded {
                    self.pool.release(r);
                }
                self.part_given_up(&req, crashed);
                self.try_dispatch(req.host);
            }
            Kind::Split | Kind::Background | Kind::TargetIo => {
                unreachable!("faults are refused with host caches and PLMLight's devices; split requests never reach a device")
            }
        }
    }

    /// Its host gave up on device part `part` (`crashed`: the host is gone).
    pub(crate) fn part_given_up(&mut self, part: &Request, crashed: bool) {
        if crashed {
            // Nobody is left to retry it: its request (lost) only waits for its parts.
            self.part_done(part.parent.expect("a device part has a parent"), part);
        } else {
            self.part_failed(part);
        }
    }

    /// A device part of a split request failed: retried on a live replica (a read), dropped (a
    /// write another replica takes), else its request fails once its other parts are back.
    fn part_failed(&mut self, part: &Request) {
        let parent = part.parent.expect("a device part has a parent");
        let volume = self.workloads[part.workload as usize].volume;
        // (device, byte where the member's range starts): a member may be one NVM set of a drive.
        let replicas: Vec<(usize, u64)> = match volume {
            Some(v) if matches!(self.volumes[v as usize].plan.layout, Layout::Replicate) => {
                let p = &self.volumes[v as usize].plan;
                p.devices.iter().copied().zip(p.bases.iter().copied()).collect()
            }
            _ => Vec::new(),
        };
        let f = self.faults.as_mut().expect("faults");
        let alive = replicas.iter().copied().find(|&(d, _)| !f.known_dead[d] && d != part.served.ix());
        match (alive, part.op) {
            (Some((d, base)), Op::Read) => {
                f.retried += 1;
                // The failed part's offset less its member's base is the volume's offset.
                let from = replicas.iter().filter(|&&(x, b)| x == part.served.ix() && b <= part.offset).map(|&(_, b)| b).max().unwrap_or(0);
                let offset = part.offset - from + base;
                let mut retry = Request { device: DeviceId(d as u32), served: DeviceId(d as u32), offset, ..*part };
                retry.stamp_all(self.now);
                let c = self.pool.alloc(retry);
                self.parts.issue(1);
                let prio = self.workloads[part.workload as usize].prio;
                if self.hosts[part.host.ix()].enqueue(c, DeviceId(d as u32), prio) {
                    self.waiting_hosts.insert(part.host.ix());
                }
            }
            (Some(_), Op::Write) => {
                f.degraded_writes += 1;
                self.part_done(parent, part);
            }
            (None, _) => {
                f.failed_parents.insert(parent.0);
                self.part_done(parent, part);
            }
        }
    }

    /// A split request's parts are all back: it completes, or fails when one of them did.
    pub(crate) fn parts_done(&mut self, r: ReqId) {
        if self.faults.as_mut().is_some_and(|f| f.failed_parents.remove(&r.0)) {
            return self.fail(r);
        }
        self.finish(r, false);
    }

    /// Application request `r` failed: its workload hears an error (counted, not in the latency
    /// statistics) and moves on.
    pub(crate) fn fail(&mut self, r: ReqId) {
        if self.ghost_ends(r) {
            return;
        }
        let req = *self.pool.get(r);
        self.pool.release(r);
        self.failed(&req);
    }

    /// Application request `req` failed (its slot is released, or waits for its target).
    pub(crate) fn failed(&mut self, req: &Request) {
        let f = self.faults.as_mut().expect("faults");
        f.failed += 1;
        f.failed_by_workload[req.workload as usize] += 1;
        self.qos_completed(req);
        let wl = &mut self.workloads[req.workload as usize];
        wl.in_flight -= 1;
        wl.books.complete(1);
        if matches!(wl.source, crate::workload::Source::Closed { .. }) {
            self.refill(req.workload);
        }
        self.try_dispatch(req.host);
    }

    /// The summary's `faults` section.
    pub(crate) fn faults_json(&self) -> Option<serde_json::Value> {
        let f = self.faults.as_ref()?;
        let names = |d: usize| self.resolved.devices[d].name.clone();
        let per_workload = |n: &[u64]| -> serde_json::Map<String, serde_json::Value> {
            self.workloads.iter().zip(n).map(|(w, &n)| (w.name.clone(), serde_json::json!(n))).collect()
        };
        // Devices still dead whose hosts' attempts ran out during the run: removed then.
        let removals: Vec<(SimTime, &'static str, Subject)> = (0..f.dead.len())
            .filter(|&d| f.dead[d] && f.known_dead[d] && !f.removed[d])
            .filter_map(|d| self.removal_at(d).filter(|&r| r <= self.now).map(|r| (r, "controller_removed", Subject::Device(d))))
            .collect();
        let conn_removals = self.conn_removals();
        let mut happened: Vec<&(SimTime, &'static str, Subject)> = f.happened.iter().chain(&removals).chain(&conn_removals).collect();
        happened.sort_by_key(|e| e.0);
        let happened_removed: Vec<usize> = happened
            .iter()
            .filter(|e| e.1 == "controller_removed")
            .filter_map(|e| match e.2 {
                Subject::Device(d) => Some(d),
                _ => None,
            })
            .collect();
        Some(serde_json::json!({
            "happened": happened.into_iter().map(|(t, kind, what)| {
                let mut e = serde_json::json!({"kind": kind, "at_s": t.as_secs_f64()});
                match what {
                    Subject::Device(d) => e["device"] = names(*d).into(),
                    Subject::Link(l) => e["link"] = l.as_str().into(),
                    Subject::Switch(w) => e["switch"] = w.as_str().into(),
                    Subject::Server(s) => e["server"] = s.as_str().into(),
                    Subject::Host(h) => e["host"] = self.hosts[*h].name.as_str().into(),
                    Subject::Conn(h, s) => {
                        e["host"] = self.hosts[*h].name.as_str().into();
                        e["server"] = self.server_name(*s).into();
                    }
                    Subject::Routes => {}
                }
                e
            }).collect::<Vec<_>>(),
            "dead_devices": (0..f.dead.len()).filter(|&d| f.dead[d]).map(names).collect::<Vec<_>>(),
            "removed_controllers": happened_removed.into_iter().map(names).collect::<Vec<_>>(),
            "timeouts": f.timeouts,
            "failed": f.failed,
            "retried_reads": f.retried,
            "degraded_writes": f.degraded_writes,
            "failed_by_workload": per_workload(&f.failed_by_workload),
            "crashed_hosts": (0..f.crashed.len()).filter(|&h| f.crashed[h]).map(|h| self.hosts[h].name.clone()).collect::<Vec<_>>(),
            "lost": f.lost,
            "lost_by_workload": per_workload(&f.lost_by_workload),
            "connections_lost": f.conns.as_deref().map_or(0, |c| c.teardowns),
            "aborted_with_connection": f.conns.as_deref().map_or(0, |c| c.aborted),
            // What torn-down connections' channels still held, never delivered.
            "dropped_with_connection": self.nvmeof.as_deref().map_or(serde_json::json!(null), |n| serde_json::json!({
                "commands": n.books.commands_dropped, "responses": n.books.responses_dropped,
            })),
        }))
    }
}
