//! The ideal device: `servers` identical parallel servers in front of one FIFO queue, with a
//! service time per operation drawn from a configured distribution plus an optional transfer
//! component (size / bandwidth).
//!
//! What it models: a device whose only behaviour is queueing and a service-time law — a
//! legitimate model (M/G/k when arrivals are Poisson) for isolating host and network effects,
//! and for validating the engine against queueing theory. What it does not model: anything
//! inside a real SSD (channels, dies, FTL, GC, caches): that is the SSD model's job.
//!
//! Events: the device schedules `DeviceDone(d, r)` when `r` enters service.

use crate::request::ReqId;
use nest_config::resolve::IdealDevicePlan;
use nest_core::conservation::Conservation;
use nest_core::rng::RngStream;
use nest_core::units::transfer_time;
use nest_core::SimTime;
use nest_workload::dist::TimeDist;
use nest_workload::Op;
use std::collections::VecDeque;

pub struct IdealDevice {
    pub name: String,
    servers: u32,
    busy: u32,
    queue: VecDeque<ReqId>,
    queue_depth: u32,
    read: TimeDist,
    write: TimeDist,
    read_bps: Option<f64>,
    write_bps: Option<f64>,
    rng: RngStream,
    pub books: Conservation,
    /// Integral of busy servers over time (for utilisation) and of queue length.
    busy_area: u128,
    queue_area: u128,
    last_change: SimTime,
}

impl IdealDevice {
    pub fn new(name: &str, plan: &IdealDevicePlan, seed: u64, index: u64) -> Self {
        IdealDevice {
            name: name.to_string(),
            servers: plan.servers,
            busy: 0,
            queue: VecDeque::new(),
            queue_depth: plan.queue_depth,
            read: plan.read.clone(),
            write: plan.write.clone(),
            read_bps: plan.read_bps,
            write_bps: plan.write_bps,
            rng: RngStream::derive(seed, "ideal_device", index, "service"),
            books: Conservation::default(),
            busy_area: 0,
            queue_area: 0,
            last_change: SimTime::ZERO,
        }
    }

    #[inline]
    fn account(&mut self, now: SimTime) {
        let dt = (now.0 - self.last_change.0) as u128;
        self.busy_area += dt * self.busy as u128;
        self.queue_area += dt * self.queue.len() as u128;
        self.last_change = now;
    }

    /// Whether one more request fits under the device's queue depth.
    #[inline]
    pub fn can_accept(&self) -> bool {
        (self.busy as u64 + self.queue.len() as u64) < self.queue_depth as u64
    }

    /// Draws a service time for an operation of `size` bytes.
    #[inline]
    pub fn service_time(&mut self, op: Op, size: u32) -> SimTime {
        let (dist, bps) = match op {
            Op::Read => (&self.read, self.read_bps),
            Op::Write => (&self.write, self.write_bps),
        };
        let base = dist.sample(&mut self.rng);
        match bps {
            Some(b) => base + transfer_time(size as u64, b),
            None => base,
        }
    }

    /// Accepts a request: returns `true` if it enters service now (caller schedules its
    /// completion), `false` if it waits in the device queue.
    #[inline]
    pub fn submit(&mut self, now: SimTime, r: ReqId) -> bool {
        self.account(now);
        self.books.issue(1);
        if self.busy < self.servers {
            self.busy += 1;
            true
        } else {
            self.queue.push_back(r);
            false
        }
    }

    /// A request finished service; returns the next request to serve, if any (its server stays
    /// busy, so the caller schedules its completion).
    #[inline]
    pub fn finish(&mut self, now: SimTime) -> Option<ReqId> {
        self.account(now);
        self.books.complete(1);
        match self.queue.pop_front() {
            Some(next) => Some(next),
            None => {
                self.busy -= 1;
                None
            }
        }
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }
    pub fn busy(&self) -> u32 {
        self.busy
    }
    pub fn servers(&self) -> u32 {
        self.servers
    }
    /// Mean busy fraction of the servers and mean queue length up to `now`.
    pub fn utilisation(&mut self, now: SimTime) -> (f64, f64) {
        self.account(now);
        if now.0 == 0 {
            return (0.0, 0.0);
        }
        (self.busy_area as f64 / (now.0 as f64 * self.servers as f64), self.queue_area as f64 / now.0 as f64)
    }
    /// Requests inside the device (queued or in service), for conservation checks.
    pub fn in_system(&self) -> u64 {
        self.busy as u64 + self.queue.len() as u64
    }
}
