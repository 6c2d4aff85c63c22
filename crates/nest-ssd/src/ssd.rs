//! The timed SSD: host interface, data cache, CMT, per-die transaction queues with the
//! device-level QoS arbiter, dies and channels, garbage collection.
//!
//! Sans-IO towards the engine: `submit` and `handle` take the current time and an [`Outbox`]
//! into which the SSD puts the events it wants scheduled (`SsdEvent`, delivered back through
//! `handle`) and the tags of host commands that completed. The outbox is reused, so the hot
//! path allocates nothing.
//!
//! A die operation: reads sense (command + tR, die busy) then move data out over the channel;
//! programs move data in over the channel then program (tPROG); erases take tBERS. Up to one
//! transaction per plane of a die runs as one multi-plane operation (same kind). The channel
//! is a FIFO resource shared by the dies on it.

use crate::cache::DataCache;
use crate::cmt::{Cmt, Lookup};
use crate::ftl::{Ftl, GcNeed};
use crate::geometry::{Layout, NONE};
use crate::params::{Allocation, SsdParams, MAX_PLANES_PER_DIE};
use nest_core::rng::RngStream;
use nest_core::wrr::Wrr;
use nest_core::SimTime;
use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SsdEvent {
    /// A die finished its sense, program or erase.
    Die(u32),
    /// A channel finished a data transfer.
    Channel(u32),
    /// The DRAM part of a command finished.
    Dram(u32),
    /// A write command's data arrived over PCIe.
    HostIn(u32),
    /// A read command's data left over PCIe: the command completes.
    HostOut(u32),
}

#[derive(Default)]
pub struct Outbox {
    pub events: Vec<(SimTime, SsdEvent)>,
    /// Tags of completed host commands.
    pub done: Vec<u32>,
}

/// Classes of the device-level queues: 0 urgent, 1 high, 2 medium, 3 low.
pub const CLASSES: usize = 4;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    /// Read half of a sub-page write (read-modify-write).
    RmwRead,
    Flush,
    MapRead,
    MapWrite,
    GcRead,
    GcWrite,
    Erase,
}

impl Kind {
    fn is_program(self) -> bool {
        matches!(self, Kind::Write | Kind::Flush | Kind::MapWrite | Kind::GcWrite)
    }
    fn is_sense(self) -> bool {
        matches!(self, Kind::Read | Kind::RmwRead | Kind::MapRead | Kind::GcRead)
    }
}

#[derive(Copy, Clone, Debug)]
struct Txn {
    kind: Kind,
    class: u8,
    lpa: u32,
    /// Source page of reads and moves; block id of erases; page written by programs.
    ppa: u32,
    plane: u32,
    /// Command slot (Read/Write/RmwRead), cache slot (Flush), translation page (Map*),
    /// plane (Gc*, Erase).
    owner: u32,
    bytes: u32,
    /// Link in a CMT wait list.
    next: u32,
}

#[derive(Copy, Clone, Debug)]
struct Cmd {
    tag: u32,
    write: bool,
    class: u8,
    bytes: u32,
    first_lpa: u32,
    npages: u32,
    /// Byte offset of the command inside its first page.
    head: u32,
    remaining: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Sense,
    WaitOut,
    Out,
    WaitIn,
    In,
    Program,
    Erase,
    /// Suspending a program or erase; the suspending batch starts when this ends.
    Suspending,
}

/// A program or erase put aside by a suspension.
#[derive(Copy, Clone, Debug)]
struct Suspended {
    phase: Phase,
    batch: [u32; MAX_PLANES_PER_DIE as usize],
    n: u8,
    remaining: SimTime,
    /// Suspensions of this operation so far (this one included).
    count: u8,
}

const Q_MAP_READ: usize = 2 * CLASSES;
const Q_GC: usize = 2 * CLASSES + 1;
const Q_MAP_WRITE: usize = 2 * CLASSES + 2;
const NQ: usize = 2 * CLASSES + 3;
/// How far down a queue the scheduler looks for transactions to join a multi-plane batch or
/// to find a write whose plane has room (out-of-order within a die).
const SCAN: usize = 32;

struct Die {
    phase: Phase,
    batch: [u32; MAX_PLANES_PER_DIE as usize],
    n: u8,
    xfer_bytes: u64,
    started: SimTime,
    busy_ps: u64,
    /// Queues 0..8: user reads/writes per class (class·2 + write); then mapping reads, GC,
    /// mapping writes.
    q: [VecDeque<u32>; NQ],
    /// WRR state of the read and the write queues.
    wrr: [Wrr; 2],
    next_plane: u32,
    /// Non-preemptible GC: whether GC has the die's next turn.
    gc_turn: bool,
    /// When the current sense, program, erase or suspension ends.
    end: SimTime,
    /// Suspensions the current operation has had.
    op_suspends: u8,
    suspended: Option<Suspended>,
    /// End times of suspended operations whose `Die` events are still in the queue: each
    /// drops one event at that time (events cannot be taken back out of the queue).
    stale: Vec<SimTime>,
}

struct Channel {
    busy: bool,
    die: u32,
    waiting: VecDeque<u32>,
    busy_ps: u64,
}

#[derive(Copy, Clone, Debug, Default)]
struct GcJob {
    victim: u32,
    pending: u32,
    started: SimTime,
}

/// Counters reported per device.
#[derive(Clone, Debug, Default)]
pub struct SsdCounters {
    pub commands: u64,
    pub read_pages: u64,
    pub write_pages: u64,
    pub flash_reads: u64,
    pub map_reads: u64,
    pub map_writes: u64,
    pub gc_moves: u64,
    pub gc_time_ps: u64,
    pub rmw_reads: u64,
    pub write_stalls: u64,
    pub program_suspends: u64,
    pub erase_suspends: u64,
}

