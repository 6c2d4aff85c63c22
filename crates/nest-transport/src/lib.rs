//! NeSt transports over the packet fabric (SPEC §4).
//!
//! Window-based flows — DCTCP (RFC 8257), QTCP and D2TCP — share one ACK-clocked sender with
//! byte sequence numbers, slow start and congestion avoidance, one ECN reaction per window, and
//! go-back-N recovery (fast retransmit on three duplicate ACKs, RTO) for lossy fabrics; the
//! variants differ only in the cut factor ([`cc`]). Receivers ACK every `delayed_ack` segments.
//! [`model`] is QTCP's discrete-time analytic model, a separate solver.
//!
//! Like the fabric, transports are sans-IO: they schedule through [`Scheduler`].
#![deny(unsafe_code)]

pub mod cc;
pub mod channels;
pub mod equilibrium;
pub mod flow;
pub mod harness;
pub mod model;
mod nic;
pub mod params;
mod rate;
mod receiver;
mod send;
mod sender;
mod shares;
pub mod verbs;
mod window;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_qp;

use std::collections::VecDeque;

pub use cc::Cc;
pub use channels::{Channels, Congestion, CongestionEvent, Delivery, Message, MsgKind};
pub use flow::FlowSpec;
use flow::{Flow, FlowStats, Receiver};
use nest_core::SimTime;
use nest_net::packet::{Packet, PacketKind};
use nest_net::{Fabric, NetEvent, NetScheduler};
pub use params::{DcqcnParams, QtcpParams, RecoveryTarget, Slack, Target, TcpParams};
use sender::Sender;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TpEvent {
    /// Flow `f` starts.
    Start(u32),
    /// A rate-limited application has produced another segment for flow `f`.
    AppWake(u32),
    /// Flow `f`'s retransmission timer (lazy: re-armed if the deadline moved).
    Rto(u32),
    /// Flow `f`'s receiver sends its pending delayed ACK.
    DelAck(u32),
    /// Flow `f`'s application stops producing data (its `stop` time).
    Stop(u32),
    /// A rate-based flow may send its next packet.
    Pace(u32),
    /// DCQCN's α-update period of flow `f` ended.
    DcqcnAlpha(u32),
    /// DCQCN's rate-increase timer of flow `f` fired (generation: a cut restarts the timer).
    DcqcnTimer(u32, u32),
}

impl TpEvent {
    #[inline]
    pub fn tag(&self) -> u64 {
        match *self {
            TpEvent::Start(f) => f as u64,
            TpEvent::AppWake(f) => (1 << 32) | f as u64,
            TpEvent::Rto(f) => (2 << 32) | f as u64,
            TpEvent::DelAck(f) => (3 << 32) | f as u64,
            TpEvent::Stop(f) => (4 << 32) | f as u64,
            TpEvent::Pace(f) => (5 << 32) | f as u64,
            TpEvent::DcqcnAlpha(f) => (6 << 32) | f as u64,
            TpEvent::DcqcnTimer(f, g) => (7 << 32) | ((g as u64) << 40) | f as u64,
        }
    }
}

/// Where transport and fabric events go.
pub trait Scheduler: NetScheduler {
    fn tp_at(&mut self, t: SimTime, e: TpEvent);
}

/// Every flow of a run, plus the per-class bookkeeping QTCP's targets need.
pub struct Transports {
    pub tcp: TcpParams,
    pub qtcp: QtcpParams,
    pub dcqcn: DcqcnParams,
    pub flows: Vec<Flow>,
    /// Target ratio of each class (QTCP), and which active throughput-targeted flows share a
    /// class's target: those leaving or entering the same host (thesis Fig 4.17a).
    class_ratio: Vec<f64>,
    shares: shares::ClassShares,
    /// QTCP's bottleneck estimate λ, shared by the QTCP flows (interference adaptation moves it).
    pub qtcp_lambda: f64,
    /// Latency-centric classes with finite transfers: the smoothed completion time of the class's
    /// finished flows (ps; 0 until the first), the "actual latency" of their quality factor.
    pub class_fct_ewma: Vec<f64>,
    measure_from: SimTime,
    measure_to: SimTime,
    /// Message channels: messages in transit and delivered, congestion at watched flows.
    pub channels: Channels,
    /// Per topology host: whether any window-based flow sends from it (set by `start`).
    host_has_window_flows: Vec<bool>,
    /// Per topology host: flows waiting for room in its NIC queue, woken in turn as the NIC
    /// starts packets (Linux wakes TSQ-throttled sockets on TX completion the same way).
    nic_waiters: Vec<VecDeque<u32>>,
}

