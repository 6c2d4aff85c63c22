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
pub mod flow;
pub mod harness;
pub mod model;
pub mod params;

#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use flow::{Flow, FlowStats, Receiver, Sender};
use nest_core::SimTime;
use nest_net::packet::{flag, Packet, PacketKind};
use nest_net::{Fabric, NetEvent, NetScheduler};
pub use params::{Cc, DcqcnParams, FlowSpec, QtcpParams, Target, TcpParams};

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
    /// Target ratio of each class (QTCP) and how many throughput-targeted QTCP flows of the
    /// class are active now: a class's target is shared by its flows (thesis Fig 4.17a).
    class_ratio: Vec<f64>,
    class_active: Vec<u32>,
    /// QTCP's bottleneck estimate λ, shared by the QTCP flows (interference adaptation moves it).
    pub qtcp_lambda: f64,
    /// Latency-centric classes with finite transfers: the smoothed completion time of the class's
    /// finished flows (ps; 0 until the first), the "actual latency" of their quality factor.
    pub class_fct_ewma: Vec<f64>,
    measure_from: SimTime,
    measure_to: SimTime,
    /// Message channels whose receiver got more in-order bytes since the caller last drained
    /// this (a flow may appear more than once).
    pub delivered: Vec<u32>,
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
        Ok(Transports { tcp, qtcp, dcqcn: DcqcnParams::default(), flows, class_active: vec![0; classes], class_ratio, qtcp_lambda, class_fct_ewma: vec![0.0; classes], measure_from: SimTime::ZERO, measure_to: SimTime::MAX, delivered: Vec::new(), host_has_window_flows: Vec::new(), nic_waiters: Vec::new() })
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
            f.s.line_rate = fabric.topo.ports[port as usize].rate_bps as f64;
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
                    fl.s.counted_active = true;
                    self.class_active[fl.spec.class as usize] += 1;
                }
                if fl.spec.cc.is_rate_based() {
                    // RoCE starts at line rate (or the configured initial rate).
                    let r = self.dcqcn.initial_rate.unwrap_or(fl.s.line_rate).min(fl.s.line_rate);
                    fl.s.rc = r;
                    fl.s.rt = r;
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
                self.flows[f as usize].s.pace_pending = false;
                self.try_send(now, f, fabric, q);
            }
            TpEvent::DcqcnAlpha(f) => self.on_alpha_period(now, f, q),
            TpEvent::DcqcnTimer(f, gen) => {
                let p = &self.dcqcn;
                let fl = &mut self.flows[f as usize];
                if fl.s.finished || gen != fl.s.timer_gen {
                    return;
                }
                fl.s.timer_stage += 1;
                cc::dcqcn_increase(&mut fl.s, p);
                if fl.is_idle_channel() {
                    fl.s.timer_parked = Some(now);
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

    /// Hands `bytes` more of a message channel's data to its sender (it sends at once if its
    /// window allows). The caller keeps the message boundaries and matches them against the
    /// receiver's in-order progress ([`Transports::delivered`], `flows[f].r.rcv_nxt`).
    pub fn push(&mut self, now: SimTime, f: u32, bytes: u64, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let fl = &mut self.flows[f as usize];
        debug_assert!(fl.spec.messages, "push on a flow that is not a message channel");
        fl.total += bytes;
        if fl.is_throughput_qtcp() && !fl.s.counted_active && !fl.s.finished {
            fl.s.counted_active = true;
            self.class_active[fl.spec.class as usize] += 1;
        }
        // Restart parked DCQCN timers on their original grid, with the idle periods applied:
        // α decayed once per period without a CNP, the rate raised once per timer period.
        let p = &self.dcqcn;
        if let Some(t) = fl.s.alpha_parked.take() {
            let n = (now - t).0 / p.alpha_period.0;
            fl.s.alpha *= (1.0 - p.g).powi(n.min(i32::MAX as u64) as i32);
            q.tp_at(t + SimTime(p.alpha_period.0 * (n + 1)), TpEvent::DcqcnAlpha(f));
        }
        if let Some(t) = fl.s.timer_parked.take() {
            let n = (now - t).0 / p.rate_timer.0;
            for _ in 0..n.min(1000) {
                if fl.s.rc >= fl.s.line_rate && fl.s.rt >= fl.s.line_rate {
                    break;
                }
                fl.s.timer_stage += 1;
                cc::dcqcn_increase(&mut fl.s, p);
            }
            q.tp_at(t + SimTime(p.rate_timer.0 * (n + 1)), TpEvent::DcqcnTimer(f, fl.s.timer_gen));
        }
        self.try_send(now, f, fabric, q);
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
    }

    /// `host`'s NIC started a packet: waiting flows try again in turn until one finds the
    /// queue full again (it goes back to the end of the list) or none is left.
    fn wake_nic_waiters(&mut self, now: SimTime, host: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
        for _ in 0..self.nic_waiters[host as usize].len() {
            let Some(f) = self.nic_waiters[host as usize].pop_front() else { break };
            self.flows[f as usize].s.nic_wait = false;
            self.try_send(now, f, fabric, q);
            if self.flows[f as usize].s.nic_wait {
                break;
            }
        }
    }

    /// Parks flow `f` until its NIC starts another packet.
    fn wait_for_nic(fl: &mut Flow, f: u32, waiters: &mut [VecDeque<u32>], fabric: &mut Fabric) {
        fl.s.nic_wait = true;
        waiters[fl.spec.src as usize].push_back(f);
        fabric.watch_nic(fl.spec.src);
    }

    /// A packet reached its destination host: data goes to the flow's receiver, ACKs to its
    /// sender, CNPs to a rate-based sender.
    pub fn on_packet(&mut self, now: SimTime, p: &Packet, fabric: &mut Fabric, q: &mut impl Scheduler) {
        match p.kind {
            PacketKind::Data => self.on_data(now, p, fabric, q),
            PacketKind::Ack => self.on_ack(now, p, fabric, q),
            PacketKind::Cnp => self.on_cnp(now, p.flow, q),
        }
    }

    /// DCQCN reaction point on a CNP: RT ← RC, RC ← RC·(1 − α/2) (QRDMA: ·Q when Q < 1),
    /// α ← (1 − g)·α + g, and the increase stages restart.
    fn on_cnp(&mut self, now: SimTime, f: u32, q: &mut impl Scheduler) {
        let p = &self.dcqcn;
        let mss = self.tcp.mss as f64;
        let fl = &mut self.flows[f as usize];
        if fl.s.finished || !fl.spec.cc.is_rate_based() {
            return;
        }
        fl.s.cnps += 1;
        fl.s.cnp_in_period = true;
        if p.clamp_target {
            fl.s.rt = fl.s.rc;
        }
        let factor = cc::cut_factor(fl, now, mss);
        fl.s.rc = (fl.s.rc * factor).max(p.min_rate);
        fl.s.alpha = (1.0 - p.g) * fl.s.alpha + p.g;
        fl.s.timer_stage = 0;
        fl.s.byte_stage = 0;
        fl.s.byte_ctr = 0;
        fl.s.timer_gen = fl.s.timer_gen.wrapping_add(1);
        fl.stats.cuts += 1;
        fl.s.timer_parked = None; // the restarted timer replaces a parked one
        q.tp_at(now + p.rate_timer, TpEvent::DcqcnTimer(f, fl.s.timer_gen));
    }

    /// End of a DCQCN α period: α decays if no CNP came; QRDMA updates its quality factor from
    /// the bytes acknowledged in the period.
    fn on_alpha_period(&mut self, now: SimTime, f: u32, q: &mut impl Scheduler) {
        let fl = &mut self.flows[f as usize];
        let share = class_share(&self.class_ratio, &self.class_active, fl);
        if fl.s.finished {
            return;
        }
        if !fl.s.cnp_in_period {
            fl.s.alpha *= 1.0 - self.dcqcn.g;
        }
        fl.s.cnp_in_period = false;
        if fl.spec.cc == Cc::Qrdma {
            let class_fct = self.class_fct_ewma[fl.spec.class as usize];
            cc::update_quality(fl, now, &self.qtcp, share, &mut self.qtcp_lambda, class_fct);
        }
        fl.s.win_acked = 0;
        fl.s.win_marked = 0;
        fl.s.win_start = now;
        if fl.is_idle_channel() {
            fl.s.alpha_parked = Some(now);
            return;
        }
        q.tp_at(now + self.dcqcn.alpha_period, TpEvent::DcqcnAlpha(f));
    }

    fn on_data(&mut self, now: SimTime, p: &Packet, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let f = p.flow;
        let m = self.tcp.delayed_ack;
        let r = &mut self.flows[f as usize].r;
        r.last_ts = p.ts;
        if p.seq != r.rcv_nxt {
            // Out of order (a drop upstream) or a duplicate: go-back-N, acknowledge at once.
            r.pending = r.pending.max(1);
            return self.send_ack(now, f, fabric, q);
        }
        let ce = p.flags & flag::CE != 0;
        if ce && self.flows[f as usize].spec.cc.is_rate_based() {
            self.maybe_send_cnp(now, f, fabric, q);
        }
        let r = &mut self.flows[f as usize].r;
        if ce != r.ce_state && r.pending > 0 {
            // RFC 8257 §3.2: ACK what came before with the old ECE state, then switch.
            self.send_ack(now, f, fabric, q);
        }
        let r = &mut self.flows[f as usize].r;
        r.ce_state = ce;
        r.rcv_nxt += p.payload as u64;
        r.pending += 1;
        if self.flows[f as usize].spec.messages {
            self.delivered.push(f);
        }
        let r = &mut self.flows[f as usize].r;
        if r.pending >= m || p.flags & flag::FIN != 0 {
            self.send_ack(now, f, fabric, q);
        } else if !r.delack_pending {
            r.delack_pending = true;
            q.tp_at(now + self.tcp.delayed_ack_timeout, TpEvent::DelAck(f));
        }
    }

    /// DCQCN notification point: at most one CNP per flow per `cnp_interval` while marked
    /// packets arrive.
    fn maybe_send_cnp(&mut self, now: SimTime, f: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let interval = self.dcqcn.cnp_interval;
        let fl = &mut self.flows[f as usize];
        if matches!(fl.r.last_cnp, Some(t) if now < t + interval) {
            return;
        }
        fl.r.last_cnp = Some(now);
        let mut c = Packet::new(PacketKind::Cnp, f, fl.spec.dst, fl.spec.src, self.tcp.header + self.tcp.framing);
        c.prio = fl.spec.prio;
        c.class = fl.spec.class;
        fabric.send(now, c, q);
    }

    fn send_ack(&mut self, now: SimTime, f: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let fl = &mut self.flows[f as usize];
        let r = &mut fl.r;
        let mut a = Packet::new(PacketKind::Ack, f, fl.spec.dst, fl.spec.src, self.tcp.header + self.tcp.framing);
        a.seq = r.rcv_nxt;
        a.ts = r.last_ts;
        a.prio = fl.spec.prio;
        a.class = fl.spec.class;
        if r.ce_state {
            a.flags |= flag::ECE;
            r.ece_acks += 1;
        }
        r.acks += 1;
        r.pending = 0;
        fabric.send(now, a, q);
    }

    fn on_ack(&mut self, now: SimTime, p: &Packet, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let f = p.flow;
        let mss = self.tcp.mss as f64;
        let ece = p.flags & flag::ECE != 0;
        let (from, to) = (self.measure_from, self.measure_to);
        let fl = &mut self.flows[f as usize];
        if fl.s.finished {
            return;
        }
        if p.seq > fl.s.snd_una {
            let newly = p.seq - fl.s.snd_una;
            fl.s.snd_una = p.seq;
            fl.s.dupacks = 0;
            fl.stats.acked_bytes += newly;
            if now >= from && now < to {
                fl.stats.window_bytes += newly;
            }
            // RTT sample from the echoed timestamp (RFC 6298 smoothing).
            let sample = (now - p.ts).0 as f64;
            if fl.s.srtt == 0.0 {
                fl.s.srtt = sample;
                fl.s.rttvar = sample / 2.0;
            } else {
                fl.s.rttvar = 0.75 * fl.s.rttvar + 0.25 * (fl.s.srtt - sample).abs();
                fl.s.srtt = 0.875 * fl.s.srtt + 0.125 * sample;
            }
            fl.stats.rtt_samples += 1;
            fl.stats.rtt_sum_ps += sample;
            let floor = if fl.spec.cc.is_rate_based() { self.dcqcn.min_rto } else { self.tcp.min_rto };
            fl.s.rto = SimTime(((fl.s.srtt + 4.0 * fl.s.rttvar) as u64).max(floor.0));
            fl.s.rto_deadline = now + fl.s.rto;
            fl.s.win_acked += newly;
            if fl.spec.messages && fl.s.snd_una >= fl.total && fl.s.counted_active {
                // An idle channel stops diluting its class's share until it has data again.
                fl.s.counted_active = false;
                self.class_active[fl.spec.class as usize] -= 1;
            }
            if fl.spec.cc.is_rate_based() {
                if fl.all_acked(now) {
                    return self.finish(now, f);
                }
                return self.try_send(now, f, fabric, q);
            }
            if ece {
                fl.s.win_marked += newly;
            }
            // End of an observation window (≈ one RTT): α, then QTCP's quality factor.
            if fl.s.snd_una > fl.s.win_end {
                fl.s.alpha = cc::update_alpha(fl.s.alpha, self.tcp.g, fl.s.win_acked, fl.s.win_marked);
                if fl.spec.cc == Cc::Qtcp {
                    let share = class_share(&self.class_ratio, &self.class_active, fl);
                    let class_fct = self.class_fct_ewma[fl.spec.class as usize];
                    cc::update_quality(fl, now, &self.qtcp, share, &mut self.qtcp_lambda, class_fct);
                }
                fl.s.win_acked = 0;
                fl.s.win_marked = 0;
                fl.s.win_start = now;
                fl.s.win_end = fl.s.snd_nxt;
            }
            if ece && fl.s.snd_una > fl.s.cwr_end {
                let factor = cc::cut_factor(fl, now, mss);
                let floor = self.tcp.min_cwnd as f64 * mss;
                fl.s.cwnd = (fl.s.cwnd * factor).max(floor);
                fl.s.ssthresh = fl.s.cwnd;
                fl.s.cwr_end = fl.s.snd_nxt;
                fl.stats.cuts += 1;
            } else if !ece && fl.s.cwnd_limited {
                if fl.s.cwnd < fl.s.ssthresh {
                    fl.s.cwnd += newly as f64;
                } else {
                    fl.s.cwnd += mss * newly as f64 / fl.s.cwnd;
                }
            }
            if fl.all_acked(now) {
                return self.finish(now, f);
            }
        } else if p.seq == fl.s.snd_una && fl.s.snd_nxt > fl.s.snd_una {
            fl.s.dupacks += 1;
            if fl.s.dupacks == 3 {
                fl.stats.fast_retransmits += 1;
                fl.s.ssthresh = (fl.s.cwnd / 2.0).max(2.0 * mss);
                fl.s.cwnd = fl.s.ssthresh;
                Self::go_back(fl, mss as u64);
            }
        }
        self.try_send(now, f, fabric, q);
    }

    fn go_back(fl: &mut Flow, mss: u64) {
        fl.stats.retransmitted_segments += (fl.s.snd_nxt - fl.s.snd_una).div_ceil(mss);
        fl.s.snd_nxt = fl.s.snd_una;
        fl.s.cwr_end = fl.s.cwr_end.min(fl.s.snd_una);
        fl.s.win_end = fl.s.win_end.min(fl.s.snd_una);
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
        if fl.s.counted_active {
            fl.s.counted_active = false;
            self.class_active[fl.spec.class as usize] -= 1;
        }
    }

    fn on_rto(&mut self, now: SimTime, f: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let mss = self.tcp.mss as f64;
        let fl = &mut self.flows[f as usize];
        fl.s.rto_pending = false;
        if fl.s.finished || fl.s.snd_nxt == fl.s.snd_una {
            return;
        }
        if now < fl.s.rto_deadline {
            fl.s.rto_pending = true;
            q.tp_at(fl.s.rto_deadline, TpEvent::Rto(f));
            return;
        }
        fl.stats.timeouts += 1;
        fl.s.ssthresh = (fl.s.cwnd / 2.0).max(2.0 * mss);
        fl.s.cwnd = mss;
        fl.s.rto = SimTime(fl.s.rto.0.saturating_mul(2));
        fl.s.rto_deadline = now + fl.s.rto;
        Self::go_back(fl, mss as u64);
        self.try_send(now, f, fabric, q);
    }

    /// Sends as many segments as the window and the application allow.
    fn try_send(&mut self, now: SimTime, f: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let t = &self.tcp;
        let fl = &mut self.flows[f as usize];
        if !fl.s.started || fl.s.finished {
            return;
        }
        if fl.spec.cc.is_rate_based() {
            return self.try_pace(now, f, fabric, q);
        }
        let mss = t.mss as u64;
        let avail = fl.available(now);
        let was_idle = fl.s.snd_nxt == fl.s.snd_una;
        if fl.s.nic_wait {
            return; // waiting for the NIC queue to drain (TCP Small Queues)
        }
        fl.s.cwnd_limited = false;
        loop {
            let s = &fl.s;
            if s.snd_nxt >= avail {
                break;
            }
            let len = mss.min(avail - s.snd_nxt);
            let last = s.snd_nxt + len >= fl.total || (len < mss && fl.app_done(now));
            if len < mss && !last {
                break; // wait for a full segment from a rate-limited application
            }
            let inflight = s.snd_nxt - s.snd_una;
            if inflight > 0 && (inflight + len) as f64 > s.cwnd {
                fl.s.cwnd_limited = true;
                break;
            }
            if !fabric.params.nic_ecn && fabric.nic_backlog_ahead(fl.spec.src, fl.spec.prio) >= t.nic_queue_limit {
                // The NIC is the bottleneck: wait until it starts another packet. Not
                // window-limited, so the window does not grow meanwhile (RFC 7661).
                Self::wait_for_nic(fl, f, &mut self.nic_waiters, fabric);
                break;
            }
            send_segment(fl, f, now, len, last, t, fabric, q);
        }
        arm_timers(fl, f, now, was_idle, Some(mss), q);
    }

    /// A rate-based sender: one packet now if the pacer allows, the next at wire / RC later.
    fn try_pace(&mut self, now: SimTime, f: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let t = &self.tcp;
        let p = &self.dcqcn;
        let fl = &mut self.flows[f as usize];
        if fl.s.pace_pending || fl.s.nic_wait {
            return;
        }
        let mss = t.mss as u64;
        let avail = fl.available(now);
        let was_idle = fl.s.snd_nxt == fl.s.snd_una;
        // The NIC pulls packets from its queue pairs only as fast as its port drains: with a
        // few packets already waiting, this QP's next packet waits one line-rate packet time.
        // On a host that also runs window-based flows, a QP may find as much queued as TCP
        // Small Queues lets TCP leave (plus its own two packets), or TCP — refilling the NIC
        // on every ACK — would keep it above two packets and starve the QPs.
        let full_wire = (mss as u32 + t.header + t.framing) as f64;
        let limit = 2.0 * full_wire + if self.host_has_window_flows[fl.spec.src as usize] { t.nic_queue_limit as f64 } else { 0.0 };
        // With `nic_ecn` the NIC queue is a marking queue like a switch port: the QP paces at
        // RC and the queue's marks (CNPs) slow it, as for TCP.
        if fl.s.snd_nxt < avail && !fabric.params.nic_ecn && fabric.nic_backlog_ahead(fl.spec.src, fl.spec.prio) as f64 > limit {
            Self::wait_for_nic(fl, f, &mut self.nic_waiters, fabric);
            return;
        }
        if fl.s.snd_nxt < avail {
            let len = mss.min(avail - fl.s.snd_nxt);
            let last = fl.s.snd_nxt + len >= fl.total || (len < mss && fl.app_done(now));
            if len == mss || last {
                let wire = send_segment(fl, f, now, len, last, t, fabric, q);
                fl.s.byte_ctr += wire as u64;
                if p.byte_counter > 0 && fl.s.byte_ctr >= p.byte_counter {
                    fl.s.byte_ctr -= p.byte_counter;
                    fl.s.byte_stage += 1;
                    cc::dcqcn_increase(&mut fl.s, p);
                }
                fl.s.pace_pending = true;
                let gap = SimTime::from_secs_f64(wire as f64 * 8.0 / fl.s.rc.max(1.0)).unwrap_or(SimTime(1));
                q.tp_at(now + gap.max(SimTime(1)), TpEvent::Pace(f));
            }
        }
        // While the pacer is armed it will call again; otherwise wait for the application.
        let need = (!fl.s.pace_pending).then_some(mss);
        arm_timers(fl, f, now, was_idle, need, q);
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

/// Puts one data segment of `len` payload bytes on the wire; returns its wire size.
#[allow(clippy::too_many_arguments)]
#[inline]
fn send_segment(fl: &mut Flow, f: u32, now: SimTime, len: u64, last: bool, t: &TcpParams, fabric: &mut Fabric, q: &mut impl Scheduler) -> u32 {
    let wire = len as u32 + t.header + t.framing;
    let mut p = Packet::new(PacketKind::Data, f, fl.spec.src, fl.spec.dst, wire);
    p.payload = len as u32;
    p.seq = fl.s.snd_nxt;
    p.ts = now;
    p.prio = fl.spec.prio;
    p.class = fl.spec.class;
    p.flags = flag::ECT | if last { flag::FIN } else { 0 };
    fl.s.snd_nxt += len;
    fl.stats.segments += 1;
    fabric.send(now, p, q);
    wire
}

/// After sending: the retransmission timer runs while data is outstanding (restarted when the
/// flow was idle), and a rate-limited application that has less than `need` bytes beyond what
/// was sent wakes the sender when it has produced them (`None`: the sender needs no wake-up).
#[inline]
fn arm_timers(fl: &mut Flow, f: u32, now: SimTime, was_idle: bool, need: Option<u64>, q: &mut impl Scheduler) {
    if fl.s.snd_nxt > fl.s.snd_una {
        if was_idle {
            fl.s.rto_deadline = now + fl.s.rto;
        }
        if !fl.s.rto_pending {
            fl.s.rto_pending = true;
            q.tp_at(fl.s.rto_deadline, TpEvent::Rto(f));
        }
    }
    let Some(need) = need else { return };
    if fl.s.app_wake_pending || fl.app_done(now) || fl.s.snd_nxt + need <= fl.available(now) {
        return;
    }
    if let Some(t) = fl.time_available(fl.s.snd_nxt + need) {
        fl.s.app_wake_pending = true;
        q.tp_at(t.max(now + SimTime(1)), TpEvent::AppWake(f));
    }
}

/// A flow's share of the bottleneck: its class ratio over the ratios of the classes with active
/// QTCP/QRDMA flows, divided among its class's active flows (1 for flows without a ratio target).
fn class_share(ratio: &[f64], active: &[u32], fl: &Flow) -> f64 {
    let Some(Target::Ratio(_)) = fl.spec.target else { return 1.0 };
    let c = fl.spec.class as usize;
    let sum: f64 = ratio.iter().zip(active).filter(|(_, &n)| n > 0).map(|(r, _)| r).sum();
    if sum <= 0.0 {
        return 1.0;
    }
    ratio[c] / sum / active[c].max(1) as f64
}
