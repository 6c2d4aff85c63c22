//! NVMe-oF in the World: the initiator puts commands on their connection's channel, each
//! server's `nest_nvme::Target` takes them through its queues and router into a device, and
//! completions come back the same way (the component state is in `crate::nvmeof`).

use crate::events::Event;
use crate::messages::{COMMAND, DATA_PULL, RESPONSE, WRITE_DATA};
use crate::nvmeof::{NvmeofEvent, NvmeofRt, TargetBuffer};
use crate::request::{Kind, ReqId, Request};
use crate::sim::Simulation;
use nest_config::resolve::Priority;
use nest_core::queue::PendingEvents;
use nest_core::SimTime;
use nest_nvme::{BackgroundIo, CmdInfo, Stage, TargetAction};
use nest_transport::Message;
use nest_workload::Op;

/// Bytes of an RDMA READ request on the wire above the transport's own headers (RoCEv2's BTH
/// 12 B + RETH 16 B).
const RDMA_READ_REQUEST: u64 = 28;

impl Simulation {
    fn nvmeof(&mut self) -> &mut NvmeofRt {
        self.nvmeof.as_deref_mut().expect("an NVMe-oF path without NVMe-oF")
    }

    /// Host side: request `r` (for a remote device, at NVMe level `level`) goes onto its
    /// connection: the command capsule, with the write data behind it.
    pub(crate) fn send_command(&mut self, r: ReqId, level: Priority) {
        let req = *self.pool.get(r);
        let rt = self.nvmeof();
        rt.initiator.take_credit(req.host, req.device, level);
        let (f, _) = rt.initiator.channels(req.host, req.device, req.class);
        let f = f.0;
        let mut bytes = rt.plan.command_capsule as u64;
        // A write's data go behind its capsule, unless the target will pull them (RDMA).
        if req.op == Op::Write && !rt.plan.pulls(req.class as usize, req.size) {
            bytes += rt.plan.data_header as u64 + req.size as u64;
            rt.books.write_bytes_sent += req.size as u64;
        }
        rt.books.commands_sent += 1;
        self.send_message(f, bytes, Message { kind: COMMAND, tag: r.0 });
        self.time_command(r);
    }

    /// An NVMe-oF message has fully arrived: a command at its target, or a completion at its
    /// host.
    pub(crate) fn nvmeof_deliver(&mut self, msg: Message) {
        match msg.kind {
            COMMAND => self.target_receive(ReqId(msg.tag)),
            RESPONSE => self.host_receive(ReqId(msg.tag)),
            DATA_PULL => self.host_pulled(ReqId(msg.tag)),
            WRITE_DATA => self.target_pulled(ReqId(msg.tag)),
            k => unreachable!("NVMe-oF message of unknown kind {k:?}"),
        }
    }

    /// Target side: a command (with its data) has fully arrived.
    fn target_receive(&mut self, r: ReqId) {
        let now = self.now;
        let req = self.pool.get_mut(r);
        req.t_tgt_arrive = now;
        let req = *req;
        let level = self.resolved.tagging.nvme[req.class as usize];
        let rt = self.nvmeof();
        rt.books.commands_received += 1;
        if req.op == Op::Write && !rt.plan.pulls(req.class as usize, req.size) {
            rt.books.write_bytes_at_target += req.size as u64;
        }
        let s = rt.target_of(req.device);
        let info =
            CmdInfo { host: req.host, device: req.device, write: req.op == Op::Write, offset: req.offset, bytes: req.size, class: level, class_id: req.class };
        let mut out = std::mem::take(&mut rt.actions);
        rt.targets[s as usize].command_arrived(now, r, info, &mut out);
        self.target_actions(s, out);
    }

    pub(crate) fn on_nvmeof(&mut self, e: NvmeofEvent) {
        let (s, stage) = match e {
            NvmeofEvent::RequestDone(s) => (s, Stage::Request),
            NvmeofEvent::ResponseDone(s) => (s, Stage::Response),
            NvmeofEvent::HostDone(r) => return self.complete(r),
            NvmeofEvent::RouterWake(s) => {
                let now = self.now;
                let rt = self.nvmeof();
                let mut out = std::mem::take(&mut rt.actions);
                rt.targets[s as usize].router_wake(now, &mut out);
                return self.target_actions(s, out);
            }
        };
        let now = self.now;
        let rt = self.nvmeof();
        let mut out = std::mem::take(&mut rt.actions);
        rt.targets[s as usize].on_step_done(now, stage, &mut out);
        self.target_actions(s, out);
    }