pub struct Ssd {
    pub params: SsdParams,
    pub layout: Layout,
    pub ftl: Ftl,
    cmt: Option<Cmt>,
    cache: Option<DataCache>,
    txns: Vec<Txn>,
    free_txns: Vec<u32>,
    cmds: Vec<Cmd>,
    free_cmds: Vec<u32>,
    dies: Vec<Die>,
    channels: Vec<Channel>,
    gc: Vec<Option<GcJob>>,
    /// Soft GC may not start (PLM's deterministic window).
    soft_gc_deferred: bool,
    /// Writes waiting for cache slots, per class (urgent, high, medium, low). Without
    /// device-level QoS one FIFO (index 0); with it, the cache's admission is one more internal
    /// queueing point arbitrated by the rule of the chip queues (urgent first, then WRR): when
    /// writes outrun the flash, this is where they wait, so a FIFO here would undo the
    /// per-class service.
    cache_wait: [VecDeque<u32>; CLASSES],
    cache_wrr: Wrr,
    pcie_in_free: SimTime,
    pcie_out_free: SimTime,
    dram_free: SimTime,
    rng: RngStream,
    scratch: Vec<(u32, u32)>,
    scratch_txns: Vec<u32>,
    in_flight: u32,
    pub counters: SsdCounters,
    logical_pages: u32,
}

impl Ssd {
    pub fn new(params: SsdParams, seed: u64, index: u64) -> Result<Self, String> {
        if let Some((k, m)) = params.validate().into_iter().next() {
            return Err(format!("{k}: {m}"));
        }
        let layout = Layout::new(&params.geometry, &params.ftl.allocation);
        let logical = params.logical_pages();
        let ftl = Ftl::new(layout.clone(), logical, &params.ftl, params.soft_free_blocks(), params.hard_free_blocks());
        let cmt = params.ftl.cmt_bytes.map(|b| Cmt::new(logical, params.geometry.page_size, b));
        let cache = (params.cache.mode != crate::params::CacheMode::Off).then(|| DataCache::new(params.cache_slots(), logical, params.cache.flush_reserve));
        let dies = (0..layout.dies)
            .map(|_| Die { phase: Phase::Idle, batch: [NONE; MAX_PLANES_PER_DIE as usize], n: 0, xfer_bytes: 0, started: SimTime::ZERO, busy_ps: 0, q: Default::default(), wrr: [Wrr::new(params.sched.weights), Wrr::new(params.sched.weights)], next_plane: 0, gc_turn: true, end: SimTime::ZERO, op_suspends: 0, suspended: None, stale: Vec::new() })
            .collect();
        let channels = (0..params.geometry.channels).map(|_| Channel { busy: false, die: NONE, waiting: VecDeque::new(), busy_ps: 0 }).collect();
        let mut ssd = Ssd {
            gc: vec![None; layout.planes as usize],
            layout,
            ftl,
            cmt,
            cache,
            txns: Vec::with_capacity(1024),
            free_txns: Vec::new(),
            cmds: Vec::with_capacity(params.host.queue_depth as usize),
            free_cmds: Vec::new(),
            dies,
            channels,
            soft_gc_deferred: false,
            cache_wait: Default::default(),
            cache_wrr: Wrr::new(params.sched.weights),
            pcie_in_free: SimTime::ZERO,
            pcie_out_free: SimTime::ZERO,
            dram_free: SimTime::ZERO,
            rng: RngStream::derive(seed, "ssd", index, "gc"),
            scratch: Vec::new(),
            scratch_txns: Vec::new(),
            in_flight: 0,
            counters: SsdCounters::default(),
            logical_pages: logical as u32,
            params,
        };
        if let Some(p) = ssd.params.precondition.clone() {
            ssd.precondition(p.occupancy, p.overwrites, seed, index);
        }
        Ok(ssd)
    }

    /// Fills the drive to steady state before time 0 (see `params::Precondition`): LPAs
    /// 0..n in order, then random overwrites among them. Dynamic allocation spreads the writes
    /// over the planes in turn.
    fn precondition(&mut self, occupancy: f64, overwrites: f64, seed: u64, index: u64) {
        let n = (self.logical_pages as f64 * occupancy) as u64;
        let m = (n as f64 * overwrites) as u64;
        let mut rng = RngStream::derive(seed, "ssd", index, "precondition");
        let mut scratch = std::mem::take(&mut self.scratch);
        for k in 0..n + m {
            let lpa = if k < n { k } else { rng.below(n) };
            let plane = match self.params.ftl.allocation {
                Allocation::Static(_) => self.layout.static_plane(lpa),
                Allocation::Dynamic => (k % self.layout.planes as u64) as u32,
            };
            self.ftl.write_instant(lpa as u32, plane, &mut self.rng, &mut scratch);
        }
        self.scratch = scratch;
        // Preconditioning is not part of the measured run.
        self.ftl.counters = Default::default();
    }

    // ---- host side ----

    /// Whether the controller has a free command slot.
    #[inline]
    pub fn can_accept(&self) -> bool {
        self.in_flight < self.params.host.queue_depth
    }

    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    pub fn capacity(&self) -> u64 {
        self.params.capacity()
    }

    /// PLM hook: while set, soft GC does not start (hard GC still does).
    pub fn set_soft_gc_deferred(&mut self, now: SimTime, deferred: bool, out: &mut Outbox) {
        self.soft_gc_deferred = deferred;
        if !deferred {
            for p in 0..self.layout.planes {
                self.maybe_start_gc(now, p, out);
            }
        }
    }

