//! PLMLight's write-handling agent (thesis 3.6, Fig. 3.8): at the storage server, it decides
//! where each write to the SSD lands and flushes the writes it redirected to the fast device
//! (Optane-class) back to the SSD during NDWin.
//!
//! **Precedence** (the thesis gives both rules and not their order; SPEC §8 asks to state it):
//! 1. a write smaller than `small_below` (Workload II's < 64 KiB) goes to the fast device, and
//!    spends none of the write DC — the SSD never sees it in DTWin;
//! 2. otherwise, in DTWin, a write that fits in what is left of the device's write DC goes to
//!    the SSD and spends it (first come, first served across classes);
//! 3. a write beyond the cap in DTWin goes to the fast device, and means the write DC is
//!    exhausted: the device goes to NDWin;
//! 4. a write arriving in NDWin goes to the SSD, whose window allows it (SPEC §13.7: the WHA
//!    redirects the writes beyond the write DC, not every write of an NDWin); with
//!    `nd_to_fast` (`nd_writes = "fast"`, the earlier reading) it is parked too.
//!
//! When the fast device's `capacity` would be exceeded, a write goes to the SSD whatever the
//! window (counted: the agent has nowhere else to put it). A flush reads the write back from
//! the fast device and writes it to the SSD, `depth` at a time, as background I/O of the
//! write's host and class (it holds that host's SQ credit at each device while it is there).

use nest_core::{DeviceId, HostId};
use nest_nvme::{BackgroundIo, RouterOut};
use std::collections::VecDeque;

/// Where a write goes, and why.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// To the SSD, within the write DC.
    Ssd,
    /// To the fast device: smaller than `small_below`.
    FastSmall,
    /// To the fast device: beyond the write DC, or in NDWin.
    FastCap,
    /// To the SSD because the fast device is full.
    SsdFull,
    /// To the SSD: it arrived in NDWin.
    SsdNd,
}

/// A write parked on the fast device, waiting for its flush.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Parked {
    pub host: HostId,
    pub class_id: u16,
    pub offset: u64,
    pub bytes: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Wha {
    pub small_below: u32,
    pub capacity: u64,
    pub depth: u32,
    /// NDWin writes are parked too.
    pub nd_to_fast: bool,
    queue: VecDeque<Parked>,
    /// Flushes in flight by tag: the write, and whether it is at its SSD write (else at its
    /// fast-device read).
    flights: Vec<Option<(Parked, bool)>>,
    free: Vec<u32>,
    pub in_flight: u32,
    /// Bytes on the fast device not yet written to the SSD (queued or being flushed).
    pub parked_bytes: u64,
    pub peak_parked_bytes: u64,
    /// Bytes redirected to the fast device, and flushed from it to the SSD.
    pub to_fast_bytes: u64,
    pub flushed_bytes: u64,
    /// Writes per [`Place`]: Ssd, FastSmall, FastCap, SsdFull, SsdNd.
    pub writes: [u64; 5],
}

impl Wha {
    pub fn new(small_below: u32, capacity: u64, depth: u32, nd_to_fast: bool) -> Wha {
        assert!(depth > 0, "a flush depth of at least 1 (checked at resolution)");
        Wha { small_below, capacity, depth, nd_to_fast, ..Default::default() }
    }

    /// Where a write of `bytes` (`counts` in write-DC units) goes: `dt` whether the device is
    /// in DTWin, `left` what is left of its write DC.
    pub fn place(&self, bytes: u32, counts: u64, dt: bool, left: u64) -> Place {
        let room = self.parked_bytes + bytes as u64 <= self.capacity;
        if bytes < self.small_below {
            return if room { Place::FastSmall } else { Place::SsdFull };
        }
        if dt && counts <= left {
            return Place::Ssd;
        }
        if !dt && !self.nd_to_fast {
            return Place::SsdNd;
        }
        if room {
            Place::FastCap
        } else {
            Place::SsdFull
        }
    }

    /// Counts a decision; a write to the fast device is parked there for its flush.
    pub fn record(&mut self, place: Place, w: Parked) {
        self.writes[place as usize] += 1;
        if matches!(place, Place::FastSmall | Place::FastCap) {
            self.queue.push_back(w);
            self.parked_bytes += w.bytes as u64;
            self.to_fast_bytes += w.bytes as u64;
            self.peak_parked_bytes = self.peak_parked_bytes.max(self.parked_bytes);
        }
    }

    /// Starts flushes while fewer than `depth` are in flight: each first reads its write back
    /// from the fast device.
    pub fn pump(&mut self, fast: DeviceId, out: &mut RouterOut) {
        while self.in_flight < self.depth {
            let Some(w) = self.queue.pop_front() else { return };
            let tag = match self.free.pop() {
                Some(t) => {
                    self.flights[t as usize] = Some((w, false));
                    t
                }
                None => {
                    self.flights.push(Some((w, false)));
                    (self.flights.len() - 1) as u32
                }
            };
            self.in_flight += 1;
            out.background.push(BackgroundIo { host: w.host, device: fast, write: false, offset: w.offset, bytes: w.bytes, class_id: w.class_id, tag });
        }
    }

    /// Flush `tag`'s I/O finished: after its read from the fast device it is written to the
    /// SSD; after that write it is done (true).
    pub fn done(&mut self, tag: u32, ssd: DeviceId, out: &mut RouterOut) -> bool {
        let slot = self.flights.get_mut(tag as usize).expect("a flush tag the agent gave");
        let (w, at_ssd) = slot.as_mut().expect("a flush in flight");
        if !*at_ssd {
            *at_ssd = true;
            out.background.push(BackgroundIo { host: w.host, device: ssd, write: true, offset: w.offset, bytes: w.bytes, class_id: w.class_id, tag });
            return false;
        }
        let bytes = w.bytes as u64;
        *slot = None;
        self.free.push(tag);
        self.in_flight -= 1;
        self.parked_bytes -= bytes;
        self.flushed_bytes += bytes;
        true
    }

    /// Nothing left to flush and nothing being flushed.
    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.in_flight == 0
    }

    /// Writes parked and not yet being flushed.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Every byte redirected to the fast device has reached the SSD or is parked (queued or
    /// being flushed), and the parked bytes are what the queue and the flights hold.
    pub fn check(&self) -> Result<(), String> {
        let queued: u64 = self.queue.iter().map(|w| w.bytes as u64).sum();
        let flying: u64 = self.flights.iter().flatten().map(|(w, _)| w.bytes as u64).sum();
        if self.to_fast_bytes != self.flushed_bytes + self.parked_bytes || self.parked_bytes != queued + flying {
            return Err(format!(
                "write-handling agent: {} bytes redirected to the fast device, {} flushed to the SSD, {} parked ({} queued + {} being flushed)",
                self.to_fast_bytes, self.flushed_bytes, self.parked_bytes, queued, flying
            ));
        }
        Ok(())
    }
}
