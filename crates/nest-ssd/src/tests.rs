//! Whole-device tests: a minimal event loop drives one SSD.

use crate::params::*;
use crate::presets::preset;
use crate::ssd::{decomp, DevParts, Outbox, Ssd, SsdEvent, DEV_PARTS};
use nest_core::queue::PendingEvents;
use nest_core::rng::RngStream;
use nest_core::{EventQueue, SimTime};

/// A small drive: 2 channels × 2 chips × 1 die × 2 planes, 64 blocks × 32 pages × 4 KiB.
pub fn small() -> SsdParams {
    let mut p = preset("mqsim-default").unwrap();
    p.geometry =
        Geometry { channels: 2, chips_per_channel: 2, dies_per_chip: 1, planes_per_die: 2, blocks_per_plane: 64, pages_per_block: 32, page_size: 4096 };
    p.cache.mode = CacheMode::Off;
    p.ftl.cmt_bytes = None;
    p.host.queue_depth = 64;
    p
}

pub(crate) struct Bench {
    pub(crate) ssd: Ssd,
    q: EventQueue<SsdEvent>,
    out: Outbox,
    pub(crate) now: SimTime,
    /// Submit time and class per tag.
    pub(crate) issued: Vec<(SimTime, u8, bool)>,
    pub(crate) lat: Vec<(u8, bool, SimTime)>,
    /// The device-internal decomposition of each completion, in `lat`'s order.
    pub(crate) parts: Vec<DevParts>,
}

impl Bench {
    pub(crate) fn new(p: SsdParams) -> Self {
        Bench {
            ssd: Ssd::new(p, 1, 0).unwrap(),
            q: EventQueue::with_capacity(64),
            out: Outbox::default(),
            now: SimTime::ZERO,
            issued: Vec::new(),
            lat: Vec::new(),
            parts: Vec::new(),
        }
    }
    /// Schedules the events of an outbox filled outside the bench.
    pub(crate) fn absorb(&mut self, mut out: Outbox) {
        self.out.events.append(&mut out.events);
        self.out.done.append(&mut out.done);
        self.flush();
    }
    pub(crate) fn flush(&mut self) {
        for (t, e) in self.out.events.drain(..) {
            self.q.schedule(t, e);
        }
        for done in self.out.done.drain(..) {
            let (t0, class, write) = self.issued[done.tag as usize];
            let lat = self.now - t0;
            // Every test checks the decomposition: its parts add up to the latency exactly.
            assert_eq!(done.parts.iter().sum::<u64>(), lat.0, "parts {:?} of {DEV_PARTS:?}", done.parts);
            self.lat.push((class, write, lat));
            self.parts.push(done.parts);
        }
    }
    pub(crate) fn submit(&mut self, write: bool, offset: u64, size: u32, class: u8) {
        let tag = self.issued.len() as u32;
        self.issued.push((self.now, class, write));
        self.ssd.submit(self.now, tag, write, offset, size, class, &mut self.out);
        self.flush();
    }
    /// Runs until idle; `refill` is called after each completion batch with the bench.
    pub(crate) fn run(&mut self, mut refill: impl FnMut(&mut Bench)) {
        while let Some((t, e)) = self.q.pop() {
            self.now = t;
            let before = self.lat.len();
            self.ssd.handle(t, e, &mut self.out);
            self.flush();
            if self.lat.len() > before {
                refill(self);
            }
        }
    }
    /// Handles every event before `t`, then sets the clock to `t`.
    pub(crate) fn run_until(&mut self, t: SimTime) {
        while self.q.peek_time().is_some_and(|e| e < t) {
            let (te, e) = self.q.pop().unwrap();
            self.now = te;
            self.ssd.handle(te, e, &mut self.out);
            self.flush();
        }
        self.now = t;
    }
    /// Mean of each decomposition part (µs) over the completions of `class` and kind.
    pub(crate) fn mean_parts(&self, class: u8, write: bool) -> Vec<f64> {
        let rows: Vec<&DevParts> = self.lat.iter().zip(&self.parts).filter(|(l, _)| l.0 == class && l.1 == write).map(|(_, p)| p).collect();
        (0..DEV_PARTS.len()).map(|i| rows.iter().map(|p| p[i] as f64 / 1e6).sum::<f64>() / rows.len().max(1) as f64).collect()
    }
    pub(crate) fn mean(&self, class: u8, write: bool) -> f64 {
        let v: Vec<f64> = self.lat.iter().filter(|l| l.0 == class && l.1 == write).map(|l| l.2.as_us_f64()).collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    }
}

