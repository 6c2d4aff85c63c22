//! The congestion-control rules: DCTCP's α and cut, QTCP's quality factor, D2TCP's
//! deadline-weighted penalty. Pure functions of a flow's state, kept apart from the ACK
//! clocking in `lib.rs` so each reads like its paper.

use crate::params::{Cc, QtcpParams, Slack, Target};
use crate::flow::Flow;
use nest_core::SimTime;

/// DCTCP (RFC 8257 §3.3): α ← (1−g)·α + g·F once per observation window.
#[inline]
pub fn update_alpha(alpha: f64, g: f64, acked: u64, marked: u64) -> f64 {
    let f = if acked == 0 { 0.0 } else { marked as f64 / acked as f64 };
    (1.0 - g) * alpha + g * f
}

/// QTCP's per-window bookkeeping (thesis eq. 4.1/4.2/4.5): smooth the measured throughput or
/// latency, then Q = target / actual (throughput) or actual / target (latency); Q < 1 means
/// the flow has slack. The target is `share · λ` with λ the bottleneck estimate shared by the
/// QTCP flows (target_i = ratio_i·λ: one λ, SPEC §4). With interference adaptation on, a flow
/// whose Q leaves 1 ± σ moves λ by ∓σ (QTCP Fig 8): when an unmanaged flow takes bandwidth every
/// QTCP flow falls short and λ shrinks; when it leaves they all gain and λ grows; flows above and
/// below target in the same period push in opposite directions.
///
/// A latency-centric flow carrying a finite transfer measures latency as its class's smoothed
/// completion time (`class_fct`, ps; thesis: the target of a class is shared by its flows);
/// a long-lived one, as its smoothed RTT.
pub fn update_quality(f: &mut Flow, now: SimTime, qp: &QtcpParams, share: f64, lambda: &mut f64, class_fct: f64) {
    let s = &mut f.s;
    let elapsed = (now - s.win_start).as_secs_f64();
    match f.spec.target {
        Some(Target::Ratio(_)) if elapsed > 0.0 => {
            let measured = s.win_acked as f64 * 8.0 / elapsed;
            s.quality.thr_ewma = if s.quality.thr_ewma == 0.0 { measured } else { (1.0 - qp.gamma) * measured + qp.gamma * s.quality.thr_ewma };
            if s.quality.thr_ewma <= 0.0 {
                return;
            }
            s.quality.q = *lambda * share / s.quality.thr_ewma;
            if qp.interference {
                if s.quality.q > 1.0 + qp.sigma {
                    *lambda *= 1.0 - qp.sigma;
                } else if s.quality.q < 1.0 - qp.sigma {
                    *lambda *= 1.0 + qp.sigma;
                }
                s.quality.q = *lambda * share / s.quality.thr_ewma;
            }
        }
        Some(Target::Latency(target)) if f.spec.bytes.is_some() => {
            if class_fct > 0.0 {
                s.quality.q = class_fct / target.0.max(1) as f64;
            }
        }
        Some(Target::Latency(target)) if s.srtt > 0.0 => {
            s.quality.lat_ewma = if s.quality.lat_ewma == 0.0 { s.srtt } else { (1.0 - qp.gamma) * s.srtt + qp.gamma * s.quality.lat_ewma };
            s.quality.q = s.quality.lat_ewma / target.0.max(1) as f64;
        }
        _ => {}
    }
}

/// The factor of an ECN-echo (CNP) cut under QTCP's slack rule: with
/// [`Slack::WhileCongested`] the quality factor acts in its own step ([`slack_scale`]), so the
/// cut is DCTCP's (DCQCN's).
pub fn mark_cut(f: &Flow, now: SimTime, mss: f64, qp: &QtcpParams) -> f64 {
    match (qp.slack, f.spec.cc) {
        (Slack::WhileCongested, Cc::Qtcp | Cc::Qrdma) => 1.0 - f.s.alpha / 2.0,
        _ => cut_factor(f, now, mss),
    }
}

/// [`Slack::WhileCongested`]: at an update interval while α > ε, a QTCP/QRDMA flow with slack
/// (Q < 1) scales its window or rate by Q (analytic model eq. 12; QTCP Fig 8's last step).
pub fn slack_scale(f: &Flow, qp: &QtcpParams) -> Option<f64> {
    let q = f.s.quality.q;
    let applies = qp.slack == Slack::WhileCongested && matches!(f.spec.cc, Cc::Qtcp | Cc::Qrdma);
    (applies && q < 1.0 && f.s.alpha > qp.epsilon).then_some(q.max(0.0))
}