    /// Accepts a host command (`class`: 0 urgent, 1 high, 2 medium, 3 low).
    pub fn submit(&mut self, now: SimTime, tag: u32, write: bool, offset: u64, size: u32, class: u8, out: &mut Outbox) {
        let ps = self.layout.page_size as u64;
        let size = size.max(1);
        let first = offset / ps;
        let last = (offset + size as u64 - 1) / ps;
        let cmd = Cmd {
            tag,
            write,
            class: class.min(3),
            bytes: size,
            first_lpa: (first % self.logical_pages as u64) as u32,
            npages: (last - first + 1) as u32,
            head: (offset % ps) as u32,
            remaining: 0,
        };
        let c = match self.free_cmds.pop() {
            Some(c) => {
                self.cmds[c as usize] = cmd;
                c
            }
            None => {
                self.cmds.push(cmd);
                (self.cmds.len() - 1) as u32
            }
        };
        self.in_flight += 1;
        self.counters.commands += 1;
        let overhead = self.params.host.command_overhead;
        if write {
            let start = (now + overhead).max(self.pcie_in_free);
            let t = start + self.params.host.transfer_time(size as u64);
            self.pcie_in_free = t;
            out.events.push((t, SsdEvent::HostIn(c)));
        } else {
            self.start_read(now, c, out);
        }
    }

    /// Bytes of page `i` of command `c` that the command covers.
    #[inline]
    fn page_bytes(&self, c: &Cmd, i: u32) -> u32 {
        let ps = self.layout.page_size;
        let start = if i == 0 { c.head } else { 0 };
        let end = ((c.head as u64 + c.bytes as u64) - i as u64 * ps as u64).min(ps as u64) as u32;
        end - start
    }

    #[inline]
    fn lpa_of(&self, c: &Cmd, i: u32) -> u32 {
        let l = c.first_lpa + i;
        if l >= self.logical_pages {
            l - self.logical_pages
        } else {
            l
        }
    }

    fn start_read(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        let cmd = self.cmds[c as usize];
        let mut dram_bytes = 0u64;
        let mut flash = 0u32;
        for i in 0..cmd.npages {
            let lpa = self.lpa_of(&cmd, i);
            let bytes = self.page_bytes(&cmd, i);
            self.counters.read_pages += 1;
            if self.cache.as_mut().is_some_and(|k| k.read(lpa)) {
                dram_bytes += bytes as u64;
                continue;
            }
            flash += 1;
            let t = self.new_txn(Txn { kind: Kind::Read, class: cmd.class, lpa, ppa: NONE, plane: NONE, owner: c, bytes, next: NONE });
            self.route(now, t, out);
        }
        self.cmds[c as usize].remaining += flash;
        if dram_bytes > 0 {
            self.cmds[c as usize].remaining += 1;
            self.dram_access(now, c, dram_bytes, out);
        }
    }

    fn dram_access(&mut self, now: SimTime, c: u32, bytes: u64, out: &mut Outbox) {
        let t = now.max(self.dram_free) + self.params.cache.access_time(bytes);
        self.dram_free = t;
        out.events.push((t, SsdEvent::Dram(c)));
    }

    fn start_write(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        let cmd = self.cmds[c as usize];
        self.counters.write_pages += cmd.npages as u64;
        let cacheable = self.params.cache.mode.writes() && self.cache.as_ref().is_some_and(|k| cmd.npages <= k.slots);
        if cacheable {
            if self.cache_wait.iter().all(|q| q.is_empty()) && self.cache_admits(&cmd) {
                self.cache_write(now, c, out);
            } else {
                let q = if self.params.sched.device_qos { cmd.class as usize } else { 0 };
                self.cache_wait[q].push_back(c);
                self.counters.write_stalls += 1;
                self.admit_waiting(now, out);
            }
            return;
        }
        self.cmds[c as usize].remaining = cmd.npages;
        for i in 0..cmd.npages {
            let lpa = self.lpa_of(&cmd, i);
            let bytes = self.page_bytes(&cmd, i);
            let partial = bytes < self.layout.page_size && self.ftl.lookup(lpa).is_some();
            let kind = if partial { Kind::RmwRead } else { Kind::Write };
            if partial {
                self.counters.rmw_reads += 1;
            }
            let t = self.new_txn(Txn { kind, class: cmd.class, lpa, ppa: NONE, plane: NONE, owner: c, bytes: if partial { self.layout.page_size - bytes } else { bytes }, next: NONE });
            self.route(now, t, out);
        }
    }

    /// Whether the cache has room for `cmd` now: a slot for each page it does not hold, not
    /// counting the command's own clean pages (written first, they turn dirty and stop being
    /// available — else placing a miss could evict a page the command is about to rewrite).
    fn cache_admits(&self, cmd: &Cmd) -> bool {
        self.cache_need(cmd) <= self.cache.as_ref().unwrap().available()
    }

    /// Available slots `cmd` needs (see `cache_admits`).
    fn cache_need(&self, cmd: &Cmd) -> u32 {
        let cache = self.cache.as_ref().unwrap();
        let (mut new, mut own_clean) = (0u32, 0u32);
        for i in 0..cmd.npages {
            match cache.slot_of(self.lpa_of(cmd, i)) {
                None => new += 1,
                Some(s) if cache.state[s as usize] == crate::cache::Slot::Clean => own_clean += 1,
                Some(_) => {}
            }
        }
        new + own_clean
    }

    fn cache_write(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        let cmd = self.cmds[c as usize];
        // Pages the cache holds first, then the misses (see `cache_admits`).
        for hits in [true, false] {
            for i in 0..cmd.npages {
                let lpa = self.lpa_of(&cmd, i);
                let cache = self.cache.as_mut().unwrap();
                if cache.slot_of(lpa).is_some() == hits {
                    cache.write(lpa, cmd.class);
                }
            }
        }
        self.cmds[c as usize].remaining = 1;
        self.dram_access(now, c, cmd.bytes as u64, out);
        self.flush_due(now, out, 0);
    }

