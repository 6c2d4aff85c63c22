//! The model switches where MQSim's discipline differs (switches.rs): each one acts as its
//! documentation says, on a drive small enough to time by hand.

use crate::params::*;
use crate::switches::GcPrecedence;
use crate::tests::{random_writes, read_tail, reads_beside_gc, small, two_die_chip, Bench};
use nest_core::SimTime;

/// One channel, one chip, one die of two planes.
fn two_plane_die() -> SsdParams {
    let mut p = small();
    p.geometry.channels = 1;
    p.geometry.chips_per_channel = 1;
    p
}

/// One channel, two chips of one single-plane die each, commands waiting for the channel: LPA 0
/// on chip 0, LPA 1 on chip 1.
fn two_chip_channel() -> SsdParams {
    let mut p = small();
    p.geometry.channels = 1;
    p.geometry.planes_per_die = 1;
    p.model.command_waits_for_channel = true;
    p
}

fn idle_read(p: &SsdParams) -> SimTime {
    p.timing.command + p.timing.read[0] + p.timing.channel_time(4096) + p.host.transfer_time(4096) + p.host.command_overhead
}

/// When each request completed, by submit order.
fn done_at(b: &Bench) -> Vec<SimTime> {
    let mut v = vec![SimTime::ZERO; b.issued.len()];
    // `lat` is in completion order; match it back through the issue order of equal latencies.
    let mut seen = vec![false; b.issued.len()];
    for l in &b.lat {
        let i = (0..b.issued.len()).find(|&i| !seen[i] && b.issued[i].1 == l.0 && b.issued[i].2 == l.1 && v[i] == SimTime::ZERO).unwrap();
        seen[i] = true;
        v[i] = b.issued[i].0 + l.2;
    }
    v
}

#[test]
fn a_command_waits_for_its_channel_when_asked_to() {
    let p = two_chip_channel();
    let idle = idle_read(&p);
    let x = p.timing.channel_time(4096);
    let lat = |gate: bool| {
        let mut p = p.clone();
        p.model.command_waits_for_channel = gate;
        let first_out = p.timing.command + p.timing.read[0];
        let mut b = Bench::new(p);
        b.submit(false, 0, 4096, 1);
        // Chip 1's read arrives half-way through chip 0's data transfer.
        b.run_until(SimTime(first_out.0 + x.0 / 2));
        b.submit(false, 4096, 4096, 1);
        b.run(|_| {});
        b.lat[1].2
    };
    assert_eq!(lat(false), idle, "the sense starts at once; its transfer follows chip 0's");
    assert_eq!(lat(true), idle + SimTime(x.0 - x.0 / 2), "the command waits for the channel");
}

#[test]
fn a_chip_without_interleaving_serves_an_urgent_read_on_its_other_die_first() {
    let mut p = two_die_chip();
    p.model.die_interleave = false;
    p.sched.device_qos = true;
    let die_op = p.timing.command + p.timing.read[0] + p.timing.channel_time(4096);
    let mut b = Bench::new(p);
    b.submit(false, 0, 4096, 1); // die 0: the chip is busy
    b.run_until(SimTime::from_us(5));
    b.submit(false, 2 * 4096, 4096, 1); // High on die 0, older
    b.run_until(SimTime::from_us(10));
    b.submit(false, 4096, 4096, 0); // Urgent on die 1
    b.run(|_| {});
    let t = done_at(&b);
    assert!(t[2] < t[1], "urgent first at the chip ({:?} vs {:?})", t[2], t[1]);
    assert!(t[1] - t[2] >= die_op, "one die's command at a time: {:?} apart", t[1] - t[2]);
}

