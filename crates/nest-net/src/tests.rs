use super::*;
use crate::packet::{flag, PRIO_URGENT};
use nest_core::queue::PendingEvents;
use nest_core::{EventQueue, SimTime};

const G10: u64 = 10_000_000_000;

/// Runs the fabric alone until its queue empties; returns (arrival time, packet) per delivery.
fn drain(f: &mut Fabric, q: &mut EventQueue<NetEvent>) -> Vec<(SimTime, Packet)> {
    let mut out = Vec::new();
    while let Some((t, e)) = q.pop() {
        if let Some(p) = f.handle(t, e, q) {
            out.push((t, *f.pool.get(p)));
            f.release(p);
        }
    }
    out
}

fn data(flow: u32, src: u32, dst: u32, wire: u32) -> Packet {
    let mut p = Packet::new(PacketKind::Data, flow, src, dst, wire);
    p.flags = flag::ECT;
    p
}

#[test]
fn one_packet_takes_two_serialisations_and_two_propagations() {
    let t = Topology::dumbbell(1, 1, G10, SimTime::from_us(10));
    let mut f = Fabric::new(t, FabricParams::default(), 1).unwrap();
    let mut q = EventQueue::default();
    f.send(SimTime::ZERO, data(0, 0, 1, 1500), &mut q);
    let got = drain(&mut f, &mut q);
    assert_eq!(got.len(), 1);
    // 1500 B at 10 Gb/s = 1.2 µs per hop.
    assert_eq!(got[0].0, SimTime::from_ns(2 * 1200 + 2 * 10_000));
    f.check_conservation().unwrap();
}

#[test]
fn bottleneck_queue_builds_marks_past_k_and_drains_back_to_back() {
    let t = Topology::dumbbell(2, 1, G10, SimTime::from_us(1));
    let params = FabricParams { marking: Marking::Step(Threshold::Packets(5)), ..Default::default() };
    let mut f = Fabric::new(t, params, 1).unwrap();
    let mut q = EventQueue::default();
    for i in 0..20 {
        f.send(SimTime::ZERO, data(0, 0, 2, 1500), &mut q);
        f.send(SimTime::ZERO, data(1, 1, 2, 1500), &mut q);
        let _ = i;
    }
    let got = drain(&mut f, &mut q);
    assert_eq!(got.len(), 40);
    // Two senders at line rate into one port: the receiver sees exactly back-to-back packets.
    for w in got.windows(2).skip(1) {
        assert_eq!((w[1].0 - w[0].0).0, 1_200_000);
    }
    let marked = got.iter().filter(|(_, p)| p.flags & flag::CE != 0).count();
    assert!(marked > 0 && marked < 40, "marked {marked}");
    let rx_port = f.topo.nodes[f.topo.node_by_name("sw0").unwrap() as usize].ports[2];
    assert_eq!(f.port_stats(rx_port).marked as usize, marked);
    assert!(f.port_stats(rx_port).max_queue_bytes >= 5 * 1500);
    f.check_conservation().unwrap();
}

/// Four senders each dump 20 packets at once towards one receiver; returns the deliveries.
fn overload(params: FabricParams) -> (Fabric, Vec<(SimTime, Packet)>) {
    let t = Topology::dumbbell(4, 1, G10, SimTime::from_us(1));
    let mut f = Fabric::new(t, params, 1).unwrap();
    let mut q = EventQueue::default();
    for s in 0..4 {
        for _ in 0..20 {
            f.send(SimTime::ZERO, data(s, s, 4, 1500), &mut q);
        }
    }
    let got = drain(&mut f, &mut q);
    (f, got)
}

#[test]
fn small_buffer_drops_and_counts_when_lossy() {
    let (f, got) = overload(FabricParams { buffer: 10 * 1500, marking: Marking::None, ..Default::default() });
    assert!(f.totals.dropped > 0);
    assert_eq!(got.len() as u64 + f.totals.dropped, 80);
    f.check_conservation().unwrap();
}

#[test]
fn pfc_makes_the_same_overload_lossless_and_counts_pauses() {
    // 4 ingress ports × (XOFF 3 packets + headroom for 1 µs of line rate in flight) fits 20.
    let (mut f, got) =
        overload(FabricParams { buffer: 20 * 1500, marking: Marking::None, pfc: Some(PfcParams { xoff: 3 * 1500, xon: 1500 }), ..Default::default() });
    assert_eq!(got.len(), 80, "lossless: every packet delivered");
    assert_eq!(f.totals.dropped, 0);
    let sw = f.topo.node_by_name("sw0").unwrap();
    let pauses: u64 = f.topo.nodes[sw as usize].ports.iter().map(|&p| f.port_stats(p).pauses_sent).sum();
    assert!(pauses > 0);
    f.finish(SimTime::from_ms(1));
    let paused: u64 = (0..4).map(|h| f.port_stats(f.topo.nodes[f.topo.hosts[h] as usize].ports[0]).paused_ps).sum();
    assert!(paused > 0);
    f.check_conservation().unwrap();
}

