//! The storage end of the request path in the World: a request entering its device (the ideal
//! device's servers, PM, or the SSD's NVMe controller), the SSD's events and completions, and a
//! finished request going back — over NVMe-oF through its target, or straight to its host.

use crate::device::DeviceRt;
use crate::events::Event;
use crate::nvmeof::TargetBuffer;
use crate::request::{Kind, ReqId};
use crate::sim::Simulation;
use nest_config::resolve::Priority;
use nest_core::queue::PendingEvents;
use nest_core::{DeviceId, HostId};
use nest_ssd::SsdEvent;
use nest_workload::Op;

impl Simulation {
    /// Request `r` from host `h` enters device `d` (an SSD: its SQ of NVMe level `level`).
    pub(crate) fn submit_to_device(&mut self, d: DeviceId, r: ReqId, h: HostId, level: Priority) {
        if self.device_dead(d.ix()) {
            return self.hang(r);
        }
        let d = d.0;
        match &mut self.devices[d as usize] {
            DeviceRt::Ideal(dev) => {
                if dev.submit(self.now, r) {
                    self.start_service(d, r);
                }
            }
            DeviceRt::Pm(dev) => {
                let req = self.pool.get(r);
                if let Some(t) = dev.pm.submit(self.now, r.0, req.op == Op::Write, req.size) {
                    self.pool.get_mut(r).t_dev_start = self.now;
                    self.queue.schedule(t, Event::DeviceDone(d, r));
                }
            }
            DeviceRt::Ssd(dev) => {
                let req = self.pool.get(r);
                dev.ctrl.submit_at(h, level, req.op == Op::Write, req.offset, req.size, r);
                self.ssd_fetch(d);
            }
        }
    }

    #[inline]
    pub(crate) fn start_service(&mut self, d: u32, r: ReqId) {
        let req = self.pool.get_mut(r);
        req.t_dev_start = self.now;
        let (op, size) = (req.op, req.size);
        let DeviceRt::Ideal(dev) = &mut self.devices[d as usize] else { unreachable!("ideal device") };
        let st = dev.service_time(op, size);
        self.queue.schedule(self.now + st, Event::DeviceDone(d, r));
    }

    /// The NVMe controller fetches commands from the SQs, by arbitration, while the SSD has
    /// free command slots.
    pub(crate) fn ssd_fetch(&mut self, d: u32) {
        let now = self.now;
        let DeviceRt::Ssd(dev) = &mut self.devices[d as usize] else { return };
        while dev.ssd.can_accept() {
            let Some(r) = dev.ctrl.fetch() else { break };
            let req = self.pool.get_mut(r);
            req.t_dev_start = now;
            let class = self.resolved.tagging.device[req.class as usize].ssd_class();
            dev.ssd.submit(now, r.0, req.op == Op::Write, req.offset, req.size, class, &mut dev.out);
        }
        self.drain_ssd(d);
    }

    /// Schedules the SSD's events and completes the commands it finished.
    pub(crate) fn drain_ssd(&mut self, d: u32) {
        let DeviceRt::Ssd(dev) = &mut self.devices[d as usize] else { return };
        for (t, e) in dev.out.events.drain(..) {
            self.queue.schedule(t, Event::Ssd(d, e));
        }
        if !dev.out.plm.is_empty() {
            let changes = std::mem::take(&mut dev.out.plm);
            self.plm_changed(d, &changes);
        }
        let DeviceRt::Ssd(dev) = &mut self.devices[d as usize] else { return };
        if dev.out.done.is_empty() {
            return;
        }
        let mut done = std::mem::take(&mut self.done_scratch);
        std::mem::swap(&mut done, &mut dev.out.done);
        dev.ctrl.completed(done.len() as u64);
        for d in &done {
            let req = self.pool.get_mut(ReqId(d.tag));
            req.dev_parts = d.parts;
            // Arbitrations that share the device's depth by type count each completion.
            dev.ctrl.done(req.op == Op::Write);
        }
        // Writes give their target buffer back at the device, reads once their data reached the
        // host.
        if self.nvmeof.as_deref().is_some_and(|rt| rt.bounded_buffers()) {
            for item in &done {
                let r = ReqId(item.tag);
                if self.pool.get(r).op == Op::Write {
                    self.buffer_release(r);
                }
            }
        }
        let dead = self.device_dead(d as usize);
        for item in &done {
            if dead {
                self.hang(ReqId(item.tag));
            } else {
                self.device_done(ReqId(item.tag));
            }
        }
        done.clear();
        self.done_scratch = done;
        // Freed command slots: fetch more (this recursion ends: completions only come from events).
        self.ssd_fetch(d);
        self.wake_hosts();
    }