    /// Starts write-back of LRU dirty slots while free + clean slots are short of the reserve
    /// or of `want` (what a waiting write needs: a write larger than the reserve must not wait
    /// for a flush that never starts).
    fn flush_due(&mut self, now: SimTime, out: &mut Outbox, want: u32) {
        loop {
            let Some((slot, lpa, class)) = self.cache.as_mut().and_then(|k| k.next_flush(want)) else { return };
            let t = self.new_txn(Txn { kind: Kind::Flush, class, lpa, ppa: NONE, plane: NONE, owner: slot, bytes: self.layout.page_size, next: NONE });
            self.route(now, t, out);
        }
    }

    fn cmd_part_done(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        let cmd = &mut self.cmds[c as usize];
        cmd.remaining -= 1;
        if cmd.remaining > 0 {
            return;
        }
        if cmd.write {
            self.finish_cmd(c, out);
        } else {
            let t = now.max(self.pcie_out_free) + self.params.host.transfer_time(cmd.bytes as u64);
            self.pcie_out_free = t;
            out.events.push((t + self.params.host.command_overhead, SsdEvent::HostOut(c)));
        }
    }

    fn finish_cmd(&mut self, c: u32, out: &mut Outbox) {
        out.done.push(self.cmds[c as usize].tag);
        self.free_cmds.push(c);
        self.in_flight -= 1;
    }

    // ---- transactions ----

    fn new_txn(&mut self, t: Txn) -> u32 {
        match self.free_txns.pop() {
            Some(i) => {
                self.txns[i as usize] = t;
                i
            }
            None => {
                self.txns.push(t);
                (self.txns.len() - 1) as u32
            }
        }
    }

    /// Through the CMT, then into a die queue.
    fn route(&mut self, now: SimTime, t: u32, out: &mut Outbox) {
        let txn = self.txns[t as usize];
        if let Some(cmt) = &mut self.cmt {
            if let Lookup::Miss { tp, fetch } = cmt.lookup(txn.lpa, txn.kind.is_program()) {
                self.txns[t as usize].next = cmt.waiting[tp as usize];
                cmt.waiting[tp as usize] = t;
                if fetch {
                    self.counters.map_reads += 1;
                    let plane = self.layout.static_plane(tp as u64);
                    let m = self.new_txn(Txn { kind: Kind::MapRead, class: 0, lpa: NONE, ppa: NONE, plane, owner: tp, bytes: self.layout.page_size, next: NONE });
                    self.enqueue(now, m, out);
                }
                return;
            }
        }
        self.enqueue(now, t, out);
    }

    fn queue_index(&self, txn: &Txn) -> usize {
        match txn.kind {
            Kind::MapRead => Q_MAP_READ,
            Kind::MapWrite => Q_MAP_WRITE,
            Kind::GcRead | Kind::GcWrite | Kind::Erase => Q_GC,
            k => {
                let class = if self.params.sched.device_qos { txn.class as usize } else { 0 };
                class * 2 + k.is_program() as usize
            }
        }
    }

    fn enqueue(&mut self, now: SimTime, t: u32, out: &mut Outbox) {
        let txn = &mut self.txns[t as usize];
        if matches!(txn.kind, Kind::Read | Kind::RmwRead) {
            txn.ppa = self.ftl.lookup(txn.lpa).unwrap_or(NONE);
            // A never-written page is timed as a read on its home plane.
            txn.plane = if txn.ppa != NONE { self.layout.plane_of_ppa(txn.ppa) } else { self.layout.static_plane(txn.lpa as u64) };
        } else if matches!(txn.kind, Kind::Write | Kind::Flush) {
            txn.plane = match self.params.ftl.allocation {
                Allocation::Static(_) => self.layout.static_plane(txn.lpa as u64),
                Allocation::Dynamic => NONE,
            };
        }
        if txn.plane == NONE {
            let plane = self.dynamic_plane();
            self.txns[t as usize].plane = plane;
        }
        let txn = self.txns[t as usize];
        let die = self.layout.die_of_plane(txn.plane);
        let qi = self.queue_index(&txn);
        self.dies[die as usize].q[qi].push_back(t);
        self.kick(now, die, out);
    }

    /// Dynamic allocation: the die with the fewest queued transactions, planes in turn.
    fn dynamic_plane(&mut self) -> u32 {
        let mut best = (usize::MAX, 0u32);
        for (d, die) in self.dies.iter().enumerate() {
            let n: usize = die.q.iter().map(|q| q.len()).sum::<usize>() + (die.phase != Phase::Idle) as usize;
            if n < best.0 {
                best = (n, d as u32);
            }
        }
        let die = &mut self.dies[best.1 as usize];
        let p = die.next_plane;
        die.next_plane = (p + 1) % self.layout.dims[3];
        best.1 * self.layout.dims[3] + p
    }

    // ---- die scheduling ----

    fn kick(&mut self, now: SimTime, d: u32, out: &mut Outbox) {
        match self.dies[d as usize].phase {
            Phase::Idle => {
                if self.pick(d) {
                    self.start_batch(now, d, out);
                }
            }
            Phase::Program if self.params.sched.suspend.program => self.try_suspend(now, d, out),
            Phase::Erase if self.params.sched.suspend.erase => self.try_suspend(now, d, out),
            _ => {}
        }
    }