#[test]
fn per_page_data_out_completes_the_first_page_a_transfer_earlier() {
    let p = two_plane_die();
    let x = p.timing.channel_time(4096);
    let run = |per_page: bool| {
        let mut p = p.clone();
        p.model.data_out_per_page = per_page;
        let mut b = Bench::new(p);
        b.submit(false, 4 * 4096, 4096, 1); // plane 0: the die is busy
        b.run_until(SimTime::from_us(10));
        b.submit(false, 0, 4096, 1); // plane 0
        b.submit(false, 4096, 4096, 1); // plane 1: one two-plane read with the first
        b.run(|_| {});
        let t = done_at(&b);
        (t[1], t[2])
    };
    let batch = run(false);
    assert!(batch.1 - batch.0 < SimTime(x.0 / 4), "both leave the die after the batch's one transfer (then PCIe takes them in turn)");
    let paged = run(true);
    assert_eq!(paged.1, batch.0, "the last page is out when the batch's one transfer would end");
    assert_eq!(paged.0 + x, paged.1, "the first page completes a transfer earlier");
}

#[test]
fn multi_plane_batches_take_other_classes_only_when_allowed() {
    let high_lat = |across: bool| {
        let mut p = two_plane_die();
        p.sched.device_qos = true;
        p.model.multiplane_across_classes = across;
        let mut b = Bench::new(p);
        b.submit(false, 4 * 4096, 4096, 1); // plane 0: the die is busy
        b.run_until(SimTime::from_us(10));
        b.submit(false, 2 * 4096, 4096, 0); // urgent, plane 0
        b.submit(false, 3 * 4096, 4096, 1); // high, plane 1
        b.run(|_| {});
        b.lat.iter().filter(|l| l.0 == 1).map(|l| l.2).max().unwrap()
    };
    // Alone, the high read waits for the urgent one's sense and transfer.
    let read = small().timing.read[0];
    assert!(high_lat(false) > high_lat(true) + SimTime(read.0 / 2), "{:?} vs {:?}", high_lat(false), high_lat(true));
}

#[test]
fn non_preemptible_gc_that_goes_first_lengthens_the_read_tail() {
    let tail = |gc: GcPrecedence| {
        let mut p = small();
        p.ftl.gc_preemptible = false;
        p.sched.suspend.set_kinds("off");
        p.model.gc_precedence = gc;
        let b = reads_beside_gc(p, 6000, 8, 4);
        b.ssd.check().unwrap();
        assert!(b.ssd.ftl.counters.gc_programs > 0, "GC ran");
        read_tail(&b)
    };
    let (alt_max, alt_p99) = tail(GcPrecedence::Alternate);
    let (first_max, first_p99) = tail(GcPrecedence::First);
    assert!(first_p99 > alt_p99 && first_max > alt_max, "p99 {first_p99} vs {alt_p99}, max {first_max:?} vs {alt_max:?}");
}

/// `MappingWrites::Pinned`: each translation write-back takes a page of its plane's pinned block;
/// a block is taken from the free pool per pages_per_block write-backs and never comes back (no
/// GC victim, no erase), down to GC's hard threshold, after which write-backs are counted as
/// unplaced.
#[test]
fn pinned_translation_write_backs_use_up_free_blocks_for_good() {
    use crate::ftl::Ftl;
    use crate::geometry::Layout;
    let p = two_plane_die();
    let layout = Layout::new(&p.geometry, &p.ftl.allocation);
    let mut f = Ftl::new(layout, p.logical_pages(), &p.ftl, p.soft_free_blocks(), p.hard_free_blocks());
    let (ppb, free0) = (f.layout.pages_per_block as u64, f.free_blocks(0) as u64);
    let took: u64 = (0..3 * ppb).map(|_| f.pin_translation_page(0) as u64).sum();
    assert_eq!((took, f.counters.pinned_blocks, f.free_blocks(0) as u64), (3, 3, free0 - 3));
    // Until the plane is down to the hard threshold, then nothing more is taken.
    let hard = f.hard_free.max(1) as u64;
    for _ in 0..(free0 + 2) * ppb {
        f.pin_translation_page(0);
    }
    assert_eq!(f.free_blocks(0) as u64, hard);
    assert_eq!(f.counters.pinned_blocks, free0 - hard);
    assert!(f.counters.pinned_unplaced > 0);
    // The other plane is untouched, and the books still balance.
    assert_eq!(f.free_blocks(1) as u64, free0);
    f.check().unwrap();
}

