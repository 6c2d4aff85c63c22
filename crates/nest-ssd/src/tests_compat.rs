//! The model switches where MQSim's discipline differs (switches.rs): each one acts as its
//! documentation says, on a drive small enough to time by hand.

use crate::params::*;
use crate::switches::GcPrecedence;
use crate::tests::{read_tail, reads_beside_gc, small, two_die_chip, Bench};
use nest_core::SimTime;

/// One channel, one chip, one die of two planes.
fn two_plane_die() -> SsdParams {
    let mut p = small();
    p.geometry.channels = 1;
    p.geometry.chips_per_channel = 1;
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
    // One channel, two chips: LPA 0 on chip 0, LPA 1 on chip 1.
    let mut p = small();
    p.geometry.channels = 1;
    p.geometry.planes_per_die = 1;
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