#[test]
fn an_idle_read_costs_sense_transfer_and_pcie() {
    let p = small();
    let expect = p.timing.command + p.timing.read[0] + p.timing.channel_time(4096) + p.host.transfer_time(4096) + p.host.command_overhead;
    let mut b = Bench::new(p.clone());
    b.submit(false, 0, 4096, 1);
    b.run(|_| {});
    assert_eq!(b.lat.len(), 1);
    assert_eq!(b.lat[0].2, expect);
    let mut parts = [0u64; DEV_PARTS.len()];
    parts[decomp::HOST_IF] = (p.host.transfer_time(4096) + p.host.command_overhead).0;
    parts[decomp::FLASH] = (p.timing.command + p.timing.read[0]).0;
    parts[decomp::CHANNEL] = p.timing.channel_time(4096).0;
    assert_eq!(b.parts[0], parts);
}

#[test]
fn an_idle_write_costs_pcie_transfer_and_program() {
    let p = small();
    let expect = p.host.command_overhead + p.host.transfer_time(4096) + p.timing.channel_time(4096) + p.timing.command + p.timing.program[0];
    let mut b = Bench::new(p);
    b.submit(true, 0, 4096, 1);
    b.run(|_| {});
    assert_eq!(b.lat[0].2, expect);
    assert_eq!(b.ssd.ftl.counters.user_programs, 1);
    b.ssd.check().unwrap();
}

#[test]
fn a_multi_page_read_spreads_over_channels() {
    let p = small();
    let one_page = {
        let mut b = Bench::new(p.clone());
        b.submit(false, 0, 4096, 1);
        b.run(|_| {});
        b.lat[0].2
    };
    let mut b = Bench::new(p);
    // 4 pages: CWDP puts them on 2 channels × 2 chips, so they overlap.
    b.submit(false, 0, 4 * 4096, 1);
    b.run(|_| {});
    assert!(b.lat[0].2 .0 < 2 * one_page.0, "{} vs {}", b.lat[0].2, one_page);
}

/// Closed-loop random 4 KiB reads (`rq` in flight) and writes (`wq` in flight), `n` commands
/// in all, over 90 % of a drive preconditioned to steady state (so GC runs under them).
pub(crate) fn closed_loop(mut p: SsdParams, n: usize, rq: u32, wq: u32, seed: u64) -> Bench {
    // Preconditioned to 90 % unless `p` asks for its own.
    p.precondition.get_or_insert(Precondition::new(0.9, 1.0));
    let mut b = Bench::new(p);
    let pages = b.ssd.params.logical_pages() * 9 / 10;
    let mut rng = RngStream::from_seed(seed);
    let (mut reads, mut writes, mut seen, mut issued) = (0u32, 0u32, 0usize, 0usize);
    let mut top_up = |b: &mut Bench| {
        for l in &b.lat[seen..] {
            if l.1 {
                writes -= 1;
            } else {
                reads -= 1;
            }
        }
        seen = b.lat.len();
        while issued < n && (reads < rq || writes < wq) {
            let write = writes < wq && (reads >= rq || rng.below(2) == 0);
            b.submit(write, rng.below(pages) * 4096, 4096, 1);
            if write {
                writes += 1;
            } else {
                reads += 1;
            }
            issued += 1;
        }
    };
    top_up(&mut b);
    b.run(top_up);
    b
}

/// Closed-loop random 4 KiB writes at QD `qd` for `n` commands on a preconditioned drive (90 %
/// unless `p` says otherwise).
pub(crate) fn random_writes(p: SsdParams, n: usize, qd: u32) -> Bench {
    closed_loop(p, n, 0, qd, 7)
}

#[test]
fn preconditioned_random_writes_collect_garbage() {
    let b = random_writes(small(), 20_000, 16);
    assert_eq!(b.lat.len(), 20_000, "every command completes");
    assert_eq!(b.ssd.in_flight(), 0);
    let c = &b.ssd.ftl.counters;
    assert!(c.gc_jobs > 100, "GC ran {} times", c.gc_jobs);
    let waf = b.ssd.write_amplification();
    // 90% occupancy of 93% of the flash: greedy-like GC moves several pages per freed block.
    assert!(waf > 1.5 && waf < 20.0, "WAF {waf}");
    b.ssd.check().unwrap();
    // Free blocks never ran out: every plane kept at least its GC reserve.
    for p in 0..b.ssd.layout.planes {
        assert!(b.ssd.ftl.free_blocks(p) >= 1);
    }
}

