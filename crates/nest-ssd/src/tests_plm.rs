//! Predictable Latency Mode in the drive: NV-buffered DTWin writes, work held off the dies in
//! DTWin and done in NDWin, the extra NDWin delay, timers, NVM-set isolation.

use crate::params::*;
use crate::plm::{PlmAttrs, Reason, Window};
use crate::ssd::decomp;
use crate::tests::{small, Bench};
use nest_core::rng::RngStream;
use nest_core::SimTime;

fn ms(x: u64) -> SimTime {
    SimTime::from_ms(x)
}

/// Counts no limit; DTWin `t_dw`, NDWin 1–2 ms, at most 20 ms; 1 MiB buffer.
fn attrs(t_dw: SimTime) -> PlmAttrs {
    PlmAttrs {
        c_rd: 1 << 40,
        c_wr: 1 << 40,
        t_dw,
        t_ndwh: ms(2),
        t_ndwl: ms(1),
        t_nd_max: ms(20),
        optimal_write_bytes: 4096,
        nv_buffer_bytes: 1 << 20,
        nd_delay_mean: SimTime::ZERO,
    }
}

fn drive(sets: u32, enabled: &[u32], a: PlmAttrs) -> SsdParams {
    let mut p = small();
    p.nvm_sets = sets;
    p.plm = Some(PlmParams { sets: enabled.to_vec(), attrs: a });
    p
}

#[test]
fn dtwin_writes_complete_in_the_nv_buffer_and_reach_flash_in_ndwin() {
    let p = drive(1, &[0], attrs(ms(10)));
    let nv_write = p.host.command_overhead + p.host.transfer_time(4096) + p.cache.access_time(4096);
    let mut b = Bench::new(p);
    for i in 0..20 {
        b.submit(true, i * 4096, 4096, 1);
        b.run_until(b.now + SimTime::from_us(100));
    }
    // Each write took the host interface and DRAM only; nothing was programmed.
    assert!(b.lat.iter().all(|l| l.2 == nv_write), "{:?} vs {nv_write}", b.lat.iter().map(|l| l.2).collect::<Vec<_>>());
    assert_eq!(b.ssd.ftl.counters.user_programs, 0);
    assert_eq!(b.ssd.nv_pending(0), 20);
    // A read of a buffered page is served from the buffer (no sense).
    b.submit(false, 3 * 4096, 4096, 1);
    b.run_until(ms(5));
    assert_eq!(b.ssd.counters.flash_reads, 0);
    // The DTWin ends at 10 ms; NDWin flushes the buffer; the set returns to DTWin.
    b.run(|_| {});
    assert_eq!(b.ssd.ftl.counters.user_programs, 20);
    let (w, r) = b.ssd.plm_window(0).unwrap();
    assert_eq!((r.nv_pages, r.nv_flushed, r.programs_in_dt), (20, 20, 0));
    assert_eq!(w.stats.ended[Reason::Time as usize], 1, "{:?}", w.stats);
    assert_eq!(w.stats.ended[Reason::WorkDone as usize], 1);
    assert_eq!(w.window(), Window::Dt);
    assert_eq!(w.buffered(), 0);
    assert_eq!(b.ssd.nv_pending(0), 0);
    b.ssd.check().unwrap();
}

/// A preconditioned drive under 70/30 random 4 KiB I/O (one every 150 µs).
fn mixed(a: PlmAttrs, ios: usize) -> Bench {
    let mut p = drive(1, &[0], a);
    p.ftl.overprovisioning = 0.25;
    p.precondition = Some(Precondition::new(0.9, 1.0));
    let pages = p.logical_pages() * 9 / 10;
    let mut b = Bench::new(p);
    let mut rng = RngStream::from_seed(5);
    for _ in 0..ios {
        let write = rng.bernoulli(0.3);
        b.submit(write, rng.below(pages) * 4096, 4096, 1);
        b.run_until(b.now + SimTime::from_us(150));
    }
    b.run(|_| {});
    b
}

#[test]
fn dtwin_reads_wait_for_no_program_and_gc_runs_in_ndwin() {
    let mut a = attrs(ms(3));
    a.t_nd_max = ms(3);
    let b = mixed(a, 6000);
    let (w, r) = b.ssd.plm_window(0).unwrap();
    assert!(w.stats.dt_windows >= 10, "{:?}", w.stats);
    // No program, erase or GC started on the dies in DTWin; the deferred GC ran in NDWin.
    assert_eq!(r.programs_in_dt, 0);
    // GC in DTWin is only what was on a die when an NDWin cut at its maximum ended (erases of
    // 3.8 ms outlast these 3 ms windows).
    assert!(r.gc_ps[0] * 4 < r.gc_ps[1], "{:?} {:?}", r.gc_ps, w.stats);
    assert!(r.gc_ps[1] > 0 && b.ssd.ftl.counters.gc_jobs > 0, "{:?}", r.gc_ps);
    assert!(r.held > 0, "nothing was held in DTWin");
    // DTWin reads never waited behind GC; their latency is bounded by a few reads, NDWin's
    // tail holds the programs, erases and GC.
    let dt = &r.latency[0][0];
    let nd = &r.latency[0][1];
    assert!(dt.count() > 1000 && nd.count() > 100, "{} {} {:?}", dt.count(), nd.count(), w.stats);
    let (dt99, nd99) = (dt.percentile(99.0), nd.percentile(99.0));
    assert!(dt99 * 3 < nd99, "DTWin p99 {dt99} NDWin p99 {nd99}");
    // Every page write reached flash or is accounted as pending.
    assert_eq!(r.nv_pages, r.nv_flushed + b.ssd.nv_pending(0));
    b.ssd.check().unwrap();
}