    /// Target side: the device finished request `r`; its completion joins the response queue.
    pub(crate) fn target_respond(&mut self, r: ReqId) {
        let now = self.now;
        let req = *self.pool.get(r);
        let rt = self.nvmeof();
        if req.op == Op::Write {
            rt.books.write_bytes_at_device += req.size as u64;
        } else {
            rt.books.read_bytes_at_device += req.size as u64;
        }
        let s = rt.target_of(req.device);
        let mut out = std::mem::take(&mut rt.actions);
        rt.targets[s as usize].device_done(now, r, &mut out);
        self.target_actions(s, out);
    }

    /// At time zero: every target's router makes its first call.
    pub(crate) fn routers_start(&mut self) {
        let n = self.nvmeof.as_ref().map_or(0, |rt| rt.targets.len());
        for s in 0..n as u32 {
            let now = self.now;
            let rt = self.nvmeof();
            let mut out = std::mem::take(&mut rt.actions);
            rt.targets[s as usize].start_router(now, &mut out);
            self.target_actions(s, out);
        }
    }

    /// Samples the routers' time series.
    pub(crate) fn sample_routers(&mut self) {
        let n = self.nvmeof.as_ref().map_or(0, |rt| rt.targets.len());
        for s in 0..n {
            let now = self.now;
            let rt = self.nvmeof.as_deref_mut().expect("NVMe-oF");
            if rt.router_series[s].is_empty() {
                continue;
            }
            let mut out = std::mem::take(&mut rt.actions);
            let mut values = std::mem::take(&mut rt.router_values);
            values.clear();
            rt.targets[s].sample_router(now, &mut values, &mut out);
            for (&id, &v) in rt.router_series[s].iter().zip(&values) {
                self.stats.sample(now, id, v);
            }
            rt.router_values = values;
            self.target_actions(s as u32, out);
        }
    }

    /// Carries out what server `s`'s target asked for, in order.
    fn target_actions(&mut self, s: u32, mut out: Vec<TargetAction<ReqId>>) {
        for a in out.drain(..) {
            match a {
                TargetAction::Wake(t, Stage::Request) => self.queue.schedule(t, Event::Nvmeof(NvmeofEvent::RequestDone(s))),
                TargetAction::Wake(t, Stage::Response) => self.queue.schedule(t, Event::Nvmeof(NvmeofEvent::ResponseDone(s))),
                TargetAction::Submit(r, d) => {
                    // Past the target's request queue, bound for the device the router chose.
                    self.pool.get_mut(r).served = d;
                    self.target_admit(s, r);
                }
                TargetAction::Respond(r) => self.send_response(r),
                TargetAction::Background(io) => self.target_background(s, io),
                TargetAction::RouterWake(t) => self.queue.schedule(t, Event::Nvmeof(NvmeofEvent::RouterWake(s))),
            }
        }
        self.nvmeof().actions = out;
    }

    /// Target `s` has processed command `r`: it takes its io units of the server's buffer pool,
    /// or waits in order for them.
    fn target_admit(&mut self, s: u32, r: ReqId) {
        let rt = self.nvmeof();
        if rt.bounded_buffers() {
            let b = s as usize;
            if !rt.buffer_wait[b].is_empty() || !rt.buffers[b].has_room() {
                rt.buffers[b].stalls += 1;
                rt.buffer_wait[b].push_back(r);
                return;
            }
            self.buffer_take(b, r);
        }
        self.target_execute(r);
    }

    /// Request `r` holds its io units of buffer pool `b`.
    fn buffer_take(&mut self, b: usize, r: ReqId) {
        let req = self.pool.get_mut(r);
        req.buffered = true;
        let size = req.size;
        let rt = self.nvmeof();
        let buf = &mut rt.buffers[b];
        buf.used += TargetBuffer::units(size);
        buf.holders += 1;
        buf.peak = buf.peak.max(buf.used);
    }

