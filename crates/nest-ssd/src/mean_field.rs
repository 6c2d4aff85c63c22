//! The steady state a GC policy leaves a drive in: the fraction of its full blocks holding `i`
//! valid pages, `i = 0..=b` for `b` pages a block, at a fraction `rho` of the physical pages
//! valid. MQSim lays its preconditioned pages out by these estimates (`model.mean_field_layout`,
//! `ssd/laid_out.rs`): uniform random writes under greedy, FIFO and RGA by Van Houdt's mean-field
//! model of `d`-choices GC, its ODE integrated by Euler's method ("A mean field model for a class
//! of garbage collection algorithms in flash-based solid state drives", SIGMETRICS 2013; MQSim
//! `src/ssd/FTL.cpp:552-581`, `src/utils/Helper_Functions.cpp:6-81`), random victims in closed
//! form, and a stream as blocks either full or empty (`FTL.cpp:529-550`). Each follows MQSim's
//! arithmetic step for step, so the layout is MQSim's to the block.

use crate::params::VictimPolicy;

/// `n` choose `k` in floating point, as MQSim's `Combination_count` computes it.
fn choose(n: f64, k: f64) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = if k * 2.0 > n { n - k } else { k };
    if k == 0.0 {
        return 1.0;
    }
    let mut r = n;
    let mut i = 2.0;
    while i <= k {
        r *= n - i + 1.0;
        r /= i;
        i += 1.0;
    }
    r
}

/// Uniform random writes with GC picking the fewest valid pages among `d` random blocks: the
/// binomial start, then Euler steps of `h` = 0.001 until no tail fraction moves by more than
/// 1e-10, at most 10,000 steps (MQSim's `Euler_estimation`; greedy and FIFO use `d` = 30).
/// `w[i]` is the fraction of blocks with at least `i` valid pages; MQSim's loop leaves
/// `w[b]` at the zero it starts the step vector with, so no block ends fully valid — kept.
pub fn d_choices(b: u32, rho: f64, d: u32) -> Vec<f64> {
    let n = b as usize;
    let mu: Vec<f64> = (0..=n).map(|i| choose(b as f64, i as f64) * rho.powf(i as f64) * (1.0 - rho).powf((n - i) as f64)).collect();
    let mut w0 = vec![0.0; n + 2];
    w0[0] = 1.0;
    for i in 1..=n + 1 {
        w0[i] = mu[i..].iter().sum();
    }
    let mut w = vec![0.0; n + 2];
    w[0] = 1.0;
    let (h, df, bf) = (0.001, d as f64, b as f64);
    let mut diff = f64::MAX;
    let mut steps = 0;
    while steps < 10_000 && diff > 1e-10 {
        let sigma: f64 = w0[1..=n].iter().map(|x| x.powf(df)).sum();
        for i in 1..n {
            w[i] = w0[i] + h * (1.0 - w0[i].powf(df) - (bf - sigma) * ((i as f64 * (w0[i] - w0[i + 1])) / (bf * rho)));
        }
        diff = (0..=n).map(|i| (w[i] - w0[i]).abs()).fold(0.0, f64::max);
        w0[1..].copy_from_slice(&w[1..]);
        steps += 1;
    }
    (0..=n).map(|i| w0[i] - w0[i + 1]).collect()
}

/// Uniform random writes with a uniformly random victim (MQSim's RANDOM and RANDOM_P).
pub fn random_victim(b: u32, rho: f64) -> Vec<f64> {
    let n = b as usize;
    let mut p: Vec<f64> = (0..=n)
        .map(|i| {
            let mut x = rho / (rho + (1.0 - rho).powf(i as f64));
            for j in i + 1..=n {
                x *= ((1.0 - rho) * j as f64) / (rho + (1.0 - rho) * j as f64);
            }
            x
        })
        .collect();
    for i in (1..=n).rev() {
        p[i] -= p[i - 1];
    }
    p
}