    /// Suspends die `d`'s program or erase for a waiting read (or, for an erase, a write) if
    /// enough of it is left (see `SuspendParams`): the die spends the suspend latency, serves
    /// one batch, and `batch_done` resumes the operation with the time it had left.
    fn try_suspend(&mut self, now: SimTime, d: u32, out: &mut Outbox) {
        let sp = &self.params.sched.suspend;
        let die = &self.dies[d as usize];
        if die.suspended.is_some() || die.op_suspends as u32 >= sp.max_per_op {
            return;
        }
        let remaining = die.end.saturating_sub(now);
        let erase = die.phase == Phase::Erase;
        let (latency, min_read) = if erase { (sp.erase_latency, sp.erase_min_remaining_read) } else { (sp.program_latency, sp.program_min_remaining) };
        if remaining <= latency {
            return;
        }
        let user = |k: usize| (0..CLASSES).any(|c| !die.q[2 * c + k].is_empty());
        let reads = remaining >= min_read && (!die.q[Q_MAP_READ].is_empty() || user(0));
        let writes = erase && remaining >= sp.erase_min_remaining_write && user(1);
        if !reads && !writes {
            return;
        }
        let (batch, n, phase, count) = (die.batch, die.n, die.phase, die.op_suspends + 1);
        let got = (reads && (self.take_batch(d, Q_MAP_READ) || self.pick_kind(d, 0))) || (writes && self.pick_kind(d, 1));
        let die = &mut self.dies[d as usize];
        if !got {
            // Nothing startable (writes waiting for space): the batch array is untouched.
            die.n = n;
            return;
        }
        die.suspended = Some(Suspended { phase, batch, n, remaining, count });
        die.busy_ps += (now - die.started).0;
        die.stale.push(die.end);
        die.phase = Phase::Suspending;
        die.started = now;
        die.end = now + latency;
        out.events.push((die.end, SsdEvent::Die(d)));
        if erase {
            self.counters.erase_suspends += 1;
        } else {
            self.counters.program_suspends += 1;
        }
    }

    /// The next batch of reads (`kind` 0) or writes (1): by class with device QoS, else FIFO.
    fn pick_kind(&mut self, d: u32, kind: usize) -> bool {
        if self.params.sched.device_qos {
            self.pick_class(d, kind)
        } else {
            self.take_batch(d, kind)
        }
    }

    /// Whether transaction `t` can start now (writes need a page on their plane).
    #[inline]
    fn startable(&self, t: u32) -> bool {
        let txn = &self.txns[t as usize];
        match txn.kind {
            Kind::Write | Kind::Flush => self.ftl.can_alloc_user(txn.plane),
            _ => true,
        }
    }

    /// Moves a batch from queue `qi` of die `d` into the die: the first startable transaction
    /// and further ones of the same kind on other planes — from the same queue first, then
    /// (user I/O with device QoS) from the same kind's queues of the other classes, so per-class
    /// queues do not cost multi-plane parallelism.
    fn take_batch(&mut self, d: u32, qi: usize) -> bool {
        let ppd = self.layout.dims[3];
        let mut planes_used = 0u32;
        let mut kind = None;
        let mut n = 0usize;
        self.fill_batch(d, qi, &mut kind, &mut planes_used, &mut n);
        if n == 0 {
            return false;
        }
        if qi < 2 * CLASSES && self.params.sched.device_qos && (n as u32) < ppd {
            let k = qi % 2;
            for c in 0..CLASSES {
                let other = 2 * c + k;
                if other != qi && !self.dies[d as usize].q[other].is_empty() {
                    self.fill_batch(d, other, &mut kind, &mut planes_used, &mut n);
                }
            }
        }
        self.dies[d as usize].n = n as u8;
        true
    }

    /// Adds transactions of queue `qi` to die `d`'s batch (see `take_batch`).
    fn fill_batch(&mut self, d: u32, qi: usize, kind: &mut Option<Kind>, planes_used: &mut u32, n: &mut usize) {
        let ppd = self.layout.dims[3];
        let mut chosen: [usize; MAX_PLANES_PER_DIE as usize] = [0; MAX_PLANES_PER_DIE as usize];
        let mut m = 0usize;
        let len = self.dies[d as usize].q[qi].len().min(SCAN);
        for i in 0..len {
            if *n + m == ppd as usize {
                break;
            }
            let t = self.dies[d as usize].q[qi][i];
            let txn = self.txns[t as usize];
            let bit = 1u32 << (txn.plane % ppd);
            if *planes_used & bit != 0 {
                continue;
            }
            match *kind {
                None => {
                    if !self.startable(t) {
                        continue;
                    }
                    *kind = Some(txn.kind);
                }
                Some(k) if k == txn.kind && self.startable(t) => {}
                _ => continue,
            }
            chosen[m] = i;
            m += 1;
            *planes_used |= bit;
            // GC work (moves, erases) goes one transaction at a time, in queue order.
            if qi == Q_GC {
                break;
            }
        }
        let die = &mut self.dies[d as usize];
        for k in (0..m).rev() {
            let t = die.q[qi].remove(chosen[k]).expect("index in range");
            die.batch[*n + k] = t;
        }
        *n += m;
    }

    fn die_in_hard_gc(&self, d: u32) -> bool {
        let ppd = self.layout.dims[3];
        (d * ppd..(d + 1) * ppd).any(|p| self.gc[p as usize].is_some() && self.ftl.gc_need(p) == GcNeed::Hard)
    }

