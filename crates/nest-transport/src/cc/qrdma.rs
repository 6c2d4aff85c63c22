//! QRDMA (thesis eq. 4.6): DCQCN's reaction point steered by the class's quality factor
//! (`quality.rs`), updated once per α period. With [`RecoveryTarget::Scaled`] (SPEC §4, QTCP
//! §V-B "we control the target rates") the recovery target RT follows the Q scaling, so fast
//! recovery climbs back to the class's share rather than to the rate before the cut.

use super::hooks::{CongestionControl, Cx, Family};
use super::{dcqcn, quality};
use crate::params::{RecoveryTarget, Slack};
use crate::sender::Sender;

pub struct Qrdma;

impl CongestionControl for Qrdma {
    const NAME: &'static str = "qrdma";
    const FAMILY: Family = Family::Rate;
    const QUALITY_AWARE: bool = true;

    fn on_interval(s: &mut Sender, cx: &mut Cx) {
        dcqcn::Dcqcn::on_interval(s, cx);
        if let Some(q) = quality::step(s, cx) {
            let r = &mut s.rate;
            r.rc = (r.rc * q).max(cx.dcqcn.min_rate);
            r.rt = match cx.qtcp.recovery_target {
                RecoveryTarget::Scaled => r.rt * q,
                RecoveryTarget::Kept => r.rt,
            }
            .max(r.rc);
        }
    }

    fn on_signal(s: &mut Sender, cx: &Cx) -> f64 {
        let base = dcqcn::Dcqcn::on_signal(s, cx);
        let q = s.quality.q;
        // on_mark: the Q-deepened cut aims fast recovery at Q times the pre-cut rate too.
        if cx.qtcp.slack == Slack::OnMark && cx.qtcp.recovery_target == RecoveryTarget::Scaled && q < 1.0 {
            s.rate.rt *= q.max(0.0);
        }
        quality::signal_cut(base, q, cx.qtcp.slack)
    }
}
