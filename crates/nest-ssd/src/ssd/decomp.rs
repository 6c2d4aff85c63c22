//! Where a command's time inside the SSD went: its device latency split into parts that add up
//! to it exactly, so a user can see why a tail request was slow (issue 22, "beyond MQSim").
//!
//! A command's own parts are its host-interface transfers, its wait for write-cache room and
//! its DRAM access. Between those, a command waits for its slowest part (the *critical
//! path*): the flash transaction (or DRAM access) that finished last. Each user transaction
//! (read, write, read-modify-write) keeps the time it spent in each stage — CMT miss, die
//! queue (and of that, the time the die spent on GC work), sense/program on the die, suspended
//! by a read, waiting for the channel, on the channel — and the last one to finish hands its
//! parts to the command. A read-modify-write's write carries its read's parts.
//!
//! The GC share of a die-queue wait is the time the die (or, when a chip runs one die at a
//! time, the chip) spent on GC operations while the transaction waited; the rest of the wait
//! is user, mapping and suspension work ahead of it.

use super::die::Die;
use super::txn::Kind;
use super::Ssd;
use nest_core::SimTime;

/// The parts of an SSD command's latency, in the order of [`DevParts`].
pub const DEV_PARTS: [&str; 11] =
    ["host_interface", "write_cache_wait", "dram", "mapping", "die_queue", "gc", "flash", "suspended", "channel_wait", "channel", "nd_delay"];

/// Command overhead and PCIe transfers in and out, with their waits for the link.
pub const HOST_IF: usize = 0;
/// A write waiting for room in the DRAM write cache (or for write-backs in flight).
pub const WRITE_CACHE: usize = 1;
/// DRAM cache access: a write into the cache, a read hit.
pub const DRAM: usize = 2;
/// Waiting for a mapping-table (CMT) miss to be read from flash.
pub const MAPPING: usize = 3;
/// Queued at the die (or chip) behind user and mapping work, suspensions, or for free pages.
pub const DIE_QUEUE: usize = 4;
/// Queued while the die (chip) ran garbage-collection work.
pub const GC: usize = 5;
/// On the die: command, sense or program.
pub const FLASH: usize = 6;
/// A program or erase put aside while a read ran (program/erase suspension).
pub const SUSPENDED: usize = 7;
/// Sensed data (or program data) waiting for the channel.
pub const CHANNEL_WAIT: usize = 8;
/// Moving over the channel.
pub const CHANNEL: usize = 9;
/// PLM: the extra delay of a command arriving in its set's NDWin (emulated management work).
pub const ND_DELAY: usize = 10;

/// Picoseconds per part ([`DEV_PARTS`]); they add up to the command's device latency.
pub type DevParts = [u64; DEV_PARTS.len()];

/// A user transaction's clock: parts so far, when the current stage began, and the die's GC
/// time when it joined the die queue.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct TxnTimes {
    pub(super) parts: DevParts,
    pub(super) mark: SimTime,
    pub(super) gc_mark: u64,
}

/// Whether transactions of this kind belong to a host command (and are timed).
#[inline]
pub(super) fn timed(kind: Kind) -> bool {
    matches!(kind, Kind::Read | Kind::Write | Kind::RmwRead)
}

impl Die {
    /// GC time of this die up to `now`.
    #[inline]
    pub(super) fn gc_ps_at(&self, now: SimTime) -> u64 {
        self.gc_ps + self.gc_since.map_or(0, |s| (now - s).0)
    }
}

impl Ssd {
    /// Sets `t`'s clock running from `now` (a new user transaction).
    #[inline]
    pub(super) fn start_clock(&mut self, t: u32, now: SimTime) {
        if self.times.len() <= t as usize {
            self.times.resize(t as usize + 1, TxnTimes::default());
        }
        self.times[t as usize] = TxnTimes { mark: now, ..Default::default() };
    }

    /// Ends user transaction `t`'s current stage at `now`, counting it as `part`.
    #[inline]
    pub(super) fn stamp(&mut self, t: u32, part: usize, now: SimTime) {
        if timed(self.txns[t as usize].kind) {
            let x = &mut self.times[t as usize];
            x.parts[part] += (now - x.mark).0;
            x.mark = now;
        }
    }

    /// `stamp` for die `d`'s batch entries `from..to`.
    #[inline]
    pub(super) fn stamp_batch(&mut self, d: u32, from: usize, to: usize, part: usize, now: SimTime) {
        let batch = self.dies[d as usize].batch;
        self.stamp_txns(&batch[from..to], part, now);
    }

    /// `stamp` for each of `batch` (e.g. one put aside by a suspension).
    #[inline]
    pub(super) fn stamp_txns(&mut self, batch: &[u32], part: usize, now: SimTime) {
        for &t in batch {
            self.stamp(t, part, now);
        }
    }

    /// GC time up to `now` of die `d` — of its whole chip when a chip runs one die at a time.
    pub(super) fn gc_busy(&self, d: u32, now: SimTime) -> u64 {
        if self.params.model.die_interleave {
            return self.dies[d as usize].gc_ps_at(now);
        }
        let dpc = self.layout.dims[2];
        let first = self.layout.chip_of_die(d) * dpc;
        self.dies[first as usize..(first + dpc) as usize].iter().map(|e| e.gc_ps_at(now)).sum()
    }

    /// User transaction `t` joined its die queue at `now` (the CMT wait, if any, ends).
    #[inline]
    pub(super) fn clock_enqueued(&mut self, t: u32, d: u32, now: SimTime) {
        if timed(self.txns[t as usize].kind) {
            self.stamp(t, MAPPING, now);
            self.times[t as usize].gc_mark = self.gc_busy(d, now);
        }
    }

    /// Die `d`'s batch starts at `now`: each transaction's queue wait ends, split into the GC
    /// work it waited behind and the rest.
    pub(super) fn clock_batch_start(&mut self, d: u32, now: SimTime) {
        let n = self.dies[d as usize].n as usize;
        let mut gc_now = None;
        for k in 0..n {
            let t = self.dies[d as usize].batch[k];
            if !timed(self.txns[t as usize].kind) {
                continue;
            }
            let g = *gc_now.get_or_insert_with(|| self.gc_busy(d, now));
            let x = &mut self.times[t as usize];
            let wait = (now - x.mark).0;
            let gc = g.saturating_sub(x.gc_mark).min(wait);
            x.parts[GC] += gc;
            x.parts[DIE_QUEUE] += wait - gc;
            x.mark = now;
        }
    }

    /// Die `d` starts (`true`) or stops running GC work at `now`.
    #[inline]
    pub(super) fn gc_clock(&mut self, d: u32, running: bool, now: SimTime) {
        let die = &mut self.dies[d as usize];
        if let Some(s) = die.gc_since.take() {
            die.gc_ps += (now - s).0;
        }
        if running {
            die.gc_since = Some(now);
        }
    }
}