/// `gc_jobs_per_plane`: beyond the first, a plane starts another GC job each time a frontier
/// takes a free block below the threshold (MQSim's ten at once); every write still completes,
/// the FTL stays consistent, and the locked victims leave fuller blocks to collect.
#[test]
fn a_plane_runs_several_gc_jobs_when_allowed() {
    let run = |jobs: u32| {
        let mut p = small();
        p.model.gc_jobs_per_plane = jobs;
        // MQSim's floor, so that GC starts with room for more jobs; space for it beside the data.
        p.model.gc_floor_blocks = 10;
        p.ftl.overprovisioning = 0.3;
        let b = random_writes(p, 20_000, 16);
        assert_eq!(b.lat.len(), 20_000, "every command completes");
        assert_eq!(b.ssd.in_flight(), 0);
        b.ssd.check().unwrap();
        (b.ssd.gc_peak, b.ssd.ftl.counters.gc_jobs, b.ssd.write_amplification())
    };
    let (peak1, jobs1, waf1) = run(1);
    let (peak4, jobs4, waf4) = run(4);
    assert_eq!(peak1, 1);
    assert!(peak4 > 1 && peak4 <= 4, "at most four at once, and more than one: {peak4}");
    assert!(jobs4 > 100 && jobs1 > 100);
    assert!(waf4 > waf1, "victims locked in GC leave fuller blocks: WAF {waf4} vs {waf1}");
}

#[test]
fn greedy_beats_random_victims_on_write_amplification() {
    let mut g = small();
    g.ftl.victim = VictimPolicy::Greedy;
    g.ftl.static_wl_threshold = None;
    let mut r = g.clone();
    r.ftl.victim = VictimPolicy::Random;
    let (wg, wr) = (random_writes(g, 15_000, 8).ssd.write_amplification(), random_writes(r, 15_000, 8).ssd.write_amplification());
    assert!(wg < wr, "greedy {wg} random {wr}");
}

#[test]
fn deferred_soft_gc_waits_for_the_hard_threshold() {
    let mut p = small();
    p.ftl.overprovisioning = 0.3;
    p.ftl.gc_soft = 0.2;
    p.ftl.gc_hard = 0.05;
    p.precondition = Some(Precondition::new(0.8, 1.0));
    let mut b = Bench::new(p);
    let mut out = Outbox::default();
    b.ssd.set_soft_gc_deferred(SimTime::ZERO, true, &mut out);
    let hard = b.ssd.params.hard_free_blocks() as usize;
    let soft = b.ssd.params.soft_free_blocks() as usize;
    let pages = b.ssd.params.logical_pages() * 8 / 10;
    let mut rng = RngStream::from_seed(3);
    let mut min_free = usize::MAX;
    for _ in 0..3000 {
        let lpa = rng.below(pages);
        b.submit(true, lpa * 4096, 4096, 1);
        b.run(|_| {});
        min_free = min_free.min((0..b.ssd.layout.planes).map(|p| b.ssd.ftl.free_blocks(p)).min().unwrap());
    }
    // With soft GC deferred, planes drain below the soft threshold down to the hard one.
    assert!(min_free < soft, "min free {min_free}, soft {soft}");
    assert!(min_free + 1 >= hard.min(2), "min free {min_free}, hard {hard}");
    assert!(b.ssd.ftl.counters.gc_jobs > 0, "hard GC still ran");
    // Releasing the deferral lets soft GC restore the free pool.
    b.ssd.set_soft_gc_deferred(b.now, false, &mut b.out);
    b.flush();
    b.run(|_| {});
    let after = (0..b.ssd.layout.planes).map(|p| b.ssd.ftl.free_blocks(p)).min().unwrap();
    assert!(after >= soft, "after release: {after} free, soft {soft}");
}

/// Three classes interleave a backlog; returns the mean latency per class. Reads keep one die
/// busy; writes (`write`) outrun a small write cache, so they wait for room in it.
fn three_classes(device_qos: bool, write: bool) -> [f64; 3] {
    three_classes_under(device_qos, write, None)
}

/// `three_classes` with the dies' policy replaced by the registered `policy`.
fn three_classes_under(device_qos: bool, write: bool, policy: Option<&str>) -> [f64; 3] {
    let mut p = small();
    if write {
        p.cache.mode = CacheMode::Write;
        p.cache.capacity = 32 * 4096;
    } else {
        p.geometry.channels = 1;
        p.geometry.chips_per_channel = 1;
        p.geometry.planes_per_die = 1;
    }
    p.sched.device_qos = device_qos;
    p.host.queue_depth = 1000;
    let mut b = Bench::new(p);
    if let Some(name) = policy {
        b.ssd.set_die_policy(name);
    }
    let mut rng = RngStream::from_seed(if write { 6 } else { 5 });
    let span = b.ssd.params.logical_pages();
    for _ in 0..if write { 300 } else { 600 } {
        for class in 1..=3u8 {
            b.submit(write, rng.below(span) * 4096, 4096, class);
        }
    }
    b.run(|_| {});
    [b.mean(1, write), b.mean(2, write), b.mean(3, write)]
}

