//! The event queues against each other, and the calendar's next-event hint.

use super::*;
use crate::rng::RngStream;

fn drain<Q: PendingEvents<u32>>(q: &mut Q, rng: &mut RngStream, n: usize, span: u64) -> Vec<(SimTime, u32)> {
    // A "hold" pattern: pop one, schedule one or two later, with many time ties; half the
    // delays are up to `span` (past the calendar's end, across its slots' wrap).
    let mut out = Vec::new();
    for i in 0..64u32 {
        q.schedule(SimTime(rng.below(50)), i);
    }
    let mut next_id = 64u32;
    while let Some((t, e)) = q.pop() {
        out.push((t, e));
        if out.len() >= n {
            break;
        }
        let k = 1 + rng.below(2);
        for _ in 0..k {
            if q.len() < 500 {
                let d = if rng.below(2) == 0 { rng.below(20) } else { rng.below(span) };
                q.schedule(t + SimTime(d), next_id);
                next_id += 1;
            }
        }
    }
    out
}

#[test]
fn all_queues_pop_identical_sequences_in_time_then_fifo_order() {
    // 16–17 µs: events all over the calendar's 16.8 µs, in every word of its bitmap's summary
    // and across the wrap.
    // With storage's 65 ns slots the calendar reaches 1.07 ms: the spans around that too.
    for span in [20, 3_000_000, 16_000_000, 17_000_000, 50_000_000, 1_000_000_000, 1_100_000_000, 1 << 40] {
        let a = drain(&mut QuadHeap::new(), &mut RngStream::from_seed(7), 20_000, span);
        let b = drain(&mut StdHeap::default(), &mut RngStream::from_seed(7), 20_000, span);
        let c = drain(&mut RadixHeap::default(), &mut RngStream::from_seed(7), 20_000, span);
        let d = drain(&mut CalendarQueue::new(), &mut RngStream::from_seed(7), 20_000, span);
        assert_eq!(a.len(), 20_000);
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(a, d, "calendar, span {span}");
        for bits in [1, STORAGE_SLOT_BITS] {
            let e = drain(&mut CalendarQueue::with_slot_bits(1024, bits), &mut RngStream::from_seed(7), 20_000, span);
            assert_eq!(a, e, "calendar of 2^{bits} ps slots, span {span}");
        }
        assert!(a.windows(2).all(|w| w[0].0 <= w[1].0), "time never goes backwards");
    }
    let a = drain(&mut QuadHeap::new(), &mut RngStream::from_seed(7), 20_000, 20);
    assert!(a.windows(2).all(|w| w[0].0 <= w[1].0), "time never goes backwards");
}

#[test]
fn equal_times_fire_in_scheduling_order() {
    let mut q: EventQueue<u32> = EventQueue::new();
    for i in 0..100 {
        q.schedule(SimTime(5), i);
    }
    q.schedule(SimTime(1), 999);
    assert_eq!(q.pop(), Some((SimTime(1), 999)));
    for i in 0..100 {
        assert_eq!(q.pop(), Some((SimTime(5), i)));
    }
    assert!(q.pop().is_none());
}

#[test]
fn peek_near_is_the_next_pop_when_it_is_in_the_calendar() {
    let mut q: EventQueue<u32> = EventQueue::new();
    let mut rng = RngStream::from_seed(3);
    for i in 0..2_000u32 {
        q.schedule(SimTime(rng.below(1 << 24)), i);
    }
    let (mut near, mut agree) = (0, 0);
    while let Some(hint) = q.peek_near().copied() {
        let (_, e) = q.pop().expect("a hint means an event");
        near += 1;
        agree += (hint == e) as u32;
    }
    // Events past the calendar's year sit in the far heap and may come first; within it the
    // hint is exact.
    assert!(near > 1_000 && agree == near, "{agree} of {near}");
}

#[test]
fn a_slot_past_its_count_sends_the_rest_to_the_heap_in_order() {
    // 70,000 events within one nanosecond: the slot's list holds 65,535, the rest wait in the
    // heap, and the pop order is still the single heap's.
    let (mut c, mut h): (CalendarQueue<u32>, QuadHeap<u32>) = (CalendarQueue::new(), QuadHeap::new());
    let mut rng = RngStream::from_seed(5);
    for i in 0..70_000u32 {
        let t = SimTime(1_000 + rng.below(20));
        c.schedule(t, i);
        h.schedule(t, i);
    }
    let (a, b): (Vec<_>, Vec<_>) = (std::iter::from_fn(|| c.pop()).collect(), std::iter::from_fn(|| h.pop()).collect());
    assert_eq!(a.len(), 70_000);
    assert_eq!(a, b);
}

#[test]
fn sequence_numbers_past_what_a_node_holds_go_to_the_heap_in_order() {
    // A node keeps 54 bits of the sequence number (48 with storage's 16-bit slots); a run that
    // counted past them would reorder ties if those events stayed in the calendar. Started just
    // short of the limit, the calendar pops what a heap started there pops.
    for bits in [PACKET_SLOT_BITS, STORAGE_SLOT_BITS] {
        seq_limit_case(bits);
    }
}

fn seq_limit_case(bits: u32) {
    let (mut c, mut h): (CalendarQueue<u32>, QuadHeap<u32>) = (CalendarQueue::with_slot_bits(1024, bits), QuadHeap::new());
    c.seq = (1 << c.seq_bits()) - 300;
    h.seq = c.seq;
    let mut rng = RngStream::from_seed(9);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut now = SimTime(10_000);
    for i in 0..600u32 {
        let t = now + SimTime(rng.below(3_000)); // many within one 1 ns slot, some tied
        c.schedule(t, i);
        h.schedule(t, i);
        if i % 3 == 0 {
            let (x, y) = (c.pop(), h.pop());
            now = x.expect("events pending").0;
            a.push(x);
            b.push(y);
        }
    }
    a.extend(std::iter::from_fn(|| c.pop()).map(Some));
    b.extend(std::iter::from_fn(|| h.pop()).map(Some));
    assert_eq!(a.len(), 600);
    assert_eq!(a, b);
}
