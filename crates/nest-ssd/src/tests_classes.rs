//! Compat's disciplines where priority classes meet: the walk over idle channels
//! (`walk_idle_channels`: after each submission MQSim's `Schedule()` visits every idle channel's
//! chips, and each visit to a busy chip asks its class round-robin, `class_wrr = "mqsim"`) and
//! the writes waiting for the write cache (`write_admission = "page"`: one queue, any class).

use crate::params::*;
use crate::switches::{ClassWrr, Destage, WriteAdmission};
use crate::tests::{small, Bench};
use nest_core::rng::RngStream;
use nest_core::SimTime;

/// Closed-loop 8 KiB random reads of High (QD 8) and, if `medium`, Medium (QD 4) on a
/// preconditioned four-channel drive run with MQSim's chip and channel discipline.
fn two_classes(walk: bool, medium: bool) -> Bench {
    two_classes_asked(walk, medium, false)
}

/// `two_classes`, each busy visit's round-robin asks made at the visit (`eager`) or settled later.
fn two_classes_asked(walk: bool, medium: bool, eager: bool) -> Bench {
    let mut p = small();
    p.geometry.channels = 4;
    p.geometry.planes_per_die = 4;
    p.precondition = Some(Precondition::new(0.7, 1.0));
    p.sched.device_qos = true;
    p.model.die_interleave = false;
    p.model.command_waits_for_channel = true;
    p.model.schedule_after_submit = true;
    p.model.class_wrr = ClassWrr::Mqsim;
    p.model.walk_idle_channels = walk;
    let mut b = Bench::new(p);
    b.ssd.eager_visits = eager;
    let pages = b.ssd.params.logical_pages() * 7 / 10 - 2;
    let mut rng = RngStream::from_seed(5);
    let (n, mut issued, mut seen) = (6_000usize, 0usize, 0usize);
    let mut inflight = [0u32; 3];
    let want = [0, 8, if medium { 4 } else { 0 }];
    let mut top_up = |b: &mut Bench| {
        for l in &b.lat[seen..] {
            inflight[l.0 as usize] -= 1;
        }
        seen = b.lat.len();
        for c in 1..3 {
            while issued < n && inflight[c] < want[c] {
                b.submit(false, rng.below(pages) * 4096, 8192, c as u8);
                inflight[c] += 1;
                issued += 1;
            }
        }
    };
    top_up(&mut b);
    b.run(top_up);
    b
}

fn latencies(b: &Bench, class: u8) -> Vec<SimTime> {
    b.lat.iter().filter(|l| l.0 == class).map(|l| l.2).collect()
}

#[test]
fn walking_every_idle_channel_moves_a_busy_chips_class_turn_and_nothing_else() {
    for walk in [false, true] {
        for medium in [false, true] {
            let b = two_classes(walk, medium);
            assert_eq!(b.lat.len(), 6_000, "every command completes (walk {walk}, medium {medium})");
            assert_eq!(b.ssd.in_flight(), 0);
            b.ssd.check().unwrap();
        }
    }
    // One class: a visit asks a round-robin whose answer is always that class, and a walk over an
    // idle channel's chips brings its turn back round — the runs are the same.
    assert_eq!(latencies(&two_classes(false, false), 1), latencies(&two_classes(true, false), 1));
    // Two classes: the asks on busy chips move the phase of each chip's round-robin, so which
    // class a freed chip serves, and so the latencies, differ.
    let (off, on) = (two_classes(false, true), two_classes(true, true));
    assert_ne!(latencies(&off, 2), latencies(&on, 2));
}

/// A busy chip's visits are counted and their asks made when its queues next change or it picks
/// (`settle_visits`): the same answers as asking at each visit, as MQSim does.
#[test]
fn busy_visits_asked_late_answer_as_asked_at_once() {
    for walk in [false, true] {
        let (late, at_once) = (two_classes_asked(walk, true, false), two_classes_asked(walk, true, true));
        for c in [1, 2] {
            assert_eq!(latencies(&late, c), latencies(&at_once, c), "class {c}, walk {walk}");
        }
        assert_eq!(format!("{:?}", late.ssd.counters), format!("{:?}", at_once.ssd.counters));
    }
}