impl Transports {
    pub fn new(tcp: TcpParams, qtcp: QtcpParams, specs: Vec<FlowSpec>, class_ratio: Vec<f64>) -> Result<Transports, String> {
        let classes = class_ratio.len();
        let mut flows = Vec::with_capacity(specs.len());
        for spec in specs {
            if spec.class as usize >= classes {
                return Err(format!("flow '{}': class index {} out of range", spec.name, spec.class));
            }
            if spec.src == spec.dst {
                return Err(format!("flow '{}': source and destination are the same host", spec.name));
            }
            let total = if spec.messages { 0 } else { spec.bytes.unwrap_or(u64::MAX) };
            let s = Sender::new(tcp.init_cwnd as f64 * tcp.mss as f64, tcp.alpha_init, tcp.min_rto);
            flows.push(Flow { spec, s, r: Receiver::default(), stats: FlowStats::default(), total });
        }
        let qtcp_lambda = qtcp.bottleneck_bps;
        let n = flows.len();
        let ends: Vec<(u8, u32, u32)> = flows.iter().map(|f| (f.spec.class, f.spec.src, f.spec.dst)).collect();
        let shares = shares::ClassShares::new(&ends, classes);
        Ok(Transports {
            tcp,
            qtcp,
            dcqcn: DcqcnParams::default(),
            flows,
            shares,
            class_ratio,
            qtcp_lambda,
            class_fct_ewma: vec![0.0; classes],
            measure_from: SimTime::ZERO,
            measure_to: SimTime::MAX,
            channels: Channels::new(n),
            host_has_window_flows: Vec::new(),
            nic_waiters: Vec::new(),
        })
    }

    /// Flow `f` apart from what its congestion control may read, for calling a hook (`cc/`).
    #[inline]
    pub(crate) fn cc_parts(&mut self, f: u32, now: SimTime) -> (&mut Flow, cc::Cx<'_>) {
        let Transports { flows, tcp, qtcp, dcqcn, shares, class_ratio, qtcp_lambda, class_fct_ewma, .. } = self;
        let fl = &mut flows[f as usize];
        let s = &fl.spec;
        let facts = cc::Facts { index: f, class: s.class, target: s.target, bytes: s.bytes, start: s.start, deadline: s.deadline, total: fl.total };
        let classes = cc::Classes { shares, ratio: class_ratio, lambda: qtcp_lambda, fct_ewma: class_fct_ewma };
        (fl, cc::Cx { now, flow: facts, tcp, qtcp, dcqcn, classes })
    }

    /// Throughput is counted for bytes acknowledged in [from, to).
    pub fn set_measure_window(&mut self, from: SimTime, to: SimTime) {
        self.measure_from = from;
        self.measure_to = to;
    }

    /// Schedules every flow's start; a rate-based flow's line rate is its host's link rate.
    pub fn start(&mut self, fabric: &Fabric, q: &mut impl Scheduler) {
        self.host_has_window_flows = vec![false; fabric.topo.hosts.len()];
        self.nic_waiters = vec![VecDeque::new(); fabric.topo.hosts.len()];
        for f in &self.flows {
            if !f.spec.cc.is_rate_based() {
                self.host_has_window_flows[f.spec.src as usize] = true;
            }
        }
        for f in self.flows.iter_mut() {
            let node = fabric.topo.hosts[f.spec.src as usize];
            let port = fabric.topo.nodes[node as usize].ports[0];
            f.s.rate.line_rate = fabric.topo.ports[port as usize].rate_bps as f64;
        }
        for (i, f) in self.flows.iter().enumerate() {
            q.tp_at(f.spec.start, TpEvent::Start(i as u32));
            if let Some(stop) = f.spec.stop {
                q.tp_at(stop.max(f.spec.start), TpEvent::Stop(i as u32));
            }
        }
    }

