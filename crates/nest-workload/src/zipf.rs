//! Zipf sampling over ranks 1..=n in O(1) per draw, by rejection-inversion
//! (Hörmann & Derflinger, "Rejection-inversion to generate variates from monotone discrete
//! distributions", 1996). Works for any exponent s > 0, including s = 1 and s < 1 (fio's
//! `zipf:θ` and YCSB's 0.99), and for n in the billions without a table.

use nest_core::rng::RngStream;

#[derive(Clone, Debug, PartialEq)]
pub struct Zipf {
    n: f64,
    s: f64,
    h_x1: f64,
    h_n: f64,
    threshold: f64,
}

/// (exp(x) - 1) / x, accurate near 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x / 2.0 * (1.0 + x / 3.0 * (1.0 + x / 4.0))
    }
}

/// ln(1 + x) / x, accurate near 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

impl Zipf {
    pub fn new(n: u64, s: f64) -> Result<Self, String> {
        if n == 0 {
            return Err("zipf needs at least one item".into());
        }
        if !(s > 0.0 && s.is_finite()) {
            return Err(format!("zipf exponent must be positive, got {s}"));
        }
        let mut z = Zipf { n: n as f64, s, h_x1: 0.0, h_n: 0.0, threshold: 0.0 };
        z.h_x1 = z.h_integral(1.5) - 1.0;
        z.h_n = z.h_integral(n as f64 + 0.5);
        z.threshold = 2.0 - z.h_integral_inv(z.h_integral(2.5) - z.h(2.0));
        Ok(z)
    }

    fn h(&self, x: f64) -> f64 {
        (-self.s * x.ln()).exp()
    }
    fn h_integral(&self, x: f64) -> f64 {
        let lx = x.ln();
        helper2((1.0 - self.s) * lx) * lx
    }
    fn h_integral_inv(&self, x: f64) -> f64 {
        let mut t = x * (1.0 - self.s);
        if t < -1.0 {
            t = -1.0; // numerical safety, as in the reference implementation
        }
        (helper1(t) * x).exp()
    }

    /// A rank in 1..=n; rank 1 is the most popular.
    pub fn sample(&self, rng: &mut RngStream) -> u64 {
        loop {
            let u = self.h_n + rng.uniform() * (self.h_x1 - self.h_n);
            let x = self.h_integral_inv(u);
            let mut k = (x + 0.5).floor();
            if k < 1.0 {
                k = 1.0;
            } else if k > self.n {
                k = self.n;
            }
            if k - x <= self.threshold || u >= self.h_integral(k + 0.5) - self.h(k) {
                return k as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequencies_follow_the_power_law() {
        for s in [0.6, 0.99, 1.0, 1.2] {
            let n = 50u64;
            let z = Zipf::new(n, s).unwrap();
            let mut r = RngStream::from_seed(11);
            let draws = 400_000;
            let mut counts = vec![0u64; n as usize + 1];
            for _ in 0..draws {
                let k = z.sample(&mut r);
                assert!((1..=n).contains(&k));
                counts[k as usize] += 1;
            }
            let norm: f64 = (1..=n).map(|k| (k as f64).powf(-s)).sum();
            for k in [1usize, 2, 5, 20] {
                let expect = draws as f64 * (k as f64).powf(-s) / norm;
                let got = counts[k] as f64;
                assert!((got - expect).abs() / expect < 0.05, "s={s} k={k} got={got} expect={expect}");
            }
        }
    }
}
