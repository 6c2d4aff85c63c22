//! Rate-based senders (DCQCN, QRDMA): the reaction point's cut on a CNP, α periods (QRDMA's
//! quality factor), the rate-increase timer and byte counter, and the pacer.

use crate::send::{arm_timers, send_segment};
use crate::{cc, Congestion, Scheduler, TpEvent, Transports};
use nest_core::SimTime;
use nest_net::Fabric;

impl Transports {
    /// DCQCN reaction point on a CNP: RT ← RC, RC ← RC·(1 − α/2) (QRDMA: ·Q when Q < 1),
    /// α ← (1 − g)·α + g, and the increase stages restart.
    /// `seq` is the marked packet's offset: with a queue pair per message, a CNP for a message
    /// already sent reaches a QP that is gone and cuts nothing.
    pub(crate) fn on_cnp(&mut self, now: SimTime, f: u32, seq: u64, q: &mut impl Scheduler) {
        let p = &self.dcqcn;
        let fl = &mut self.flows[f as usize];
        if fl.s.finished || !fl.spec.cc.is_rate_based() {
            return;
        }
        fl.s.rate.cnps += 1;
        if p.qp_per_message && fl.spec.messages && seq < fl.s.rate.qp_start {
            return;
        }
        fl.s.rate.cnp_in_period = true;
        if p.clamp_target {
            fl.s.rate.rt = fl.s.rate.rc;
        }
        let (fl, cx) = self.cc_parts(f, now);
        let p = cx.dcqcn;
        let factor = fl.spec.cc.on_signal(&mut fl.s, &cx);
        fl.s.rate.rc = (fl.s.rate.rc * factor).max(p.min_rate);
        fl.s.rate.timer_stage = 0;
        fl.s.rate.byte_stage = 0;
        fl.s.rate.byte_ctr = 0;
        fl.s.rate.timer_gen = fl.s.rate.timer_gen.wrapping_add(1);
        fl.stats.cuts += 1;
        fl.s.rate.timer_parked = None; // the restarted timer replaces a parked one
        let (rc, gen, rate_timer) = (fl.s.rate.rc, fl.s.rate.timer_gen, p.rate_timer);
        self.channels.note(now, f, Congestion::RateCut { rate_bps: rc });
        q.tp_at(now + rate_timer, TpEvent::DcqcnTimer(f, gen));
    }

    /// End of a DCQCN α period: α decays if no CNP came; QRDMA updates its quality factor from
    /// the bytes acknowledged in the period.
    pub(crate) fn on_alpha_period(&mut self, now: SimTime, f: u32, q: &mut impl Scheduler) {
        let (fl, mut cx) = self.cc_parts(f, now);
        if fl.s.finished {
            return;
        }
        fl.spec.cc.on_interval(&mut fl.s, &mut cx);
        fl.s.rate.cnp_in_period = false;
        fl.s.win_acked = 0;
        fl.s.win_marked = 0;
        fl.s.win_start = now;
        if fl.is_idle_channel() {
            fl.s.rate.alpha_parked = Some(now);
            return;
        }
        q.tp_at(now + cx.dcqcn.alpha_period, TpEvent::DcqcnAlpha(f));
    }

    /// A rate-based sender: one packet now if the pacer allows, the next at wire / RC later.
    pub(crate) fn try_pace(&mut self, now: SimTime, f: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let t = &self.tcp;
        let p = &self.dcqcn;
        let fl = &mut self.flows[f as usize];
        if fl.s.rate.pace_pending || fl.s.nic_wait {
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
            let mut len = mss.min(avail - fl.s.snd_nxt);
            let mut ends_message = false;
            if p.qp_per_message && fl.spec.messages {
                // A message of its own QP: no packet carries another message's bytes, and its
                // first packet leaves at the new QP's initial rate with a fresh α.
                if let Some((start, end)) = self.channels.message_at(f, fl.s.snd_nxt) {
                    if end - fl.s.snd_nxt <= len {
                        (len, ends_message) = (end - fl.s.snd_nxt, true);
                    }
                    if start == fl.s.snd_nxt {
                        fl.s.rate.restart(p);
                        // The old QP's increase timer is not this one's.
                        fl.s.rate.timer_gen = fl.s.rate.timer_gen.wrapping_add(1);
                        fl.s.rate.timer_parked = None;
                        fl.s.rate.qp_start = start;
                        fl.s.alpha = t.alpha_init;
                    }
                }
            }
            let last = fl.s.snd_nxt + len >= fl.total || (len < mss && fl.app_done(now));
            if len == mss || last || ends_message {
                let wire = send_segment(fl, f, now, len, last, t, fabric, q);
                fl.s.rate.byte_ctr += wire as u64;
                if p.byte_counter > 0 && fl.s.rate.byte_ctr >= p.byte_counter {
                    fl.s.rate.byte_ctr -= p.byte_counter;
                    fl.s.rate.byte_stage += 1;
                    if cc::dcqcn::increase(&mut fl.s.rate, p) {
                        self.channels.note(now, f, Congestion::RateRaised { rate_bps: fl.s.rate.rc });
                    }
                }
                fl.s.rate.pace_pending = true;
                let gap = SimTime::from_secs_f64(wire as f64 * 8.0 / fl.s.rate.rc.max(1.0)).unwrap_or(SimTime(1));
                q.tp_at(now + gap.max(SimTime(1)), TpEvent::Pace(f));
            }
        }
        // While the pacer is armed it will call again; otherwise wait for the application.
        let need = (!fl.s.rate.pace_pending).then_some(mss);
        arm_timers(fl, f, now, was_idle, need, q);
    }
}