/// `RgaSampling::Mqsim`: drawing every block of the plane gives greedy's victim (the lowest-
/// numbered among the most invalid full blocks); drawing one gives that block when it is full
/// with a stale page, else no GC — MQSim's draw includes free blocks and does not retry.
#[test]
fn mqsim_rga_draws_any_block_and_skips_gc_when_the_draw_finds_nothing() {
    use crate::ftl::{BlockState, Ftl};
    use crate::geometry::Layout;
    use nest_core::rng::RngStream;
    let mut p = two_plane_die();
    p.ftl.victim = VictimPolicy::Rga;
    let layout = Layout::new(&p.geometry, &p.ftl.allocation);
    let (bpp, ppb) = (layout.blocks_per_plane, layout.pages_per_block);
    let build = |d: u32| {
        let mut q = p.ftl.clone();
        q.rga_d = d;
        let mut f = Ftl::new(layout.clone(), p.logical_pages(), &q, p.soft_free_blocks(), p.hard_free_blocks());
        f.rga_mqsim = true;
        // Fill four blocks of plane 0 with LPAs 0.., then overwrite some of them: block 1 gets 3
        // stale pages, block 2 gets 3, block 3 gets 1.
        let mut rng = RngStream::derive(1, "t", 0, "t");
        let mut scratch = Vec::new();
        for lpa in 0..4 * ppb {
            f.write_instant(lpa, 0, &mut rng, &mut scratch);
        }
        for lpa in [ppb, ppb + 1, ppb + 2, 2 * ppb, 2 * ppb + 5, 2 * ppb + 6, 3 * ppb] {
            f.write_instant(lpa, 0, &mut rng, &mut scratch);
        }
        f
    };
    let mut rng = RngStream::derive(2, "t", 0, "t");
    let mut f = build(bpp);
    let (v, _) = f.start_gc(0, &mut rng).expect("a victim");
    assert_eq!(v % bpp, 1, "the lowest-numbered of the most invalid");
    // One draw at a time: a victim only when the drawn block is full with a stale page.
    let mut seen_none = false;
    for seed in 0..64 {
        let mut f = build(1);
        let mut rng = RngStream::derive(seed, "t", 0, "t");
        match f.start_gc(0, &mut rng) {
            Some((v, _)) => {
                assert!([1, 2, 3].contains(&(v % bpp)));
                assert_eq!(f.blocks[v as usize].state, BlockState::Victim);
            }
            None => seen_none = true,
        }
    }
    assert!(seen_none, "draws of free or fully valid blocks start no GC");
}

