//! `qp_per_message`: a small-message RDMA channel beside window flows in one ECN queue.

use super::harness::{run_until, Queue};
use super::*;
use nest_net::packet::PRIO_NORMAL;
use nest_net::{FabricParams, Topology};

const G10: u64 = 10_000_000_000;

fn flow(name: &str, src: u32, dst: u32, cc: Cc, messages: bool) -> FlowSpec {
    FlowSpec {
        name: name.into(),
        src,
        dst,
        class: 0,
        prio: PRIO_NORMAL,
        cc,
        start: SimTime::ZERO,
        stop: None,
        bytes: None,
        rate_bps: None,
        deadline: None,
        target: None,
        messages,
    }
}

/// Two backlogged DCTCP flows hold the bottleneck queue at K; from a third host a DCQCN channel
/// sends a 256 B message every µs (2 Gb/s of the 10 Gb/s link) for 20 ms, then is given 2 ms to
/// finish. Returns the messages handed over, the channel's data segments, and its CNP cuts.
fn pm_beside_dctcp(qp_per_message: bool) -> (usize, u64, u64) {
    let topo = Topology::dumbbell(3, 1, G10, SimTime::from_us(1));
    let mut fabric = Fabric::new(topo, FabricParams::default(), 7).unwrap();
    let specs = vec![flow("bulk0", 0, 3, Cc::Dctcp, false), flow("bulk1", 1, 3, Cc::Dctcp, false), flow("pm", 2, 3, Cc::Dcqcn, true)];
    let mut tp = Transports::new(TcpParams::default(), QtcpParams::default(), specs, vec![1.0]).unwrap();
    tp.dcqcn.qp_per_message = qp_per_message;
    let mut q = Queue::default();
    tp.start(&fabric, &mut q);
    run_until(&mut fabric, &mut tp, &mut q, SimTime::from_ms(2));
    let sent = 20_000;
    for k in 0..sent {
        let t = SimTime::from_ms(2) + SimTime::from_us(k);
        run_until(&mut fabric, &mut tp, &mut q, t);
        tp.send_message(t, 2, 256, Message { kind: MsgKind(1), tag: k as u32 }, &mut fabric, &mut q);
    }
    run_until(&mut fabric, &mut tp, &mut q, SimTime::from_ms(24));
    tp.check_channels().unwrap();
    let pm = &tp.flows[2];
    (tp.channels.delivered.len(), pm.stats.segments, pm.stats.cuts)
}

#[test]
fn a_long_lived_qp_beside_window_flows_is_throttled_below_its_offered_rate() {
    // Every PM packet joins a queue held at K, so CNPs keep coming every 50 µs and the one QP's
    // rate never recovers (the DCQCN-vs-DCTCP imbalance the pm-priority experiment measures).
    let (delivered, _, cuts) = pm_beside_dctcp(false);
    assert!(delivered < 10_000, "a long-lived QP delivered {delivered} of 20,000 messages");
    assert!(cuts > 50, "{cuts} cuts");
}

#[test]
fn a_qp_per_message_keeps_its_offered_rate_one_message_per_packet() {
    let (delivered, segments, _) = pm_beside_dctcp(true);
    assert_eq!(delivered, 20_000, "every message handed over");
    assert_eq!(segments, 20_000, "one packet per message: no two messages share a packet");
}
