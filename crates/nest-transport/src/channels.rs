//! Message channels: a flow opened with `messages = true` carries a stream of messages, each a
//! number of bytes and a [`Message`] (a kind and a tag chosen by the protocol that owns the
//! channel: NVMe-oF capsules, a coordinator's control messages, RDMA verbs). The transport
//! keeps each message's end offset in the stream and hands the message over, in order, once
//! the receiver has every byte of it ([`Channels::delivered`]); it never reads the message.
//!
//! The same outbox reports congestion at the flows a caller watches ([`Channels::watch`]):
//! a DCQCN/QRDMA reaction point that cut its rate on a CNP or raised it (with the new rate),
//! and PFC PAUSE frames received by the sending host's NIC for the flow's priority. A
//! storage-side rate controller (SRC) reads exactly these at the target's endpoints.

use crate::sender::Sender;
use crate::{cc, Scheduler, TpEvent, Transports};
pub use nest_core::Congestion;
use nest_core::SimTime;
use nest_net::Fabric;
use std::collections::VecDeque;

/// What a message is, in its owner's vocabulary (the transport only carries it).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MsgKind(pub u8);

/// A message on a channel: its kind and a tag its owner resolves (a request id, a host…).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub kind: MsgKind,
    pub tag: u32,
}

/// A message that has fully arrived, and the channel it came on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub flow: u32,
    pub msg: Message,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CongestionEvent {
    pub at: SimTime,
    pub flow: u32,
    pub what: Congestion,
}

#[derive(Default)]
pub struct Channels {
    /// Per flow: messages sent and not yet fully received, as (end offset in the stream,
    /// message), oldest first (empty for flows that are not channels).
    pending: Vec<VecDeque<(u64, Message)>>,
    /// Per flow: where the last message handed over ended (the next one's start).
    delivered_end: Vec<u64>,
    /// Messages that fully arrived since the owner last drained this, in arrival order.
    pub delivered: Vec<Delivery>,
    watched: Vec<bool>,
    /// The watched flows, in the order they were watched (the fabric reports NIC pauses while
    /// there are any).
    watched_flows: Vec<u32>,
    /// Congestion at watched flows since the owner last drained this, in time order.
    pub congestion: Vec<CongestionEvent>,
}

impl Channels {
    pub(crate) fn new(flows: usize) -> Channels {
        Channels { pending: vec![VecDeque::new(); flows], delivered_end: vec![0; flows], watched: vec![false; flows], ..Default::default() }
    }

    /// The message of channel `f` that holds stream byte `off`, as (start, end): one sent and not
    /// yet handed over.
    #[inline]
    pub(crate) fn message_at(&self, f: u32, off: u64) -> Option<(u64, u64)> {
        let q = &self.pending[f as usize];
        let i = q.partition_point(|&(end, _)| end <= off);
        let &(end, _) = q.get(i)?;
        Some((if i == 0 { self.delivered_end[f as usize] } else { q[i - 1].0 }, end))
    }

    /// Reports flow `f`'s congestion events from now on.
    pub fn watch(&mut self, f: u32, fabric: &mut Fabric) {
        if !std::mem::replace(&mut self.watched[f as usize], true) {
            self.watched_flows.push(f);
        }
        fabric.report_nic_pauses = true;
    }

    #[inline]
    pub(crate) fn note(&mut self, at: SimTime, flow: u32, what: Congestion) {
        if self.watched[flow as usize] {
            self.congestion.push(CongestionEvent { at, flow, what });
        }
    }

    /// The receiver of channel `f` has every byte before `rcv_nxt`: hand over what is complete.
    #[inline]
    pub(crate) fn arrived(&mut self, f: u32, rcv_nxt: u64) {
        let q = &mut self.pending[f as usize];
        while let Some(&(end, msg)) = q.front() {
            if end > rcv_nxt {
                break;
            }
            q.pop_front();
            self.delivered_end[f as usize] = end;
            self.delivered.push(Delivery { flow: f, msg });
        }
    }

    #[inline]
    pub(crate) fn any_watched(&self) -> bool {
        !self.watched_flows.is_empty()
    }

    /// Messages of `kind` sent and not yet delivered, over every channel.
    pub fn in_transit(&self, kind: MsgKind) -> u64 {
        self.pending.iter().flatten().filter(|(_, m)| m.kind == kind).count() as u64
    }

    /// Messages sent on flow `f` and not yet delivered.
    pub fn pending(&self, f: u32) -> usize {
        self.pending[f as usize].len()
    }
}

impl Transports {
    /// Sends `msg`, `bytes` long, on message channel `f`; it is handed over in
    /// [`Channels::delivered`] once the receiver has all of it.
    pub fn send_message(&mut self, now: SimTime, f: u32, bytes: u64, msg: Message, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let end = self.flows[f as usize].total + bytes;
        self.channels.pending[f as usize].push_back((end, msg));
        self.push(now, f, bytes, fabric, q);
    }

