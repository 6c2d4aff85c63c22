//! The NVMe-oF target of one storage server, sans-IO (SPEC §5; thesis 4.4.1): commands that
//! fully arrived pass its FIFO request queue (one worker, `request_overhead` each), are routed
//! to a device, and their completions pass its FIFO response queue (`response_overhead` each)
//! before they go back on the fabric.
//!
//! The caller feeds it arrivals, device completions and the ends of the two workers' steps, and
//! carries out the [`TargetAction`]s it emits, in order. The **routing hook** ([`Router`]) sits
//! between "command received" and "submitted to a device": by default a command goes to the
//! device it names; PLMLight's write-handling agent will redirect writes there.

use nest_core::{DeviceId, HostId, Priority, SimTime};
use std::collections::VecDeque;

/// What a router sees of a command.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CmdInfo {
    pub host: HostId,
    /// The device the command names.
    pub device: DeviceId,
    pub write: bool,
    pub offset: u64,
    pub bytes: u32,
    /// The class level NVMe treats it as.
    pub class: Priority,
}

/// Decides which device a command goes to once it leaves the request queue.
pub trait Router: Send + Sync {
    fn route(&mut self, now: SimTime, cmd: &CmdInfo) -> DeviceId;
}

/// Every command to the device it names (NVMe-oF as specified).
#[derive(Default, Debug, Clone, Copy)]
pub struct Direct;

impl Router for Direct {
    #[inline]
    fn route(&mut self, _now: SimTime, cmd: &CmdInfo) -> DeviceId {
        cmd.device
    }
}

/// The end of a worker's step, to be delivered back with [`Target::on_step_done`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    Request,
    Response,
}

/// What the caller must do, in order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TargetAction<C> {
    /// Call `on_step_done(stage)` at this time.
    Wake(SimTime, Stage),
    /// Place the command in device `device`'s submission queue.
    Submit(C, DeviceId),
    /// Send the completion (and any read data) back to the host.
    Respond(C),
}

/// A FIFO queue served by one worker.
#[derive(Debug)]
pub struct FifoStage<T> {
    pub queue: VecDeque<T>,
    busy: bool,
    pub max_len: usize,
}

impl<T> Default for FifoStage<T> {
    fn default() -> Self {
        FifoStage { queue: VecDeque::new(), busy: false, max_len: 0 }
    }
}

impl<T> FifoStage<T> {
    /// Queues `x`; true when the worker was idle and must be started.
    fn push(&mut self, x: T) -> bool {
        self.queue.push_back(x);
        self.max_len = self.max_len.max(self.queue.len());
        !std::mem::replace(&mut self.busy, true)
    }

    /// The worker finished the head; returns it and whether the worker goes on.
    fn pop(&mut self) -> (T, bool) {
        let x = self.queue.pop_front().expect("a busy stage has work");
        self.busy = !self.queue.is_empty();
        (x, self.busy)
    }
}

pub struct Target<C> {
    pub requests: FifoStage<(C, CmdInfo)>,
    pub responses: FifoStage<C>,
    request_overhead: SimTime,
    response_overhead: SimTime,
    router: Box<dyn Router>,
    /// Commands received.
    pub commands: u64,
    /// Commands the router sent to a device other than the one they named.
    pub redirected: u64,
}

impl<C: Copy> Target<C> {
    pub fn new(request_overhead: SimTime, response_overhead: SimTime, router: Box<dyn Router>) -> Self {
        Target { requests: FifoStage::default(), responses: FifoStage::default(), request_overhead, response_overhead, router, commands: 0, redirected: 0 }
    }

    /// A command (with its write data) has fully arrived.
    pub fn command_arrived(&mut self, now: SimTime, cmd: C, info: CmdInfo, out: &mut Vec<TargetAction<C>>) {
        self.commands += 1;
        if self.request_overhead == SimTime::ZERO {
            return self.submit(now, cmd, &info, out);
        }
        if self.requests.push((cmd, info)) {
            out.push(TargetAction::Wake(now + self.request_overhead, Stage::Request));
        }
    }

    /// A device finished `cmd`: its completion joins the response queue.
    pub fn device_done(&mut self, now: SimTime, cmd: C, out: &mut Vec<TargetAction<C>>) {
        if self.response_overhead == SimTime::ZERO {
            return out.push(TargetAction::Respond(cmd));
        }
        if self.responses.push(cmd) {
            out.push(TargetAction::Wake(now + self.response_overhead, Stage::Response));
        }
    }