    /// Request `r` gives back the target buffer it holds, if any; the commands waiting for room
    /// go on, in order.
    pub(crate) fn buffer_release(&mut self, r: ReqId) {
        let req = self.pool.get_mut(r);
        if !req.buffered {
            return;
        }
        req.buffered = false;
        let (d, size) = (req.served, req.size);
        let rt = self.nvmeof.as_deref_mut().expect("a buffered request went through a target");
        let s = rt.target_of(d);
        let b = &mut rt.buffers[s as usize];
        b.used -= TargetBuffer::units(size);
        b.holders -= 1;
        self.admit_waiting(s);
    }

    pub(crate) fn on_ssd(&mut self, d: u32, e: SsdEvent) {
        let now = self.now;
        if let DeviceRt::Ssd(dev) = &mut self.devices[d as usize] {
            dev.ssd.handle(now, e, &mut dev.out);
        }
        self.drain_ssd(d);
    }

    pub(crate) fn on_device_done(&mut self, d: u32, r: ReqId) {
        let now = self.now;
        let was_full = !self.devices[d as usize].can_accept(HostId(0), Priority::Low);
        match &mut self.devices[d as usize] {
            DeviceRt::Ideal(dev) => {
                if let Some(next) = dev.finish(now) {
                    self.start_service(d, next);
                }
            }
            DeviceRt::Pm(dev) => {
                if let Some((tag, t)) = dev.pm.finish(now) {
                    self.pool.get_mut(ReqId(tag)).t_dev_start = now;
                    self.queue.schedule(t, Event::DeviceDone(d, ReqId(tag)));
                }
            }
            DeviceRt::Ssd(_) => unreachable!("SSD completions come through its outbox"),
        }
        if self.device_dead(d as usize) {
            self.hang(r);
        } else {
            self.device_done(r);
        }
        if was_full {
            self.wake_hosts();
        }
    }

    /// Lets every host with waiting requests try again (a device freed room), in host order.
    /// A host that starts waiting while this runs is visited if it comes later, as in a loop over
    /// every host.
    pub(crate) fn wake_hosts(&mut self) {
        let mut at = self.waiting_hosts.first_from(0);
        while let Some(h) = at {
            if self.hosts[h].waiting() > 0 {
                self.try_dispatch(HostId(h as u32));
            }
            if self.hosts[h].waiting() == 0 {
                self.waiting_hosts.remove(h);
            }
            at = self.waiting_hosts.first_from(h + 1);
        }
    }

    /// Request `r` left its device: over NVMe-oF its completion goes back to the host; a
    /// directly attached device completes it at once.
    pub(crate) fn device_done(&mut self, r: ReqId) {
        let now = self.now;
        let req = self.pool.get_mut(r);
        req.t_dev_done = now;
        let (h, d, kind) = (req.host, req.device, req.kind);
        self.stats.record_device_done(req);
        if kind == Kind::TargetIo {
            return self.target_background_done(r);
        }
        if self.nvmeof.as_ref().is_some_and(|n| n.is_remote(h, d)) {
            // A write gives its target buffer back once its device has it, whatever the device
            // (an SSD's batch has done so already: this is then a no-op).
            if self.pool.get(r).op == Op::Write {
                self.buffer_release(r);
            }
            return self.target_respond(r);
        }
        let req = self.pool.get_mut(r);
        req.t_resp_sent = now;
        req.t_resp_arrive = now;
        self.complete(r);
    }
}
