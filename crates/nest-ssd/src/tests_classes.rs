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
    p.precondition = Some(Precondition { occupancy: 0.7, overwrites: 1.0, dirty_cache: false });
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