#[test]
fn urgent_packets_overtake_a_normal_backlog_and_use_the_reserve() {
    let t = Topology::dumbbell(2, 1, G10, SimTime::from_us(1));
    let params = FabricParams { buffer: 12 * 1500, urgent_reserve: 2 * 1500, marking: Marking::None, ..Default::default() };
    let mut f = Fabric::new(t, params.clone(), 1).unwrap();
    let mut q = EventQueue::default();
    for _ in 0..30 {
        f.send(SimTime::ZERO, data(0, 0, 2, 1500), &mut q);
    }
    // Let the backlog reach the switch, then an urgent packet from the other sender.
    while let Some(t) = q.peek_time() {
        if t >= SimTime::from_us(15) {
            break;
        }
        let (t, e) = q.pop().unwrap();
        if let Some(p) = f.handle(t, e, &mut q) {
            f.release(p);
        }
    }
    let mut u = data(1, 1, 2, 256);
    u.prio = PRIO_URGENT;
    f.send(SimTime::from_us(15), u, &mut q);
    let got = drain(&mut f, &mut q);
    let pos = got.iter().position(|(_, p)| p.flow == 1).unwrap();
    let normal_after = got[pos + 1..].iter().filter(|(_, p)| p.flow == 0).count();
    assert!(normal_after >= 5, "urgent packet should overtake the queued normal ones, {normal_after} after it");
    f.check_conservation().unwrap();
}

#[test]
fn fat_tree_has_the_textbook_counts_and_ecmp_spreads_flows() {
    let t = Topology::fat_tree(4, G10, SimTime::from_us(1)).unwrap();
    assert_eq!(t.hosts.len(), 16);
    assert_eq!(t.nodes.len() - t.hosts.len(), 20);
    let r = Routes::compute(&t).unwrap();
    // Same edge: 2 hops; same pod: 4; other pod: 6.
    assert_eq!(r.hops(&t, 0, 1), 2);
    assert_eq!(r.hops(&t, 0, 2), 4);
    assert_eq!(r.hops(&t, 0, 15), 6);
    let edge = t.node_by_name("e0_0").unwrap();
    assert_eq!(r.next_hops(edge, 15).len(), 2);
    let picks: std::collections::BTreeSet<u32> = (0..64).map(|f| topology::ecmp_pick(r.next_hops(edge, 15), f, edge)).collect();
    assert_eq!(picks.len(), 2);
}

#[test]
fn clos_matches_src_shape() {
    let t = Topology::clos(4, 2, 4, 16, 2, 40_000_000_000, SimTime::from_us(1)).unwrap();
    assert_eq!(t.hosts.len(), 256);
    let r = Routes::compute(&t).unwrap();
    assert_eq!(r.hops(&t, 0, 1), 2);
    assert_eq!(r.hops(&t, 0, 16), 4);
    assert_eq!(r.hops(&t, 0, 64), 6);
}

#[test]
fn disconnected_hosts_are_an_error() {
    let mut t = Topology::default();
    let a = t.add_host("a");
    let s = t.add_switch("s");
    t.connect(a, s, G10, SimTime::from_us(1));
    t.add_host("b");
    assert!(Routes::compute(&t).unwrap_err().contains("cannot reach"));
}

#[test]
fn fat_tree_all_to_all_conserves_packets() {
    let t = Topology::fat_tree(4, G10, SimTime::from_us(1)).unwrap();
    let mut f = Fabric::new(t, FabricParams { buffer: 64 * 1500, ..Default::default() }, 3).unwrap();
    let mut q = EventQueue::default();
    for s in 0..16u32 {
        for d in 0..16u32 {
            if s != d {
                for _ in 0..5 {
                    f.send(SimTime::ZERO, data(s * 16 + d, s, d, 1500), &mut q);
                }
            }
        }
    }
    let got = drain(&mut f, &mut q);
    assert_eq!(got.len() as u64 + f.totals.dropped, 16 * 15 * 5);
    for (_, p) in &got {
        assert_eq!(p.flow / 16, p.src);
        assert_eq!(p.flow % 16, p.dst);
    }
    f.check_conservation().unwrap();
}