/// FIFO without device-level QoS (same mean for all classes, within the noise of the arrival
/// interleaving); WRR 3:2:1 with it (High < Medium < Low).
fn assert_wrr_orders(write: bool) {
    let off = three_classes(false, write);
    let on = three_classes(true, write);
    assert!((off[0] - off[2]).abs() / off[0] < 0.05, "{off:?}");
    assert!(on[0] < on[1] && on[1] < on[2], "{on:?}");
    assert!(on[2] > 1.5 * on[0], "{on:?}");
}

#[test]
fn device_level_wrr_orders_the_classes() {
    assert_wrr_orders(false);
}

#[test]
fn device_level_wrr_also_orders_writes_waiting_for_the_cache() {
    // Writes that outrun the flash wait for cache room: in arrival order without device QoS,
    // by class with it (else the chip queues' WRR would see only flushes, all in FIFO order).
    assert_wrr_orders(true);
}

#[test]
fn a_die_policy_is_one_file_and_one_line() {
    // The test-only strict-priority policy (ssd/sched/test_strict.rs): High is served before
    // Medium before Low, so High waits less and Low more than under WRR 3:2:1, which gives Low
    // a turn in every round.
    let wrr = three_classes(true, false);
    let strict = three_classes_under(true, false, Some("test-strict"));
    assert!(strict[0] < 0.8 * wrr[0] && strict[2] > wrr[2], "strict {strict:?} wrr {wrr:?}");
    // Backlogged, strict priority finishes each class before the next starts: each mean is
    // the middle of its third of the span, 1:3:5 (measured 26, 79, 131 ms; WRR 52, 74, 110).
    assert!(strict[1] > 2.5 * strict[0] && strict[2] > 1.5 * strict[1], "{strict:?}");
    assert_eq!(Bench::new(small()).ssd.die_policy(), "fifo");
    let mut p = small();
    p.sched.device_qos = true;
    assert_eq!(Bench::new(p).ssd.die_policy(), "urgent-wrr");
}

#[test]
fn cmt_misses_cost_mapping_reads() {
    let mut ideal = small();
    ideal.precondition = Some(Precondition::new(1.0, 0.0));
    let mut tiny = ideal.clone();
    tiny.ftl.cmt_bytes = Some(4096);
    let run = |p: SsdParams| {
        let mut b = Bench::new(p);
        let span = b.ssd.params.logical_pages();
        let mut rng = RngStream::from_seed(9);
        for _ in 0..200 {
            b.submit(false, rng.below(span) * 4096, 4096, 1);
            b.run(|_| {});
        }
        (b.mean(1, false), b.ssd.cmt_hit_rate(), b.ssd.counters.map_reads, b.mean_parts(1, false)[decomp::MAPPING])
    };
    let (li, hi, _, mi) = run(ideal);
    let (lt, ht, mr, mt) = run(tiny);
    assert!(hi.is_none());
    assert!(ht.unwrap() < 0.5 && mr > 100, "hit rate {ht:?}, map reads {mr}");
    // A miss adds a second flash read on the critical path, and the decomposition names it.
    assert!(lt > 1.6 * li, "{lt} vs {li}");
    assert_eq!(mi, 0.0);
    assert!(mt > 0.5 * (lt - li), "mapping {mt} µs of a {lt} − {li} µs difference");
}

#[test]
fn write_cache_absorbs_writes_until_it_fills() {
    let mut p = small();
    p.cache.mode = CacheMode::Write;
    p.cache.capacity = 64 * 4096;
    p.cache.dram_mts = 1600;
    p.cache.dram_burst = 8;
    let mut b = Bench::new(p.clone());
    b.submit(true, 0, 4096, 1);
    b.run(|_| {});
    let expect = p.host.command_overhead + p.host.transfer_time(4096) + p.cache.access_time(4096);
    assert_eq!(b.lat[0].2, expect, "a cached write completes from DRAM");
    // A burst beyond the cache makes writes wait for flushes; everything reaches flash.
    for i in 0..400u64 {
        b.submit(true, (i + 1) * 4096, 4096, 1);
    }
    b.run(|_| {});
    assert_eq!(b.lat.len(), 401);
    assert!(b.ssd.counters.write_stalls > 0);
    let slow = b.lat.iter().filter(|l| l.2 .0 > expect.0 * 10).count();
    assert!(slow > 100, "{slow} writes waited");
    // They waited for cache room; the first went straight into DRAM.
    assert_eq!(b.parts[0][decomp::WRITE_CACHE], 0);
    assert_eq!(b.parts[0][decomp::DRAM], p.cache.access_time(4096).0);
    // (The burst's first writes queue for the PCIe link instead: host interface.)
    let mut waited = b.lat.iter().zip(&b.parts).filter(|(l, _)| l.2 > SimTime::from_us(100));
    assert!(waited.all(|(l, x)| x[decomp::WRITE_CACHE] * 2 > l.2 .0), "slow writes waited for room");
    assert!(b.parts.iter().any(|x| x[decomp::HOST_IF] > 10 * b.parts[0][decomp::HOST_IF]));
    let cache = b.ssd.cache().unwrap();
    assert!(cache.dirty_slots() <= cache.slots);
    // Reading a page still in the cache is a DRAM hit.
    let hits = cache.read_hits;
    b.submit(false, 400 * 4096, 4096, 1);
    b.run(|_| {});
    assert_eq!(b.ssd.cache().unwrap().read_hits, hits + 1);
}

