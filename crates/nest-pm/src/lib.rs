//! Persistent memory / storage-class memory device (SPEC §7).
//!
//! Byte-addressable accesses (1–4 × 64 B lines, the "memory model") and 512 B–4 KiB block
//! accesses (the "storage model") alike: a request occupies one of `units` independent units
//! (interleaved modules) for its media latency (a few hundred ns, plus optional uniform jitter),
//! while its data, rounded up to whole `line`s, crosses one shared media pipe of the direction's
//! bandwidth. It completes when both are done: small accesses are latency-bound, large ones
//! bandwidth-bound. No flash backend, no garbage collection, and no urgent class inside the
//! device (thesis 4.5.2: urgent traffic does not compete inside the PM).
#![deny(unsafe_code)]

use nest_core::rng::RngStream;
use nest_core::{Conservation, SimTime};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub struct PmParams {
    pub capacity: u64,
    pub read: SimTime,
    pub write: SimTime,
    pub jitter: SimTime,
    /// Bytes per second.
    pub read_bw: f64,
    pub write_bw: f64,
    pub line: u32,
    pub units: u32,
    pub queue_depth: u32,
}

impl Default for PmParams {
    /// An Optane DC PMM-like module set: ~300 ns reads, ~500 ns writes (to the ADR domain),
    /// 256 B media lines, 6 interleaved modules, ~39 GB/s read and ~13 GB/s write in total.
    fn default() -> Self {
        PmParams {
            capacity: 256 << 30,
            read: SimTime::from_ns(300),
            write: SimTime::from_ns(500),
            jitter: SimTime::from_ns(200),
            read_bw: 39e9,
            write_bw: 13e9,
            line: 256,
            units: 6,
            queue_depth: 1024,
        }
    }
}

impl PmParams {
    pub fn validate(&self) -> Vec<(String, String)> {
        let mut e = Vec::new();
        if self.units == 0 {
            e.push(("units".into(), "expected at least 1".into()));
        }
        if self.line == 0 || !self.line.is_power_of_two() {
            e.push(("line".into(), "expected a power of two of bytes (64, 256, …)".into()));
        }
        // Written so that NaN is refused too.
        if self.read_bw.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || self.write_bw.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            e.push(("read_bandwidth".into(), "expected positive bandwidths".into()));
        }
        if self.queue_depth == 0 {
            e.push(("queue_depth".into(), "expected at least 1".into()));
        }
        if self.capacity < 4096 {
            e.push(("capacity".into(), "expected at least 4 KiB".into()));
        }
        e
    }
}

pub struct PmDevice {
    pub params: PmParams,
    busy: u32,
    queue: VecDeque<(u32, bool, u32)>,
    pipe_free: [SimTime; 2],
    rng: RngStream,
    pub books: Conservation,
    busy_ps: u64,
    pub bytes_moved: u64,
}

impl PmDevice {
    pub fn new(params: PmParams, seed: u64, index: u64) -> Self {
        PmDevice {
            params,
            busy: 0,
            queue: VecDeque::new(),
            pipe_free: [SimTime::ZERO; 2],
            rng: RngStream::derive(seed, "pm", index, "jitter"),
            books: Conservation::default(),
            busy_ps: 0,
            bytes_moved: 0,
        }
    }

    #[inline]
    pub fn can_accept(&self) -> bool {
        (self.busy as usize + self.queue.len()) < self.params.queue_depth as usize
    }

    fn start(&mut self, now: SimTime, write: bool, size: u32) -> SimTime {
        let p = &self.params;
        let line = p.line as u64;
        let bytes = (size.max(1) as u64).div_ceil(line) * line;
        self.bytes_moved += bytes;
        let (lat, bw) = if write { (p.write, p.write_bw) } else { (p.read, p.read_bw) };
        let jitter = if p.jitter.0 > 0 { SimTime(self.rng.below(p.jitter.0 + 1)) } else { SimTime::ZERO };
        let pipe = &mut self.pipe_free[write as usize];
        let xfer = SimTime((bytes as f64 / bw * 1e12).round() as u64);
        *pipe = now.max(*pipe) + xfer;
        let done = (now + lat + jitter).max(*pipe);
        self.busy_ps += (done - now).0;
        done
    }

    /// Accepts request `tag`; returns its completion time if a unit takes it now.
    pub fn submit(&mut self, now: SimTime, tag: u32, write: bool, size: u32) -> Option<SimTime> {
        self.books.issue(1);
        if self.busy < self.params.units {
            self.busy += 1;
            Some(self.start(now, write, size))
        } else {
            self.queue.push_back((tag, write, size));
            None
        }
    }

    /// A request finished; returns the next one started on the freed unit and its completion.
    pub fn finish(&mut self, now: SimTime) -> Option<(u32, SimTime)> {
        self.books.complete(1);
        match self.queue.pop_front() {
            Some((tag, write, size)) => Some((tag, self.start(now, write, size))),
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
    pub fn in_system(&self) -> u64 {
        self.busy as u64 + self.queue.len() as u64
    }
    /// Mean busy fraction of the units up to `now`.
    pub fn utilisation(&self, now: SimTime) -> f64 {
        self.busy_ps as f64 / (now.0.max(1) as f64 * self.params.units as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_accesses_are_latency_bound_large_ones_bandwidth_bound() {
        let p = PmParams { jitter: SimTime::ZERO, ..Default::default() };
        let mut d = PmDevice::new(p.clone(), 1, 0);
        let t = d.submit(SimTime::ZERO, 0, false, 128).unwrap();
        assert_eq!(t, p.read, "a 128 B read takes the media latency");
        let mut d = PmDevice::new(p.clone(), 1, 0);
        let t = d.submit(SimTime::ZERO, 0, true, 1 << 20).unwrap();
        let xfer = (1u64 << 20) as f64 / p.write_bw * 1e12;
        assert!((t.0 as f64 - xfer).abs() < 2.0, "1 MiB write is bandwidth-bound");
    }

    #[test]
    fn sizes_round_up_to_lines_and_units_queue() {
        let p = PmParams { units: 1, jitter: SimTime::ZERO, ..Default::default() };
        let mut d = PmDevice::new(p, 1, 0);
        d.submit(SimTime::ZERO, 0, false, 64).unwrap();
        assert_eq!(d.bytes_moved, 256);
        assert!(d.submit(SimTime::ZERO, 1, false, 64).is_none(), "one unit: the second waits");
        let (tag, t) = d.finish(SimTime::from_ns(300)).unwrap();
        assert_eq!(tag, 1);
        assert_eq!(t, SimTime::from_ns(600));
        assert!(d.finish(t).is_none());
        assert_eq!(d.in_system(), 0);
    }

    #[test]
    fn jitter_stays_in_range() {
        let p = PmParams::default();
        let mut d = PmDevice::new(p.clone(), 3, 0);
        for i in 0..1000 {
            let now = SimTime::from_us(i * 10);
            let t = d.submit(now, 0, false, 128).unwrap() - now;
            assert!(t >= p.read && t <= p.read + p.jitter);
            d.finish(now + t);
        }
    }
}
