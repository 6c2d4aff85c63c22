//! QTCP (QTCP §II-C; thesis eq. 4.5): DCTCP's α and cut, steered by the class's quality factor
//! (`quality.rs`): a flow with slack (Q < 1) scales its window by Q.

use super::hooks::{CongestionControl, Cx, Family};
use super::{dctcp, quality};
use crate::sender::Sender;

pub struct Qtcp;

impl CongestionControl for Qtcp {
    const NAME: &'static str = "qtcp";
    const FAMILY: Family = Family::Window;
    const QUALITY_AWARE: bool = true;

    fn on_interval(s: &mut Sender, cx: &mut Cx) {
        dctcp::Dctcp::on_interval(s, cx);
        if let Some(q) = quality::step(s, cx) {
            let mss = cx.tcp.mss as f64;
            s.win.cwnd = (s.win.cwnd * q).max(cx.tcp.min_cwnd as f64 * mss);
            s.win.ssthresh = s.win.cwnd;
        }
    }

    fn on_signal(s: &mut Sender, cx: &Cx) -> f64 {
        quality::signal_cut(dctcp::cut(s.alpha), s.quality.q, cx.qtcp.slack)
    }
}
