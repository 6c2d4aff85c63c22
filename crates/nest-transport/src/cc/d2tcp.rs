//! D2TCP (Vamanan et al. 2012): DCTCP whose cut is W ← W·(1 − α^d/2), the penalty α^d weighted
//! by the deadline's imminence d (SPEC §4).

use super::dctcp;
use super::hooks::{CongestionControl, Cx, Facts, Family};
use crate::sender::Sender;
use nest_core::SimTime;

pub struct D2tcp;

impl CongestionControl for D2tcp {
    const NAME: &'static str = "d2tcp";
    const FAMILY: Family = Family::Window;

    fn on_interval(s: &mut Sender, cx: &mut Cx) {
        dctcp::Dctcp::on_interval(s, cx);
    }

    fn on_signal(s: &mut Sender, cx: &Cx) -> f64 {
        let d = deadline_imminence(s, &cx.flow, cx.now, cx.tcp.mss as f64);
        1.0 - s.alpha.powf(d) / 2.0
    }
}

/// D2TCP's d = (time to finish at the current rate) / (time left to the deadline), clamped to
/// [0.5, 2]; 1 (plain DCTCP) for a flow without a deadline or an RTT sample yet.
pub fn deadline_imminence(s: &Sender, f: &Facts, now: SimTime, mss: f64) -> f64 {
    let (Some(deadline), true) = (f.deadline, s.srtt > 0.0) else { return 1.0 };
    let due = f.start + deadline;
    if now >= due {
        return 2.0;
    }
    let remaining = f.total.saturating_sub(s.snd_una) as f64;
    let rate = s.win.cwnd.max(mss) / s.srtt; // bytes per ps
    let tc = remaining / rate;
    let d = tc / (due - now).0 as f64;
    d.clamp(0.5, 2.0)
}
