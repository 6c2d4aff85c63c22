//! Window-based senders (DCTCP, QTCP, D2TCP): ACK clocking, the once-per-window ECN reaction
//! with the algorithm's cut (`cc/`), slow start and congestion avoidance, go-back-N recovery on
//! three duplicate ACKs or an RTO.

use crate::flow::Flow;
use crate::send::{arm_timers, send_segment};
use crate::{Scheduler, TpEvent, Transports};
use nest_core::SimTime;
use nest_net::packet::{flag, Packet};
use nest_net::Fabric;

impl Transports {
    pub(crate) fn on_ack(&mut self, now: SimTime, p: &Packet, fabric: &mut Fabric, q: &mut impl Scheduler) {
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
            // After a go-back (RTO), an ACK for what the first transmission delivered can pass
            // snd_nxt: that data is not sent again (found by a lossy incast with many timeouts).
            fl.s.snd_nxt = fl.s.snd_nxt.max(fl.s.snd_una);
            fl.s.win.dupacks = 0;
            if let Some(d) = fl.spec.deadline {
                if fl.stats.acked_by_deadline.is_none() && now > fl.spec.start + d {
                    fl.stats.acked_by_deadline = Some(fl.stats.acked_bytes);
                }
            }
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
            if fl.spec.messages && fl.s.snd_una >= fl.total && fl.s.quality.counted_active {
                // An idle channel stops diluting its class's share until it has data again.
                fl.s.quality.counted_active = false;
                self.shares.set(f, fl.spec.class, false);
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
            // End of an observation window (≈ one RTT): the algorithm's α, quality factor, ….
            // Then a marked window's cut, at most once per window (RFC 8257).
            let window_ends = fl.s.snd_una > fl.s.win.win_end;
            let signal = ece && fl.s.snd_una > fl.s.win.cwr_end;
            if window_ends || signal {
                let (fl, mut cx) = self.cc_parts(f, now);
                let cc = fl.spec.cc;
                if window_ends {
                    cc.on_interval(&mut fl.s, &mut cx);
                    fl.s.win_acked = 0;
                    fl.s.win_marked = 0;
                    fl.s.win_start = now;
                    fl.s.win.win_end = fl.s.snd_nxt;
                }
                if signal {
                    let factor = cc.on_signal(&mut fl.s, &cx);
                    let floor = cx.tcp.min_cwnd as f64 * mss;
                    fl.s.win.cwnd = (fl.s.win.cwnd * factor).max(floor);
                    fl.s.win.ssthresh = fl.s.win.cwnd;
                    fl.s.win.cwr_end = fl.s.snd_nxt;
                    fl.stats.cuts += 1;
                }
            }
            let fl = &mut self.flows[f as usize];
            if !ece && fl.s.win.cwnd_limited {
                if fl.s.win.cwnd < fl.s.win.ssthresh {
                    fl.s.win.cwnd += newly as f64;
                } else {
                    fl.s.win.cwnd += mss * newly as f64 / fl.s.win.cwnd;
                }
            }
            if fl.all_acked(now) {
                return self.finish(now, f);
            }
        } else if p.seq == fl.s.snd_una && fl.s.snd_nxt > fl.s.snd_una {
            fl.s.win.dupacks += 1;
            // RFC 6582: only duplicate ACKs past the last recovery point signal a new loss. After
            // a go-back-N, every copy of a segment the receiver already had comes back as a
            // duplicate ACK; without this check they restart recovery again and again (seen: a
            // 1.7 ms-RTT flow whose first RTO was spurious retransmitted half its segments).
            if fl.s.win.dupacks == 3 && fl.s.snd_una > fl.s.win.recover {
                fl.s.win.recover = fl.s.snd_nxt;
                fl.stats.fast_retransmits += 1;
                fl.s.win.ssthresh = (fl.s.win.cwnd / 2.0).max(2.0 * mss);
                fl.s.win.cwnd = fl.s.win.ssthresh;
                Self::go_back(fl, mss as u64);
            }
        }
        self.try_send(now, f, fabric, q);
    }

    pub(crate) fn go_back(fl: &mut Flow, mss: u64) {
        fl.stats.retransmitted_segments += (fl.s.snd_nxt - fl.s.snd_una).div_ceil(mss);
        fl.s.snd_nxt = fl.s.snd_una;
        fl.s.win.cwr_end = fl.s.win.cwr_end.min(fl.s.snd_una);
        fl.s.win.win_end = fl.s.win.win_end.min(fl.s.snd_una);
    }

    pub(crate) fn on_rto(&mut self, now: SimTime, f: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
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
        fl.s.win.recover = fl.s.win.recover.max(fl.s.snd_nxt);
        fl.s.win.ssthresh = (fl.s.win.cwnd / 2.0).max(2.0 * mss);
        fl.s.win.cwnd = mss;
        fl.s.rto = SimTime(fl.s.rto.0.saturating_mul(2)).min(self.tcp.max_rto.max(fl.s.rto));
        fl.s.rto_deadline = now + fl.s.rto;
        Self::go_back(fl, mss as u64);
        self.try_send(now, f, fabric, q);
    }

    /// Sends as many segments as the window and the application allow.
    pub(crate) fn try_send(&mut self, now: SimTime, f: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
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
        fl.s.win.cwnd_limited = false;
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
            if inflight > 0 && (inflight + len) as f64 > s.win.cwnd {
                fl.s.win.cwnd_limited = true;
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
}
