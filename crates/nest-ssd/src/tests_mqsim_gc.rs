//! MQSim's GC as compat reproduces it: its static wear levelling (`wl_mqsim`), the block numbers
//! it depends on, and reads riding in GC and mapping read batches (`partners`).

use crate::params::SsdParams;
use crate::tests::{small, Bench};
use crate::tests_compat::mqsim_gc_regime;

/// `static_wl_block_ids`: MQSim's wear-levelling check compares the numbers of the most- and
/// least-erased blocks, so once GC erases a block numbered at or above the threshold while block
/// 0 — the first user frontier (`open_frontiers`) — was never erased, block 0 is migrated, all
/// valid, beside GC's jobs. NeSt's own check (a spread of 32 erases) never fires in so short a
/// run. Both keep every command and every page.
#[test]
fn mqsim_wear_levelling_migrates_block_zero_once_a_high_numbered_block_is_erased() {
    let run = |ids: bool| {
        let mut p = mqsim_gc_regime();
        p.model.open_frontiers = true;
        p.model.static_wl_block_ids = ids;
        p.ftl.static_wl_threshold = Some(32);
        let b = crate::tests_compat::gc_writes(p);
        let bpp = b.ssd.layout.blocks_per_plane;
        let block0_erased = (0..b.ssd.layout.planes).filter(|&pl| b.ssd.ftl.blocks[(pl * bpp) as usize].erases > 0).count();
        (b.ssd.ftl.counters.wl_jobs, block0_erased, b.ssd.layout.planes as usize)
    };
    let (wl, erased0, planes) = run(true);
    assert!(wl >= planes as u64, "{wl} migrations over {planes} planes");
    assert_eq!(erased0, planes, "every plane's block 0 was migrated and erased");
    assert_eq!(run(false).0, 0, "NeSt's check: no spread of 32 erases yet");
}

/// MQSim's check itself: block numbers, not erase counts, and unsigned — the least-erased block
/// numbered above the most-erased one wraps round and passes; a candidate that is not full
/// (a frontier, a free block) is left alone.
#[test]
fn mqsims_wear_levelling_check_compares_block_numbers() {
    use crate::ftl::{BlockState, Ftl};
    use crate::geometry::Layout;
    let mut p = small();
    p.ftl.static_wl_threshold = Some(32);
    let layout = Layout::new(&p.geometry, &p.ftl.allocation);
    let mut f = Ftl::new(layout, p.logical_pages(), &p.ftl, p.soft_free_blocks(), p.hard_free_blocks());
    for b in 0..4 {
        f.blocks[b].state = BlockState::Full;
    }
    assert_eq!(f.mqsim_wl_candidate(0), None, "no erase yet: both ends are block 0");
    f.blocks[20].erases = 1;
    assert_eq!(f.mqsim_wl_candidate(0), None, "block 20 against block 0: 20 < 32");
    f.blocks[40].erases = 2;
    assert_eq!(f.mqsim_wl_candidate(0), Some(0), "block 40 against block 0");
    // Block 0 erased as often as the most: the fewest-erased is block 1, numbered above the
    // most-erased (block 0), and the difference wraps round.
    f.blocks[0].erases = 2;
    f.blocks[40].erases = 0;
    f.blocks[20].erases = 0;
    assert_eq!(f.mqsim_wl_candidate(0), Some(1));
    f.blocks[1].state = BlockState::Open;
    assert_eq!(f.mqsim_wl_candidate(0), None, "a frontier is not migrated");
}

/// `open_frontiers`: a plane's frontiers take its first blocks in MQSim's order — user, then
/// translation (where write-backs take pinned pages), then GC — so block 0 is the first one
/// user data fills.
#[test]
fn open_frontiers_number_their_blocks_as_mqsim_does() {
    let mut p = small();
    p.model.open_frontiers = true;
    p.model.mapping_writes = crate::switches::MappingWrites::Pinned;
    let ssd = crate::ssd::Ssd::new(p, 1, 0).unwrap();
    let bpp = ssd.layout.blocks_per_plane;
    for (i, pl) in ssd.ftl.planes.iter().enumerate() {
        let first = i as u32 * bpp;
        assert_eq!((pl.user_front, pl.pinned_front, pl.gc_front), (Some(first), Some(first + 1), Some(first + 2)));
    }
}

