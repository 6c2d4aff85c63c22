//! QTCP/QRDMA's per-class share of the bottleneck, which the quality factor is measured
//! against.

use crate::flow::Flow;
use crate::Target;

/// A flow's share of the bottleneck: its class ratio over the ratios of the classes with active
/// QTCP/QRDMA flows, divided among its class's active flows (1 for flows without a ratio target).
pub(crate) fn class_share(ratio: &[f64], active: &[u32], fl: &Flow) -> f64 {
    let Some(Target::Ratio(_)) = fl.spec.target else { return 1.0 };
    let c = fl.spec.class as usize;
    let sum: f64 = ratio.iter().zip(active).filter(|(_, &n)| n > 0).map(|(r, _)| r).sum();
    if sum <= 0.0 {
        return 1.0;
    }
    ratio[c] / sum / active[c].max(1) as f64
}