/// With `dirty_cache` the drive starts as a write-bound one keeps its cache: dirty to the
/// flush threshold, so one write sends a page to flash at once; without it the same write
/// stays in DRAM. The dirty pages are the last ones preconditioning wrote.
#[test]
fn a_dirty_cache_precondition_starts_the_drive_write_bound() {
    let run = |occupancy: f64, dirty_cache: bool| {
        let mut p = small();
        p.cache.mode = CacheMode::Write;
        p.cache.capacity = 64 * 4096;
        p.precondition = Some(Precondition { dirty_cache, ..Precondition::new(occupancy, 0.0) });
        let mut b = Bench::new(p);
        let before = b.ssd.cache().unwrap().dirty_slots();
        b.submit(true, 5_000 * 4096, 4096, 1);
        b.run(|_| {});
        b.ssd.check().unwrap();
        (before, b.ssd.ftl.counters.user_programs, b)
    };
    let (dirty, programs, _) = run(0.0, false);
    assert_eq!((dirty, programs), (0, 0), "an empty cache keeps the write");
    let (dirty, programs, b) = run(0.0, true);
    assert_eq!(dirty, 64 - 8, "slots less the reserve");
    assert!(programs >= 1, "the write pushed a page out");
    let cache = b.ssd.cache().unwrap();
    assert!(cache.slot_of(0).is_some() && cache.slot_of(55).is_some() && cache.write_misses == 1);
    let (_, _, b) = run(0.5, true);
    let n = (b.ssd.params.logical_pages() / 2) as u32;
    let cache = b.ssd.cache().unwrap();
    assert!(cache.slot_of(n - 1).is_some() && cache.slot_of(n - 56).is_some(), "the newest pages written");
    assert!(cache.slot_of(0).is_none() && cache.slot_of(n - 57).is_none());
}

#[test]
fn sub_page_writes_read_modify_write() {
    let mut p = small();
    p.precondition = Some(Precondition::new(1.0, 0.0));
    let mut b = Bench::new(p);
    b.submit(true, 512, 1024, 1);
    b.run(|_| {});
    assert_eq!(b.ssd.counters.rmw_reads, 1);
    assert_eq!(b.ssd.counters.flash_reads, 1);
    b.ssd.check().unwrap();
}

#[test]
fn same_seed_same_trajectory() {
    let a = random_writes(small(), 3000, 8);
    let b = random_writes(small(), 3000, 8);
    assert_eq!(a.lat.iter().map(|l| l.2 .0).collect::<Vec<_>>(), b.lat.iter().map(|l| l.2 .0).collect::<Vec<_>>());
}

#[test]
fn static_wear_levelling_bounds_the_erase_spread() {
    let mut p = small();
    p.ftl.static_wl_threshold = Some(8);
    p.ftl.victim = VictimPolicy::Greedy;
    // Hot writes to a tenth of the space; cold data elsewhere never moves without WL.
    p.precondition = Some(Precondition::new(0.9, 0.0));
    let mut b = Bench::new(p);
    let hot = b.ssd.params.logical_pages() / 10;
    let mut rng = RngStream::from_seed(2);
    let mut n = 0;
    for _ in 0..8 {
        b.submit(true, rng.below(hot) * 4096, 4096, 1);
    }
    b.run(|b| {
        while n < 40_000 && b.ssd.in_flight() < 8 {
            b.submit(true, rng.below(hot) * 4096, 4096, 1);
            n += 1;
        }
    });
    assert!(b.ssd.ftl.counters.wl_jobs > 0);
    let (_, lo, hi) = b.ssd.ftl.erase_spread();
    assert!(hi - lo <= 8 + 4, "spread {lo}..{hi}");
    b.ssd.check().unwrap();
}