/// Closed-loop 8 KiB random writes of High (QD 16) and Medium (QD 2) through a write cache
/// whose write-backs in flight are capped, admitted page by page as MQSim admits them.
fn writes_of_two_classes() -> Bench {
    let mut p = small();
    p.geometry.channels = 4;
    p.cache.mode = CacheMode::Write;
    p.sched.device_qos = true;
    p.model.write_admission = WriteAdmission::Page;
    p.model.destage = Destage::Eager;
    p.model.writeback_limit_pages = Some(8);
    let mut b = Bench::new(p);
    let pages = b.ssd.params.logical_pages() / 2 - 2;
    let mut rng = RngStream::from_seed(9);
    let mut left = [0usize, 3_000, 300];
    let mut inflight = [0u32; 3];
    let want = [0, 16, 2];
    let mut seen = 0;
    let mut top_up = |b: &mut Bench| {
        for l in &b.lat[seen..] {
            inflight[l.0 as usize] -= 1;
        }
        seen = b.lat.len();
        for c in 1..3 {
            while left[c] > 0 && inflight[c] < want[c] {
                b.submit(true, rng.below(pages) * 4096, 8192, c as u8);
                inflight[c] += 1;
                left[c] -= 1;
            }
        }
    };
    top_up(&mut b);
    b.run(top_up);
    b
}

/// MQSim's shared cache keeps one list of waiting writes (`Data_Cache_Manager_Flash_Advanced.cpp:
/// 251-258, 467-479`): a Medium write that waits is retried before High writes that came after
/// it. Queued by class, the High flow's waiting writes always went first and held the Medium
/// writes back until High was done (a blind SLC comparison: Medium writes p99 421 ms against
/// MQSim's 1.5 ms).
#[test]
fn a_waiting_write_of_a_lower_class_is_not_passed_by_later_ones() {
    let b = writes_of_two_classes();
    assert_eq!(b.lat.len(), 3_300, "every command completes");
    b.ssd.check().unwrap();
    assert!(b.ssd.counters.write_stalls > 1_000, "writes waited for the cache {} times", b.ssd.counters.write_stalls);
    let worst = |c: u8| latencies(&b, c).into_iter().max().unwrap();
    let (high, medium) = (worst(1), worst(2));
    assert!(medium.0 < high.0 * 2, "Medium's slowest write {medium:?} against High's {high:?}");
    // Medium finished its writes while High was still writing, not after it.
    let last = |c: u8| b.lat.iter().rposition(|l| l.0 == c).unwrap();
    assert!(last(2) < last(1) - 100, "Medium's last completion at {} of {}", last(2), b.lat.len());
}

/// Flow 0 writes 32 KiB sequentially (a page on each plane of the drive in turn) while flow 1,
/// in the other half of the address space, reads pages never written — each of which takes a
/// page of its plane's user frontier (`unwritten_read_maps`, as MQSim's reads do).
fn writer_beside_reader(streams: bool) -> Bench {
    let mut p = small();
    p.model.die_interleave = false;
    p.model.multiplane_same_page = true;
    p.model.pages_at_dispatch = true;
    p.model.unwritten_read_maps = true;
    let half = p.logical_pages() / 2 * 4096;
    p.model.mapping_domains = vec![0, half];
    p.model.stream_frontiers = streams;
    let mut b = Bench::new(p);
    let mut rng = RngStream::from_seed(3);
    let (mut next, mut left) = (0u64, [1_200usize, 1_200]);
    let mut inflight = [0u32; 2];
    let mut seen = 0;
    let mut top_up = |b: &mut Bench| {
        for l in &b.lat[seen..] {
            inflight[l.1 as usize] -= 1;
        }
        seen = b.lat.len();
        while left[1] > 0 && inflight[1] < 4 {
            b.submit(true, next, 32768, 1);
            next += 32768;
            (inflight[1], left[1]) = (inflight[1] + 1, left[1] - 1);
        }
        while left[0] > 0 && inflight[0] < 4 {
            b.submit(false, half + rng.below(half / 4096 - 1) * 4096, 4096, 1);
            (inflight[0], left[0]) = (inflight[0] + 1, left[0] - 1);
        }
    };
    top_up(&mut b);
    b.run(top_up);
    b
}