    /// Picks the die's next batch. Order: GC work when a plane is below the hard threshold
    /// (or, for non-preemptible GC, on alternate turns),
    /// mapping reads (they block user I/O), user reads, user writes (each by class — urgent
    /// strict, then WRR over High/Medium/Low — when device QoS is on, FIFO otherwise),
    /// background GC, mapping writes.
    fn pick(&mut self, d: u32) -> bool {
        if !self.dies[d as usize].q[Q_GC].is_empty() {
            // Urgent GC goes first; non-preemptible GC takes every other turn of the die
            // (so a long job neither starves nor is starved by user I/O).
            let die = &mut self.dies[d as usize];
            let gc_turn = !self.params.ftl.gc_preemptible && std::mem::replace(&mut die.gc_turn, false);
            if (gc_turn || self.die_in_hard_gc(d)) && self.take_batch(d, Q_GC) {
                return true;
            }
            self.dies[d as usize].gc_turn = true;
        }
        if self.take_batch(d, Q_MAP_READ) {
            return true;
        }
        // Reads before writes; with device QoS, within each kind the class is chosen by
        // urgent-strict + WRR, with a WRR state per kind.
        self.pick_kind(d, 0) || self.pick_kind(d, 1) || self.take_batch(d, Q_GC) || self.take_batch(d, Q_MAP_WRITE)
    }

    /// Device-level QoS: among the classes with `kind` (0 read, 1 write) work at die `d`,
    /// urgent first, then WRR over High/Medium/Low; if the chosen class cannot start (writes
    /// waiting for space), the others are tried in priority order.
    fn pick_class(&mut self, d: u32, kind: usize) -> bool {
        let die = &mut self.dies[d as usize];
        let q = &die.q;
        let chosen = die.wrr[kind].pick_class(!q[kind].is_empty(), |c| !q[2 * c + kind].is_empty());
        let Some(c) = chosen else { return false };
        if self.take_batch(d, 2 * c + kind) {
            return true;
        }
        (0..CLASSES).any(|c2| c2 != c && self.take_batch(d, 2 * c2 + kind))
    }

    fn read_time(&self, ppa: u32) -> SimTime {
        let t = &self.params.timing;
        let ty = if ppa == NONE { 0 } else { (self.layout.page_in_block(ppa) % t.cell.bits()) as usize };
        t.read[ty]
    }

    fn program_time(&self, ppa: u32) -> SimTime {
        let t = &self.params.timing;
        let ty = if ppa == NONE { 0 } else { (self.layout.page_in_block(ppa) % t.cell.bits()) as usize };
        t.program[ty]
    }

    fn start_batch(&mut self, now: SimTime, d: u32, out: &mut Outbox) {
        let n = self.dies[d as usize].n as usize;
        let first = self.txns[self.dies[d as usize].batch[0] as usize].kind;
        self.dies[d as usize].started = now;
        let cmd_t = self.params.timing.command;
        self.dies[d as usize].op_suspends = 0;
        if first == Kind::Erase {
            let die = &mut self.dies[d as usize];
            die.phase = Phase::Erase;
            die.end = now + cmd_t + self.params.timing.erase;
            out.events.push((die.end, SsdEvent::Die(d)));
            return;
        }
        if first.is_sense() {
            let mut tr = SimTime::ZERO;
            for k in 0..n {
                let t = self.dies[d as usize].batch[k];
                tr = tr.max(self.read_time(self.txns[t as usize].ppa));
            }
            self.counters.flash_reads += n as u64;
            self.dies[d as usize].phase = Phase::Sense;
            out.events.push((now + cmd_t + tr, SsdEvent::Die(d)));
            return;
        }
        // Programs: take the pages now (the mapping changes when the program starts), then
        // move the data in. The die is marked busy first: starting GC below may kick it.
        self.dies[d as usize].phase = Phase::WaitIn;
        let mut bytes = 0u64;
        for k in 0..n {
            let t = self.dies[d as usize].batch[k];
            let txn = self.txns[t as usize];
            let ppa = match txn.kind {
                Kind::Write | Kind::Flush => {
                    let ppa = self.ftl.alloc(txn.plane, false);
                    self.ftl.program_user(txn.lpa, ppa);
                    ppa
                }
                Kind::GcWrite => {
                    let ppa = self.ftl.alloc(txn.plane, true);
                    if self.ftl.program_move(txn.lpa, txn.ppa, ppa) {
                        if let Some(c) = &mut self.cmt {
                            c.note_update(txn.lpa);
                        }
                    }
                    ppa
                }
                _ => NONE,
            };
            if txn.kind != Kind::MapWrite {
                self.txns[t as usize].ppa = ppa;
            }
            // A program always loads a whole page register (sub-page writes were merged by
            // the read-modify-write or the cache).
            if !(txn.kind == Kind::GcWrite && self.params.ftl.copyback) {
                bytes += self.layout.page_size as u64;
            }
            if matches!(txn.kind, Kind::Write | Kind::Flush) {
                self.maybe_start_gc(now, txn.plane, out);
            }
        }
        if bytes == 0 {
            self.start_program(now, d, out);
        } else {
            self.request_channel(now, d, bytes, out);
        }
    }

    fn start_program(&mut self, now: SimTime, d: u32, out: &mut Outbox) {
        let n = self.dies[d as usize].n as usize;
        let mut tp = SimTime::ZERO;
        for k in 0..n {
            let t = self.dies[d as usize].batch[k];
            tp = tp.max(self.program_time(self.txns[t as usize].ppa));
        }
        let die = &mut self.dies[d as usize];
        die.phase = Phase::Program;
        die.end = now + self.params.timing.command + tp;
        out.events.push((die.end, SsdEvent::Die(d)));
    }

    fn request_channel(&mut self, now: SimTime, d: u32, bytes: u64, out: &mut Outbox) {
        self.dies[d as usize].xfer_bytes = bytes;
        let c = self.layout.channel_of_die(d);
        if self.channels[c as usize].busy {
            self.channels[c as usize].waiting.push_back(d);
        } else {
            self.start_transfer(now, c, d, out);
        }
    }