/// A stream: a fraction `rho` of the blocks full of valid pages, the rest holding none.
pub fn streaming(b: u32, rho: f64) -> Vec<f64> {
    let n = b as usize;
    (0..=n)
        .map(|i| {
            if i == 0 {
                1.0 - rho
            } else if i == n {
                rho
            } else {
                0.0
            }
        })
        .collect()
}

/// MQSim's hot/cold estimate from the uniform one (`FTL.cpp:434-526`): `fraction` of the pages
/// taking `share` of the writes, the distribution is stretched by `√(share / fraction)` about its
/// mean — count `i` takes the uniform fraction at `⌊(i − mean) · r⌋` — and renormalised.
pub fn hot_cold(uniform: &[f64], fraction: f64, share: f64) -> Vec<f64> {
    let r = (share / fraction).sqrt();
    let b = uniform.len() as i64 - 1;
    let mean: f64 = uniform.iter().enumerate().map(|(i, p)| p * i as f64).sum();
    let out: Vec<f64> = (0..=b)
        .map(|i| {
            let phi = ((i as f64 - mean) * r) as i64;
            if phi < 0 || phi >= b {
                0.0
            } else {
                r * uniform[phi as usize]
            }
        })
        .collect();
    let sum: f64 = out.iter().sum();
    if sum > 0.0 {
        out.iter().map(|p| p / sum).collect()
    } else {
        uniform.to_vec()
    }
}

/// The uniform-random steady state under `policy` (`rga_d` blocks sampled by RGA).
pub fn uniform(policy: VictimPolicy, rga_d: u32, b: u32, rho: f64) -> Vec<f64> {
    match policy {
        VictimPolicy::Greedy | VictimPolicy::Fifo => d_choices(b, rho, 30),
        VictimPolicy::Rga => d_choices(b, rho, rga_d),
        VictimPolicy::Random => random_victim(b, rho),
    }
}