    /// Target `s`'s buffer pool has room again: the commands waiting for it go on, in order.
    pub(crate) fn admit_waiting(&mut self, s: u32) {
        loop {
            let rt = self.nvmeof();
            if !rt.bounded_buffers() {
                return;
            }
            let b = s as usize;
            if !rt.buffers[b].has_room() {
                return;
            }
            let Some(r) = rt.buffer_wait[b].pop_front() else { return };
            self.buffer_take(b, r);
            self.target_execute(r);
        }
    }

    /// Command `r` has its buffer: a write whose data the target pulls posts its RDMA READ on the
    /// connection's queue pair (behind the read data already there); anything else goes into
    /// its device's submission queue.
    fn target_execute(&mut self, r: ReqId) {
        let req = *self.pool.get(r);
        if req.op == Op::Write && self.nvmeof().plan.pulls(req.class as usize, req.size) {
            if self.let_go_stranded(r) {
                return; // its host gave up on it: there is nobody to pull the data from
            }
            let rt = self.nvmeof();
            let (_, back) = rt.initiator.channels(req.host, req.device, req.class);
            rt.books.pulls_sent += 1;
            return self.send_message(back.0, RDMA_READ_REQUEST, Message { kind: DATA_PULL, tag: r.0 });
        }
        self.target_submit(r);
    }

    /// Into the submission queue of the device the router chose, for the request's host and class.
    fn target_submit(&mut self, r: ReqId) {
        let req = self.pool.get_mut(r);
        req.t_sq = self.now;
        let (d, h, class) = (req.served, req.host, req.class);
        let level = self.resolved.tagging.nvme[class as usize];
        self.submit_to_device(d, r, h, level);
    }

    /// Host side: the target's RDMA READ for write `r`'s data arrived; the host's NIC answers with
    /// the data (no software on the way).
    fn host_pulled(&mut self, r: ReqId) {
        let req = *self.pool.get(r);
        let rt = self.nvmeof();
        rt.books.pulls_received += 1;
        let (fwd, _) = rt.initiator.channels(req.host, req.device, req.class);
        let bytes = rt.plan.data_header as u64 + req.size as u64;
        rt.books.data_sent += 1;
        rt.books.write_bytes_sent += req.size as u64;
        self.send_message(fwd.0, bytes, Message { kind: WRITE_DATA, tag: r.0 });
    }

    /// Target side: write `r`'s pulled data arrived; the command goes to its device.
    fn target_pulled(&mut self, r: ReqId) {
        let size = self.pool.get(r).size as u64;
        let rt = self.nvmeof();
        rt.books.data_received += 1;
        rt.books.write_bytes_at_target += size;
        if self.let_go_stranded(r) {
            return;
        }
        self.target_submit(r);
    }

    /// A router at server `s` starts I/O of its own: it enters its device's submission queue for
    /// its host and class like a command past the request queue. It shares that SQ with the
    /// host's own commands, so it holds one of the host's SQ credits while it is there (the SQ
    /// can never overflow); without a free credit it waits at the target, in order.
    fn target_background(&mut self, s: u32, io: BackgroundIo) {
        let now = self.now;
        let req = Request {
            seq: 0,
            workload: 0, // no workload's: it never reaches the workload books
            class: io.class_id,
            host: io.host,
            device: io.device,
            served: io.device,
            op: if io.write { Op::Write } else { Op::Read },
            size: io.bytes,
            offset: io.offset,
            kind: Kind::TargetIo,
            parent: None,
            pending: 0,
            cache_ps: 0,
            hit_blocks: 0,
            dt: true,
            buffered: false,
            tag: io.tag,
            t_arrive: now,
            t_dispatch: now,
            t_tgt_arrive: now,
            t_sq: now,
            t_dev_start: now,
            t_dev_done: now,
            t_resp_sent: now,
            t_resp_arrive: now,
            t_complete: now,
            dev_parts: Default::default(),
        };
        let r = self.pool.alloc(req);
        self.nvmeof().background_wait[s as usize].push_back(r);
        self.start_background(s);
    }

