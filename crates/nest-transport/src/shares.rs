//! QTCP/QRDMA's per-class share of the bottleneck, which the quality factor is measured
//! against.

use std::collections::HashMap;

use crate::params::Target;

/// Which active throughput-targeted flows share a class's target with a flow.
///
/// A class's target is shared by its flows at the same bottleneck (thesis Fig 4.17a: two
/// high-class flows into one receiver). The bottleneck is not known to a sender; NeSt takes the
/// flows of the class that leave the same host (its uplink) or enter the same host (its
/// downlink). Counting every flow of the class anywhere instead halves the targets when a class
/// sends both ways (reads and writes of one client: the writes share its uplink, the read data
/// its downlink), so every flow would see slack it does not have.
pub(crate) struct ClassShares {
    /// Active flows per class (anywhere): which classes take part in the ratio sum.
    pub(crate) class_active: Vec<u32>,
    /// Active flows per group: (class, source), (class, destination), (class, source, destination).
    group_active: Vec<u32>,
    /// Each flow's three groups.
    groups: Vec<[u32; 3]>,
}

impl ClassShares {
    /// `flows`: each flow's (class, source host, destination host).
    pub(crate) fn new(flows: &[(u8, u32, u32)], classes: usize) -> ClassShares {
        let mut index: HashMap<(u8, u32, u32, u8), u32> = HashMap::new();
        let mut id = |k| {
            let n = index.len() as u32;
            *index.entry(k).or_insert(n)
        };
        let groups = flows.iter().map(|&(class, src, dst)| [id((class, src, u32::MAX, 0)), id((class, u32::MAX, dst, 1)), id((class, src, dst, 2))]).collect();
        ClassShares { class_active: vec![0; classes], group_active: vec![0; index.len()], groups }
    }

    /// Flow `f` of `class` starts (`true`) or stops (`false`) counting towards its class's share.
    pub(crate) fn set(&mut self, f: u32, class: u8, active: bool) {
        let step = |n: &mut u32| *n = if active { *n + 1 } else { *n - 1 };
        step(&mut self.class_active[class as usize]);
        for g in self.groups[f as usize] {
            step(&mut self.group_active[g as usize]);
        }
    }

    /// Flow `f`'s share of the bottleneck: its class ratio over the ratios of the classes with
    /// active QTCP/QRDMA flows, divided among the class's active flows that share its uplink or
    /// downlink (1 for flows without a ratio target).
    pub(crate) fn share(&self, ratio: &[f64], f: u32, class: u8, target: Option<Target>) -> f64 {
        let Some(Target::Ratio(_)) = target else { return 1.0 };
        let sum: f64 = ratio.iter().zip(&self.class_active).filter(|(_, &n)| n > 0).map(|(r, _)| r).sum();
        if sum <= 0.0 {
            return 1.0;
        }
        let [src, dst, pair] = self.groups[f as usize].map(|g| self.group_active[g as usize]);
        let sharing = (src + dst).saturating_sub(pair).max(1);
        ratio[class as usize] / sum / sharing as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_target_is_shared_at_each_end_host_not_across_directions() {
        // Client 0 writes to servers 1 and 2 (class 0) and reads from them (class 0 back), and a
        // second class-0 flow from host 3 enters server 1.
        let mut s = ClassShares::new(&[(0, 0, 1), (0, 0, 2), (0, 1, 0), (0, 2, 0), (0, 3, 1)], 2);
        let t = Some(Target::Ratio(1.0));
        for f in 0..5 {
            s.set(f, 0, true);
        }
        let ratio = [1.0, 2.0];
        // 0→1 shares host 0's uplink with 0→2 and host 1's downlink with 3→1: three flows.
        assert!((s.share(&ratio, 0, 0, t) - 1.0 / 3.0).abs() < 1e-12);
        // 0→2: host 0's uplink with 0→1; host 2's downlink alone: two.
        assert!((s.share(&ratio, 1, 0, t) - 0.5).abs() < 1e-12);
        // The read data 1→0 and 2→0 share host 0's downlink only, not the writes' uplink.
        assert!((s.share(&ratio, 2, 0, t) - 0.5).abs() < 1e-12);
        s.set(3, 0, false);
        assert!((s.share(&ratio, 2, 0, t) - 1.0).abs() < 1e-12);
    }
}
