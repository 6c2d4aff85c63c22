//! The NVMe-oF target of one storage server, sans-IO (SPEC §5; thesis 4.4.1): commands that
//! fully arrived pass its FIFO request queue (one worker, `request_overhead` each), are routed
//! to a device, and their completions pass its FIFO response queue (`response_overhead` each)
//! before they go back on the fabric.
//!
//! The caller feeds it arrivals, device completions and the ends of the two workers' steps, and
//! carries out the [`TargetAction`]s it emits, in order. The **routing hook** ([`Router`]) sits
//! between "command received" and "submitted to a device": by default a command goes to the
//! device it names; PLMLight's write-handling agent will redirect writes there. A router may
//! also start **background I/O** of its own (a flush of redirected writes to the SSD): it asks
//! for it in a [`RouterOut`], the caller carries it out at the device and reports its end with
//! [`Target::background_done`], which the router sees in [`Router::background_done`]. A router
//! may **hold** a command (route it nowhere yet: PLMLight defers reads beyond a host's DT counts
//! to the next NDWin) until it asks for the held commands to be routed again, and may ask to be
//! woken at a time (its own timers: window ends).

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
    /// The class the host tagged it with (an index into the run's classes).
    pub class_id: u16,
}

/// An I/O a router starts on its own, not a host's command: it occupies `device` like a command
/// of `host` in class `class` would, and nobody waits for it but the router.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BackgroundIo {
    pub host: HostId,
    pub device: DeviceId,
    pub write: bool,
    pub offset: u64,
    pub bytes: u32,
    /// The class it is treated as (an index into the run's classes, as in [`CmdInfo`]).
    pub class_id: u16,
    /// The router's own name for it, given back in [`Router::background_done`].
    pub tag: u32,
}

/// What a router asks for during one call (reused).
#[derive(Default, Debug)]
pub struct RouterOut {
    pub background: Vec<BackgroundIo>,
    /// Route the commands it holds again, in the order they arrived.
    pub release: bool,
    /// Call [`Router::on_wake`] at this time (a time already asked for is kept: the router
    /// ignores wake-ups it no longer needs).
    pub wake: Option<SimTime>,
}

/// Decides which device a command goes to once it leaves the request queue.
pub trait Router: Send + Sync {
    /// Its first call, when the run starts.
    fn start(&mut self, _now: SimTime, _out: &mut RouterOut) {}
    /// The device `cmd` goes to, or `None` to hold it until the router asks for a release.
    fn route(&mut self, now: SimTime, cmd: &CmdInfo, out: &mut RouterOut) -> Option<DeviceId>;
    /// Background I/O `tag` it started has completed at its device.
    fn background_done(&mut self, _now: SimTime, _tag: u32, _out: &mut RouterOut) {}
    /// A wake-up it asked for.
    fn on_wake(&mut self, _now: SimTime, _out: &mut RouterOut) {}
    /// Its own conservation check at the end of a run (bytes it took charge of are accounted).
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
    /// The time series it samples (metric names, in the order `sample` gives their values).
    fn series(&self) -> &'static [&'static str] {
        &[]
    }
    /// One value per name of `series`, as of `now`, pushed onto `values`. It may bring its own
    /// state up to `now` first (what it asks for then is carried out like any call's).
    fn sample(&mut self, _now: SimTime, _out: &mut RouterOut, _values: &mut Vec<f64>) {}
}

/// Every command to the device it names (NVMe-oF as specified).
#[derive(Default, Debug, Clone, Copy)]
pub struct Direct;

impl Router for Direct {
    #[inline]
    fn route(&mut self, _now: SimTime, cmd: &CmdInfo, _out: &mut RouterOut) -> Option<DeviceId> {
        Some(cmd.device)
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
    /// Start a router's background I/O at its device; report its end with `background_done`.
    Background(BackgroundIo),
    /// Call `router_wake` at this time.
    RouterWake(SimTime),
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
    router_out: RouterOut,
    /// Commands received.
    pub commands: u64,
    /// Commands the router sent to a device other than the one they named.
    pub redirected: u64,
    /// The router's background I/O: started, and completed.
    pub background: nest_core::Conservation,
    /// Commands the router holds, in arrival order; and how many it ever held.
    held: VecDeque<(C, CmdInfo)>,
    pub holds: u64,
}

impl<C: Copy> Target<C> {
    pub fn new(request_overhead: SimTime, response_overhead: SimTime, router: Box<dyn Router>) -> Self {
        Target {
            requests: FifoStage::default(),
            responses: FifoStage::default(),
            request_overhead,
            response_overhead,
            router,
            router_out: RouterOut::default(),
            commands: 0,
            redirected: 0,
            background: Default::default(),
            held: VecDeque::new(),
            holds: 0,
        }
    }

    /// Replaces the routing hook (a mechanism's agent at this server).
    pub fn set_router(&mut self, router: Box<dyn Router>) {
        self.router = router;
    }

    pub fn router(&self) -> &dyn Router {
        self.router.as_ref()
    }

    /// Commands the router holds now.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// The run starts: the router's first call.
    pub fn start_router(&mut self, now: SimTime, out: &mut Vec<TargetAction<C>>) {
        self.router.start(now, &mut self.router_out);
        self.take_router_out(now, out);
    }

    /// The router's time-series values as of `now` (see [`Router::sample`]).
    pub fn sample_router(&mut self, now: SimTime, values: &mut Vec<f64>, out: &mut Vec<TargetAction<C>>) {
        self.router.sample(now, &mut self.router_out, values);
        self.take_router_out(now, out);
    }