/// 200 random 4 KiB reads submitted at once while every plane of the drive runs GC back to back
/// (a GC storm, GC first as MQSim's non-preemptible GC is), on a drive of four planes a die and
/// 128 pages a block as the SLC drive of MQSim's hot/cold runs; `tweak` sets the switches.
fn reads_in_a_gc_storm(tweak: impl Fn(&mut SsdParams)) -> Bench {
    use crate::preconditioning::Precondition;
    use crate::ssd::Outbox;
    use nest_core::rng::RngStream;
    let mut p = mqsim_gc_regime();
    p.model.multiplane_same_page = true;
    p.geometry.planes_per_die = 4;
    p.geometry.blocks_per_plane = 32;
    p.geometry.pages_per_block = 128;
    p.precondition = Some(Precondition::new(0.9, 1.0));
    tweak(&mut p);
    let mut b = Bench::new(p);
    let mut out = Outbox::default();
    b.ssd.set_gc_storm(b.now, true, &mut out);
    b.absorb(out);
    let pages = b.ssd.params.logical_pages() * 9 / 10;
    let mut rng = RngStream::from_seed(3);
    for _ in 0..200 {
        b.submit(false, rng.below(pages) * 4096, 4096, 1);
    }
    b.run(|_| {});
    b.ssd.check().unwrap();
    b
}

/// `gc_read_partners`: in a GC storm user reads get out only by riding in a GC read's batch at
/// its page offset on another plane — as a job's reads sweep its victim's pages, most of them
/// soon. Without the switch they wait for the storm to run out of blocks to reclaim.
#[test]
fn user_reads_ride_with_gc_reads_when_partnered() {
    let run = |partners: bool| {
        let b = reads_in_a_gc_storm(|p| p.model.gc_read_partners = partners);
        assert_eq!(b.lat.len(), 200, "every read completes");
        (b.ssd.counters.gc_partnered_reads, b.mean(1, false))
    };
    let (off, mean_off) = run(false);
    let (on, mean_on) = run(true);
    assert_eq!(off, 0);
    assert!(on > 100, "{on} of 200 user reads rode with GC reads");
    assert!(mean_on < 0.5 * mean_off, "reads' mean {mean_on:.0} µs with partners, {mean_off:.0} without");
}

/// `gc_lock_hangs_reads`: a read of an LPA a running GC job has locked never completes, as in
/// MQSim; the command stays in flight. Without the switch every read completes.
#[test]
fn reads_of_gc_locked_lpas_hang_when_asked_to() {
    let b = reads_in_a_gc_storm(|p| p.model.gc_lock_hangs_reads = true);
    let hung = b.ssd.counters.reads_hung as usize;
    assert!(hung > 0, "some reads met a GC lock");
    assert_eq!((b.lat.len(), b.ssd.in_flight() as usize), (200 - hung, hung), "the hung reads are the commands in flight");
    let b = reads_in_a_gc_storm(|_| {});
    assert_eq!((b.lat.len(), b.ssd.counters.reads_hung), (200, 0));
}

/// A CMT of eight translation pages with `map_page_offsets` (where translation pages lie), so
/// nearly every read waits for a mapping read.
fn tiny_cmt(p: &mut SsdParams) {
    p.ftl.cmt_bytes = Some(4096);
    p.model.map_entry_bytes = 512;
    p.model.map_page_offsets = true;
}

/// `map_read_partners`: a mapping read's batch takes reads at its translation page's offset on
/// the die's other planes — GC reads in a GC storm (GC urgent), user reads otherwise — and every
/// read still completes. Without the switch a mapping read goes alone.
#[test]
fn reads_ride_with_mapping_reads_at_their_translation_pages_offset() {
    let storm = |partners: bool| {
        let b = reads_in_a_gc_storm(|p| {
            tiny_cmt(p);
            p.model.map_read_partners = partners;
        });
        assert_eq!(b.lat.len(), 200, "every read completes");
        (b.ssd.counters.map_partnered_reads, b.ssd.counters.gc_partnered_reads)
    };
    assert_eq!(storm(false).0, 0);
    let (with_map, _) = storm(true);
    assert!(with_map > 20, "{with_map} GC reads rode with mapping reads in the storm");
    let quiet = |partners: bool| {
        use crate::preconditioning::Precondition;
        use nest_core::rng::RngStream;
        let mut p = small();
        p.model.multiplane_same_page = true;
        p.geometry.planes_per_die = 4;
        p.precondition = Some(Precondition::new(0.5, 0.0));
        tiny_cmt(&mut p);
        p.model.map_read_partners = partners;
        let mut b = Bench::new(p);
        let pages = b.ssd.params.logical_pages() / 2;
        let mut rng = RngStream::from_seed(5);
        for _ in 0..400 {
            b.submit(false, rng.below(pages) * 4096, 4096, 1);
        }
        b.run(|_| {});
        b.ssd.check().unwrap();
        assert_eq!(b.lat.len(), 400, "every read completes");
        b.ssd.counters.map_partnered_reads
    };
    assert_eq!(quiet(false), 0);
    let with_user = quiet(true);
    assert!(with_user > 50, "{with_user} user reads rode with mapping reads");
}

