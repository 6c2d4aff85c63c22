//! MQSim's random generator (`src/utils/RandomGenerator.cpp` over `CMRRandomGenerator.cpp`:
//! L'Ecuyer's MRG32k3a, its stream chosen by jumping ahead from the seed), for the draws compat
//! makes exactly as MQSim does: a synthetic flow's requests and the pages its preconditioning
//! writes (`nest_workload::mqsim_draws`, from the flow's `Seed`), and where MQSim's
//! preconditioning starts its walk over the pages it brings into the CMT, and how far it steps
//! (`src/ssd/FTL.cpp:731-732`, drawn from the FTL's generator, seeded with the drive's `Seed`).
//! Its integer products wrap as MQSim's 64-bit ones do.

const M1: f64 = 4294967087.0;
const M2: f64 = 4294944443.0;
const A12: f64 = 1403580.0;
const A13: f64 = -810728.0;
const A21: f64 = 527612.0;
const A23: f64 = -1370589.0;
const NORM: f64 = 2.328306549295728e-10;

#[derive(Clone, Debug)]
pub struct MqsimRng {
    s: [[f64; 3]; 2],
    /// `Normal`'s second deviate, kept for the next call (0: none), as MQSim keeps it.
    normal_z2: f64,
}

type Mat = [[i64; 3]; 3];

/// `(a·b + c) % m` as MQSim computes it: a wrapping 64-bit product, C's remainder.
fn mul_add(a: i64, b: i64, c: i64, m: i64) -> i64 {
    a.wrapping_mul(b).wrapping_add(c) % m
}

fn mat_mul(a: &Mat, b: &Mat, m: i64) -> Mat {
    let mut d = [[0i64; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                d[i][j] = mul_add(a[i][k], b[k][j], d[i][j], m);
            }
        }
    }
    d
}

fn mat_vec(a: &Mat, u: &[i64; 3], m: i64) -> [i64; 3] {
    let mut w = [0i64; 3];
    for i in 0..3 {
        for j in 0..3 {
            w[i] = mul_add(a[i][j], u[j], w[i], m);
        }
    }
    w
}

/// MQSim's `ftoi`: a negative coefficient taken modulo `m`.
fn ftoi(x: f64, m: f64) -> i64 {
    if x >= 0.0 {
        x as i64
    } else {
        (x + m) as i64
    }
}

impl MqsimRng {
    /// `Utils::RandomGenerator(seed)`: the stream `seed / 200 + 1` steps of `2^(seed % 200)`.
    pub fn new(seed: i32) -> Self {
        let a = [[[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [A13, A12, 0.0]], [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [A23, 0.0, A21]]];
        let m = [M1, M2];
        let mut b: [Mat; 2] = [[[0; 3]; 3]; 2];
        let mut s = [[1i64; 3]; 2];
        for i in 0..2 {
            for r in 0..3 {
                for c in 0..3 {
                    b[i][r][c] = ftoi(a[i][r][c], m[i]);
                }
            }
        }
        let mi = [M1 as i64, M2 as i64];
        let (mut n, mut e) = ((seed / 200 + 1) as i64, seed % 200);
        while e != 0 {
            e -= 1;
            for i in 0..2 {
                b[i] = mat_mul(&b[i], &b[i], mi[i]);
            }
        }
        while n != 0 {
            if n & 1 != 0 {
                for i in 0..2 {
                    s[i] = mat_vec(&b[i], &s[i], mi[i]);
                }
            }
            n >>= 1;
            if n != 0 {
                for i in 0..2 {
                    b[i] = mat_mul(&b[i], &b[i], mi[i]);
                }
            }
        }
        MqsimRng { s: [s[0].map(|x| x as f64), s[1].map(|x| x as f64)], normal_z2: 0.0 }
    }

    fn fmod(x: f64, m: f64) -> f64 {
        let k = (x / m) as i64;
        let x = x - k as f64 * m;
        if x < 0.0 {
            x + m
        } else {
            x
        }
    }

    /// `FloatRandom`: the next number in (0, 1).
    pub fn float_random(&mut self) -> f64 {
        let s = &mut self.s;
        let p1 = Self::fmod(A12 * s[0][1] + A13 * s[0][0], M1);
        s[0] = [s[0][1], s[0][2], p1];
        let p2 = Self::fmod(A21 * s[1][2] + A23 * s[1][0], M2);
        s[1] = [s[1][1], s[1][2], p2];
        let p = if p1 - p2 < 0.0 { p1 - p2 + M1 } else { p1 - p2 };
        (p + 1.0) * NORM
    }

    /// `Uniform(a, b)`.
    pub fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.float_random()
    }

    /// `Uniform_uint(m, n)`: m..=n.
    pub fn uniform_uint(&mut self, m: u32, n: u32) -> u32 {
        m + (((n - m) as f64 + 1.0) * self.float_random()) as u32
    }

    /// `Uniform_ulong(m, n)`: m..=n (`RandomGenerator.cpp:48-51`).
    pub fn uniform_ulong(&mut self, m: u64, n: u64) -> u64 {
        m.wrapping_add(((n.wrapping_sub(m).wrapping_add(1)) as f64 * self.float_random()) as u64)
    }

    /// `Exponential(mean)` (`RandomGenerator.cpp:57-60`).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * self.float_random().ln()
    }

    /// `Normal(x, s)`: the polar method, the second deviate kept for the next call
    /// (`RandomGenerator.cpp:101-121`).
    pub fn normal(&mut self, x: f64, s: f64) -> f64 {
        let z1 = if self.normal_z2 != 0.0 {
            std::mem::replace(&mut self.normal_z2, 0.0)
        } else {
            let (mut v1, mut v2, mut w);
            loop {
                v1 = 2.0 * self.float_random() - 1.0;
                v2 = 2.0 * self.float_random() - 1.0;
                w = v1 * v1 + v2 * v2;
                if w < 1.0 {
                    break;
                }
            }
            let w = ((-2.0 * w.ln()) / w).sqrt();
            self.normal_z2 = v2 * w;
            v1 * w
        };
        x + z1 * s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The draws MQSim's FTL made (instrumented) at the CMT warm-up of a drive seeded 321 whose
    /// preconditioning wrote 975,174 pages for a 149,796-entry CMT: walker 600,938, step 6.
    #[test]
    fn draws_as_mqsims_generator_does() {
        let mut g = MqsimRng::new(321);
        assert_eq!(g.uniform(0.0, (975_174 - 2) as f64) as i32, 600_938);
        assert_eq!(g.uniform_uint(0, 975_174 / 149_796), 6);
        // Other seeds start other streams.
        let first = |seed| MqsimRng::new(seed).float_random();
        assert!(first(320) != first(321) && first(321) != first(322));
        assert!((0..1000).map(|_| g.float_random()).all(|u| u > 0.0 && u < 1.0));
    }
}