#[test]
fn ndwin_commands_wait_the_extra_exponential_delay() {
    let mut a = attrs(ms(3));
    a.nd_delay_mean = SimTime::from_us(500);
    let b = mixed(a, 3000);
    let (_, r) = b.ssd.plm_window(0).unwrap();
    assert!(r.nd_delays > 100, "{}", r.nd_delays);
    let mean = r.nd_delay_ps as f64 / r.nd_delays as f64 / 1e6;
    assert!((mean - 500.0).abs() < 100.0, "mean delay {mean} µs");
    // The delay is its own part of the decomposition, and only NDWin arrivals have it.
    let delayed = b.parts.iter().filter(|p| p[decomp::ND_DELAY] > 0).count() as u64;
    assert_eq!(delayed, r.nd_delays);
}

#[test]
fn a_spent_read_budget_forces_ndwin_and_an_idle_set_catches_up() {
    let mut a = attrs(ms(10));
    a.c_rd = 5;
    let mut b = Bench::new(drive(1, &[0], a));
    for i in 0..8 {
        b.submit(false, i * 4096, 4096, 1);
        b.run_until(b.now + SimTime::from_us(200));
    }
    let (w, _) = b.ssd.plm_window(0).unwrap();
    assert_eq!(w.stats.ended[Reason::ReadBudget as usize], 1);
    // Reads 6–8 arrived in the NDWin the budget forced: overruns.
    assert_eq!(w.stats.overruns, 3);
    assert_eq!((w.stats.reads[0], w.stats.reads[1]), (5, 3));
    b.run(|_| {});
    // Idle for 100 ms: nothing is scheduled, the run ends; the next command finds the set
    // where its cycle would be: DTWins of 10 ms and NDWins of 1–2 ms since.
    b.run_until(ms(100));
    b.submit(false, 0, 4096, 1);
    b.run(|_| {});
    let (w, _) = b.ssd.plm_window(0).unwrap();
    assert!((8..=10).contains(&w.stats.dt_windows), "{:?}", w.stats);
    assert_eq!(w.stats.ended[Reason::Time as usize] + 1, w.stats.dt_windows);
    // The windows tile time: those that ended and the current one add up to now.
    let s = &w.stats;
    assert_eq!(s.dt_time + s.nd_time + w.log_page(b.now).elapsed, b.now);
}

#[test]
fn nvm_sets_are_isolated_and_plm_acts_only_on_its_set() {
    // Two sets of one channel each; PLM on set 0 only, in one long DTWin.
    let mut b = Bench::new(drive(2, &[0], attrs(ms(1000))));
    let half = b.ssd.params.logical_pages() / 2;
    for i in 0..40 {
        b.submit(true, i * 4096, 4096, 1);
        b.submit(true, (half + i) * 4096, 4096, 1);
        b.run_until(b.now + SimTime::from_us(200));
    }
    b.run_until(ms(100));
    // Set 1's writes were programmed on channel 1 only; set 0's are in its NV buffer.
    assert_eq!(b.ssd.ftl.counters.user_programs, 40);
    assert_eq!(b.ssd.nv_pending(0), 40);
    let planes_per_channel = b.ssd.layout.planes / 2;
    let (c0, c1): (Vec<u32>, Vec<u32>) = (0..b.ssd.layout.planes).partition(|&p| p < planes_per_channel);
    let used = |b: &Bench, ps: &[u32]| {
        let bpp = b.ssd.layout.blocks_per_plane;
        ps.iter().flat_map(|&p| p * bpp..(p + 1) * bpp).map(|k| b.ssd.ftl.blocks[k as usize].written as u64).sum::<u64>()
    };
    assert_eq!(used(&b, &c0), 0);
    assert_eq!(used(&b, &c1), 40);
    assert!(b.ssd.plm_window(1).is_none());
    // Asking set 0 for NDWin flushes it.
    let mut out = crate::Outbox::default();
    b.ssd.plm_request(b.now, 0, Window::Nd, &mut out);
    b.absorb(out);
    b.run(|_| {});
    assert_eq!(used(&b, &c0), 40);
    let (w, _) = b.ssd.plm_window(0).unwrap();
    assert_eq!(w.stats.ended[Reason::Host as usize], 1);
    b.ssd.check().unwrap();
}

#[test]
fn preconditioning_fills_every_nvm_set_alike() {
    let mut p = small();
    p.nvm_sets = 2;
    p.precondition = Some(Precondition::new(0.6, 0.5));
    let ssd = crate::Ssd::new(p, 1, 0).unwrap();
    let half = ssd.layout.planes / 2;
    let bpp = ssd.layout.blocks_per_plane;
    let valid = |planes: std::ops::Range<u32>| planes.flat_map(|p| p * bpp..(p + 1) * bpp).map(|b| ssd.ftl.blocks[b as usize].valid as u64).sum::<u64>();
    let (a, b) = (valid(0..half), valid(half..2 * half));
    // 60 % of each set's range holds data (to the page: the fill alternates sets).
    let per_set = (ssd.params.logical_pages() as f64 * 0.6) as u64 / 2;
    assert!(a.abs_diff(per_set) <= 1 && b.abs_diff(per_set) <= 1, "{a} {b} {per_set}");
}