    fn start_transfer(&mut self, now: SimTime, c: u32, d: u32, out: &mut Outbox) {
        let die = &mut self.dies[d as usize];
        die.phase = if die.phase == Phase::WaitIn { Phase::In } else { Phase::Out };
        let dt = self.params.timing.channel_time(die.xfer_bytes);
        let ch = &mut self.channels[c as usize];
        ch.busy = true;
        ch.die = d;
        ch.busy_ps += dt.0;
        out.events.push((now + dt, SsdEvent::Channel(c)));
    }

    // ---- events ----

    pub fn handle(&mut self, now: SimTime, ev: SsdEvent, out: &mut Outbox) {
        match ev {
            SsdEvent::Die(d) => self.on_die(now, d, out),
            SsdEvent::Channel(c) => self.on_channel(now, c, out),
            SsdEvent::Dram(c) => self.cmd_part_done(now, c, out),
            SsdEvent::HostIn(c) => self.start_write(now, c, out),
            SsdEvent::HostOut(c) => self.finish_cmd(c, out),
        }
    }

    fn on_die(&mut self, now: SimTime, d: u32, out: &mut Outbox) {
        let stale = &mut self.dies[d as usize].stale;
        if let Some(i) = stale.iter().position(|&t| t == now) {
            // The end of an operation that was suspended; it was rescheduled on resume. (A
            // live event of this die at the same picosecond is the same `Die(d)`: dropping
            // either one is the same.)
            stale.swap_remove(i);
            return;
        }
        match self.dies[d as usize].phase {
            Phase::Suspending => {
                let die = &mut self.dies[d as usize];
                die.busy_ps += (now - die.started).0;
                self.start_batch(now, d, out)
            }
            Phase::Sense => {
                let t = self.dies[d as usize].batch[0];
                let copyback = self.txns[t as usize].kind == Kind::GcRead && self.params.ftl.copyback;
                if copyback {
                    self.batch_done(now, d, out);
                } else {
                    let n = self.dies[d as usize].n as usize;
                    let bytes: u64 = (0..n).map(|k| self.txns[self.dies[d as usize].batch[k] as usize].bytes as u64).sum();
                    self.dies[d as usize].phase = Phase::WaitOut;
                    self.request_channel(now, d, bytes, out);
                }
            }
            Phase::Program | Phase::Erase => self.batch_done(now, d, out),
            p => unreachable!("die event in phase {p:?}"),
        }
    }

    fn on_channel(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        let d = self.channels[c as usize].die;
        self.channels[c as usize].busy = false;
        // The next waiter gets the channel before this die's completion can queue more work.
        if let Some(next) = self.channels[c as usize].waiting.pop_front() {
            self.start_transfer(now, c, next, out);
        }
        match self.dies[d as usize].phase {
            Phase::In => self.start_program(now, d, out),
            Phase::Out => self.batch_done(now, d, out),
            p => unreachable!("channel event for a die in phase {p:?}"),
        }
    }

    fn batch_done(&mut self, now: SimTime, d: u32, out: &mut Outbox) {
        let n = self.dies[d as usize].n as usize;
        let batch = self.dies[d as usize].batch;
        let die = &mut self.dies[d as usize];
        die.busy_ps += (now - die.started).0;
        die.phase = Phase::Idle;
        die.n = 0;
        if let Some(s) = die.suspended.take() {
            // Resume before the batch's completions can queue (and kick) more work here.
            die.phase = s.phase;
            die.batch = s.batch;
            die.n = s.n;
            die.op_suspends = s.count;
            die.started = now;
            die.end = now + s.remaining;
            out.events.push((die.end, SsdEvent::Die(d)));
        }
        for &t in &batch[..n] {
            self.txn_done(now, t, out);
        }
        self.kick(now, d, out);
    }

    fn txn_done(&mut self, now: SimTime, t: u32, out: &mut Outbox) {
        let txn = self.txns[t as usize];
        self.free_txns.push(t);
        match txn.kind {
            Kind::Read => {
                if self.params.cache.mode.reads() {
                    if let Some(k) = &mut self.cache {
                        k.fill(txn.lpa);
                    }
                }
                self.cmd_part_done(now, txn.owner, out);
            }
            Kind::Write => self.cmd_part_done(now, txn.owner, out),
            Kind::RmwRead => {
                let w = self.new_txn(Txn { kind: Kind::Write, bytes: self.layout.page_size, ..txn });
                self.route(now, w, out);
            }
            Kind::Flush => {
                self.cache.as_mut().unwrap().flush_done(txn.owner);
                self.admit_waiting(now, out);
                self.flush_due(now, out, 0);
            }
            Kind::MapRead => {
                let tp = txn.owner;
                let cmt = self.cmt.as_mut().unwrap();
                let mut w = std::mem::replace(&mut cmt.waiting[tp as usize], NONE);
                let mut dirty = false;
                let mut waiters = std::mem::take(&mut self.scratch_txns);
                waiters.clear();
                while w != NONE {
                    dirty |= self.txns[w as usize].kind.is_program();
                    waiters.push(w);
                    w = self.txns[w as usize].next;
                }
                if let Some(victim) = self.cmt.as_mut().unwrap().insert(tp, dirty) {
                    self.counters.map_writes += 1;
                    let plane = self.layout.static_plane(victim as u64);
                    let m = self.new_txn(Txn { kind: Kind::MapWrite, class: 3, lpa: NONE, ppa: NONE, plane, owner: victim, bytes: self.layout.page_size, next: NONE });
                    self.enqueue(now, m, out);
                }
                // Waiters were linked newest first; serve them in arrival order.
                for &w in waiters.iter().rev() {
                    self.enqueue(now, w, out);
                }
                self.scratch_txns = waiters;
            }
            Kind::MapWrite => {}
            Kind::GcRead => {
                if self.ftl.is_valid(txn.ppa) {
                    let w = self.new_txn(Txn { kind: Kind::GcWrite, ..txn });
                    self.enqueue(now, w, out);
                } else {
                    self.gc_step(now, txn.owner, out);
                }
            }
            Kind::GcWrite => {
                self.counters.gc_moves += 1;
                self.gc_step(now, txn.owner, out);
            }
            Kind::Erase => {
                let plane = txn.owner;
                self.ftl.erase(txn.ppa);
                if let Some(job) = self.gc[plane as usize].take() {
                    self.counters.gc_time_ps += (now - job.started).0;
                }
                self.maybe_start_gc(now, plane, out);
                // Writes held for space on this plane may go now.
                let die = self.layout.die_of_plane(plane);
                self.kick(now, die, out);
            }
        }
    }

