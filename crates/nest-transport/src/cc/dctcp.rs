//! DCTCP (RFC 8257): α ← (1−g)·α + g·F once per observation window, F the fraction of the
//! window's bytes acknowledged with ECN-Echo; on a marked window W ← W·(1 − α/2).

use super::hooks::{CongestionControl, Cx, Family};
use crate::sender::Sender;

pub struct Dctcp;

impl CongestionControl for Dctcp {
    const NAME: &'static str = "dctcp";
    const FAMILY: Family = Family::Window;

    fn on_interval(s: &mut Sender, cx: &mut Cx) {
        s.alpha = update_alpha(s.alpha, cx.tcp.g, s.win_acked, s.win_marked);
    }

    fn on_signal(s: &mut Sender, _: &Cx) -> f64 {
        cut(s.alpha)
    }
}

/// RFC 8257 §3.3: α ← (1−g)·α + g·F.
#[inline]
pub fn update_alpha(alpha: f64, g: f64, acked: u64, marked: u64) -> f64 {
    let f = if acked == 0 { 0.0 } else { marked as f64 / acked as f64 };
    (1.0 - g) * alpha + g * f
}

/// RFC 8257 §3.3: W ← W·(1 − α/2).
#[inline]
pub fn cut(alpha: f64) -> f64 {
    1.0 - alpha / 2.0
}
