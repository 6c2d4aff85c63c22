//! DCQCN's reaction point (Zhu et al. SIGCOMM'15 §3.1): on a CNP RC ← RC·(1 − α/2) and
//! α ← (1−g)·α + g; α decays by (1 − g) after an α period without a CNP; the rate climbs back
//! by fast recovery, additive and hyper increase ([`increase`], driven by `rate.rs`'s timer and
//! byte counter).

use super::hooks::{CongestionControl, Cx, Family};
use crate::params::DcqcnParams;
use crate::sender::{RateState, Sender};

pub struct Dcqcn;

impl CongestionControl for Dcqcn {
    const NAME: &'static str = "dcqcn";
    const FAMILY: Family = Family::Rate;

    fn on_interval(s: &mut Sender, cx: &mut Cx) {
        if !s.rate.cnp_in_period {
            s.alpha *= 1.0 - cx.dcqcn.g;
        }
    }

    fn on_signal(s: &mut Sender, cx: &Cx) -> f64 {
        let cut = 1.0 - s.alpha / 2.0;
        s.alpha = (1.0 - cx.dcqcn.g) * s.alpha + cx.dcqcn.g;
        cut
    }
}

/// DCQCN's rate increase, after a timer or byte-counter event: F fast-recovery steps towards
/// RT, then additive increase of RT, then hyper increase once both the timer and the byte
/// counter have passed F. Returns whether the current rate RC moved (a sender at line rate
/// stays there, and a raise that moves nothing is no news to a congestion watcher).
pub fn increase(s: &mut RateState, p: &DcqcnParams) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn at(rc: f64, rt: f64) -> RateState {
        RateState {
            rc,
            rt,
            line_rate: 10e9,
            timer_stage: 0,
            byte_stage: 0,
            byte_ctr: 0,
            cnp_in_period: false,
            timer_gen: 0,
            pace_pending: false,
            cnps: 0,
            alpha_parked: None,
            timer_parked: None,
            qp_start: 0,
        }
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
                assert!(increase(s, &p));
            }
        }
        let gap = plain.rc - slack.rc;
        assert!(gap > 0.0 && gap <= gap0 / f64::from(1u32 << p.fast_recovery_steps) + 1.0, "{gap0} → {gap}");
        assert!(slack.rc > 0.95 * rc0 && plain.rc > 0.98 * rc0, "both back near RT: {} {}", plain.rc, slack.rc);
    }

    /// SPEC §4's QRDMA (`recovery_target = "scaled"`): with RT scaled by Q as well, fast recovery
    /// climbs back to Q times the pre-cut rate, so the slack holds through the recovery.
    #[test]
    fn a_scaled_recovery_target_keeps_qrdmas_slack() {
        let p = DcqcnParams::default();
        let (rc0, q) = (8e9, 0.5);
        let mut scaled = at(rc0 * q * 0.75, rc0 * q);
        for _ in 0..p.fast_recovery_steps {
            scaled.timer_stage += 1;
            assert!(increase(&mut scaled, &p));
        }
        assert!(scaled.rc > 0.95 * rc0 * q && scaled.rc <= rc0 * q, "back near Q·RC0, not RC0: {}", scaled.rc);
    }
}