/// `gc_seed`: MQSim's RGA samples its blocks with the GC unit's generator, seeded 432 on every
/// drive (a bug: the drive's seed lands on another parameter). The first GC check of an
/// instrumented MQSim run on a 512-block plane sampled blocks 34, 164, 230, 251, 323, 336, 358,
/// 458 and 498 (free), and took 458, the one with the most invalid pages; NeSt draws the same.
#[test]
fn mqsims_rga_samples_with_its_gc_generator() {
    use crate::ftl::{BlockState, Ftl};
    use crate::geometry::Layout;
    use crate::params::VictimPolicy;
    use nest_core::mqsim_rng::MqsimRng;
    use nest_core::rng::RngStream;
    let mut p = small();
    p.geometry.blocks_per_plane = 512;
    p.ftl.victim = VictimPolicy::Rga;
    p.ftl.rga_d = 9;
    let layout = Layout::new(&p.geometry, &p.ftl.allocation);
    let mut f = Ftl::new(layout, p.logical_pages(), &p.ftl, p.soft_free_blocks(), p.hard_free_blocks());
    f.rga_mqsim = true;
    let ppb = f.layout.pages_per_block;
    for b in 0..512u32 {
        let blk = &mut f.blocks[b as usize];
        (blk.state, blk.written, blk.valid) = match b {
            0..=2 => (BlockState::Open, 0, 0),
            498 => (BlockState::Free, 0, 0),
            // More invalid pages the higher the block.
            _ => (BlockState::Full, ppb, ppb - (b * ppb / 600).max(1)),
        };
    }
    let mut rng = RngStream::from_seed(1);
    let pick = |mqsim: Option<&mut MqsimRng>, rng: &mut RngStream| f.pick_gc_victim(0, rng, mqsim).map(|(b, _)| b);
    assert_eq!(pick(Some(&mut MqsimRng::new(432)), &mut rng), Some(458));
    // Another seed, another sample.
    assert_ne!(pick(Some(&mut MqsimRng::new(433)), &mut rng), Some(458));
}

/// `gc_thresholds_truncated`: MQSim truncates GC's fractions to whole blocks (5 % of 512 is 25,
/// 0.5 % is 2), NeSt rounds them up (26, 3) — so a plane down to 25 free blocks collects in
/// NeSt's reading and not yet in MQSim's.
#[test]
fn gc_thresholds_are_truncated_as_mqsim_converts_them() {
    use crate::ftl::{Front, Ftl, GcNeed};
    use crate::geometry::Layout;
    let need_at_25 = |truncated: bool| {
        let mut p = small();
        p.geometry.blocks_per_plane = 512;
        p.geometry.pages_per_block = 4;
        (p.ftl.gc_soft, p.ftl.gc_hard) = (0.05, 0.005);
        p.model.gc_thresholds_truncated = truncated;
        assert!(p.validate().is_empty(), "{:?}", p.validate());
        let layout = Layout::new(&p.geometry, &p.ftl.allocation);
        let mut f = Ftl::new(layout, p.logical_pages(), &p.ftl, p.soft_free_blocks(), p.hard_free_blocks());
        let mut lpa = 0;
        while f.free_blocks(0) > 25 {
            let ppa = f.alloc(0, Front::User(0));
            f.program_user(lpa, ppa);
            lpa += 1;
        }
        (p.soft_free_blocks(), p.hard_free_blocks(), f.gc_need(0))
    };
    assert_eq!(need_at_25(true), (25, 2, GcNeed::None));
    assert_eq!(need_at_25(false), (26, 3, GcNeed::Soft));
}