/// `gc_floor_blocks`: GC's threshold is at least the floor, and user writes wait below it even
/// with room on their frontier (MQSim's `max_ongoing_gc_reqs_per_plane` = 10 and
/// `Stop_servicing_writes`); 0 keeps `gc_soft` and writes wait only for GC's last block.
#[test]
fn the_gc_floor_raises_the_threshold_and_holds_writes_below_it() {
    use crate::ftl::{Ftl, GcNeed};
    use crate::geometry::Layout;
    let mut p = two_plane_die();
    let base = p.soft_free_blocks();
    p.model.gc_floor_blocks = base + 5;
    assert_eq!(p.soft_free_blocks(), base + 5);
    assert!(p.validate().is_empty(), "the floor may exceed the spare blocks, as in MQSim: {:?}", p.validate());
    let layout = Layout::new(&p.geometry, &p.ftl.allocation);
    let mut f = Ftl::new(layout, p.logical_pages(), &p.ftl, p.soft_free_blocks(), p.hard_free_blocks());
    f.write_floor = p.model.gc_floor_blocks;
    let ppb = f.layout.pages_per_block;
    let free0 = f.free_blocks(0) as u32;
    // Fill blocks until the plane is one block above the floor, with room left on the frontier.
    let mut lpa = 0;
    while f.free_blocks(0) as u32 > p.model.gc_floor_blocks {
        let ppa = f.alloc(0, crate::ftl::Front::User(0));
        f.program_user(lpa, ppa);
        lpa += 1;
    }
    assert!(f.can_alloc_user(0) && f.gc_need(0) == GcNeed::None, "at the floor GC waits and writes go on");
    for _ in 0..ppb {
        let ppa = f.alloc(0, crate::ftl::Front::User(0));
        f.program_user(lpa, ppa);
        lpa += 1;
    }
    assert_eq!(f.free_blocks(0) as u32, p.model.gc_floor_blocks - 1);
    assert!(!f.can_alloc_user(0), "below the floor a write waits though the frontier has room");
    assert_eq!(f.gc_need(0), GcNeed::Hard);
    f.write_floor = 0;
    assert!(f.can_alloc_user(0) && free0 > p.model.gc_floor_blocks);
}

/// `pages_at_dispatch` with `unwritten_read_maps`: a read of a never-written page takes the next
/// page of its plane's frontier when it is dispatched (MQSim's `online_create_entry_for_reads`),
/// and its multi-plane partner must then share that page's offset. Without it such pages are
/// unplaced and every one of them shares offset 0.
#[test]
fn a_read_of_a_never_written_page_takes_a_page_at_dispatch_and_pairs_by_it() {
    let run = |at_dispatch: bool| {
        let mut p = two_plane_die();
        p.model.multiplane_same_page = true;
        p.model.unwritten_read_maps = true;
        p.model.pages_at_dispatch = at_dispatch;
        let mut b = Bench::new(p);
        b.submit(false, 2 * 4096, 4096, 1); // LPA 2, plane 0: page 0 there when placed
        b.run(|_| {});
        b.submit(true, 4 * 4096, 4096, 1); // LPA 4 programs on plane 0 (page 1): the die is busy
        b.run_until(b.now + SimTime::from_us(5));
        b.submit(false, 0, 4096, 1); // LPA 0, plane 0: page 2, queued
        b.submit(false, 4096, 4096, 1); // LPA 1, plane 1: page 0, queued beside it
        b.run(|_| {});
        let t = done_at(&b);
        (t[3].0.abs_diff(t[2].0), [0, 1, 2].map(|l| b.ssd.ftl.lookup(l).is_some()).to_vec())
    };
    let p = two_plane_die();
    let (apart, mapped) = run(false);
    assert!(apart <= (p.timing.channel_time(4096) + p.host.transfer_time(4096)).0, "one multi-plane read ({apart} ps apart)");
    assert_eq!(mapped, vec![false; 3]);
    let (apart, mapped) = run(true);
    assert!(apart >= p.timing.read[0].0, "offsets 2 and 0: two reads, one after the other ({apart} ps apart)");
    assert_eq!(mapped, vec![true; 3]);
}

/// `pages_at_dispatch`: a program takes its page when it joins its die's queue (MQSim's
/// `translate_lpa_to_ppa`), not when it starts.
#[test]
fn a_program_takes_its_page_at_dispatch() {
    let run = |at_dispatch: bool| {
        let mut p = two_plane_die();
        p.model.pages_at_dispatch = at_dispatch;
        let mut b = Bench::new(p);
        b.submit(true, 0, 4096, 1); // LPA 0 programs on plane 0: the die is busy
        b.run_until(SimTime::from_us(5));
        b.submit(true, 2 * 4096, 4096, 1); // LPA 2 waits behind it on the same die
        b.run_until(SimTime::from_us(20));
        let queued = b.ssd.ftl.lookup(2);
        b.run(|_| {});
        (queued, b.ssd.ftl.lookup(2))
    };
    let (queued, done) = run(false);
    assert!(queued.is_none() && done.is_some(), "the page is taken when the program starts");
    let (queued, done) = run(true);
    assert!(queued.is_some() && queued == done, "the page taken at dispatch is the one programmed");
}

