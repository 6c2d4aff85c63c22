//! The keys of PLMC eq. 6 that `plmc` and `plmlight` share: ζ, the policy and its ratios, the
//! minimums and their overflow rule. Each kind declares them among its own keys (serde cannot
//! flatten into a struct that refuses unknown keys) and hands them here.

use crate::ctx::Ctx;

/// The shared keys as a kind read them.
pub(crate) struct Allocation<'a> {
    pub zeta: Option<f64>,
    pub policy: Option<&'a str>,
    pub ratios: Option<&'a [u64]>,
    pub c_min: Option<&'a [u64]>,
    pub min_overflow: Option<&'a str>,
}

/// The keys of PLMC eq. 6 that PLMC and PLMLight share: ζ, the policy and its ratios, the
/// minimums and their overflow rule (`default_policy` when none is given).
pub(crate) fn allocation_keys(cx: &mut Ctx, key: &str, c: &Allocation, k: usize, default_policy: &str) -> (f64, Option<Vec<u64>>, Vec<u64>, bool) {
    let f = |n: &str| format!("{key}.{n}");
    let zeta = c.zeta.unwrap_or(0.5);
    if !(zeta > 0.0 && zeta <= 1.0) {
        cx.err(&f("zeta"), format!("{zeta}: expected 0 < zeta ≤ 1"));
    }
    let ratios = match c.policy.unwrap_or(default_policy) {
        "strict-priority" => {
            if c.ratios.is_some() {
                cx.err(&f("ratios"), "only policy = \"fixed-ratio\" has ratios");
            }
            None
        }
        "fixed-ratio" => {
            let r = c.ratios.map(|r| r.to_vec()).unwrap_or_else(|| (0..k).map(|j| 1u64 << (k - 1 - j).min(62)).collect());
            if r.len() != k || r.iter().all(|&x| x == 0) {
                cx.err(&f("ratios"), format!("expected one weight per host ({k}), not all zero"));
            }
            Some(r)
        }
        o => {
            cx.err(&f("policy"), format!("'{o}': expected strict-priority or fixed-ratio"));
            None
        }
    };
    let c_min = c.c_min.map(|r| r.to_vec()).unwrap_or_else(|| vec![0; k]);
    if c_min.len() != k {
        cx.err(&f("c_min"), format!("expected one minimum per host ({k}), got {}", c_min.len()));
    }
    let scale_minimums = match c.min_overflow {
        None | Some("priority") => false,
        Some("scale") => true,
        Some(o) => {
            cx.err(&f("min_overflow"), format!("'{o}': expected priority or scale"));
            false
        }
    };
    (zeta, ratios, c_min, scale_minimums)
}