/// MQSim's RGA leaves out a block with a user program in flight (`is_safe_gc_wl_candidate`):
/// drawn, it is drawn again — so the sample and every later draw of the generator follow — and
/// it is never the victim; done, it is one again. A page placed for a read of a never-written
/// page counts as a program that never ends (MQSim's `online_create_entry_for_reads`), so its
/// block stays out for good.
#[test]
fn mqsims_rga_skips_blocks_with_user_programs_in_flight() {
    use crate::ftl::{BlockState, Ftl};
    use crate::geometry::Layout;
    use crate::params::VictimPolicy;
    use nest_core::mqsim_rng::MqsimRng;
    use nest_core::rng::RngStream;
    let mut p = small();
    p.ftl.victim = VictimPolicy::Rga;
    p.ftl.rga_d = 64; // every block of the plane drawn: the pick is the best safe one
    let layout = Layout::new(&p.geometry, &p.ftl.allocation);
    let mut f = Ftl::new(layout, p.logical_pages(), &p.ftl, p.soft_free_blocks(), p.hard_free_blocks());
    f.rga_mqsim = true;
    let ppb = f.layout.pages_per_block;
    for b in 0..64u32 {
        let blk = &mut f.blocks[b as usize];
        (blk.state, blk.written, blk.valid) = (BlockState::Full, ppb, ppb - 1 - (b == 40) as u32 * 10 - (b == 41) as u32 * 5);
    }
    let mut rng = RngStream::from_seed(1);
    let mut pick = |f: &Ftl| f.pick_gc_victim(0, &mut rng, Some(&mut MqsimRng::new(432))).map(|(b, _)| b);
    assert_eq!(pick(&f), Some(40));
    let ppa = 40 * ppb + 3;
    f.program_issued(ppa);
    assert_eq!(pick(&f), Some(41), "block 40 has a program in flight");
    f.program_done(ppa);
    assert_eq!(pick(&f), Some(40));
    // A read of a never-written page placed on a user frontier (plane 1's: plane 0 is full
    // here) pins its block.
    let unwritten = (0..p.logical_pages() as u32).find(|&l| f.lookup(l).is_none() && f.layout.data_plane(l as u64) == 1).unwrap();
    let placed = f.place_unwritten(unwritten, 1).expect("plane 1 has free blocks");
    let b = f.layout.block_of_ppa(placed) as usize;
    assert_eq!(f.blocks[b].programs_in_flight, 1, "placed, never programmed: in flight for good");
}

/// MQSim's wear levelling marks the wrong block as in GC: the migrated block's number taken for
/// a channel, block 0 of that channel's first plane is passed by from then on — by the wear
/// levelling (so channel 0's first plane never migrates its block 0) and by RGA's draw — until
/// it is erased. A number past the channels marks nothing.
#[test]
fn mqsims_wear_levelling_marks_block_zero_of_the_channel_its_block_number_names() {
    use crate::ftl::{BlockState, Ftl};
    use crate::geometry::Layout;
    let mut p = small(); // 2 channels × 2 chips × 1 die × 2 planes: 4 planes a channel
    p.ftl.static_wl_threshold = Some(32);
    let layout = Layout::new(&p.geometry, &p.ftl.allocation);
    let mut f = Ftl::new(layout, p.logical_pages(), &p.ftl, p.soft_free_blocks(), p.hard_free_blocks());
    let bpp = f.layout.blocks_per_plane;
    for b in 0..8 * bpp {
        f.blocks[b as usize].state = BlockState::Full;
    }
    f.blocks[40].erases = 2; // plane 0: block 40 most erased, block 0 least: 40 ≥ 32
    assert_eq!(f.mqsim_wl_candidate(0), Some(0));
    f.mqsim_wl_misfiled_mark(5 * bpp); // a migration of block 0 of plane 5: "channel 0"
    assert!(f.blocks[0].gc_flagged);
    assert_eq!(f.mqsim_wl_candidate(0), None, "marked: passed by");
    f.mqsim_wl_misfiled_mark(3 * bpp + 1); // block number 1: channel 1's first plane, plane 4
    assert!(f.blocks[(4 * bpp) as usize].gc_flagged);
    let flagged = |f: &Ftl| (0..8 * bpp).filter(|&b| f.blocks[b as usize].gc_flagged).count();
    f.mqsim_wl_misfiled_mark(7); // number 7: no such channel
    assert_eq!(flagged(&f), 2);
    f.blocks[0].valid = 0;
    f.erase(0);
    assert!(!f.blocks[0].gc_flagged, "an erase ends the mark");
}

/// `gc_waits_for_user_reads`: reads beside GC in MQSim's regime — a job whose victim has user
/// reads in flight locks its pages and starts moving them only when the last of those reads is
/// done. Some jobs wait, every command completes, the books balance; off, none waits.
#[test]
fn gc_jobs_wait_for_the_user_reads_in_flight_on_their_victim() {
    let run = |wait: bool| {
        let mut p = crate::tests_compat::mqsim_gc_regime();
        p.model.gc_waits_for_user_reads = wait;
        let b = crate::tests::reads_beside_gc(p, 20_000, 16, 16);
        assert_eq!(b.lat.len(), 20_000, "every command completes");
        b.ssd.check().unwrap();
        assert!(b.ssd.ftl.counters.gc_jobs > 50, "GC ran {} times", b.ssd.ftl.counters.gc_jobs);
        b.ssd.counters.gc_jobs_postponed
    };
    assert_eq!(run(false), 0);
    let waited = run(true);
    assert!(waited > 0, "{waited} jobs waited for reads");
}