/// MQSim's GC-heavy regime on a small drive: up to ten jobs per plane and a floor of ten free
/// blocks below which user writes wait; non-preemptible GC first. Returns the most jobs a plane
/// ran at once, the jobs run, and their mean duration (ps).
fn gc_heavy(jobs_per_plane: u32, floor: u32, reads_first: bool, pages_at_dispatch: bool) -> (u32, u64, f64) {
    let mut p = small();
    p.model.gc_jobs_per_plane = jobs_per_plane;
    p.model.gc_floor_blocks = floor;
    p.ftl.overprovisioning = 0.3;
    p.ftl.gc_preemptible = false;
    p.model.gc_precedence = GcPrecedence::First;
    p.model.gc_reads_first = reads_first;
    p.model.pages_at_dispatch = pages_at_dispatch;
    let b = random_writes(p, 20_000, 16);
    assert_eq!(b.lat.len(), 20_000, "every command completes");
    assert_eq!(b.ssd.in_flight(), 0);
    b.ssd.check().unwrap();
    let jobs = b.ssd.ftl.counters.gc_jobs;
    (b.ssd.gc_peak, jobs, b.ssd.counters.gc_time_ps as f64 / jobs as f64)
}

/// `gc_reads_first`: a die reads every page its jobs have to move before it writes any, so
/// jobs running together end together — each lasts longer than when a job's writes follow its
/// own reads in arrival order.
#[test]
fn gc_reads_before_writes_make_running_jobs_wait_for_each_other() {
    let (peak_fifo, _, fifo) = gc_heavy(10, 10, false, false);
    let (peak_first, _, first) = gc_heavy(10, 10, true, false);
    assert!(peak_fifo > 1 && peak_first > 1, "several jobs at once: {peak_fifo}, {peak_first}");
    assert!(first > 1.2 * fifo, "mean job {first:.0} ps with reads first, {fifo:.0} in arrival order");
}

/// `pages_at_dispatch` for GC: a move takes its page when its read is done (MQSim), so while
/// the writes wait behind the reads GC's frontier takes blocks — and each block taken below the
/// threshold starts another job.
#[test]
fn gc_pages_taken_as_reads_finish_start_more_jobs_at_once() {
    let (peak_late, jobs_late, _) = gc_heavy(10, 10, true, false);
    let (peak_early, jobs_early, _) = gc_heavy(10, 10, true, true);
    assert!(peak_early > peak_late, "most jobs at once: {peak_early} taking pages at dispatch, {peak_late} at the program");
    assert!(jobs_early > 100 && jobs_late > 100);
}

/// More jobs per plane than MQSim's ten, with its floor: jobs start only while the plane holds
/// every page they owe (`gc_room`), so no plane runs dry — where MQSim's would, and crash.
#[test]
fn many_gc_jobs_per_plane_never_run_a_plane_dry() {
    let (peak, jobs, _) = gc_heavy(64, 12, true, true);
    assert!(peak > 10 && jobs > 100, "peak {peak}, jobs {jobs}");
}

/// The pages GC jobs owe (`gc_room`): a user write takes a free block only if the blocks left
/// (and GC's frontier) hold them all, and another job starts only if its victim's pages fit too.
#[test]
fn user_writes_leave_gc_the_pages_its_jobs_owe() {
    use crate::ftl::Ftl;
    use crate::geometry::Layout;
    let p = two_plane_die();
    let layout = Layout::new(&p.geometry, &p.ftl.allocation);
    let mut f = Ftl::new(layout, p.logical_pages(), &p.ftl, p.soft_free_blocks(), p.hard_free_blocks());
    let (ppb, free) = (f.layout.pages_per_block, f.free_blocks(0) as u32);
    f.gc_owe(0, (free - 1) * ppb);
    assert!(f.can_alloc_user(0), "the blocks left after one more hold exactly what is owed");
    assert!(f.room_for_gc_job(0, ppb) && !f.room_for_gc_job(0, ppb + 1));
    f.gc_owe(0, 1);
    assert!(!f.can_alloc_user(0), "one page more and a user write may not take a block");
    assert!(f.can_alloc_user(1), "the other plane owes nothing");
    f.gc_paid(0);
    assert!(f.can_alloc_user(0));
}