/// The multiplicative factor applied to the window on an ECN-echo (once per window).
pub fn cut_factor(f: &Flow, now: SimTime, mss: f64) -> f64 {
    let s = &f.s;
    match f.spec.cc {
        Cc::Dctcp => 1.0 - s.alpha / 2.0,
        // W ← W·(1−α/2) when Q ≥ 1 (deficit: plain DCTCP); W ← W·(1−α/2)·Q when Q < 1 (slack).
        Cc::Qtcp => (1.0 - s.alpha / 2.0) * if s.quality.q < 1.0 { s.quality.q.max(0.0) } else { 1.0 },
        Cc::D2tcp => {
            let d = deadline_imminence(f, now, mss);
            1.0 - s.alpha.powf(d) / 2.0
        }
        // DCQCN / QRDMA: the rate cut on a CNP (thesis eq. 4.6 for QRDMA).
        Cc::Dcqcn => 1.0 - s.alpha / 2.0,
        Cc::Qrdma => (1.0 - s.alpha / 2.0) * if s.quality.q < 1.0 { s.quality.q.max(0.0) } else { 1.0 },
    }
}

/// DCQCN's rate increase (Zhu et al. §3.1), after a timer or byte-counter event: F fast-recovery
/// steps towards RT, then additive increase of RT, then hyper increase once both the timer and
/// the byte counter have passed F.
/// DCQCN's rate increase; whether the current rate RC moved (a sender at line rate stays there,
/// and a raise that moves nothing is no news to a congestion watcher).
pub fn dcqcn_increase(s: &mut crate::flow::RateState, p: &crate::params::DcqcnParams) -> bool {
    let before = s.rc;
    let f = p.fast_recovery_steps;
    let (t, b) = (s.timer_stage, if p.byte_counter == 0 { s.timer_stage } else { s.byte_stage });
    if t.max(b) < f {
        // Fast recovery: RT unchanged.
    } else if t.min(b) > f {
        s.rt += (t.min(b) - f) as f64 * p.rate_hai;
    } else {
        s.rt += p.rate_ai;
    }
    s.rt = s.rt.min(s.line_rate);
    s.rc = ((s.rt + s.rc) / 2.0).min(s.line_rate);
    s.rc > before
}

/// D2TCP's d = (time to finish at the current rate) / (time left to the deadline), clamped to
/// [0.5, 2]; 1 (plain DCTCP) for a flow without a deadline or an RTT sample yet.
pub fn deadline_imminence(f: &Flow, now: SimTime, mss: f64) -> f64 {
    let (Some(deadline), true) = (f.spec.deadline, f.s.srtt > 0.0) else { return 1.0 };
    let due = f.spec.start + deadline;
    if now >= due {
        return 2.0;
    }
    let remaining = f.total.saturating_sub(f.s.snd_una) as f64;
    let rate = f.s.win.cwnd.max(mss) / f.s.srtt; // bytes per ps
    let tc = remaining / rate;
    let d = tc / (due - now).0 as f64;
    d.clamp(0.5, 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::RateState;
    use crate::params::DcqcnParams;

    fn at(rc: f64, rt: f64) -> RateState {
        RateState { rc, rt, line_rate: 10e9, timer_stage: 0, byte_stage: 0, byte_ctr: 0, cnp_in_period: false, timer_gen: 0,
                    pace_pending: false, cnps: 0, alpha_parked: None, timer_parked: None, qp_start: 0 }
    }

    /// Why QRDMA's classes stay closer than their ratios (qrdma-bandwidth): eq. 4.6 deepens the
    /// cut by Q, but RT remembers the rate before the cut and DCQCN's fast recovery halves the
    /// distance to RT at every timer step, whatever the cut was. After F steps a Q = 0.5 cut and
    /// a plain one are back within 2^−F of where they started: Q acts only on the rate averaged
    /// over the recovery after each CNP, not on the level the flows return to.
    #[test]
    fn qrdmas_deeper_cut_is_undone_by_fast_recovery() {
        let p = DcqcnParams::default();
        let (rc0, alpha) = (8e9, 0.5);
        let mut plain = at(rc0 * (1.0 - alpha / 2.0), rc0);
        let mut slack = at(rc0 * (1.0 - alpha / 2.0) * 0.5, rc0);
        let gap0 = plain.rc - slack.rc;
        for _ in 0..p.fast_recovery_steps {
            for s in [&mut plain, &mut slack] {
                s.timer_stage += 1;
                assert!(dcqcn_increase(s, &p));
            }
        }
        let gap = plain.rc - slack.rc;
        assert!(gap > 0.0 && gap <= gap0 / f64::from(1u32 << p.fast_recovery_steps) + 1.0, "{gap0} → {gap}");
        assert!(slack.rc > 0.95 * rc0 && plain.rc > 0.98 * rc0, "both back near RT: {} {}", plain.rc, slack.rc);
    }
}