/// `stream_frontiers`: MQSim keeps a user frontier per plane per flow (`Data_wf[stream_id]`), so
/// flow 1's reads of never-written pages take pages of flow 1's blocks and flow 0's planes keep
/// writing the same page offsets — which multi-plane programs need (`multiplane_same_page`).
/// With one frontier per plane the reads push the planes' offsets apart (a blind run of
/// 64 KiB sequential writes beside random reads: 527 multi-plane programs against MQSim's
/// 8,106; per flow 8,076).
#[test]
fn each_flow_writes_to_frontiers_of_its_own() {
    let (shared, own) = (writer_beside_reader(false), writer_beside_reader(true));
    for b in [&shared, &own] {
        assert_eq!(b.lat.len(), 2_400, "every command completes");
        b.ssd.check().unwrap();
    }
    let pairs = |b: &Bench| b.ssd.counters.multiplane_program_commands;
    assert!(pairs(&own) > 2 * pairs(&shared).max(1), "multi-plane programs: {} per flow, {} shared", pairs(&own), pairs(&shared));
    assert!(own.ssd.counters.program_commands >= pairs(&own));
}

/// `precondition_closes_frontiers`: after preconditioning, every plane's next user page is the
/// first of a block, as MQSim's preconditioning leaves it; without, where the writes left it.
#[test]
fn preconditioning_leaves_every_plane_at_a_fresh_block_when_asked() {
    use crate::ftl::Front;
    let offsets = |close: bool| {
        let mut p = small();
        p.precondition = Some(Precondition::new(0.6, 1.0));
        p.model.precondition_closes_frontiers = close;
        let b = Bench::new(p);
        b.ssd.ftl.check().unwrap();
        (0..b.ssd.layout.planes).map(|pl| b.ssd.ftl.next_page_offset(pl, Front::User(0))).collect::<Vec<u32>>()
    };
    assert!(offsets(true).iter().all(|&o| o == 0), "{:?}", offsets(true));
    assert!(offsets(false).iter().any(|&o| o != 0), "{:?}", offsets(false));
}

/// `segment_skews`: in a flow whose MQSim slice starts half a page past a page boundary, a
/// one-page write a quarter page into the slice's page is two pieces (split where the drive's
/// page ends), and MQSim names both by the slice's page: one page written, the next untouched.
/// Without the skew the write covers one page, or, across a boundary, two.
#[test]
fn a_request_is_split_at_the_drives_pages_and_named_from_the_flows_start() {
    let written = |skew: u64, at: u64| {
        let mut p = small();
        let half = p.logical_pages() / 2 * 4096;
        p.model.mapping_domains = vec![0, half];
        p.model.segment_skews = vec![0, skew];
        let mut b = Bench::new(p);
        b.submit(true, half + at, 4096, 1);
        b.run(|_| {});
        assert_eq!(b.lat.len(), 1);
        b.ssd.check().unwrap();
        let first = (half / 4096) as u32;
        (0..3).filter(|&i| b.ssd.ftl.lookup(first + i).is_some()).collect::<Vec<u32>>()
    };
    assert_eq!(written(2048, 1024), vec![0], "two pieces, one page: MQSim's naming");
    assert_eq!(written(2048, 3072), vec![0, 1], "past the skew: the pieces name pages 0 and 1");
    assert_eq!(written(0, 1024), vec![0, 1], "no skew: a write across a boundary covers two pages");
    assert_eq!(written(0, 0), vec![0]);
}

/// `mean_field_layout`: a preconditioned SLC drive (32 planes of 512 blocks of 128 pages, RGA,
/// GC at 5 %) laid out as MQSim lays it leaves each plane the free blocks MQSim's do after its
/// preconditioning (instrumented MQSim 7ec40e3 on this geometry, every plane: 39–42 at 50 %,
/// 25–27 at 70 %, 12–14 at 90 %, one block of which holds its mapping table) — where NeSt's
/// overwrites leave a plane 30–35, 24 and 24.
#[test]
fn a_mean_field_layout_leaves_the_free_blocks_mqsim_leaves() {
    let free = |occupancy: f64, laid: bool| free_after(occupancy, laid, None);
    for (occupancy, lo, hi) in [(0.5, 39, 42), (0.7, 25, 27), (0.9, 12, 14)] {
        let (min, max) = free(occupancy, true);
        assert!(min >= lo && max <= hi, "{occupancy}: {min}–{max} free blocks a plane, MQSim {lo}–{hi}");
    }
    // Full, the overwrites stop at GC's threshold, far above what MQSim leaves.
    assert!(free(0.9, false).0 > 20);
    // Hot/cold, 10 % of the pages taking 90 % of the writes: MQSim's estimate narrows the
    // distribution, and the plane ends lower (MQSim 14–18 at 50 %, 18–21 at 70 %).
    for (occupancy, lo, hi) in [(0.5, 14, 18), (0.7, 18, 21)] {
        let (min, max) = free_after(occupancy, true, Some((0.1, 0.9)));
        assert!(min >= lo && max <= hi, "hot/cold at {occupancy}: {min}–{max} free blocks a plane, MQSim {lo}–{hi}");
    }
}