#[test]
fn a_write_rewriting_clean_cached_pages_under_pressure_is_admitted_safely() {
    // A tiny write cache and multi-page writes over a small hot range: commands often rewrite
    // pages that sit clean in the cache (flushed) while needing slots for others; placing the
    // misses must never evict the command's own pages (that overcommits the admitted room).
    let mut p = small();
    p.cache.mode = CacheMode::Write;
    p.cache.capacity = 16 * 4096;
    p.host.queue_depth = 1000;
    let mut b = Bench::new(p);
    let mut rng = RngStream::from_seed(11);
    let mut n = 0;
    for round in 0..400u64 {
        for _ in 0..3 {
            let pages = 1 + rng.below(10);
            b.submit(true, rng.below(32) * 4096, (pages * 4096) as u32, 1 + (round % 3) as u8);
            n += 1;
        }
        if round % 4 == 0 {
            b.run(|_| {});
        }
    }
    b.run(|_| {});
    assert_eq!(b.lat.len(), n);
}

#[test]
fn a_read_suspends_a_program_on_its_die() {
    let mut p = small();
    p.sched.suspend.program = true;
    let sp = p.sched.suspend.clone();
    let idle_read = p.timing.command + p.timing.read[0] + p.timing.channel_time(4096) + p.host.transfer_time(4096) + p.host.command_overhead;
    let idle_write = p.host.command_overhead + p.host.transfer_time(4096) + p.timing.channel_time(4096) + p.timing.command + p.timing.program[0];
    // The read's die time: suspend, command, sense, transfer out over the (free) channel.
    let read_die = sp.program_latency + p.timing.command + p.timing.read[0] + p.timing.channel_time(4096);
    let mut b = Bench::new(p.clone());
    // LPA 0 and LPA 4 are planes 0 and 1 of the same die under CWDP on this drive.
    b.submit(true, 0, 4096, 1);
    b.run_until(SimTime::from_us(100));
    b.submit(false, 4 * 4096, 4096, 1);
    b.run(|_| {});
    let (w, r) = (b.lat.iter().find(|l| l.1).unwrap().2, b.lat.iter().find(|l| !l.1).unwrap().2);
    assert_eq!(r, idle_read + sp.program_latency, "the read waits only for the suspension");
    assert_eq!(w, idle_write + read_die, "the program resumes with the time it had left");
    assert_eq!(b.ssd.counters.program_suspends, 1);
    b.ssd.check().unwrap();
    // The decomposition says so: the read queued for the suspension, the write was suspended
    // for the read's die time, and its program is still one program long.
    let (wp, rp) = (b.mean_parts(1, true), b.mean_parts(1, false));
    assert_eq!(rp[decomp::DIE_QUEUE], sp.program_latency.as_us_f64());
    assert_eq!(wp[decomp::SUSPENDED], read_die.as_us_f64());
    assert_eq!(wp[decomp::FLASH], (p.timing.command + p.timing.program[0]).as_us_f64());
    assert_eq!(rp[decomp::GC] + wp[decomp::GC], 0.0);

    // Without suspension the read waits for the program's end.
    p.sched.suspend.program = false;
    let mut b = Bench::new(p.clone());
    b.submit(true, 0, 4096, 1);
    b.run_until(SimTime::from_us(100));
    b.submit(false, 4 * 4096, 4096, 1);
    b.run(|_| {});
    let r = b.lat.iter().find(|l| !l.1).unwrap().2;
    // It starts on the die when the write's program ends.
    assert_eq!(r + SimTime::from_us(100), idle_write + idle_read);
    assert_eq!(b.ssd.counters.program_suspends, 0);
    assert_eq!(b.mean_parts(1, false)[decomp::DIE_QUEUE], (idle_write - SimTime::from_us(100)).as_us_f64());
    assert_eq!(b.mean_parts(1, true)[decomp::SUSPENDED], 0.0);
}

/// Random reads beside random writes: GC's programs and erases run under the reads.
pub(crate) fn reads_beside_gc(p: SsdParams, n: usize, rq: u32, wq: u32) -> Bench {
    closed_loop(p, n, rq, wq, 11)
}

pub(crate) fn read_tail(b: &Bench) -> (SimTime, f64) {
    let mut r: Vec<SimTime> = b.lat.iter().filter(|l| !l.1).map(|l| l.2).collect();
    r.sort();
    (r[r.len() - 1], r[r.len() * 99 / 100].as_us_f64())
}

