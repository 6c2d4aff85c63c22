//! Warm-up tuning of `freq_threshold` and `access_threshold` (thesis 2.5.4): alternating binary
//! searches, one parameter at a time with the other fixed, until neither moves.
//!
//! The thesis does not say what the searches maximise. Here it is the replayed window's DC hits
//! minus its wasted promotions (blocks promoted and evicted without a hit): a promotion is a
//! device read, so it must earn at least one hit to pay for itself. Promotions still cached at
//! the window's end are not charged — the window is too short to judge them, and charging them
//! drives `freq_threshold` to its maximum on any short window. Each candidate is scored by replaying the window on a
//! fresh mechanism of the same DC size with the switch to LRU off. The searches assume the
//! score is unimodal in each parameter and move towards the better neighbour of the midpoint.

use super::core::{CoreParams, FussyCore};
use super::FussyParams;
use crate::{Effects, Outcome};

/// Search ranges: `freq_threshold` in 1..=16, `access_threshold` in 64·2^k for k in 0..=5.
const FT_RANGE: (u32, u32) = (1, 16);
const AT_EXP: (u32, u32) = (0, 5);
const AT_BASE: u32 = 64;
const MAX_ROUNDS: usize = 4;

#[derive(Clone, Debug, PartialEq)]
pub struct Tuned {
    pub freq_threshold: u32,
    pub access_threshold: u32,
    pub score: i64,
    pub replays: u32,
}

fn score(window: &[(u64, bool)], cap: usize, ft: u32, at: u32, allocate: bool) -> i64 {
    let mut core =
        FussyCore::new(cap, CoreParams { freq_threshold: ft, access_threshold: at, hr_count: u32::MAX, lru_fallback: false, dmc_size: usize::MAX, allocate });
    let mut fx = Effects::default();
    let mut hits = 0i64;
    for &(b, w) in window {
        if core.access(b, w, &mut fx) == Outcome::Hit {
            hits += 1;
        }
        fx.clear();
    }
    hits - core.wasted_promotions as i64
}

/// Binary search for the best integer in `lo..=hi` of a (assumed) unimodal `f`, moving towards
/// the better neighbour of the midpoint; on a plateau (no evidence either way) it moves towards
/// `start`, and ties go to the value closest to `start` — a window that cannot tell the
/// candidates apart keeps the current value.
fn search(mut lo: u32, mut hi: u32, start: u32, f: &mut impl FnMut(u32) -> i64) -> u32 {
    let mut memo = std::collections::BTreeMap::new();
    let mut g = |x: u32| *memo.entry(x).or_insert_with(|| f(x));
    while hi - lo > 2 {
        let m = lo + (hi - lo) / 2;
        let (a, b) = (g(m), g(m + 1));
        if a > b || (a == b && start <= m) {
            hi = m + 1;
        } else {
            lo = m;
        }
    }
    (lo..=hi).map(|x| (g(x), std::cmp::Reverse(x.abs_diff(start)), x)).max().expect("non-empty range").2
}

pub fn tune(window: &[(u64, bool)], cap: usize, p: &FussyParams, ft0: u32, at0: u32) -> Tuned {
    let mut replays = 0u32;
    let (mut ft, mut at) = (ft0, at0);
    let at_of = |k: u32| AT_BASE << k;
    for _ in 0..MAX_ROUNDS {
        let (old_ft, old_at) = (ft, at);
        if p.freq_threshold.is_none() {
            ft = search(FT_RANGE.0, FT_RANGE.1, ft, &mut |x| {
                replays += 1;
                score(window, cap, x, at, p.allocate)
            });
        }
        if p.access_threshold.is_none() {
            let k0 = (AT_EXP.0..=AT_EXP.1).min_by_key(|&k| at_of(k).abs_diff(at)).expect("range");
            let k = search(AT_EXP.0, AT_EXP.1, k0, &mut |k| {
                replays += 1;
                score(window, cap, ft, at_of(k), p.allocate)
            });
            at = at_of(k);
        }
        if (ft, at) == (old_ft, old_at) {
            break;
        }
    }
    Tuned { freq_threshold: ft, access_threshold: at, score: score(window, cap, ft, at, p.allocate), replays }
}
