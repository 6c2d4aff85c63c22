//! The receiving end of every flow: cumulative, delayed ACKs with RFC 8257's CE-change rule,
//! DCQCN's notification point (CNPs), and in-order progress handed to message channels.

use crate::{Scheduler, TpEvent, Transports};
use nest_core::SimTime;
use nest_net::packet::{flag, Packet, PacketKind};
use nest_net::Fabric;

impl Transports {
    pub(crate) fn on_data(&mut self, now: SimTime, p: &Packet, fabric: &mut Fabric, q: &mut impl Scheduler) {
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
            self.maybe_send_cnp(now, f, p.seq, fabric, q);
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
        let rcv_nxt = r.rcv_nxt;
        if self.flows[f as usize].spec.messages {
            self.channels.arrived(f, rcv_nxt);
        }
        let r = &mut self.flows[f as usize].r;
        if r.pending >= m || p.flags & flag::FIN != 0 {
            self.send_ack(now, f, fabric, q);
        } else if !r.delack_pending {
            r.delack_pending = true;
            q.tp_at(now + self.tcp.delayed_ack_timeout, TpEvent::DelAck(f));
        }
    }

    /// DCQCN notification point: at most one CNP per queue pair per `cnp_interval` while marked
    /// packets arrive (a QP is the flow, or with `qp_per_message` the message holding `seq`, the
    /// marked packet's offset, which the CNP carries back).
    pub(crate) fn maybe_send_cnp(&mut self, now: SimTime, f: u32, seq: u64, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let interval = self.dcqcn.cnp_interval;
        let fl = &mut self.flows[f as usize];
        let qp = match self.dcqcn.qp_per_message && fl.spec.messages {
            true => self.channels.message_at(f, seq).map_or(seq, |(start, _)| start),
            false => 0,
        };
        if matches!(fl.r.last_cnp, Some(t) if now < t + interval) && qp == fl.r.last_cnp_qp {
            return;
        }
        (fl.r.last_cnp, fl.r.last_cnp_qp) = (Some(now), qp);
        let mut c = Packet::new(PacketKind::Cnp, f, fl.spec.dst, fl.spec.src, self.tcp.header + self.tcp.framing);
        c.seq = seq;
        c.prio = fl.spec.prio;
        c.class = fl.spec.class;
        fabric.send(now, c, q);
    }

    pub(crate) fn send_ack(&mut self, now: SimTime, f: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
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
}
