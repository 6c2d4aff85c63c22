//! Simulation time: an integer count of picoseconds.
//!
//! Picoseconds because a 64 B frame at 400 Gb/s lasts 1.28 ns (SPEC §2); a `u64` of them covers
//! about 213 days of simulated time, far beyond any run. Instants and durations share the type:
//! the engine only ever adds a duration to an instant or subtracts two instants.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds in one nanosecond, microsecond, millisecond and second.
pub const PS_PER_NS: u64 = 1_000;
pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// A point in (or a span of) simulated time, in picoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_ps(ps: u64) -> Self {
        SimTime(ps)
    }
    pub const fn from_ns(ns: u64) -> Self {
        SimTime(ns * PS_PER_NS)
    }
    pub const fn from_us(us: u64) -> Self {
        SimTime(us * PS_PER_US)
    }
    pub const fn from_ms(ms: u64) -> Self {
        SimTime(ms * PS_PER_MS)
    }
    /// Seconds given as a float, rounded to the nearest picosecond; `None` when negative,
    /// not finite, or beyond the representable range.
    pub fn from_secs_f64(s: f64) -> Option<Self> {
        let ps = s * PS_PER_S as f64;
        if ps.is_finite() && ps >= 0.0 && ps < u64::MAX as f64 {
            Some(SimTime(ps.round() as u64))
        } else {
            None
        }
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / PS_PER_US as f64
    }
    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
    pub fn saturating_add(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(other.0))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 + rhs.0)
    }
}

impl AddAssign for SimTime {
    #[inline]
    fn add_assign(&mut self, rhs: SimTime) {
        self.0 += rhs.0;
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    #[inline]
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 - rhs.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps >= PS_PER_S {
            write!(f, "{}s", ps as f64 / PS_PER_S as f64)
        } else if ps >= PS_PER_MS {
            write!(f, "{}ms", ps as f64 / PS_PER_MS as f64)
        } else if ps >= PS_PER_US {
            write!(f, "{}us", ps as f64 / PS_PER_US as f64)
        } else if ps >= PS_PER_NS {
            write!(f, "{}ns", ps as f64 / PS_PER_NS as f64)
        } else {
            write!(f, "{}ps", ps)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip() {
        assert_eq!(SimTime::from_us(3).ps(), 3_000_000);
        assert_eq!(SimTime::from_secs_f64(1.5e-6), Some(SimTime::from_ns(1500)));
        assert_eq!(SimTime::from_secs_f64(-1.0), None);
        assert_eq!(SimTime::from_secs_f64(1e9), None, "1e9 s overflows u64 picoseconds");
        assert!((SimTime::from_ms(250).as_secs_f64() - 0.25).abs() < 1e-15);
        assert_eq!(SimTime::from_us(2).to_string(), "2us");
    }
}