    pub fn handle(&mut self, now: SimTime, e: TpEvent, fabric: &mut Fabric, q: &mut impl Scheduler) {
        match e {
            TpEvent::Start(f) => {
                let fl = &mut self.flows[f as usize];
                fl.s.started = true;
                fl.s.win_start = now;
                // A message channel counts towards its class's share only while it has data.
                if fl.is_throughput_qtcp() && !fl.spec.messages {
                    fl.s.quality.counted_active = true;
                    self.shares.set(f, fl.spec.class, true);
                }
                if fl.spec.cc.is_rate_based() {
                    // RoCE starts at line rate (or the configured initial rate).
                    let r = self.dcqcn.initial_rate.unwrap_or(fl.s.rate.line_rate).min(fl.s.rate.line_rate);
                    fl.s.rate.rc = r;
                    fl.s.rate.rt = r;
                    fl.s.rto = fl.s.rto.max(self.dcqcn.min_rto);
                    q.tp_at(now + self.dcqcn.alpha_period, TpEvent::DcqcnAlpha(f));
                    q.tp_at(now + self.dcqcn.rate_timer, TpEvent::DcqcnTimer(f, 0));
                }
                self.try_send(now, f, fabric, q);
            }
            TpEvent::AppWake(f) => {
                self.flows[f as usize].s.app_wake_pending = false;
                self.try_send(now, f, fabric, q);
            }
            TpEvent::Rto(f) => self.on_rto(now, f, fabric, q),
            TpEvent::Pace(f) => {
                self.flows[f as usize].s.rate.pace_pending = false;
                self.try_send(now, f, fabric, q);
            }
            TpEvent::DcqcnAlpha(f) => self.on_alpha_period(now, f, q),
            TpEvent::DcqcnTimer(f, gen) => {
                let p = &self.dcqcn;
                let fl = &mut self.flows[f as usize];
                if fl.s.finished || gen != fl.s.rate.timer_gen {
                    return;
                }
                fl.s.rate.timer_stage += 1;
                if cc::dcqcn::increase(&mut fl.s.rate, p) {
                    self.channels.note(now, f, Congestion::RateRaised { rate_bps: fl.s.rate.rc });
                }
                if fl.is_idle_channel() {
                    fl.s.rate.timer_parked = Some(now);
                    return;
                }
                q.tp_at(now + p.rate_timer, TpEvent::DcqcnTimer(f, gen));
            }
            TpEvent::Stop(f) => {
                // The application hands over nothing more: what it produced so far (a
                // backlogged sender: what it has sent) is the flow's total.
                let fl = &mut self.flows[f as usize];
                let produced = if fl.spec.rate_bps.is_some() { fl.available(now) } else { fl.s.snd_nxt };
                fl.total = fl.total.min(produced.max(fl.s.snd_nxt));
                if fl.s.started && !fl.s.finished && fl.all_acked(now) {
                    self.finish(now, f);
                }
            }
            TpEvent::DelAck(f) => {
                let r = &mut self.flows[f as usize].r;
                r.delack_pending = false;
                if r.pending > 0 {
                    self.send_ack(now, f, fabric, q);
                }
            }
        }
    }

    /// Runs one fabric event; a packet that reached its host is handed to the transports and
    /// its slot freed. The one place fabric and transports meet, for every event loop.
    #[inline]
    pub fn on_net_event(&mut self, now: SimTime, e: NetEvent, fabric: &mut Fabric, q: &mut impl Scheduler) {
        if let Some(p) = fabric.handle(now, e, q) {
            let pkt = *fabric.pool.get(p);
            fabric.release(p);
            self.on_packet(now, &pkt, fabric, q);
        }
        while let Some(h) = fabric.take_nic_drained() {
            self.wake_nic_waiters(now, h, fabric, q);
        }
        if self.channels.any_watched() {
            self.report_nic_pauses(now, fabric);
        }
    }

    /// A packet reached its destination host: data goes to the flow's receiver, ACKs to its
    /// sender, CNPs to a rate-based sender.
    pub fn on_packet(&mut self, now: SimTime, p: &Packet, fabric: &mut Fabric, q: &mut impl Scheduler) {
        match p.kind {
            PacketKind::Data => self.on_data(now, p, fabric, q),
            PacketKind::Ack => self.on_ack(now, p, fabric, q),
            PacketKind::Cnp => self.on_cnp(now, p.flow, p.seq, q),
        }
    }

    fn finish(&mut self, now: SimTime, f: u32) {
        let fl = &mut self.flows[f as usize];
        fl.s.finished = true;
        if fl.spec.bytes.is_some() {
            let fct = now - fl.spec.start;
            fl.stats.fct = Some(fct);
            if let Some(Target::Latency(_)) = fl.spec.target {
                let e = &mut self.class_fct_ewma[fl.spec.class as usize];
                let g = self.qtcp.gamma;
                *e = if *e == 0.0 { fct.0 as f64 } else { (1.0 - g) * fct.0 as f64 + g * *e };
            }
        }
        if fl.s.quality.counted_active {
            fl.s.quality.counted_active = false;
            self.shares.set(f, fl.spec.class, false);
        }
    }

    /// Payload bits/s a flow delivered in the measurement window.
    pub fn window_throughput_bps(&self, f: u32, window: SimTime) -> f64 {
        if window.0 == 0 {
            return 0.0;
        }
        self.flows[f as usize].stats.window_bytes as f64 * 8.0 / window.as_secs_f64()
    }

    /// Segments sent but not yet acknowledged, over every flow (for the request-conservation
    /// style "in flight" report).
    pub fn in_flight_bytes(&self) -> u64 {
        self.flows.iter().map(|f| f.s.snd_nxt - f.s.snd_una).sum()
    }
}