/// Preconditioning's overwrites with a hot/cold skew reach that workload's steady state: the
/// hot pages are rewritten over and over, so the emptiest full blocks — GC's next victims —
/// hold fewer valid pages than under uniform overwrites (on this drive of 32 pages a block, the
/// eight emptiest: 7–15 against 18–19).
#[test]
fn hot_overwrites_leave_gc_emptier_victims() {
    let emptiest_eight = |hot: Option<(f64, f64)>| {
        let mut p = small();
        p.precondition = Some(Precondition { hot, ..Precondition::new(0.8, 2.0) });
        let b = Bench::new(p);
        b.ssd.ftl.check().unwrap();
        let mut v: Vec<u32> = b.ssd.ftl.blocks.created().filter(|(_, k)| k.state == crate::block::BlockState::Full).map(|(_, k)| k.valid).collect();
        v.sort_unstable();
        v[..8].iter().sum::<u32>()
    };
    let (uniform, skewed) = (emptiest_eight(None), emptiest_eight(Some((0.1, 0.9))));
    assert!(skewed * 5 < uniform * 4, "the eight emptiest full blocks: {skewed} valid pages skewed, {uniform} uniform");
}

/// The least and most free blocks a plane of the SLC drive above has after preconditioning.
fn free_after(occupancy: f64, laid: bool, hot: Option<(f64, f64)>) -> (usize, usize) {
    let mut p = slc_drive();
    p.model.mean_field_layout = laid;
    p.precondition = Some(Precondition { hot, ..Precondition::new(occupancy, 1.0) });
    let b = Bench::new(p);
    b.ssd.ftl.check().unwrap();
    let f: Vec<usize> = (0..b.ssd.layout.planes).map(|pl| b.ssd.ftl.free_blocks(pl)).collect();
    (*f.iter().min().unwrap(), *f.iter().max().unwrap())
}

/// `gc_at_block_takes`: a plane left below GC's threshold (MQSim's hot/cold layout leaves 18 of
/// 512 blocks free where GC starts below 25) starts a job only when one of its frontiers takes a
/// block, as MQSim checks — at most one per block taken; without it every plane a write reaches
/// starts collecting at once. 600 writes (~19 pages a plane) take no block: no GC at all.
#[test]
fn gc_starts_at_block_takes_when_asked() {
    let run = |at_takes: bool, writes: usize| {
        let mut p = slc_drive();
        p.model.gc_at_block_takes = at_takes;
        p.precondition = Some(Precondition { hot: Some((0.1, 0.9)), ..Precondition::new(0.5, 1.0) });
        let taken = |b: &Bench| b.ssd.ftl.planes.iter().map(|p| p.blocks_taken).sum::<u32>();
        let built = taken(&Bench::new(p.clone()));
        let b = crate::tests::random_writes(p, writes, 8);
        b.ssd.check().unwrap();
        (b.ssd.ftl.counters.gc_jobs, (taken(&b) - built) as u64)
    };
    assert_eq!(run(true, 600).0, 0, "no block taken, no GC check");
    assert!(run(false, 600).0 > 100, "below the threshold, every plane written starts GC");
    let (jobs, taken) = run(true, 8_000);
    assert!(jobs > 0 && jobs <= taken, "{jobs} GC jobs for {taken} blocks taken");
}

/// The blind rounds' SLC drive (32 planes of 512 blocks of 128 4 KiB pages, RGA over 9, GC at
/// 5 %, 7 % spare) in MQSim's model.
pub(crate) fn slc_drive() -> SsdParams {
    let mut p = crate::presets::mqsim_default();
    p.geometry =
        Geometry { channels: 4, chips_per_channel: 2, dies_per_chip: 1, planes_per_die: 4, blocks_per_plane: 512, pages_per_block: 128, page_size: 4096 };
    p.ftl.victim = VictimPolicy::Rga;
    p.ftl.rga_d = 9;
    p.ftl.gc_soft = 0.05;
    p.ftl.overprovisioning = 0.07;
    p.model = p.mqsim_switches();
    p
}