/// `pages_at_dispatch`: writes that came while their plane was below GC's floor wait without a
/// page; the erase that lifts the plane gives them theirs at once, in queue order, as MQSim
/// serves its writes for an overfull plane — none waits without a page its plane could give.
#[test]
fn writes_held_below_the_floor_take_their_pages_at_the_erase() {
    let mut p = small();
    p.model.gc_jobs_per_plane = 10;
    p.model.gc_floor_blocks = 10;
    p.model.pages_at_dispatch = true;
    p.ftl.overprovisioning = 0.3;
    p.precondition = Some(Precondition::new(0.9, 1.0));
    let mut b = Bench::new(p);
    let pages = b.ssd.params.logical_pages() * 9 / 10;
    let mut rng = nest_core::rng::RngStream::from_seed(7);
    let (mut placeable, mut held) = (0usize, 0usize);
    let mut top_up = |b: &mut Bench| {
        placeable += b.ssd.unplaced_writes(true);
        held += b.ssd.unplaced_writes(false);
        while b.issued.len() < 20_000 && b.issued.len() - b.lat.len() < 16 {
            b.submit(true, rng.below(pages) * 4096, 4096, 1);
        }
    };
    top_up(&mut b);
    b.run(top_up);
    assert_eq!(b.lat.len(), 20_000);
    assert!(held > 0, "writes waited below the floor");
    assert_eq!(placeable, 0, "a write waited without a page its plane could give");
}

/// `sqe_over_pcie`: each NVMe message joins its direction's queue when the one before it has
/// crossed (MQSim's one first-come queue per direction). A read submitted with a large write
/// passes the write's data — its doorbell and entry cross before the write's data is asked
/// for — while a read submitted once that data is on the link waits behind all of it.
#[test]
fn a_read_waits_behind_write_data_already_on_the_link_but_not_behind_data_not_yet_asked_for() {
    let read_lat = |sqe: bool, read_at: SimTime| {
        let mut p = small();
        p.model.sqe_over_pcie = sqe;
        let mut b = Bench::new(p);
        b.submit(true, 0, 256 * 1024, 1);
        b.run_until(read_at);
        b.submit(false, 1 << 20, 4096, 1);
        b.run(|_| {});
        b.lat.iter().find(|l| !l.1).unwrap().2
    };
    let p = small();
    let data = p.host.transfer_time_by(256 * 1024, p.model.pcie_framing);
    let later = p.host.command_overhead + SimTime::from_us(1);
    let alone = read_lat(false, SimTime::ZERO);
    let (together, behind) = (read_lat(true, SimTime::ZERO), read_lat(true, later));
    // The read's own messages add well under a microsecond to its latency.
    assert!(together < alone + SimTime::from_us(1), "read {together:?} submitted with the write, {alone:?} alone");
    assert!(behind + later >= alone + data, "read {behind:?} submitted at {later:?}, {alone:?} alone; the write's data take {data:?}");
}

