//! The 2-phase Markov-modulated Poisson process (MMPP(2)) and its fit to a trace's statistics.
//!
//! SRC §IV-A fits MMPP traces to the mean, squared coefficient of variation (SCV), skewness and
//! lag-1 autocorrelation of inter-arrival times. An MMPP(2) is the MAP with
//! D0 = [[-(λ0+r0), r0], [r1, -(λ1+r1)]] and D1 = diag(λ0, λ1); with M = (-D0)⁻¹ and π_e the
//! stationary phase at arrivals, E[Xᵏ] = k!·π_e·Mᵏ·1 and E[X₀X₁] = π_e·M·(M·D1)·M·1.
//! The fit scales time to match the mean exactly and finds the shape (three free ratios) by
//! Nelder–Mead on log parameters from fixed starting points — deterministic, no RNG.
//! MMPP(2) can only express SCV ≥ 1 and non-negative correlation; for other targets the fit is
//! the closest it can get and [`Mmpp2Fit::residual`] says how far that is.

use nest_core::rng::RngStream;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mmpp2 {
    /// Arrival rate in each phase (per second).
    pub lambda: [f64; 2],
    /// Rate of leaving each phase (per second).
    pub switch: [f64; 2],
}

/// The four statistics of an inter-arrival (or size) sequence that the fit matches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Moments4 {
    pub mean: f64,
    pub scv: f64,
    pub skewness: f64,
    pub lag1: f64,
}

impl Moments4 {
    /// Statistics of a sample sequence.
    pub fn of_samples(xs: &[f64]) -> Option<Moments4> {
        let n = xs.len();
        if n < 3 {
            return None;
        }
        let m = xs.iter().sum::<f64>() / n as f64;
        if m <= 0.0 {
            return None;
        }
        let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n as f64;
        let m3 = xs.iter().map(|x| (x - m).powi(3)).sum::<f64>() / n as f64;
        let cov = xs.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum::<f64>() / (n - 1) as f64;
        let sd = var.sqrt();
        Some(Moments4 {
            mean: m,
            scv: var / (m * m),
            skewness: if sd > 0.0 { m3 / (sd * sd * sd) } else { 0.0 },
            lag1: if var > 0.0 { cov / var } else { 0.0 },
        })
    }
}

impl Mmpp2 {
    /// Statistics of the inter-arrival times (seconds).
    pub fn moments(&self) -> Moments4 {
        let [l0, l1] = self.lambda;
        let [r0, r1] = self.switch;
        let (a, d) = (l0 + r0, l1 + r1);
        let det = a * d - r0 * r1;
        // M = (-D0)^-1
        let m = [[d / det, r0 / det], [r1 / det, a / det]];
        let pi = [r1 / (r0 + r1), r0 / (r0 + r1)];
        let z = pi[0] * l0 + pi[1] * l1;
        let pe = [pi[0] * l0 / z, pi[1] * l1 / z];
        let mv = |v: [f64; 2]| [m[0][0] * v[0] + m[0][1] * v[1], m[1][0] * v[0] + m[1][1] * v[1]];
        let dot = |u: [f64; 2], v: [f64; 2]| u[0] * v[0] + u[1] * v[1];
        let one = [1.0, 1.0];
        let m1v = mv(one);
        let m2v = mv(m1v);
        let m3v = mv(m2v);
        let e1 = dot(pe, m1v);
        let e2 = 2.0 * dot(pe, m2v);
        let e3 = 6.0 * dot(pe, m3v);
        // E[X0 X1] = pe · M · (M D1) · M · 1 ; (M D1) v = M (D1 v), D1 = diag(l0, l1)
        let w = m1v;
        let inner = mv([l0 * w[0], l1 * w[1]]);
        let outer = mv(inner);
        let e01 = dot(pe, outer);
        let var = e2 - e1 * e1;
        let sd = var.sqrt();
        Moments4 { mean: e1, scv: var / (e1 * e1), skewness: (e3 - 3.0 * e1 * e2 + 2.0 * e1.powi(3)) / (sd * sd * sd), lag1: (e01 - e1 * e1) / var }
    }