/// The blocks MQSim lays one plane's `pages` preconditioned pages out in, as their valid-page
/// counts in the order laid (`Address_Mapping_Unit_Page_Level.cpp:646-740`), from the
/// steady-state distribution `dist` (`b + 1` fractions) over `goal` blocks:
/// - the distribution is shifted by whole pages where its mean misses the plane's real fill;
/// - each count `i`, fullest first, gets `⌊dist[i] · goal⌋` blocks, the first non-empty count
///   also the blocks for the pages those floors leave out, until `goal` blocks are used;
/// - once the pages run out, the group under way is finished with blocks holding none (MQSim
///   lowers its loop counter to the pages left) and laying stops.
///
/// Pages still left after `goal` blocks (MQSim stops with an error) are the caller's.
pub fn block_plan(dist: &[f64], goal: u32, pages: usize) -> Vec<u32> {
    let n = dist.len() - 1;
    if goal == 0 || n == 0 {
        return Vec::new();
    }
    let (bf, gf) = (n as f64, goal as f64);
    let model: f64 = dist.iter().enumerate().map(|(i, p)| p * i as f64 / bf).sum();
    let real = pages as f64 / (gf * bf);
    let mut adj = dist.to_vec();
    if (model - real).abs() * bf > 0.9999 {
        // MQSim moves counts 0..b−1 and leaves count b's share where it was.
        let shift = ((real - model) * bf) as i64;
        let s = shift.unsigned_abs().min(n as u64) as usize;
        for i in 0..n {
            adj[i] = if shift > 0 {
                if i < s {
                    0.0
                } else {
                    dist[i - s]
                }
            } else if i + s < n {
                dist[i + s]
            } else {
                0.0
            };
        }
    }
    let blocks_of = |i: usize| (adj[i] * gf) as u32;
    let total: usize = (0..=n).map(|i| i * blocks_of(i) as usize).sum();
    let mut unplaced = pages.saturating_sub(total);
    let (mut remaining, mut left) = (goal, pages);
    let mut plan = Vec::new();
    let mut i = n as i64;
    while i >= 0 {
        let mut count = blocks_of(i as usize);
        if count > 0 && unplaced > 0 && i > 0 {
            count += unplaced.div_ceil(i as usize) as u32;
            unplaced = 0;
        }
        count = count.min(remaining);
        remaining -= count;
        for _ in 0..count {
            i = i.min(left as i64);
            plan.push(i as u32);
            left -= i as usize;
        }
        i -= 1;
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean(p: &[f64]) -> f64 {
        p.iter().enumerate().map(|(i, x)| i as f64 * x).sum::<f64>() / (p.len() - 1) as f64
    }

    #[test]
    fn distributions_sum_to_one_and_hold_the_valid_fraction() {
        for rho in [0.3, 0.5, 0.7, 0.9] {
            for p in [uniform(VictimPolicy::Greedy, 0, 64, rho), uniform(VictimPolicy::Rga, 6, 64, rho), streaming(64, rho)] {
                let s: f64 = p.iter().sum();
                assert!((s - 1.0).abs() < 1e-3, "rho {rho}: sums to {s}");
                // Within MQSim's 10,000 Euler steps the estimate settles a little below rho
                // (0.68 at 0.7, 0.85 at 0.9 for 64 pages a block); the layout shifts it.
                assert!(mean(&p) > rho - 0.06 && mean(&p) < rho + 1e-6, "rho {rho}: mean valid fraction {}", mean(&p));
            }
        }
    }

    #[test]
    fn greedier_choice_leaves_victims_emptier() {
        // With more blocks sampled, GC finds emptier victims: fewer blocks hold few valid pages
        // (they were collected) and the distribution narrows around rho.
        let (b, rho) = (64, 0.7);
        let low = |p: &[f64]| p[..(b as usize / 2)].iter().sum::<f64>();
        let g = uniform(VictimPolicy::Greedy, 0, b, rho);
        let r2 = uniform(VictimPolicy::Rga, 2, b, rho);
        assert!(low(&g) < low(&r2), "greedy {} vs d = 2 {}", low(&g), low(&r2));
    }

    #[test]
    fn choose_matches_pascal() {
        assert_eq!(choose(5.0, 2.0), 10.0);
        assert_eq!(choose(10.0, 0.0), 1.0);
        assert_eq!(choose(3.0, 4.0), 0.0);
        assert!((choose(128.0, 64.0) / 2.395_114_604_192_808_3e37 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_plan_places_every_page_within_the_goal() {
        let dist = uniform(VictimPolicy::Rga, 9, 128, 0.49);
        for pages in [0, 1, 5_000, 30_474, 60_000] {
            let plan = block_plan(&dist, 500, pages);
            let placed: usize = plan.iter().map(|&v| v as usize).sum();
            assert!(placed <= pages, "pages {pages}: {placed} laid");
            assert!(plan.len() <= 500);
            assert!(plan.iter().all(|&v| v <= 128));
            if pages <= 30_474 {
                assert_eq!(placed, pages, "pages {pages}: every page laid");
            }
            // Fullest first.
            assert!(plan.windows(2).all(|w| w[0] >= w[1]), "pages {pages}: {plan:?}");
        }
    }

    #[test]
    fn a_stream_fills_whole_blocks_and_ends_the_group_with_empty_ones() {
        // rho · goal = 340 full blocks are planned but 333 blocks' pages exist: MQSim lays the
        // 7 left of the group empty (invalid) and stops.
        let dist = streaming(128, 0.68);
        let plan = block_plan(&dist, 500, 333 * 128);
        assert_eq!(plan.len(), 340);
        assert_eq!(plan.iter().filter(|&&v| v == 128).count(), 333);
        assert_eq!(plan.iter().filter(|&&v| v == 0).count(), 7);
    }
}