/// `open_frontiers`: the user and GC frontiers are open from the start (the pool two blocks
/// lower), and a frontier that fills takes its next block at once — so a GC job's moves find
/// room in the GC frontier instead of taking a block when they start (MQSim). Without the
/// switch each frontier takes a block when its first page is wanted.
#[test]
fn open_frontiers_take_their_blocks_up_front_and_replace_a_full_one_at_once() {
    use crate::ftl::Ftl;
    use crate::geometry::Layout;
    let p = small();
    let build = |open: bool| {
        let layout = Layout::new(&p.geometry, &p.ftl.allocation);
        let mut f = Ftl::new(layout, p.logical_pages(), &p.ftl, p.soft_free_blocks(), p.hard_free_blocks());
        f.open_frontiers = open;
        if open {
            f.open_all_frontiers();
        }
        f
    };
    let (mut lazy, mut open) = (build(false), build(true));
    let (free0, ppb) = (lazy.free_blocks(0), lazy.layout.pages_per_block);
    assert_eq!(open.free_blocks(0), free0 - 2, "user and GC frontiers taken at the start");
    // A GC frontier's first page: the lazy one takes a block now, the open one had it.
    lazy.alloc(0, crate::ftl::Front::Gc);
    open.alloc(0, crate::ftl::Front::Gc);
    assert_eq!((lazy.free_blocks(0), open.free_blocks(0)), (free0 - 1, free0 - 2));
    // Its last page: the open one takes the next block at once, the lazy one at its next page.
    for _ in 1..ppb {
        lazy.alloc(0, crate::ftl::Front::Gc);
        open.alloc(0, crate::ftl::Front::Gc);
    }
    assert_eq!((lazy.free_blocks(0), open.free_blocks(0)), (free0 - 1, free0 - 3));
    lazy.alloc(0, crate::ftl::Front::Gc);
    open.alloc(0, crate::ftl::Front::Gc);
    assert_eq!((lazy.free_blocks(0), open.free_blocks(0)), (free0 - 2, free0 - 3));
    assert!(open.planes[0].gc_front.is_some() && open.planes[0].user_front.is_some());
}

/// The small drive in MQSim's GC-heavy regime: ten jobs per plane at once from a floor of ten
/// free blocks, GC non-preemptible and first, each chip reading every page its jobs move
/// before writing one.
pub(crate) fn mqsim_gc_regime() -> SsdParams {
    let mut p = small();
    p.model.gc_jobs_per_plane = 10;
    p.model.gc_floor_blocks = 10;
    p.ftl.overprovisioning = 0.3;
    p.ftl.gc_preemptible = false;
    p.model.gc_precedence = GcPrecedence::First;
    p.model.gc_reads_first = true;
    p
}

/// `gc_user_partners`: in MQSim's GC-heavy regime, user programs queued on a GC program's die
/// at its page offset on another plane go in its batch, so fewer of them wait for the chip's GC
/// to finish; without the switch none does. Every command completes either way.
#[test]
fn user_programs_ride_with_gc_programs_when_partnered() {
    let run = |partners: bool| {
        let mut p = mqsim_gc_regime();
        p.model.pages_at_dispatch = true;
        p.model.multiplane_same_page = true;
        p.model.gc_user_partners = partners;
        gc_writes(p).ssd.counters.gc_partnered_programs
    };
    assert_eq!(run(false), 0);
    let with = run(true);
    assert!(with > 100, "{with} user programs rode with GC programs");
}

/// 20,000 random 4 KiB writes at QD 16 on `p`, which must run GC: every command completes and
/// the books balance.
pub(crate) fn gc_writes(p: SsdParams) -> Bench {
    let b = random_writes(p, 20_000, 16);
    assert_eq!(b.lat.len(), 20_000, "every command completes");
    b.ssd.check().unwrap();
    assert!(b.ssd.ftl.counters.gc_jobs > 50, "GC ran {} times", b.ssd.ftl.counters.gc_jobs);
    b
}