/// `gc_moves_enter_cmt`: each GC move brings its page's entry into the CMT, dirty, and counts a
/// hit; the evicted dirty entries' write-backs (never served, as MQSim's) leave their
/// translation pages free to read, so a GC-heavy run does fewer mapping reads. (A preconditioned
/// SLC run of 16 KiB random writes: 22,024 → 18,737 mapping reads, MQSim 18,715; CMT hits
/// 1.4 % → 47.1 %, MQSim 47.0 %.)
#[test]
fn gc_moves_bring_their_entries_into_the_cmt_when_asked() {
    let run = |enter: bool| {
        let mut p = slc_drive();
        p.model.gc_moves_enter_cmt = enter;
        p.precondition = Some(Precondition::new(0.7, 1.0));
        let b = crate::tests::random_writes(p, 12_000, 8);
        b.ssd.check().unwrap();
        (b.ssd.counters.gc_moves, b.ssd.cmt_hit_rate().unwrap(), b.ssd.counters.map_reads)
    };
    let (moves, hits_entering, reads_entering) = run(true);
    let (_, hits_through, reads_through) = run(false);
    assert!(moves > 1_000, "a GC-heavy run: {moves} moves");
    assert!(hits_entering > hits_through + 0.2, "CMT hit rate {hits_entering:.3} with moves entering it, {hits_through:.3} without");
    assert!(reads_entering < reads_through, "mapping reads: {reads_entering} with moves entering the CMT, {reads_through} without");
}

/// `mean_field_layout` on a drive too small for MQSim's goal: 64 blocks a plane shared by three
/// flows with a user frontier each, GC's threshold at MQSim's 10 blocks, the mapping table
/// pinned on flash — MQSim's goal (59 blocks) and frontiers would leave no block free. Laying
/// stops where the frontiers and GC still need blocks and the rest of the pages are written as
/// usual: the drive builds and keeps its blocks. Laid out, it starts below the floor, where user
/// writes wait: with NeSt's GC checks the first refused write starts a job (it had waited for
/// ever); with MQSim's (`gc_at_block_takes`) it waits for a block taken, as MQSim's would, and the
/// commands left are reported in flight. Preconditioned by overwrites it starts at the floor (its
/// instant GC stops there) and every command completes with either checks.
#[test]
fn a_mean_field_layout_keeps_the_blocks_frontiers_need() {
    let mut p = small();
    for (laid, mqsim_checks) in [(true, true), (false, true), (true, false), (false, false)] {
        p.model.mean_field_layout = laid;
        p.model.open_frontiers = true;
        p.model.stream_frontiers = true;
        p.model.pages_at_dispatch = mqsim_checks;
        p.model.gc_at_block_takes = mqsim_checks;
        p.model.gc_floor_blocks = 10;
        p.model.mapping_writes = crate::switches::MappingWrites::Pinned;
        p.ftl.cmt_bytes = Some(16 << 10);
        p.ftl.gc_soft = 0.05;
        p.model.mapping_domains = (0..3).map(|i| p.logical_pages() / 3 * i * p.geometry.page_size as u64).collect();
        p.precondition = Some(Precondition::new(0.6, 1.0));
        let b = Bench::new(p.clone());
        b.ssd.ftl.check().unwrap();
        assert!((0..b.ssd.layout.planes).all(|pl| b.ssd.ftl.free_blocks(pl) >= 3), "every plane keeps blocks for GC");
        // The layout leaves the planes below the floor; the overwrites' instant GC stops at it
        // (the frontiers took their blocks first, `open_frontiers`).
        let floor = p.model.gc_floor_blocks as usize;
        assert_eq!((0..b.ssd.layout.planes).any(|pl| b.ssd.ftl.free_blocks(pl) < floor), laid);
        let b = crate::tests::random_writes(p.clone(), 3_000, 8);
        b.ssd.check().unwrap();
        let (done, left) = (b.lat.len(), b.ssd.in_flight() as usize);
        if mqsim_checks && laid {
            assert!(done < 3_000 && left > 0, "laid out {laid}: MQSim's checks wait below the floor ({done} done, {left} in flight)");
        } else {
            assert_eq!((done, left), (3_000, 0), "laid out {laid}: every command completes");
        }
    }
}