#[test]
fn suspension_takes_programs_and_erases_out_of_the_read_tail() {
    let base = small();
    let mut susp = base.clone();
    susp.sched.suspend.program = true;
    susp.sched.suspend.erase = true;
    let (a, b) = (reads_beside_gc(base, 12_000, 4, 8), reads_beside_gc(susp, 12_000, 4, 8));
    for x in [&a, &b] {
        assert_eq!(x.lat.len(), 12_000, "every command completes");
        x.ssd.check().unwrap();
        assert!(x.ssd.ftl.counters.gc_jobs > 50, "GC ran {} times", x.ssd.ftl.counters.gc_jobs);
    }
    assert_eq!(a.ssd.counters.erase_suspends + a.ssd.counters.program_suspends, 0);
    assert!(b.ssd.counters.erase_suspends > 10 && b.ssd.counters.program_suspends > 100, "{:?}", b.ssd.counters);
    let ((amax, a99), (bmax, b99)) = (read_tail(&a), read_tail(&b));
    // The decomposition shows why: without suspension reads wait behind GC work; with it, much
    // less (what they wait for instead is the suspensions themselves, in the die queue).
    let (ga, gb) = (a.mean_parts(1, false)[decomp::GC], b.mean_parts(1, false)[decomp::GC]);
    assert!(ga > 50.0 && gb < ga / 2.0, "reads waited {ga} µs behind GC without suspension, {gb} µs with");
    assert!(b.mean_parts(1, true)[decomp::SUSPENDED] > 0.0 && a.mean_parts(1, true)[decomp::SUSPENDED] == 0.0);
    // This drive has 4 spare blocks per plane: it is mostly below its hard GC threshold, where
    // GC work goes before user reads, so a read waits for a whole job (moves of 750 µs
    // programs and a 3.8 ms erase). Suspension lets reads into those programs and erases.
    assert!(b99 < a99 / 2.0 && bmax < amax, "p99 read {b99} µs with suspension vs {a99} without");
}

#[test]
fn suspension_bounds_how_often_one_operation_yields() {
    let mut p = small();
    p.sched.suspend.program = true;
    p.sched.suspend.erase = true;
    p.sched.suspend.max_per_op = 1;
    let one = reads_beside_gc(p.clone(), 6000, 8, 4);
    p.sched.suspend.max_per_op = 4;
    let four = reads_beside_gc(p, 6000, 8, 4);
    one.ssd.check().unwrap();
    four.ssd.check().unwrap();
    let n = |b: &Bench| b.ssd.counters.erase_suspends + b.ssd.counters.program_suspends;
    assert!(n(&four) > n(&one), "{} vs {}", n(&four), n(&one));
}

/// One channel, one chip of two dies, one plane each.
pub(crate) fn two_die_chip() -> SsdParams {
    let mut p = small();
    p.geometry =
        Geometry { channels: 1, chips_per_channel: 1, dies_per_chip: 2, planes_per_die: 1, blocks_per_plane: 64, pages_per_block: 32, page_size: 4096 };
    p
}

#[test]
fn without_die_interleaving_a_read_to_the_other_die_waits_for_the_chip() {
    let idle = {
        let p = two_die_chip();
        p.timing.command + p.timing.read[0] + p.timing.channel_time(4096) + p.host.transfer_time(4096) + p.host.command_overhead
    };
    let lat = |interleave: bool| {
        let mut p = two_die_chip();
        p.model.die_interleave = interleave;
        let die_op = p.timing.command + p.timing.read[0] + p.timing.channel_time(4096);
        let mut b = Bench::new(p);
        b.submit(false, 0, 4096, 1); // LPA 0: die 0
        b.run_until(SimTime::from_us(10));
        b.submit(false, 4096, 4096, 1); // LPA 1: die 1
        b.run(|_| {});
        (b.lat.iter().map(|l| l.2).collect::<Vec<_>>(), die_op)
    };
    let (apart, _) = lat(true);
    assert_eq!(apart[0], idle);
    assert!(apart[1] < idle + SimTime::from_us(15), "dies interleave: only the channel is shared ({:?})", apart[1]);
    let (serial, die_op) = lat(false);
    // MQSim's chip: die 1's read starts when die 0's (sense + data out) is done.
    assert_eq!(serial[1], die_op - SimTime::from_us(10) + idle);
}

#[test]
fn eager_destage_holds_writes_back_when_write_backs_fill_the_limit() {
    let run = |eager: bool| {
        let mut p = two_die_chip();
        p.cache.mode = CacheMode::Write;
        p.cache.capacity = 64 * 4096;
        if eager {
            p.model.destage = crate::switches::Destage::Eager;
            p.model.writeback_limit_pages = Some(1);
        }
        let program = p.timing.program[0];
        let mut b = Bench::new(p);
        b.submit(true, 0, 4096, 1);
        b.submit(true, 8 * 4096, 4096, 1);
        b.run(|_| {});
        let flushed = b.ssd.ftl.counters.user_programs;
        (b.lat.iter().map(|l| l.2).collect::<Vec<_>>(), program, flushed)
    };
    let (lazy, program, lazy_programs) = run(false);
    assert!(lazy.iter().all(|&l| l < SimTime::from_us(100)), "write-back: both complete in DRAM ({lazy:?})");
    assert_eq!(lazy_programs, 0, "nothing is due for flash yet");
    let (eager, _, eager_programs) = run(true);
    assert!(eager[0] < SimTime::from_us(100));
    assert!(eager[1] > program, "the second write waits for the first write-back's program ({:?})", eager[1]);
    assert_eq!(eager_programs, 2, "both cold pages went to flash at once");
}