    /// A wake-up the router asked for.
    pub fn router_wake(&mut self, now: SimTime, out: &mut Vec<TargetAction<C>>) {
        self.router.on_wake(now, &mut self.router_out);
        self.take_router_out(now, out);
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

    /// Background I/O `tag` of the router completed at its device.
    pub fn background_done(&mut self, now: SimTime, tag: u32, out: &mut Vec<TargetAction<C>>) {
        self.background.complete(1);
        self.router.background_done(now, tag, &mut self.router_out);
        self.take_router_out(now, out);
    }

    fn submit(&mut self, now: SimTime, cmd: C, info: &CmdInfo, out: &mut Vec<TargetAction<C>>) {
        self.place(now, cmd, info, out);
        self.take_router_out(now, out);
    }

    /// Routes one command: to a device, or into the held queue.
    fn place(&mut self, now: SimTime, cmd: C, info: &CmdInfo, out: &mut Vec<TargetAction<C>>) {
        match self.router.route(now, info, &mut self.router_out) {
            Some(d) => {
                if d != info.device {
                    self.redirected += 1;
                }
                out.push(TargetAction::Submit(cmd, d));
            }
            None => {
                self.holds += 1;
                self.held.push_back((cmd, *info));
            }
        }
    }

    /// Carries out what the router asked for: background I/O, a wake-up, a release of what it
    /// holds (routed again in arrival order; a release asked for meanwhile is taken in turn).
    fn take_router_out(&mut self, now: SimTime, out: &mut Vec<TargetAction<C>>) {
        loop {
            for io in self.router_out.background.drain(..) {
                self.background.issue(1);
                out.push(TargetAction::Background(io));
            }
            if let Some(t) = self.router_out.wake.take() {
                out.push(TargetAction::RouterWake(t));
            }
            if !std::mem::take(&mut self.router_out.release) {
                return;
            }
            for _ in 0..self.held.len() {
                let (cmd, info) = self.held.pop_front().expect("counted");
                self.place(now, cmd, &info, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(d: u32, write: bool) -> CmdInfo {
        CmdInfo { host: HostId(0), device: DeviceId(d), write, offset: 0, bytes: 4096, class: Priority::High, class_id: 1 }
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
        // Writes go to a fast device (9); each is copied back to the device it named in the
        // background, and the router hears when a copy is done.
        #[derive(Default)]
        struct WritesTo {
            done: Vec<u32>,
        }
        impl Router for WritesTo {
            fn route(&mut self, _now: SimTime, c: &CmdInfo, out: &mut RouterOut) -> Option<DeviceId> {
                if !c.write {
                    return Some(c.device);
                }
                out.background.push(BackgroundIo {
                    host: c.host,
                    device: c.device,
                    write: true,
                    offset: c.offset,
                    bytes: c.bytes,
                    class_id: 3,
                    tag: 40 + c.bytes / 4096,
                });
                Some(DeviceId(9))
            }
            fn background_done(&mut self, _now: SimTime, tag: u32, _out: &mut RouterOut) {
                self.done.push(tag);
            }
        }
        let mut t: Target<u32> = Target::new(SimTime::ZERO, SimTime::ZERO, Box::new(WritesTo::default()));
        let mut out = Vec::new();
        t.command_arrived(SimTime::ZERO, 1, info(0, false), &mut out);
        t.command_arrived(SimTime::ZERO, 2, info(0, true), &mut out);
        let copy = BackgroundIo { host: HostId(0), device: DeviceId(0), write: true, offset: 0, bytes: 4096, class_id: 3, tag: 41 };
        assert_eq!(out, vec![TargetAction::Submit(1, DeviceId(0)), TargetAction::Submit(2, DeviceId(9)), TargetAction::Background(copy)]);
        assert_eq!(t.redirected, 1);
        assert_eq!(t.background.in_flight(), 1);
        out.clear();
        t.background_done(SimTime::from_us(5), 41, &mut out);
        assert!(out.is_empty());
        assert_eq!(t.background.in_flight(), 0);
    }

    #[test]
    fn a_router_holds_commands_until_it_releases_them_on_its_own_timer() {
        // Reads are held while a "window" is closed; at the wake-up it asked for at start the
        // window opens and the held reads go, in arrival order; writes are never held.
        struct Gate {
            open: bool,
        }
        impl Router for Gate {
            fn start(&mut self, now: SimTime, out: &mut RouterOut) {
                out.wake = Some(now + SimTime::from_us(10));
            }
            fn route(&mut self, _now: SimTime, c: &CmdInfo, _out: &mut RouterOut) -> Option<DeviceId> {
                (self.open || c.write).then_some(c.device)
            }
            fn on_wake(&mut self, _now: SimTime, out: &mut RouterOut) {
                self.open = true;
                out.release = true;
            }
        }
        let mut t: Target<u32> = Target::new(SimTime::ZERO, SimTime::ZERO, Box::new(Gate { open: false }));
        let mut out = Vec::new();
        t.start_router(SimTime::ZERO, &mut out);
        assert_eq!(out, vec![TargetAction::RouterWake(SimTime::from_us(10))]);
        out.clear();
        t.command_arrived(SimTime::from_us(1), 1, info(0, false), &mut out);
        t.command_arrived(SimTime::from_us(2), 2, info(1, true), &mut out);
        t.command_arrived(SimTime::from_us(3), 3, info(2, false), &mut out);
        assert_eq!(out, vec![TargetAction::Submit(2, DeviceId(1))]);
        assert_eq!((t.held(), t.holds), (2, 2));
        out.clear();
        t.router_wake(SimTime::from_us(10), &mut out);
        assert_eq!(out, vec![TargetAction::Submit(1, DeviceId(0)), TargetAction::Submit(3, DeviceId(2))]);
        assert_eq!((t.held(), t.holds, t.redirected), (0, 2, 0));
    }
}