    /// A worker finished the command at the head of its queue.
    pub fn on_step_done(&mut self, now: SimTime, stage: Stage, out: &mut Vec<TargetAction<C>>) {
        match stage {
            Stage::Request => {
                let ((cmd, info), more) = self.requests.pop();
                if more {
                    out.push(TargetAction::Wake(now + self.request_overhead, Stage::Request));
                }
                self.submit(now, cmd, &info, out);
            }
            Stage::Response => {
                let (cmd, more) = self.responses.pop();
                if more {
                    out.push(TargetAction::Wake(now + self.response_overhead, Stage::Response));
                }
                out.push(TargetAction::Respond(cmd));
            }
        }
    }

    fn submit(&mut self, now: SimTime, cmd: C, info: &CmdInfo, out: &mut Vec<TargetAction<C>>) {
        let d = self.router.route(now, info);
        if d != info.device {
            self.redirected += 1;
        }
        out.push(TargetAction::Submit(cmd, d));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(d: u32, write: bool) -> CmdInfo {
        CmdInfo { host: HostId(0), device: DeviceId(d), write, offset: 0, bytes: 4096, class: Priority::High }
    }

    #[test]
    fn commands_pass_the_fifo_request_queue_one_overhead_each_in_order() {
        let us = SimTime::from_us;
        let mut t: Target<u32> = Target::new(us(2), us(1), Box::new(Direct));
        let mut out = Vec::new();
        t.command_arrived(us(0), 7, info(0, false), &mut out);
        t.command_arrived(us(0), 8, info(1, true), &mut out);
        assert_eq!(out, vec![TargetAction::Wake(us(2), Stage::Request)], "one worker: one step at a time");
        out.clear();
        t.on_step_done(us(2), Stage::Request, &mut out);
        assert_eq!(out, vec![TargetAction::Wake(us(4), Stage::Request), TargetAction::Submit(7, DeviceId(0))]);
        out.clear();
        t.on_step_done(us(4), Stage::Request, &mut out);
        assert_eq!(out, vec![TargetAction::Submit(8, DeviceId(1))]);
        out.clear();
        t.device_done(us(10), 8, &mut out);
        t.device_done(us(10), 7, &mut out);
        assert_eq!(out, vec![TargetAction::Wake(us(11), Stage::Response)]);
        out.clear();
        t.on_step_done(us(11), Stage::Response, &mut out);
        t.on_step_done(us(12), Stage::Response, &mut out);
        assert_eq!(out, vec![TargetAction::Wake(us(12), Stage::Response), TargetAction::Respond(8), TargetAction::Respond(7)]);
        assert_eq!((t.commands, t.requests.max_len, t.responses.max_len), (2, 2, 2));
    }

    #[test]
    fn without_overheads_commands_go_straight_through() {
        let mut t: Target<u32> = Target::new(SimTime::ZERO, SimTime::ZERO, Box::new(Direct));
        let mut out = Vec::new();
        t.command_arrived(SimTime::ZERO, 1, info(3, false), &mut out);
        t.device_done(SimTime::ZERO, 1, &mut out);
        assert_eq!(out, vec![TargetAction::Submit(1, DeviceId(3)), TargetAction::Respond(1)]);
    }

    #[test]
    fn the_routing_hook_decides_the_device() {
        // A write-redirecting agent in the shape PLMLight's will take: writes to device 9.
        struct WritesTo(DeviceId);
        impl Router for WritesTo {
            fn route(&mut self, _now: SimTime, c: &CmdInfo) -> DeviceId {
                if c.write { self.0 } else { c.device }
            }
        }
        let mut t: Target<u32> = Target::new(SimTime::ZERO, SimTime::ZERO, Box::new(WritesTo(DeviceId(9))));
        let mut out = Vec::new();
        t.command_arrived(SimTime::ZERO, 1, info(0, false), &mut out);
        t.command_arrived(SimTime::ZERO, 2, info(0, true), &mut out);
        assert_eq!(out, vec![TargetAction::Submit(1, DeviceId(0)), TargetAction::Submit(2, DeviceId(9))]);
        assert_eq!(t.redirected, 1);
    }
}
