//! Distributions of request sizes (bytes) and of durations (picoseconds).
//!
//! Sizes follow SPEC §3: fixed, exponential, uniform over a range of blocks (thesis Fig 4.13a:
//! Low 5–30, Medium 13–75, High 17–98 blocks of 4 KB) and empirical (weighted values, as fio's
//! `bssplit`). Durations (service times of the ideal device) are fixed, exponential, uniform,
//! log-normal or empirical.

use nest_core::rng::RngStream;
use nest_core::SimTime;

/// A distribution of request sizes, in bytes; every draw is at least 1 byte.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    Fixed(u32),
    /// Exponential with this mean, rounded up to a multiple of `align` and clamped to [min, max].
    Exponential {
        mean: f64,
        align: u32,
        min: u32,
        max: u32,
    },
    /// A whole number of `block`-byte blocks, uniform in [min_blocks, max_blocks].
    UniformBlocks {
        min_blocks: u32,
        max_blocks: u32,
        block: u32,
    },
    /// Values with weights (cumulative weights kept normalised to 1).
    Empirical {
        values: Vec<u32>,
        cumulative: Vec<f64>,
    },
}

impl SizeDist {
    /// Builds an empirical distribution; weights need not sum to 1 but must be positive.
    pub fn empirical(values: Vec<u32>, weights: &[f64]) -> Result<Self, String> {
        let cumulative = cumulative_weights(values.len(), weights)?;
        Ok(SizeDist::Empirical { values, cumulative })
    }

    /// The largest size it can draw.
    pub fn max(&self) -> u32 {
        match self {
            SizeDist::Fixed(b) => *b,
            SizeDist::Exponential { max, .. } => *max,
            SizeDist::UniformBlocks { max_blocks, block, .. } => max_blocks.saturating_mul(*block),
            SizeDist::Empirical { values, .. } => values.iter().copied().max().unwrap_or(0),
        }
    }

    pub fn sample(&self, rng: &mut RngStream) -> u32 {
        match self {
            SizeDist::Fixed(b) => *b,
            SizeDist::Exponential { mean, align, min, max } => {
                let x = rng.exponential(*mean);
                let a = (*align).max(1) as f64;
                let v = ((x / a).ceil() * a).clamp(*min as f64, *max as f64);
                v as u32
            }
            SizeDist::UniformBlocks { min_blocks, max_blocks, block } => rng.range_inclusive(*min_blocks as u64, *max_blocks as u64) as u32 * block,
            SizeDist::Empirical { values, cumulative } => values[pick(cumulative, rng.uniform())],
        }
    }

    /// The mean size in bytes (exact for fixed/uniform/empirical, before rounding for exponential).
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed(b) => *b as f64,
            SizeDist::Exponential { mean, .. } => *mean,
            SizeDist::UniformBlocks { min_blocks, max_blocks, block } => (*min_blocks as f64 + *max_blocks as f64) / 2.0 * *block as f64,
            SizeDist::Empirical { values, cumulative } => weighted_mean(values.iter().map(|v| *v as f64), cumulative),
        }
    }
}

/// Normalised cumulative weights for `n` values (weights need not sum to 1).
pub fn cumulative_weights(n: usize, weights: &[f64]) -> Result<Vec<f64>, String> {
    if n == 0 || n != weights.len() {
        return Err("empirical distribution needs as many weights as values (at least one)".into());
    }
    if weights.iter().any(|w| !w.is_finite() || *w < 0.0) {
        return Err("weights must be finite and non-negative".into());
    }
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return Err("weights must not all be zero".into());
    }
    let mut acc = 0.0;
    Ok(weights
        .iter()
        .map(|w| {
            acc += w / total;
            acc
        })
        .collect())
}

fn weighted_mean(values: impl Iterator<Item = f64>, cumulative: &[f64]) -> f64 {
    let mut prev = 0.0;
    values
        .zip(cumulative)
        .map(|(v, c)| {
            let w = c - prev;
            prev = *c;
            v * w
        })
        .sum()
}

fn pick(cumulative: &[f64], u: f64) -> usize {
    cumulative.partition_point(|&c| c <= u).min(cumulative.len() - 1)
}

/// A distribution of durations, in picoseconds.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeDist {
    Fixed(SimTime),
    Exponential {
        mean_ps: f64,
    },
    Uniform {
        lo: SimTime,
        hi: SimTime,
    },
    /// Log-normal with this mean and coefficient of variation (a common fit for device service).
    LogNormal {
        mu: f64,
        sigma: f64,
    },
    Empirical {
        values: Vec<SimTime>,
        cumulative: Vec<f64>,
    },
}

impl TimeDist {
    pub fn lognormal_from_mean_cv(mean_ps: f64, cv: f64) -> Self {
        let sigma2 = (1.0 + cv * cv).ln();
        TimeDist::LogNormal { mu: mean_ps.ln() - sigma2 / 2.0, sigma: sigma2.sqrt() }
    }

    #[inline]
    pub fn sample(&self, rng: &mut RngStream) -> SimTime {
        match self {
            TimeDist::Fixed(t) => *t,
            TimeDist::Exponential { mean_ps } => SimTime(rng.exponential(*mean_ps).round() as u64),
            TimeDist::Uniform { lo, hi } => SimTime(rng.range_inclusive(lo.0, hi.0)),
            TimeDist::LogNormal { mu, sigma } => SimTime((mu + sigma * rng.normal()).exp().round() as u64),
            TimeDist::Empirical { values, cumulative } => values[pick(cumulative, rng.uniform())],
        }
    }

    pub fn mean_ps(&self) -> f64 {
        match self {
            TimeDist::Fixed(t) => t.0 as f64,
            TimeDist::Exponential { mean_ps } => *mean_ps,
            TimeDist::Uniform { lo, hi } => (lo.0 as f64 + hi.0 as f64) / 2.0,
            TimeDist::LogNormal { mu, sigma } => (mu + sigma * sigma / 2.0).exp(),
            TimeDist::Empirical { values, cumulative } => weighted_mean(values.iter().map(|v| v.0 as f64), cumulative),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_means_match_declared_means() {
        let mut r = RngStream::from_seed(5);
        let dists = [
            SizeDist::Fixed(4096),
            SizeDist::UniformBlocks { min_blocks: 5, max_blocks: 30, block: 4096 },
            SizeDist::empirical(vec![4096, 16384, 65536], &[70.0, 20.0, 10.0]).unwrap(),
        ];
        for d in &dists {
            let n = 100_000;
            let m = (0..n).map(|_| d.sample(&mut r) as f64).sum::<f64>() / n as f64;
            assert!((m - d.mean()).abs() / d.mean() < 0.01, "{d:?}: {m}");
        }
        let t = TimeDist::lognormal_from_mean_cv(80e6, 0.5);
        let m = (0..100_000).map(|_| t.sample(&mut r).0 as f64).sum::<f64>() / 1e5;
        assert!((m - 80e6).abs() / 80e6 < 0.01, "{m}");
    }

    #[test]
    fn uniform_blocks_stay_in_range() {
        let mut r = RngStream::from_seed(9);
        let d = SizeDist::UniformBlocks { min_blocks: 17, max_blocks: 98, block: 4096 };
        for _ in 0..10_000 {
            let s = d.sample(&mut r);
            assert!(s.is_multiple_of(4096) && (17 * 4096..=98 * 4096).contains(&s));
        }
        assert!(SizeDist::empirical(vec![1], &[0.0]).is_err());
    }
}
