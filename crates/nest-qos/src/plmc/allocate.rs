//! PLMC's DT-count allocation for one window (PLMC eq. 6, thesis eq. 3.7). Hosts are indexed in
//! priority order, highest first.
//!
//! If the predictions fit in the set's counts C, each host gets its prediction. Otherwise each
//! gets its minimum D_min and the residue C − ΣD_min is split by policy: **strict priority** fills
//! the highest class up to its prediction, then the next, until the counts run out; **fixed
//! ratio** splits the residue by fixed weights (the sources' 4:2:1 for High:Medium:Low), whatever
//! the predictions. The sources leave open what happens when the minimums alone exceed C:
//! [`MinOverflow`] names the two choices NeSt offers.

/// How the residue is split once the predictions do not fit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    StrictPriority,
    /// One weight per host, in priority order.
    FixedRatio(Vec<u64>),
}

/// What happens when the minimums alone exceed C (no source says).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MinOverflow {
    /// Minimums are granted in priority order until the counts run out.
    Priority,
    /// Every minimum is scaled by C / ΣD_min (rounded down; the remainder goes one count each
    /// in priority order).
    Scale,
}

/// Allocates `c` counts among hosts with predictions `pred` and minimums `min` (priority order)
/// into `out`. Never allocates more than `c` in total.
pub fn allocate(pred: &[u64], min: &[u64], c: u64, policy: &Policy, overflow: MinOverflow, out: &mut Vec<u64>) {
    debug_assert_eq!(pred.len(), min.len());
    out.clear();
    if pred.iter().sum::<u64>() <= c {
        out.extend_from_slice(pred);
        return;
    }
    let min_total: u64 = min.iter().sum();
    let residue = if min_total <= c {
        out.extend_from_slice(min);
        c - min_total
    } else {
        match overflow {
            MinOverflow::Priority => {
                let mut left = c;
                out.extend(min.iter().map(|&m| {
                    let g = m.min(left);
                    left -= g;
                    g
                }));
            }
            MinOverflow::Scale => {
                out.extend(min.iter().map(|&m| (m as u128 * c as u128 / min_total as u128) as u64));
                let left = c - out.iter().sum::<u64>();
                spread(out, left);
            }
        }
        0
    };
    match policy {
        Policy::StrictPriority => {
            let mut left = residue;
            for (a, &p) in out.iter_mut().zip(pred) {
                let g = p.saturating_sub(*a).min(left);
                *a += g;
                left -= g;
            }
        }
        Policy::FixedRatio(ratios) => {
            debug_assert_eq!(ratios.len(), pred.len());
            let total: u64 = ratios.iter().sum();
            let mut given = 0;
            for (a, &r) in out.iter_mut().zip(ratios) {
                let g = (residue as u128 * r as u128 / total.max(1) as u128) as u64;
                *a += g;
                given += g;
            }
            spread(out, residue - given);
        }
    }
}

/// Hands `n` left-over counts out one each in priority order (n is below the host count).
fn spread(out: &mut [u64], n: u64) {
    for a in out.iter_mut().take(n as usize) {
        *a += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pred: &[u64], min: &[u64], c: u64, policy: &Policy, overflow: MinOverflow) -> Vec<u64> {
        let mut out = Vec::new();
        allocate(pred, min, c, policy, overflow, &mut out);
        assert!(out.iter().sum::<u64>() <= c, "{out:?} exceeds {c}");
        out
    }

    #[test]
    fn predictions_that_fit_are_allocated_as_they_are() {
        let a = run(&[30, 20, 10], &[5, 5, 5], 100, &Policy::StrictPriority, MinOverflow::Priority);
        assert_eq!(a, vec![30, 20, 10], "60 of 100 counts: no policy applies, the rest stays free");
        let a = run(&[30, 20, 10], &[5, 5, 5], 60, &Policy::FixedRatio(vec![4, 2, 1]), MinOverflow::Priority);
        assert_eq!(a, vec![30, 20, 10], "exactly C fits");
    }

    #[test]
    fn strict_priority_fills_the_highest_class_first() {
        // Σ pred = 150 > 100: minimums 10 each, residue 70 → High +50 (to 60), Medium +20.
        let a = run(&[60, 50, 40], &[10, 10, 10], 100, &Policy::StrictPriority, MinOverflow::Priority);
        assert_eq!(a, vec![60, 30, 10]);
    }

    #[test]
    fn fixed_ratio_splits_the_residue_four_two_one_whatever_the_predictions() {
        // Residue 70 → 40/20/10 on top of the minimums.
        let a = run(&[60, 50, 40], &[10, 10, 10], 100, &Policy::FixedRatio(vec![4, 2, 1]), MinOverflow::Priority);
        assert_eq!(a, vec![50, 30, 20]);
        // Residue 10 → 5.71/2.86/1.43: floors 5/2/1, the 2 left over go to High then Medium.
        let a = run(&[60, 50, 40], &[0, 0, 0], 10, &Policy::FixedRatio(vec![4, 2, 1]), MinOverflow::Priority);
        assert_eq!(a, vec![6, 3, 1]);
    }

    #[test]
    fn minimums_beyond_c_go_by_priority_or_are_scaled() {
        let a = run(&[60, 50, 40], &[50, 40, 30], 100, &Policy::StrictPriority, MinOverflow::Priority);
        assert_eq!(a, vec![50, 40, 10], "Low gets what is left of its minimum, no residue");
        // Scaled: 100/120 of each: 41.67, 33.33, 25 → 41, 33, 25, the one left over to High.
        let a = run(&[60, 50, 40], &[50, 40, 30], 100, &Policy::FixedRatio(vec![4, 2, 1]), MinOverflow::Scale);
        assert_eq!(a, vec![42, 33, 25]);
    }
}