    /// Starts server `s`'s waiting background I/O, in order, while their SQs have room.
    pub(crate) fn start_background(&mut self, s: u32) {
        loop {
            let Some(&r) = self.nvmeof().background_wait[s as usize].front() else { return };
            let req = *self.pool.get(r);
            let level = self.resolved.tagging.nvme[req.class as usize];
            let rt = self.nvmeof.as_deref_mut().expect("NVMe-oF");
            if rt.is_remote(req.host, req.device) {
                if !rt.initiator.has_credit(req.host, req.device, level) {
                    return;
                }
                rt.initiator.take_credit(req.host, req.device, level);
            } else if !self.devices[req.device.ix()].queue_has_room(req.host, level) {
                return;
            }
            self.nvmeof().background_wait[s as usize].pop_front();
            self.pool.get_mut(r).t_sq = self.now;
            self.submit_to_device(req.device, r, req.host, level);
        }
    }

    /// A router's background I/O left its device: its credit is free again and the router hears
    /// of it.
    pub(crate) fn target_background_done(&mut self, r: ReqId) {
        let now = self.now;
        let req = {
            // It goes nowhere after its device: its response stages take no time.
            let q = self.pool.get_mut(r);
            q.t_resp_sent = now;
            q.t_resp_arrive = now;
            q.t_complete = now;
            *q
        };
        self.buffer_release(r);
        self.pool.release(r);
        self.stats.record_device_io(&req);
        let level = self.resolved.tagging.nvme[req.class as usize];
        let rt = self.nvmeof();
        if rt.is_remote(req.host, req.device) {
            rt.initiator.return_credit(req.host, req.device, level);
        }
        let s = rt.target_of(req.device);
        let mut out = std::mem::take(&mut rt.actions);
        rt.targets[s as usize].background_done(now, req.tag, &mut out);
        self.target_actions(s, out);
        self.start_background(s);
        self.try_dispatch(req.host);
    }

    /// The completion capsule (with the read data in front of it) goes back to the host.
    fn send_response(&mut self, r: ReqId) {
        if self.let_go_stranded(r) {
            return; // the connection it came on is gone
        }
        let now = self.now;
        let req = self.pool.get_mut(r);
        req.t_resp_sent = now;
        let req = *req;
        let rt = self.nvmeof();
        let (_, f) = rt.initiator.channels(req.host, req.device, req.class);
        let f = f.0;
        let mut bytes = rt.plan.completion_capsule as u64;
        if req.op == Op::Read {
            bytes += rt.plan.data_header as u64 + req.size as u64;
        }
        rt.books.responses_sent += 1;
        self.send_message(f, bytes, Message { kind: RESPONSE, tag: r.0 });
    }

    /// Puts `msg`, `bytes` long, on message channel `f`.
    fn send_message(&mut self, f: u32, bytes: u64, msg: Message) {
        let net = self.net.as_deref_mut().expect("NVMe-oF without a network");
        net.send_message(self.now, f, bytes, msg, &mut self.queue);
    }

    /// Host side: the completion (and any read data) has fully arrived.
    fn host_receive(&mut self, r: ReqId) {
        let now = self.now;
        let req = self.pool.get_mut(r);
        req.t_resp_arrive = now;
        let req = *req;
        let level = self.resolved.tagging.nvme[req.class as usize];
        let rt = self.nvmeof();
        rt.books.responses_received += 1;
        if req.op == Op::Read {
            rt.books.read_bytes_at_host += req.size as u64;
        }
        rt.initiator.return_credit(req.host, req.device, level);
        let overhead = rt.plan.host_overhead;
        self.untime(r);
        // The read's data has reached its host: its buffer at the target is free.
        self.buffer_release(r);
        let rt = self.nvmeof();
        // The freed credit goes to the server's waiting background I/O first.
        let s = rt.target_of(req.device);
        if !rt.background_wait[s as usize].is_empty() {
            self.start_background(s);
        }
        if overhead == SimTime::ZERO {
            self.complete(r);
        } else {
            self.queue.schedule(now + overhead, Event::Nvmeof(NvmeofEvent::HostDone(r)));
        }
    }
}
