//! QTCP's quality factor (thesis eq. 4.1/4.2/4.5; QTCP §II-C), the step QTCP and QRDMA share:
//! smooth the measured throughput or latency, then Q = target / actual (throughput) or
//! actual / target (latency); Q < 1 means the flow has slack. How the slack is given back is
//! [`Slack`]: in the cut of a marked window (`on_mark`), or by its own step at every update
//! interval while α > ε (`while_congested`).

use super::hooks::{Cx, Facts};
use crate::params::{QtcpParams, Slack, Target};
use crate::sender::Sender;
use nest_core::SimTime;

/// The quality step of one update interval: Q from the interval's measurement, then the factor
/// a flow with slack scales its window or rate by under [`Slack::WhileCongested`] (`None`: no
/// scaling this interval).
pub fn step(s: &mut Sender, cx: &mut Cx) -> Option<f64> {
    let share = cx.share();
    let class_fct = cx.classes.fct_ewma[cx.flow.class as usize];
    update_quality(s, &cx.flow, cx.now, cx.qtcp, share, cx.classes.lambda, class_fct);
    slack_scale(s, cx.qtcp)
}

/// Smooths the interval's measurement and sets Q. The target is `share · λ` with λ the
/// bottleneck estimate shared by the QTCP flows (target_i = ratio_i·λ: one λ, SPEC §4). With
/// interference adaptation on, a flow whose Q leaves 1 ± σ moves λ by ∓σ (QTCP Fig 8): when an
/// unmanaged flow takes bandwidth every QTCP flow falls short and λ shrinks; when it leaves they
/// all gain and λ grows; flows above and below target in the same period push in opposite
/// directions.
///
/// A latency-centric flow carrying a finite transfer measures latency as its class's smoothed
/// completion time (`class_fct`, ps; thesis: the target of a class is shared by its flows);
/// a long-lived one, as its smoothed RTT.
pub fn update_quality(s: &mut Sender, f: &Facts, now: SimTime, qp: &QtcpParams, share: f64, lambda: &mut f64, class_fct: f64) {
    let elapsed = (now - s.win_start).as_secs_f64();
    match f.target {
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
        // Not collapsed into the guard (clippy's `collapsible_match`): a sized flow whose class
        // has no flow completion time yet keeps its Q instead of falling through to the
        // per-RTT latency rule below.
        #[allow(clippy::collapsible_match)]
        Some(Target::Latency(target)) if f.bytes.is_some() => {
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

/// [`Slack::WhileCongested`]: at an update interval while α > ε, a flow with slack (Q < 1)
/// scales its window or rate by Q (analytic model eq. 12; QTCP Fig 8's last step).
pub fn slack_scale(s: &Sender, qp: &QtcpParams) -> Option<f64> {
    let q = s.quality.q;
    (qp.slack == Slack::WhileCongested && q < 1.0 && s.alpha > qp.epsilon).then_some(q.max(0.0))
}

/// The cut of a congestion signal: with [`Slack::OnMark`] the signal's cut `base` is scaled by Q
/// when Q < 1 (thesis eq. 4.5 / 4.6: W ← W·(1−α/2)·Q); with [`Slack::WhileCongested`] the
/// quality factor acts in its own step, so the cut is `base`.
#[inline]
pub fn signal_cut(base: f64, q: f64, slack: Slack) -> f64 {
    match slack {
        Slack::OnMark => base * if q < 1.0 { q.max(0.0) } else { 1.0 },
        Slack::WhileCongested => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sized_latency_flow_keeps_its_q_until_its_class_has_a_completion_time() {
        // The RTT rule is for long-lived flows only: a finite transfer whose class has finished
        // nothing yet must not fall through to it (a lint's rewrite once let it, and moved the
        // deadline-misses experiment).
        let qp = QtcpParams::default();
        let mut s = Sender::new(10.0 * 1460.0, 1.0, SimTime::from_ms(1));
        s.srtt = 40e6; // 40 µs, in ps
        s.quality.q = 0.5;
        let target = Target::Latency(SimTime::from_us(100));
        let mut lambda = 1e9;
        let sized = Facts { index: 0, class: 0, target: Some(target), bytes: Some(1 << 20), start: SimTime::ZERO, deadline: None, total: 1 << 20 };
        update_quality(&mut s, &sized, SimTime::from_us(50), &qp, 1.0, &mut lambda, 0.0);
        assert_eq!(s.quality.q, 0.5);
        update_quality(&mut s, &sized, SimTime::from_us(50), &qp, 1.0, &mut lambda, 200e6);
        assert_eq!(s.quality.q, 2.0, "class FCT 200 µs over a 100 µs target");
        let long = Facts { bytes: None, ..sized };
        update_quality(&mut s, &long, SimTime::from_us(50), &qp, 1.0, &mut lambda, 0.0);
        assert!((s.quality.q - 0.4).abs() < 1e-12, "smoothed RTT 40 µs over 100 µs: {}", s.quality.q);
    }
}
