//! QRDMA (thesis eq. 4.6): DCQCN's reaction point steered by the class's quality factor
//! (`quality.rs`), updated once per α period.

use super::hooks::{CongestionControl, Cx, Family};
use super::{dcqcn, quality};
use crate::sender::Sender;

pub struct Qrdma;

impl CongestionControl for Qrdma {
    const NAME: &'static str = "qrdma";
    const FAMILY: Family = Family::Rate;
    const QUALITY_AWARE: bool = true;

    fn on_interval(s: &mut Sender, cx: &mut Cx) {
        dcqcn::Dcqcn::on_interval(s, cx);
        // The slack step scales the recovery target too: with RT kept, fast recovery would
        // climb back to the rate the flow had before (what on_mark's cut runs into).
        if let Some(q) = quality::step(s, cx) {
            let r = &mut s.rate;
            r.rc = (r.rc * q).max(cx.dcqcn.min_rate);
            r.rt = (r.rt * q).max(r.rc);
        }
    }

    fn on_signal(s: &mut Sender, cx: &Cx) -> f64 {
        let base = dcqcn::Dcqcn::on_signal(s, cx);
        quality::signal_cut(base, s.quality.q, cx.qtcp.slack)
    }
}