/// `schedule_after_submit`: a write's pages on two chips of one channel, queued in one step.
/// The first page queued is on chip 1, but the channel's round-robin turn is at chip 0: with the
/// switch both pages are in before the channel is offered a command, so chip 0's data goes
/// first (as MQSim's `Schedule()` finds it); without, chip 1's goes as its page is queued, and
/// chip 0 waits for the channel.
#[test]
fn a_steps_transactions_are_all_queued_before_the_channel_picks_a_chip() {
    let first_chip = |after_submit: bool| {
        let mut p = two_chip_channel();
        p.model.die_interleave = false;
        p.model.schedule_after_submit = after_submit;
        let mut b = Bench::new(p);
        // LPA 1 (chip 1), then LPA 2 (chip 0).
        b.submit(true, 4096, 8192, 1);
        // Step until a chip has started: which one?
        let mut t = SimTime::ZERO;
        let busy = loop {
            t += SimTime::from_ns(100);
            b.run_until(t);
            let (chips, _) = b.ssd.utilisation(t);
            let busy: Vec<usize> = (0..2).filter(|&c| chips[c] > 0.0).collect();
            if !busy.is_empty() || t > SimTime::from_ms(1) {
                break busy;
            }
        };
        b.run(|_| {});
        assert_eq!(b.lat.len(), 1, "the command completes");
        b.ssd.check().unwrap();
        busy
    };
    assert_eq!(first_chip(false), vec![1], "without the switch the first page queued goes first");
    assert_eq!(first_chip(true), vec![0], "with it the channel's turn picks among both");
}

/// `onfi_command_phases`: a one-plane read's command holds the channel MQSim's 290 ns in place
/// of `timing.command` on the die, and the channel's busy time counts it.
#[test]
fn an_onfi_command_phase_holds_the_channel_before_the_sense() {
    let p = two_chip_channel();
    let idle = idle_read(&p);
    let run = |onfi: bool| {
        let mut p = p.clone();
        p.model.onfi_command_phases = onfi;
        let mut b = Bench::new(p);
        b.submit(false, 0, 4096, 1);
        b.run(|_| {});
        let (_, chans) = b.ssd.utilisation(b.now);
        (b.lat[0].2, SimTime((chans[0] * b.now.0 as f64).round() as u64))
    };
    let ((off, busy_off), (on, busy_on)) = (run(false), run(true));
    assert_eq!(off, idle);
    assert_eq!(on, idle - p.timing.command + SimTime::from_ns(290));
    assert_eq!(busy_on, busy_off + SimTime::from_ns(290), "the phase is channel time");
}

/// `gc_multiplane`: GC's reads, writes and erases pair across a die's planes as MQSim issues
/// them; without the switch each goes alone. Every command completes either way.
#[test]
fn gc_work_goes_in_multi_plane_batches_when_asked_to() {
    let run = |multiplane: bool| {
        let mut p = small();
        p.ftl.overprovisioning = 0.3;
        p.model.gc_multiplane = multiplane;
        gc_writes(p).ssd.counters.gc_batched
    };
    assert_eq!(run(false), 0);
    let paired = run(true);
    assert!(paired > 1000, "{paired} GC transactions went in multi-plane batches");
}

/// `gc_lock_loses_writebacks`: in MQSim's GC regime a write-back to an LPA a running job has
/// locked is lost as MQSim loses it (never programmed, its room kept); without the switch none
/// is. Every command completes either way and the books balance: the GC copy stays mapped.
#[test]
fn write_backs_to_gc_locked_lpas_are_lost_and_keep_their_room() {
    use crate::switches::Destage;
    let run = |lose: bool| {
        let mut p = mqsim_gc_regime();
        p.cache.mode = CacheMode::Write;
        p.model.destage = Destage::Eager;
        p.model.writeback_limit_pages = Some(256);
        p.model.gc_lock_loses_writebacks = lose;
        let b = gc_writes(p);
        (b.ssd.counters.writebacks_lost, b.ssd.ftl.counters.user_programs)
    };
    let (lost_off, _) = run(false);
    assert_eq!(lost_off, 0);
    let (lost, programs) = run(true);
    assert!(lost > 0 && lost < 256, "{lost} write-backs lost to GC locks ({programs} user programs)");
}
