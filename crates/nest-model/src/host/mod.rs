//! A host: the requests its workloads generate wait in one FIFO queue per class priority and
//! are dispatched urgent-first (SPEC §3 "host send queues per class with priority treatment"),
//! while the host keeps at most `queue_depth` requests outstanding at devices (its NVMe/iodepth
//! limit). Waiting in these queues is the "host queueing" part of the latency decomposition.

pub mod gate;
pub mod initiator;
pub mod oracle;
pub mod pool;
pub mod volume;

use crate::request::ReqId;
use nest_config::resolve::Priority;
use nest_core::conservation::Conservation;
use nest_core::DeviceId;
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

    /// Queues a new request (with its target device) at its priority. True when nothing was
    /// waiting before: the caller lists the host in its [`WaitingHosts`].
    #[inline]
    #[must_use = "a host that starts waiting must be listed in WaitingHosts"]
    pub fn enqueue(&mut self, r: ReqId, device: DeviceId, prio: Priority) -> bool {
        let first = self.queues.iter().all(|q| q.is_empty());
        self.books.issue(1);
        self.queues[prio as usize].push_back((r, device));
        first
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

/// The hosts that may have requests waiting (a superset: a host leaves when it is found empty),
/// in index order. Waking the hosts after a device freed room visits these instead of every
/// host: with 5,488 hosts that loop was the largest single cost of a 10,000-drive run's event
/// loop (~15 % of its samples, issue 24).
#[derive(Default)]
pub struct WaitingHosts {
    words: Vec<u64>,
}

impl WaitingHosts {
    pub fn new(hosts: usize) -> Self {
        WaitingHosts { words: vec![0; hosts.div_ceil(64)] }
    }
    #[inline]
    pub fn insert(&mut self, h: usize) {
        self.words[h / 64] |= 1 << (h % 64);
    }
    #[inline]
    pub fn remove(&mut self, h: usize) {
        self.words[h / 64] &= !(1 << (h % 64));
    }
    /// The first listed host at or after `from`.
    #[inline]
    pub fn first_from(&self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        let mut bits = *self.words.get(w)? & (!0u64 << (from % 64));
        loop {
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
            w += 1;
            bits = *self.words.get(w)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_hosts_in_index_order() {
        let mut w = WaitingHosts::new(200);
        assert_eq!(w.first_from(0), None);
        for h in [199, 3, 64, 63, 130] {
            w.insert(h);
        }
        let mut seen = Vec::new();
        let mut at = w.first_from(0);
        while let Some(h) = at {
            seen.push(h);
            at = w.first_from(h + 1);
        }
        assert_eq!(seen, vec![3, 63, 64, 130, 199]);
        w.remove(64);
        assert_eq!(w.first_from(64), Some(130));
        assert_eq!(w.first_from(200), None);
    }

    #[test]
    fn enqueue_says_when_a_host_starts_waiting() {
        let mut h = Host::new("h", 4);
        assert!(h.enqueue(ReqId(0), DeviceId(0), Priority::High));
        assert!(!h.enqueue(ReqId(1), DeviceId(0), Priority::Low));
        assert_eq!(h.waiting(), 2);
    }
}