#[test]
fn nic_marks_its_own_backlog_only_with_nic_ecn() {
    // 20 packets handed to one NIC at once: the NIC is the bottleneck, the switch never queues.
    let run = |nic_ecn: bool| {
        let t = Topology::dumbbell(1, 1, G10, SimTime::from_us(1));
        let params = FabricParams { marking: Marking::Step(Threshold::Packets(5)), nic_ecn, ..Default::default() };
        let mut f = Fabric::new(t, params, 1).unwrap();
        let mut q = EventQueue::default();
        for _ in 0..20 {
            f.send(SimTime::ZERO, data(0, 0, 1, 1500), &mut q);
        }
        let got = drain(&mut f, &mut q);
        f.check_conservation().unwrap();
        let nic_port = f.topo.nodes[f.topo.hosts[0] as usize].ports[0];
        (got.iter().filter(|(_, p)| p.flags & flag::CE != 0).count(), f.port_stats(nic_port).marked)
    };
    assert_eq!(run(false), (0, 0));
    // Step marking at K = 5: packets joining a queue of ≥ 5 (the first one is already on the wire).
    let (marked, counted) = run(true);
    assert_eq!(marked as u64, counted);
    assert_eq!(marked, 20 - 6, "marked {marked}");
}

/// Drains the queue up to (not past) `until`.
fn drain_until(f: &mut Fabric, q: &mut EventQueue<NetEvent>, until: SimTime, got: &mut Vec<(SimTime, Packet)>) {
    while q.peek_time().is_some_and(|t| t < until) {
        let (t, e) = q.pop().unwrap();
        if let Some(p) = f.handle(t, e, q) {
            got.push((t, *f.pool.get(p)));
            f.release(p);
        }
    }
}

#[test]
fn a_failed_link_drops_what_it_holds_until_the_routes_go_around_it() {
    let t = Topology::fat_tree(4, G10, SimTime::from_us(1)).unwrap();
    let params = FabricParams { pfc: Some(PfcParams { xoff: 20 * 1500, xon: 10 * 1500 }), ..Default::default() };
    let mut f = Fabric::new(t, params, 3).unwrap();
    let mut q = EventQueue::default();
    // h0 (pod 0) → h15 (pod 3), 16 flows spread by ECMP; find the edge → aggregation link the
    // first flow takes, and fail it mid-way through a burst.
    let e0 = f.topo.node_by_name("e0_0").unwrap();
    let up = topology::ecmp_pick(f.routes.next_hops(e0, 15), 0, e0);
    let agg = f.topo.nodes[f.topo.ports[up as usize].peer_node as usize].name.clone();
    let link = f.topo.port_between("e0_0", &agg).unwrap();
    assert_eq!(link, up);
    for i in 0..200u32 {
        f.send(SimTime::from_ns(600 * i as u64), data(i % 16, 0, 15, 1500), &mut q);
    }
    let mut got = Vec::new();
    drain_until(&mut f, &mut q, SimTime::from_us(30), &mut got);
    f.link_down(SimTime::from_us(30), link, &mut q);
    assert!(f.is_down(link) && f.is_down(f.topo.ports[link as usize].peer));
    drain_until(&mut f, &mut q, SimTime::from_us(60), &mut got);
    let lost = f.totals.link_drops;
    assert!(lost > 0, "packets queued for and on the failed link are lost");
    // Routing converges at 60 µs: later packets go around it and all arrive.
    f.reroute();
    assert!(!f.routes.next_hops(e0, 15).contains(&link));
    for i in 0..100u32 {
        f.send(SimTime::from_us(60) + SimTime::from_ns(600 * i as u64), data(i % 16, 0, 15, 1500), &mut q);
    }
    got.extend(drain(&mut f, &mut q));
    assert_eq!(f.totals.link_drops, lost, "nothing is lost after the re-route");
    assert_eq!(got.len() as u64 + f.totals.dropped, 300);
    assert_eq!(f.totals.dropped, f.totals.link_drops);
    assert_eq!(f.totals.lossless_drops, 0, "a failed link's losses are not PFC headroom failures");
    f.check_conservation().unwrap();
    // Back up, and re-routed: the link carries traffic again.
    f.link_up(SimTime::from_ms(1), link, &mut q);
    f.reroute();
    assert!(f.routes.next_hops(e0, 15).contains(&link));
}

#[test]
fn a_host_cut_off_by_a_failed_link_is_unroutable() {
    let t = Topology::dumbbell(1, 1, G10, SimTime::from_us(1));
    let mut f = Fabric::new(t, FabricParams::default(), 1).unwrap();
    let mut q = EventQueue::default();
    let link = f.topo.port_between("sw0", "r0").unwrap();
    f.link_down(SimTime::ZERO, link, &mut q);
    f.reroute();
    f.send(SimTime::ZERO, data(0, 0, 1, 1500), &mut q);
    f.send(SimTime::ZERO, data(1, 1, 0, 1500), &mut q);
    assert!(drain(&mut f, &mut q).is_empty());
    assert_eq!((f.totals.unroutable, f.totals.dropped), (2, 2), "at sw0 (no way down to r0) and at r0's NIC");
    f.check_conservation().unwrap();
}
