//! The fabric at run time: egress queues, switch buffers, ECN marking, PFC and the two
//! per-hop events.
//!
//! A packet's hop is: enqueue at an egress port → (wait) → transmission starts (its switch
//! buffer is released) → `Arrive` at the far node after serialisation + propagation. A port
//! needs a `TxDone` event only when something is waiting behind the packet on the wire, so an
//! uncongested hop costs one event.

use crate::packet::{flag, Packet, PacketKind, PacketPool, Prio, NPRIO, PRIO_CONTROL, PRIO_NORMAL, PRIO_URGENT};
use crate::topology::{Routes, Topology};
use port::PortRt;
pub use port::PortStats;

mod check;
mod links;
mod path_cache;
mod pkt_queue;
mod port;
mod query;
mod serialise;
mod warm;
use nest_core::{RngStream, SimTime};

/// An ECN threshold in packets or bytes of the egress queue.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Threshold {
    Packets(u32),
    Bytes(u64),
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Marking {
    None,
    /// DCTCP: mark CE when the queue already holds ≥ K on arrival.
    Step(Threshold),
    /// RED/DCQCN: probability 0 below Kmin, rising linearly to Pmax at Kmax, 1 above Kmax.
    Red {
        kmin: Threshold,
        kmax: Threshold,
        pmax: f64,
    },
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PfcParams {
    /// Ingress bytes (per port, per priority) at which PAUSE is sent upstream.
    pub xoff: u64,
    /// Ingress bytes at or below which RESUME is sent.
    pub xon: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FabricParams {
    /// Shared packet buffer of each switch.
    pub buffer: u64,
    /// Part of `buffer` only urgent (and control) packets may use: P of B (thesis 4.4.1).
    pub urgent_reserve: u64,
    pub marking: Marking,
    /// `Some` makes the fabric lossless: PAUSE/RESUME per ingress port and priority.
    pub pfc: Option<PfcParams>,
    /// ACKs and CNPs use the strict-priority control queue instead of their flow's queue.
    pub control_priority: bool,
    /// Urgent packets get strict priority over normal ones (off: they share the normal queue).
    pub urgent_priority: bool,
    /// Host NICs mark ECN with the switches' rule too (ns-3 with a queue disc on every
    /// NetDevice): where a host's own link is the bottleneck — many flows leaving one client —
    /// the congestion signal comes from its NIC queue. Senders then do not hold their packets
    /// back at the NIC (no TCP small-queue limit), so that queue can build to the threshold.
    pub nic_ecn: bool,
}

impl Default for FabricParams {
    fn default() -> Self {
        FabricParams {
            buffer: 4 << 20,
            urgent_reserve: 0,
            marking: Marking::Step(Threshold::Packets(65)),
            pfc: None,
            control_priority: true,
            urgent_priority: true,
            nic_ecn: false,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NetEvent {
    /// Packet `pkt` sent by port `port` reaches the node at the link's far end.
    Arrive { port: u32, pkt: u32 },
    /// Port `port` finished serialising and may start its next packet.
    TxDone { port: u32 },
    /// A PAUSE (`pause`) or RESUME frame for priority `prio` reaches egress port `port`.
    Pfc { port: u32, prio: u8, pause: bool },
}

impl NetEvent {
    /// A small tag for trajectory fingerprints.
    #[inline]
    pub fn tag(&self) -> u64 {
        match *self {
            NetEvent::Arrive { port, pkt } => ((port as u64) << 32) | pkt as u64,
            NetEvent::TxDone { port } => (1 << 56) | port as u64,
            NetEvent::Pfc { port, prio, pause } => (2 << 56) | ((prio as u64) << 40) | ((pause as u64) << 39) | port as u64,
        }
    }
}

/// Where the fabric's events go: the caller's event queue.
pub trait NetScheduler {
    fn at(&mut self, t: SimTime, e: NetEvent);
}

impl NetScheduler for nest_core::EventQueue<NetEvent> {
    #[inline]
    fn at(&mut self, t: SimTime, e: NetEvent) {
        use nest_core::queue::PendingEvents;
        self.schedule(t, e)
    }
}

/// Per-switch state.
struct SwitchRt {
    used: u64,
    rng: RngStream,
    dropped: u64,
}

/// Whole-fabric counters for packet conservation.
#[derive(Clone, Debug, Default)]
pub struct FabricTotals {
    pub injected: u64,
    pub delivered: u64,
    pub dropped: u64,
    /// Drops while PFC was on (a headroom failure: lossless mode must have none).
    pub lossless_drops: u64,
    pub hops: u64,
    /// Of the drops: packets a down link took (queued for it, sent into it or on its wire), and
    /// packets with no route left to their destination (`links.rs`).
    pub link_drops: u64,
    pub unroutable: u64,
}

pub struct Fabric {
    pub topo: Topology,
    /// Change only through `reroute`, which also forgets the paths remembered below.
    pub routes: Routes,
    /// Each flow's ports along its path, as the routes give them (`path_cache.rs`).
    paths: path_cache::PathCache,
    pub params: FabricParams,
    pub pool: PacketPool,
    ports: Vec<PortRt>,
    switches: Vec<SwitchRt>,
    /// Switch index of each node (`u32::MAX` for hosts).
    switch_of: Vec<u32>,
    /// RED decisions at host NICs (with `nic_ecn`).
    nic_rng: RngStream,
    pub totals: FabricTotals,
    /// Host index of each port's node (`u32::MAX` for switch ports).
    port_host: Vec<u32>,
    /// Each host's NIC port when it has one (`u32::MAX`: several): a sender checks its NIC's
    /// backlog before every packet, and the topology's way there is three dependent loads.
    host_port: Vec<u32>,
    /// Hosts whose senders wait for NIC room (TCP Small Queues): the next packet their NIC
    /// starts sending moves them to `nic_drained`, which the transports drain after each event.
    nic_watched: Vec<bool>,
    nic_drained: Vec<u32>,
    /// Whether to report PAUSE frames that reach host NICs (someone watches congestion).
    pub report_nic_pauses: bool,
    /// (host, priority) of each PAUSE a host NIC received since the last `take_nic_pause`.
    nic_pauses: Vec<(u32, u8)>,
}

impl Fabric {
    pub fn new(topo: Topology, params: FabricParams, seed: u64) -> Result<Fabric, String> {
        let routes = Routes::compute(&topo)?;
        if params.urgent_reserve > params.buffer {
            return Err(format!("urgent_reserve ({} B) exceeds the switch buffer ({} B)", params.urgent_reserve, params.buffer));
        }
        if let Some(p) = params.pfc {
            if p.xon > p.xoff {
                return Err(format!("pfc xon ({} B) must not exceed xoff ({} B)", p.xon, p.xoff));
            }
        }
        let mut ports: Vec<PortRt> = topo
            .ports
            .iter()
            .map(|p| PortRt {
                queues: Default::default(),
                qbytes: [0; NPRIO],
                busy_until: SimTime::ZERO,
                txdone_pending: false,
                paused: [false; NPRIO],
                paused_since: SimTime::ZERO,
                ingress_bytes: [0; NPRIO],
                pause_sent: [false; NPRIO],
                on_wire: 0,
                rate_bps: p.rate_bps.max(1),
                ps_per_byte: serialise::ps_per_byte(p.rate_bps.max(1)),
                switch: u32::MAX,
                delay: p.delay,
                stats: PortStats::default(),
                down: false,
            })
            .collect();
        let mut switch_of = vec![u32::MAX; topo.nodes.len()];
        let mut switches = Vec::new();
        for (i, n) in topo.nodes.iter().enumerate() {
            if n.kind == crate::topology::NodeKind::Switch {
                switch_of[i] = switches.len() as u32;
                switches.push(SwitchRt { used: 0, rng: RngStream::derive(seed, "switch", i as u64, "red"), dropped: 0 });
            }
        }
        for (rt, spec) in ports.iter_mut().zip(&topo.ports) {
            rt.switch = switch_of[spec.node as usize];
        }
        let nic_rng = RngStream::derive(seed, "nic", 0, "red");
        let mut port_host = vec![u32::MAX; topo.ports.len()];
        for (h, &node) in topo.hosts.iter().enumerate() {
            for &p in &topo.nodes[node as usize].ports {
                port_host[p as usize] = h as u32;
            }
        }
        let host_port = topo
            .hosts
            .iter()
            .map(|&n| match topo.nodes[n as usize].ports[..] {
                [p] => p,
                _ => u32::MAX,
            })
            .collect();
        let nic_watched = vec![false; topo.hosts.len()];
        Ok(Fabric {
            topo,
            routes,
            paths: Default::default(),
            params,
            pool: PacketPool::default(),
            ports,
            switches,
            switch_of,
            nic_rng,
            totals: FabricTotals::default(),
            port_host,
            host_port,
            nic_watched,
            nic_drained: Vec::new(),
            report_nic_pauses: false,
            nic_pauses: Vec::new(),
        })
    }

    /// Queue a packet takes at a switch or NIC.
    #[inline]
    fn queue_of(&self, p: &Packet) -> Prio {
        match p.kind {
            PacketKind::Ack | PacketKind::Cnp if self.params.control_priority => PRIO_CONTROL,
            _ => self.data_queue(p.prio),
        }
    }

    /// Queue a data packet of priority `prio` takes: urgent packets are normal ones when the
    /// urgent priority is off.
    #[inline]
    fn data_queue(&self, prio: Prio) -> Prio {
        if prio == PRIO_URGENT && !self.params.urgent_priority {
            PRIO_NORMAL
        } else {
            prio
        }
    }

    /// Puts packet `id` (`wire` bytes) at the tail of `port`'s queue `prio`, keeping the port's
    /// byte count and its high-water mark.
    #[inline]
    fn enqueue(&mut self, port: u32, prio: Prio, id: u32, wire: u64) {
        let rt = &mut self.ports[port as usize];
        rt.queues[prio as usize].push_back(&mut self.pool, id);
        rt.qbytes[prio as usize] += wire;
        let qb = rt.queued_bytes();
        if qb > rt.stats.max_queue_bytes {
            rt.stats.max_queue_bytes = qb;
        }
    }

    /// A host hands a packet to its NIC (the NIC queue is host memory: never full).
    pub fn send(&mut self, now: SimTime, mut p: Packet, q: &mut impl NetScheduler) {
        self.totals.injected += 1;
        p.ingress = u32::MAX;
        let node = self.topo.hosts[p.src as usize];
        let Some(port) = self.paths.next_port(&self.routes, node, p.flow, p.src, p.dst) else {
            // A failed link left no path (`links.rs`).
            self.totals.dropped += 1;
            self.totals.unroutable += 1;
            return;
        };
        let prio = self.queue_of(&p);
        if self.params.nic_ecn && p.flags & flag::ECT != 0 && self.should_mark(u32::MAX, port, prio) {
            p.flags |= flag::CE;
            self.ports[port as usize].stats.marked += 1;
        }
        let wire = p.wire as u64;
        let (flow, src, dst) = (p.flow, p.src, p.dst);
        let id = self.pool.alloc(p);
        self.remember_next_hop(id, node, flow, src, dst);
        self.enqueue(port, prio, id, wire);
        self.try_start(now, port, q);
    }

    /// Writes into packet `pkt`, leaving `node`, the hop after it on its flow's remembered
    /// path (`PathCache::after`), or none.
    #[inline]
    fn remember_next_hop(&mut self, pkt: u32, node: u32, flow: u32, src: u32, dst: u32) {
        let (next_node, next_out) = self.paths.after(node, flow, src, dst).unwrap_or((u32::MAX, u32::MAX));
        let gen = self.paths.gen();
        let p = self.pool.get_mut(pkt);
        (p.next_node, p.next_out, p.next_gen) = (next_node, next_out, gen);
    }

    /// Handles one fabric event; returns a packet that reached its destination host (the
    /// caller hands it to that host's transport and must `release` it).
    #[inline]
    pub fn handle(&mut self, now: SimTime, e: NetEvent, q: &mut impl NetScheduler) -> Option<u32> {
        match e {
            NetEvent::Arrive { port, pkt } => self.arrive(now, port, pkt, q),
            NetEvent::TxDone { port } => {
                self.ports[port as usize].txdone_pending = false;
                self.try_start(now, port, q);
                None
            }
            NetEvent::Pfc { port, prio, pause } => {
                let rt = &mut self.ports[port as usize];
                let was = rt.paused.iter().any(|&x| x);
                rt.paused[prio as usize] = pause;
                let is = rt.paused.iter().any(|&x| x);
                if pause {
                    rt.stats.pauses_received += 1;
                    let host = self.port_host[port as usize];
                    if self.report_nic_pauses && host != u32::MAX {
                        self.nic_pauses.push((host, prio));
                    }
                }
                if !was && is {
                    rt.paused_since = now;
                } else if was && !is {
                    rt.stats.paused_ps += (now - rt.paused_since).0;
                }
                if !pause {
                    self.try_start(now, port, q);
                }
                None
            }
        }
    }

    /// Frees a delivered packet's slot.
    #[inline]
    pub fn release(&mut self, pkt: u32) {
        self.pool.release(pkt);
    }

    fn arrive(&mut self, now: SimTime, port: u32, pkt: u32, q: &mut impl NetScheduler) -> Option<u32> {
        let (node, in_port) = {
            let spec = &self.topo.ports[port as usize];
            (spec.peer_node, spec.peer)
        };
        let wire = self.pool.get(pkt).wire as u64;
        if self.ports[port as usize].down {
            self.lose_on_wire(port, pkt, wire);
            return None;
        }
        {
            let rt = &mut self.ports[port as usize];
            rt.on_wire -= wire;
            rt.stats.arrived_pkts += 1;
            rt.stats.arrived_bytes += wire;
        }
        self.totals.hops += 1;
        let sw = self.switch_of[node as usize];
        if sw == u32::MAX {
            self.totals.delivered += 1;
            return Some(pkt);
        }
        let (src, dst, flow, ect, hint) = {
            let p = self.pool.get(pkt);
            let hint = (p.next_node == node && p.next_gen == self.paths.gen()).then_some(p.next_out);
            (p.src, p.dst, p.flow, p.flags & flag::ECT != 0, hint)
        };
        let Some(out) = hint.or_else(|| self.paths.next_port(&self.routes, node, flow, src, dst)) else {
            self.drop_unroutable(in_port, pkt, wire);
            return None;
        };
        self.remember_next_hop(pkt, node, flow, src, dst);
        let prio = self.queue_of(self.pool.get(pkt));
        // Admission into the shared buffer: normal traffic may not touch the urgent reserve.
        let limit = if prio == PRIO_NORMAL { self.params.buffer - self.params.urgent_reserve } else { self.params.buffer };
        let swrt = &mut self.switches[sw as usize];
        if swrt.used + wire > limit {
            swrt.dropped += 1;
            self.totals.dropped += 1;
            if self.params.pfc.is_some() {
                self.totals.lossless_drops += 1;
            }
            let rt = &mut self.ports[out as usize];
            rt.stats.dropped += 1;
            rt.stats.dropped_bytes += wire;
            self.pool.release(pkt);
            return None;
        }
        swrt.used += wire;
        if ect && self.should_mark(sw, out, prio) {
            self.pool.get_mut(pkt).flags |= flag::CE;
            self.ports[out as usize].stats.marked += 1;
        }
        {
            let p = self.pool.get_mut(pkt);
            p.ingress = in_port;
        }
        self.enqueue(out, prio, pkt, wire);
        // PFC: account the bytes to the ingress port; PAUSE the upstream sender past XOFF.
        if let Some(pfc) = self.params.pfc {
            let inrt = &mut self.ports[in_port as usize];
            inrt.ingress_bytes[prio as usize] += wire;
            if !inrt.pause_sent[prio as usize] && inrt.ingress_bytes[prio as usize] >= pfc.xoff {
                inrt.pause_sent[prio as usize] = true;
                inrt.stats.pauses_sent += 1;
                let at = now + Self::pause_frame_time(inrt.rate_bps) + inrt.delay;
                q.at(at, NetEvent::Pfc { port, prio, pause: true });
            }
        }
        self.try_start(now, out, q);
        None
    }

    /// A 64 B PAUSE frame's serialisation: it jumps every queue but still crosses the wire.
    #[inline]
    fn pause_frame_time(rate_bps: u64) -> SimTime {
        SimTime(64 * 8 * 1_000_000_000_000 / rate_bps)
    }

    /// Whether a packet joining `out`'s queue `prio` is marked; `sw` is the switch
    /// (`u32::MAX`: a host NIC), whose stream draws RED's coin.
    #[inline]
    fn should_mark(&mut self, sw: u32, out: u32, prio: Prio) -> bool {
        let rt = &self.ports[out as usize];
        let (pk, by) = (rt.queues[prio as usize].len() as u64, rt.qbytes[prio as usize]);
        let level = |t: Threshold| match t {
            Threshold::Packets(n) => (pk, n as u64),
            Threshold::Bytes(b) => (by, b),
        };
        match self.params.marking {
            Marking::None => false,
            Marking::Step(k) => {
                let (q, k) = level(k);
                q >= k
            }
            Marking::Red { kmin, kmax, pmax } => {
                let (q, lo) = level(kmin);
                let (_, hi) = level(kmax);
                if q < lo {
                    false
                } else if q >= hi {
                    true
                } else {
                    let p = pmax * (q - lo) as f64 / (hi - lo).max(1) as f64;
                    let rng = if sw == u32::MAX { &mut self.nic_rng } else { &mut self.switches[sw as usize].rng };
                    rng.bernoulli(p)
                }
            }
        }
    }

    /// Starts the next transmission on `port` if it is idle and has an unpaused packet.
    #[inline]
    fn try_start(&mut self, now: SimTime, port: u32, q: &mut impl NetScheduler) {
        if self.ports[port as usize].down {
            return self.drop_queued(now, port, q);
        }
        let rt = &mut self.ports[port as usize];
        if rt.busy_until > now {
            if !rt.txdone_pending && rt.queued_pkts() > 0 {
                rt.txdone_pending = true;
                q.at(rt.busy_until, NetEvent::TxDone { port });
            }
            return;
        }
        let Some(prio) = (0..NPRIO).find(|&i| !rt.paused[i] && !rt.queues[i].is_empty()) else {
            return;
        };
        let pkt = rt.queues[prio].pop_front(&self.pool).expect("non-empty queue");
        if let Some(next) = rt.queues[prio].front() {
            // The port's next packet goes out when this one has: ask for its record now.
            nest_core::hint::prefetch(self.pool.get(next));
        }
        let p = *self.pool.get(pkt);
        let wire = p.wire as u64;
        rt.qbytes[prio] -= wire;
        let ser = serialise::serialisation(wire, rt.rate_bps, rt.ps_per_byte);
        rt.busy_until = now + ser;
        rt.on_wire += wire;
        rt.stats.tx_pkts += 1;
        rt.stats.tx_bytes += wire;
        q.at(rt.busy_until + rt.delay, NetEvent::Arrive { port, pkt });
        let h = self.port_host[port as usize];
        if h != u32::MAX && self.nic_watched[h as usize] {
            self.nic_watched[h as usize] = false;
            self.nic_drained.push(h);
        }
        let rt = &mut self.ports[port as usize];
        // At most one TxDone per port is outstanding: an arrival in the same picosecond as a
        // pending TxDone may start the packet first, and the pending event then re-arms.
        if rt.queued_pkts() > 0 && !rt.txdone_pending {
            rt.txdone_pending = true;
            q.at(rt.busy_until, NetEvent::TxDone { port });
        }
        self.leave_switch(now, port, prio, &p, q);
    }

    /// Packet `p` (queue `prio`) leaves `port`'s queue at a switch: release the switch's buffer
    /// and the ingress port's PFC account (RESUME upstream below XON).
    #[inline]
    fn leave_switch(&mut self, now: SimTime, port: u32, prio: usize, p: &Packet, q: &mut impl NetScheduler) {
        if p.ingress == u32::MAX {
            return;
        }
        let wire = p.wire as u64;
        let sw = self.ports[port as usize].switch;
        self.switches[sw as usize].used -= wire;
        if let Some(pfc) = self.params.pfc {
            let inrt = &mut self.ports[p.ingress as usize];
            inrt.ingress_bytes[prio] -= wire;
            if inrt.pause_sent[prio] && inrt.ingress_bytes[prio] <= pfc.xon {
                inrt.pause_sent[prio] = false;
                let upstream = self.topo.ports[p.ingress as usize].peer;
                let at = now + Self::pause_frame_time(inrt.rate_bps) + inrt.delay;
                q.at(at, NetEvent::Pfc { port: upstream, prio: prio as u8, pause: false });
            }
        }
    }

    /// Bytes waiting in a host's NIC egress queues.
    #[inline]
    pub fn nic_queue_bytes(&self, host: u32) -> u64 {
        let node = self.topo.hosts[host as usize];
        self.topo.nodes[node as usize].ports.iter().map(|&p| self.ports[p as usize].queued_bytes()).sum()
    }

    /// Bytes waiting in a host's NIC egress queues that a data packet of priority `prio` would
    /// wait behind: its own queue and the strictly higher ones. A sender checks this, not the
    /// whole backlog, so urgent traffic is not held back by normal packets it will overtake.
    #[inline]
    pub fn nic_backlog_ahead(&self, host: u32, prio: Prio) -> u64 {
        let q = self.data_queue(prio) as usize;
        if let Some(&p) = self.host_port.get(host as usize).filter(|&&p| p != u32::MAX) {
            return self.ports[p as usize].qbytes[..=q].iter().sum();
        }
        let node = self.topo.hosts[host as usize];
        self.topo.nodes[node as usize].ports.iter().map(|&p| self.ports[p as usize].qbytes[..=q].iter().sum::<u64>()).sum()
    }

    /// Asks to hear (through `take_nic_drained`) when `host`'s NIC next starts a packet.
    #[inline]
    pub fn watch_nic(&mut self, host: u32) {
        self.nic_watched[host as usize] = true;
    }

    /// A watched host whose NIC has started a packet since it was watched (each once per watch).
    #[inline]
    pub fn take_nic_drained(&mut self) -> Option<u32> {
        self.nic_drained.pop()
    }

    /// A PAUSE a host NIC received (host, priority), when `report_nic_pauses` is on.
    #[inline]
    pub fn take_nic_pause(&mut self) -> Option<(u32, u8)> {
        self.nic_pauses.pop()
    }

    /// Closes open pause intervals at the end of a run so `paused_ps` is complete.
    pub fn finish(&mut self, now: SimTime) {
        for rt in &mut self.ports {
            if rt.paused.iter().any(|&x| x) {
                rt.stats.paused_ps += (now - rt.paused_since).0;
                rt.paused_since = now;
            }
        }
    }
}