    /// Mean arrival rate (per second).
    pub fn mean_rate(&self) -> f64 {
        let [r0, r1] = self.switch;
        (r1 * self.lambda[0] + r0 * self.lambda[1]) / (r0 + r1)
    }
}

/// The sampling state of an MMPP(2): its current phase.
#[derive(Clone, Debug)]
pub struct Mmpp2State {
    pub phase: usize,
}

impl Mmpp2State {
    /// Starts in a phase drawn from the stationary distribution.
    pub fn new(p: &Mmpp2, rng: &mut RngStream) -> Self {
        let pi0 = p.switch[1] / (p.switch[0] + p.switch[1]);
        Mmpp2State { phase: if rng.uniform() < pi0 { 0 } else { 1 } }
    }

    /// Time to the next arrival, in seconds (competing exponentials: arrive or switch phase).
    pub fn next_gap_s(&mut self, p: &Mmpp2, rng: &mut RngStream) -> f64 {
        let mut t = 0.0;
        loop {
            let (l, r) = (p.lambda[self.phase], p.switch[self.phase]);
            t += rng.exponential(1.0 / (l + r));
            if rng.uniform() * (l + r) < l {
                return t;
            }
            self.phase ^= 1;
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Mmpp2Fit {
    pub mmpp: Mmpp2,
    pub achieved: Moments4,
    /// Weighted squared relative error of the shape statistics (0 = exact).
    pub residual: f64,
}

fn shape_of(x: &[f64; 3]) -> Mmpp2 {
    Mmpp2 { lambda: [1.0, x[0].exp()], switch: [x[1].exp(), x[2].exp()] }
}

fn objective(x: &[f64; 3], t: &Moments4) -> f64 {
    if x.iter().any(|v| v.abs() > 30.0) {
        return f64::INFINITY;
    }
    let m = shape_of(x).moments();
    if !(m.scv.is_finite() && m.skewness.is_finite() && m.lag1.is_finite()) {
        return f64::INFINITY;
    }
    ((m.scv - t.scv) / t.scv.max(1e-9)).powi(2) + ((m.skewness - t.skewness) / (t.skewness.abs() + 1.0)).powi(2) + (m.lag1 - t.lag1).powi(2) * 4.0
}

fn nelder_mead(f: &dyn Fn(&[f64; 3]) -> f64, start: [f64; 3], iters: usize) -> ([f64; 3], f64) {
    let mut pts: Vec<([f64; 3], f64)> = (0..4)
        .map(|i| {
            let mut p = start;
            if i > 0 {
                p[i - 1] += 1.0;
            }
            (p, f(&p))
        })
        .collect();
    for _ in 0..iters {
        pts.sort_by(|a, b| a.1.total_cmp(&b.1));
        let c: [f64; 3] = std::array::from_fn(|k| (pts[0].0[k] + pts[1].0[k] + pts[2].0[k]) / 3.0);
        let at = |s: f64| -> [f64; 3] { std::array::from_fn(|k| c[k] + s * (pts[3].0[k] - c[k])) };
        let xr = at(-1.0);
        let fr = f(&xr);
        if fr < pts[0].1 {
            let xe = at(-2.0);
            let fe = f(&xe);
            pts[3] = if fe < fr { (xe, fe) } else { (xr, fr) };
        } else if fr < pts[2].1 {
            pts[3] = (xr, fr);
        } else {
            let xc = at(0.5);
            let fc = f(&xc);
            if fc < pts[3].1 {
                pts[3] = (xc, fc);
            } else {
                let best = pts[0].0;
                for p in pts.iter_mut().skip(1) {
                    p.0 = std::array::from_fn(|k| best[k] + 0.5 * (p.0[k] - best[k]));
                    p.1 = f(&p.0);
                }
            }
        }
    }
    pts.sort_by(|a, b| a.1.total_cmp(&b.1));
    pts[0]
}

/// Fits an MMPP(2) whose inter-arrival times have the target statistics (mean in seconds).
pub fn fit_mmpp2(target: &Moments4) -> Result<Mmpp2Fit, String> {
    if !(target.mean > 0.0 && target.mean.is_finite()) {
        return Err(format!("MMPP fit needs a positive mean inter-arrival time, got {}", target.mean));
    }
    if !(target.scv > 0.0 && target.skewness.is_finite() && target.lag1.is_finite()) {
        return Err("MMPP fit needs a positive SCV and finite skewness and lag-1 autocorrelation".into());
    }
    let f = |x: &[f64; 3]| objective(x, target);
    let starts = [[2.0, -1.0, -1.0], [4.0, -3.0, -2.0], [1.0, 0.0, -2.0], [6.0, -5.0, -4.0], [3.0, -4.0, 0.0]];
    let best = starts
        .iter()
        .map(|s| {
            let (x, v) = nelder_mead(&f, *s, 600);
            nelder_mead(&f, x, 600).max_by_value(v, x)
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("starts are not empty");
    let shape = shape_of(&best.0);
    let scale = shape.moments().mean / target.mean; // multiply rates by this to match the mean
    let mmpp = Mmpp2 { lambda: [shape.lambda[0] * scale, shape.lambda[1] * scale], switch: [shape.switch[0] * scale, shape.switch[1] * scale] };
    Ok(Mmpp2Fit { mmpp, achieved: mmpp.moments(), residual: best.1 })
}

trait MaxByValue {
    fn max_by_value(self, v: f64, x: [f64; 3]) -> ([f64; 3], f64);
}
impl MaxByValue for ([f64; 3], f64) {
    /// Keeps the better of a refined result and the one it was refined from.
    fn max_by_value(self, v: f64, x: [f64; 3]) -> ([f64; 3], f64) {
        if self.1 <= v {
            self
        } else {
            (x, v)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analytic_moments_match_simulation() {
        let p = Mmpp2 { lambda: [20_000.0, 2_000.0], switch: [50.0, 30.0] };
        let mut rng = RngStream::from_seed(4);
        let mut st = Mmpp2State::new(&p, &mut rng);
        let gaps: Vec<f64> = (0..400_000).map(|_| st.next_gap_s(&p, &mut rng)).collect();
        let s = Moments4::of_samples(&gaps).unwrap();
        let a = p.moments();
        assert!((s.mean - a.mean).abs() / a.mean < 0.03, "{s:?} vs {a:?}");
        assert!((s.scv - a.scv).abs() / a.scv < 0.06, "{s:?} vs {a:?}");
        assert!((s.lag1 - a.lag1).abs() < 0.03, "{s:?} vs {a:?}");
        assert!((1.0 / a.mean - p.mean_rate()).abs() / p.mean_rate() < 1e-9);
    }

    #[test]
    fn fit_recovers_the_statistics_of_a_known_process() {
        let truth = Mmpp2 { lambda: [50_000.0, 4_000.0], switch: [200.0, 100.0] };
        let target = truth.moments();
        let fit = fit_mmpp2(&target).unwrap();
        let got = fit.achieved;
        assert!((got.mean - target.mean).abs() / target.mean < 1e-9);
        assert!((got.scv - target.scv).abs() / target.scv < 0.02, "{got:?} vs {target:?}");
        assert!((got.skewness - target.skewness).abs() / target.skewness < 0.05, "{got:?} vs {target:?}");
        assert!((got.lag1 - target.lag1).abs() < 0.02, "{got:?} vs {target:?}");
        assert!(fit_mmpp2(&Moments4 { mean: -1.0, scv: 2.0, skewness: 2.0, lag1: 0.1 }).is_err());
    }
}