    /// Channel `f`'s connection is torn down and made anew (NVMe-oF's error recovery after an
    /// I/O timeout): the messages not yet delivered are dropped and returned, oldest first. The
    /// new connection's stream starts where the old one ended at both ends, so nothing of the
    /// old one is sent again, and a packet of it still in the fabric arrives as a duplicate and
    /// is ignored (a stale segment of a closed connection). Its window, RTT estimate and rate
    /// start afresh, as a new connection's (queue pair's) do.
    pub fn reset_channel(&mut self, f: u32) -> Vec<Message> {
        let dropped = self.channels.pending[f as usize].drain(..).map(|(_, m)| m).collect();
        let (tcp, dcqcn) = (&self.tcp, &self.dcqcn);
        let fl = &mut self.flows[f as usize];
        debug_assert!(fl.spec.messages, "reset of a flow that is not a message channel");
        let end = fl.total;
        let fresh = Sender::new(tcp.init_cwnd as f64 * tcp.mss as f64, tcp.alpha_init, tcp.min_rto);
        let s = &mut fl.s;
        (s.snd_una, s.snd_nxt) = (end, end);
        (s.srtt, s.rttvar, s.alpha) = (0.0, 0.0, fresh.alpha);
        s.rto = if fl.spec.cc.is_rate_based() { tcp.min_rto.max(dcqcn.min_rto) } else { tcp.min_rto };
        // Duplicate ACKs that old segments draw are echoes, never news of a loss (`recover`).
        s.win = crate::sender::WindowState { recover: end, win_end: end, cwr_end: end, ..fresh.win };
        if fl.spec.cc.is_rate_based() {
            s.rate.restart(dcqcn);
            s.rate.qp_start = end;
        }
        if s.quality.counted_active {
            s.quality.counted_active = false;
            self.shares.set(f, fl.spec.class, false);
        }
        let r = &mut fl.r;
        (r.rcv_nxt, r.pending) = (end, 0);
        self.channels.delivered_end[f as usize] = end;
        dropped
    }

    /// Hands `bytes` more of a message channel's stream to its sender (it sends at once if its
    /// window allows).
    fn push(&mut self, now: SimTime, f: u32, bytes: u64, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let fl = &mut self.flows[f as usize];
        debug_assert!(fl.spec.messages, "push on a flow that is not a message channel");
        fl.total += bytes;
        if fl.is_throughput_qtcp() && !fl.s.quality.counted_active && !fl.s.finished {
            fl.s.quality.counted_active = true;
            self.shares.set(f, fl.spec.class, true);
        }
        // Restart parked DCQCN timers on their original grid, with the idle periods applied:
        // α decayed once per period without a CNP, the rate raised once per timer period.
        let p = &self.dcqcn;
        if let Some(t) = fl.s.rate.alpha_parked.take() {
            let n = (now - t).0 / p.alpha_period.0;
            fl.s.alpha *= (1.0 - p.g).powi(n.min(i32::MAX as u64) as i32);
            q.tp_at(t + SimTime(p.alpha_period.0 * (n + 1)), TpEvent::DcqcnAlpha(f));
        }
        if let Some(t) = fl.s.rate.timer_parked.take() {
            let n = (now - t).0 / p.rate_timer.0;
            let mut moved = false;
            for _ in 0..n.min(1000) {
                if fl.s.rate.rc >= fl.s.rate.line_rate && fl.s.rate.rt >= fl.s.rate.line_rate {
                    break;
                }
                fl.s.rate.timer_stage += 1;
                moved |= cc::dcqcn::increase(&mut fl.s.rate, p);
            }
            if moved {
                self.channels.note(now, f, Congestion::RateRaised { rate_bps: fl.s.rate.rc });
            }
            q.tp_at(t + SimTime(p.rate_timer.0 * (n + 1)), TpEvent::DcqcnTimer(f, fl.s.rate.timer_gen));
        }
        self.try_send(now, f, fabric, q);
    }

    /// PAUSE frames the fabric saw reach watched hosts' NICs become `Paused` events of the
    /// watched flows sending from that host at that priority.
    pub(crate) fn report_nic_pauses(&mut self, now: SimTime, fabric: &mut Fabric) {
        while let Some((host, prio)) = fabric.take_nic_pause() {
            for k in 0..self.channels.watched_flows.len() {
                let f = self.channels.watched_flows[k];
                let spec = &self.flows[f as usize].spec;
                if spec.src == host && spec.prio == prio {
                    self.channels.note(now, f, Congestion::Paused);
                }
            }
        }
    }

    /// Checks every channel: queued message ends increase, lie beyond what was received, and the
    /// last one ends where the stream does; the receiver never got past the sender.
    pub fn check_channels(&self) -> Result<(), String> {
        for (i, q) in self.channels.pending.iter().enumerate() {
            let f = &self.flows[i];
            if f.r.rcv_nxt > f.total && f.spec.messages {
                return Err(format!("flow '{}': received {} B of {} sent", f.spec.name, f.r.rcv_nxt, f.total));
            }
            if let Some(&(end, _)) = q.back() {
                if end != f.total {
                    return Err(format!("flow '{}': last message ends at {end}, the channel holds {}", f.spec.name, f.total));
                }
            }
            if q.iter().zip(q.iter().skip(1)).any(|(a, b)| a.0 >= b.0) || q.front().is_some_and(|&(e, _)| e <= f.r.rcv_nxt) {
                return Err(format!("flow '{}': message queue out of order or holding delivered messages", f.spec.name));
            }
        }
        Ok(())
    }
}
