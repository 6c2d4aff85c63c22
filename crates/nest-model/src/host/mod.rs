//! A host: the requests its workloads generate wait in one FIFO queue per class priority and
//! are dispatched urgent-first (SPEC §3 "host send queues per class with priority treatment"),
//! while the host keeps at most `queue_depth` requests outstanding at devices (its NVMe/iodepth
//! limit). Waiting in these queues is the "host queueing" part of the latency decomposition.

pub mod gate;
pub mod initiator;
pub mod oracle;
pub mod pool;
pub mod volume;

use nest_core::DeviceId;
use crate::request::ReqId;
use nest_config::resolve::Priority;
use nest_core::conservation::Conservation;
use std::collections::VecDeque;

pub struct Host {
    pub name: String,
    queue_depth: u32,
    outstanding: u32,
    queues: [VecDeque<(ReqId, DeviceId)>; Priority::COUNT],
    pub books: Conservation,
}

impl Host {
    pub fn new(name: &str, queue_depth: u32) -> Self {
        Host { name: name.to_string(), queue_depth, outstanding: 0, queues: Default::default(), books: Conservation::default() }
    }

    /// Queues a new request (with its target device) at its priority.
    #[inline]
    pub fn enqueue(&mut self, r: ReqId, device: DeviceId, prio: Priority) {
        self.books.issue(1);
        self.queues[prio as usize].push_back((r, device));
    }

    /// Picks the next request to send: the head of the most urgent non-empty queue whose device
    /// can take it (`can_accept(request, device)`). `None` when the outstanding limit is
    /// reached or nothing can go.
    #[inline]
    pub fn next_dispatch(&mut self, can_accept: impl Fn(ReqId, DeviceId) -> bool) -> Option<(ReqId, DeviceId)> {
        if self.outstanding >= self.queue_depth {
            return None;
        }
        for q in self.queues.iter_mut() {
            if let Some(&(r, d)) = q.front() {
                if can_accept(r, d) {
                    q.pop_front();
                    self.outstanding += 1;
                    return Some((r, d));
                }
            }
        }
        None
    }

    #[inline]
    pub fn completed(&mut self) {
        self.outstanding -= 1;
        self.books.complete(1);
    }

    /// The host crashed: what waits in its queues is gone (dropped from its books).
    pub fn drop_waiting(&mut self) -> Vec<ReqId> {
        let gone: Vec<ReqId> = self.queues.iter_mut().flat_map(|q| q.drain(..).map(|(r, _)| r)).collect();
        self.books.drop_n(gone.len() as u64);
        gone
    }

    pub fn waiting(&self) -> usize {
        self.queues.iter().map(|q| q.len()).sum()
    }
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }
}
