//! Putting a segment on the wire and arming the timers that follow, for both families.

use crate::flow::Flow;
use crate::{Scheduler, TcpParams, TpEvent};
use nest_core::SimTime;
use nest_net::packet::{flag, Packet, PacketKind};
use nest_net::Fabric;

/// Puts one data segment of `len` payload bytes on the wire; returns its wire size.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn send_segment(fl: &mut Flow, f: u32, now: SimTime, len: u64, last: bool, t: &TcpParams, fabric: &mut Fabric, q: &mut impl Scheduler) -> u32 {
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
pub(crate) fn arm_timers(fl: &mut Flow, f: u32, now: SimTime, was_idle: bool, need: Option<u64>, q: &mut impl Scheduler) {
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