    /// Writes waiting for cache room: in order, or by class (urgent first, then WRR). The
    /// chosen write waits for room rather than letting a smaller one pass, and a WRR turn is
    /// spent only when its write gets in.
    fn admit_waiting(&mut self, now: SimTime, out: &mut Outbox) {
        loop {
            let w = &self.cache_wait;
            let mut wrr = self.cache_wrr.clone();
            let Some(q) = wrr.pick_class(!w[0].is_empty(), |c| !w[c].is_empty()) else { return };
            let c = *w[q].front().unwrap();
            let need = self.cache_need(&self.cmds[c as usize]);
            if need > self.cache.as_ref().unwrap().available() {
                return self.flush_due(now, out, need);
            }
            self.cache_wrr = wrr;
            self.cache_wait[q].pop_front();
            self.cache_write(now, c, out);
        }
    }

    // ---- garbage collection ----

    fn maybe_start_gc(&mut self, now: SimTime, plane: u32, out: &mut Outbox) {
        if self.gc[plane as usize].is_some() {
            return;
        }
        let need = self.ftl.gc_need(plane);
        if need == GcNeed::None || (need == GcNeed::Soft && self.soft_gc_deferred) {
            return;
        }
        let Some((victim, _wl)) = self.ftl.start_gc(plane, &mut self.rng) else { return };
        let mut pages = std::mem::take(&mut self.scratch);
        self.ftl.valid_pages(victim, &mut pages);
        self.gc[plane as usize] = Some(GcJob { victim, pending: pages.len() as u32, started: now });
        let die = self.layout.die_of_plane(plane);
        for &(ppa, lpa) in &pages {
            let t = self.new_txn(Txn { kind: Kind::GcRead, class: 3, lpa, ppa, plane, owner: plane, bytes: self.layout.page_size, next: NONE });
            self.dies[die as usize].q[Q_GC].push_back(t);
        }
        let empty = pages.is_empty();
        self.scratch = pages;
        if empty {
            self.queue_erase(plane, victim);
        }
        self.kick(now, die, out);
    }

    fn queue_erase(&mut self, plane: u32, victim: u32) {
        let t = self.new_txn(Txn { kind: Kind::Erase, class: 3, lpa: NONE, ppa: victim, plane, owner: plane, bytes: 0, next: NONE });
        let die = self.layout.die_of_plane(plane);
        self.dies[die as usize].q[Q_GC].push_back(t);
    }

    fn gc_step(&mut self, now: SimTime, plane: u32, out: &mut Outbox) {
        let job = self.gc[plane as usize].as_mut().expect("GC step without a job");
        job.pending -= 1;
        if job.pending == 0 {
            let victim = job.victim;
            self.queue_erase(plane, victim);
            self.kick(now, self.layout.die_of_plane(plane), out);
        }
    }

    // ---- observation ----

    /// Planes with a GC or wear-levelling job in progress.
    pub fn gc_active(&self) -> u32 {
        self.gc.iter().filter(|g| g.is_some()).count() as u32
    }

    /// Transactions queued at dies (all kinds).
    pub fn queued_txns(&self) -> usize {
        self.dies.iter().map(|d| d.q.iter().map(|q| q.len()).sum::<usize>()).sum()
    }

    pub fn cmt_hit_rate(&self) -> Option<f64> {
        self.cmt.as_ref().map(|c| c.hit_rate())
    }

    pub fn cache(&self) -> Option<&DataCache> {
        self.cache.as_ref()
    }

    /// Write amplification: flash page programs (user + GC) per user page program.
    pub fn write_amplification(&self) -> f64 {
        let c = &self.ftl.counters;
        if c.user_programs == 0 {
            return 0.0;
        }
        (c.user_programs + c.gc_programs) as f64 / c.user_programs as f64
    }

    /// Busy time of every chip (mean over its dies) and channel.
    pub fn utilisation(&self, now: SimTime) -> (Vec<f64>, Vec<f64>) {
        let span = now.0.max(1) as f64;
        let dpc = self.layout.dims[2] as usize;
        let chips = self.dies.chunks(dpc).map(|ds| ds.iter().map(|d| d.busy_ps as f64 + if d.phase != Phase::Idle { (now - d.started).0 as f64 } else { 0.0 }).sum::<f64>() / (dpc as f64 * span)).collect();
        let chans = self.channels.iter().map(|c| c.busy_ps as f64 / span).collect();
        (chips, chans)
    }

    /// Internal consistency: FTL books, transaction and command slots.
    pub fn check(&self) -> Result<(), String> {
        self.ftl.check()?;
        let live_cmds = self.cmds.len() - self.free_cmds.len();
        if live_cmds != self.in_flight as usize {
            return Err(format!("{} live command slots but {} in flight", live_cmds, self.in_flight));
        }
        Ok(())
    }
}