/// MQSim's page-by-page admission (`WriteAdmission::Page`): an 8-page write with room for two
/// write-backs gets two pages in, waits for their programs, and completes after them; admitted
/// whole (NeSt's `Command`) it completes from DRAM with all eight cold pages going to flash at
/// once. A later one-page write is admitted at once in page mode, past the waiting one.
#[test]
fn page_admission_lets_a_write_in_page_by_page_under_the_write_back_limit() {
    use crate::switches::{Destage, WriteAdmission};
    let run = |admission: WriteAdmission| {
        let mut p = two_die_chip();
        p.cache.mode = CacheMode::Write;
        p.cache.capacity = 64 * 4096;
        p.model.destage = Destage::Eager;
        p.model.writeback_limit_pages = Some(2);
        p.model.write_admission = admission;
        let program = p.timing.program[0];
        let mut b = Bench::new(p);
        b.submit(true, 0, 8 * 4096, 1);
        b.run(|_| {});
        b.ssd.check().unwrap();
        assert_eq!(b.ssd.ftl.counters.user_programs, 8, "every cold page reaches flash");
        (b.lat[0].2, program)
    };
    let (whole, program) = run(WriteAdmission::Command);
    assert!(whole < program, "admitted whole, it completes from DRAM ({whole} against a {program} program)");
    let (paged, _) = run(WriteAdmission::Page);
    assert!(paged.0 > 3 * program.0, "pages 3–8 wait for earlier write-backs: ≥ three programs in a row ({paged})");
}

#[test]
fn a_fail_slow_timing_scales_the_array_not_the_bus() {
    let t = preset("ssd-a").unwrap().timing;
    let s = t.scaled(10.0);
    assert_eq!(s.read.map(|x| x.0), t.read.map(|x| x.0 * 10));
    assert_eq!(s.program.map(|x| x.0), t.program.map(|x| x.0 * 10));
    assert_eq!((s.erase.0, s.command.0), (t.erase.0 * 10, t.command.0 * 10));
    assert_eq!(s.channel_time(16384), t.channel_time(16384), "the channel keeps its rate");
    assert_eq!(t.scaled(1.0), t);
}

/// `model.domains`: each address range's pages live on its own channels — preconditioned to
/// the occupancy of its own share (half the drive each here), and written afterwards — and a
/// domain on one channel takes half the logical pages, however long its address range.
#[test]
fn address_domains_keep_their_pages_on_their_own_channels() {
    use crate::domains::DomainResources;
    let mut p = small();
    let half = p.logical_pages() / 2 * p.geometry.page_size as u64;
    let on = |start: u64, channel: u32| DomainResources { start, ids: [vec![channel], vec![0, 1], vec![0], vec![0, 1]] };
    p.model.domains = vec![on(0, 1), on(half, 0)];
    p.precondition = Some(Precondition::new(0.5, 1.0));
    let logical = p.logical_pages() as u32;
    let mut b = Bench::new(p.clone());
    let channel_of =
        |b: &Bench, lpa: u32| b.ssd.ftl.lookup(lpa).map(|ppa| b.ssd.layout.channel_of_die(b.ssd.layout.die_of_plane(b.ssd.layout.plane_of_ppa(ppa))));
    let mapped = |b: &Bench, r: std::ops::Range<u32>, ch: u32| r.filter(|&l| channel_of(b, l).inspect(|&c| assert_eq!(c, ch, "LPA {l}")).is_some()).count();
    // Each domain holds half the drive's pages, half of them filled.
    let per = (logical / 2) as usize;
    assert!((mapped(&b, 0..logical / 2, 1) as f64 - per as f64 / 2.0).abs() <= 2.0);
    assert!((mapped(&b, logical / 2..logical, 0) as f64 - per as f64 / 2.0).abs() <= 2.0);
    for i in 0..200u64 {
        b.submit(true, (i * 7919 % logical as u64) * p.geometry.page_size as u64, 4096, 1);
        b.run(|_| {});
    }
    mapped(&b, 0..logical / 2, 1);
    mapped(&b, logical / 2..logical, 0);
    assert_eq!(b.lat.len(), 200);
    // A dynamic allocation would write anywhere: refused.
    p.ftl.allocation = Allocation::Dynamic;
    assert!(p.validate().iter().any(|(k, m)| k == "model.domains" && m.contains("static")));
}
