//! A packet's serialisation time on a link: bytes·8·10¹² / rate picoseconds, rounded down.
//!
//! Every packet sent pays it, and a 64-bit division is ~40 cycles of latency on the critical
//! path. At every standard rate (1, 10, 25, 40, 100, 400 Gb/s) 8·10¹² / rate is a whole number
//! of picoseconds per byte, and then one multiplication gives the same result exactly.

use nest_core::SimTime;

const PS_BITS_PER_S: u64 = 8_000_000_000_000;

/// Picoseconds per byte at `rate_bps` when that is a whole number, else 0.
pub(crate) fn ps_per_byte(rate_bps: u64) -> u64 {
    if PS_BITS_PER_S.is_multiple_of(rate_bps) {
        PS_BITS_PER_S / rate_bps
    } else {
        0
    }
}

/// Time to serialise `wire` bytes at `rate_bps` (`ps_per_byte` from [`ps_per_byte`]).
#[inline]
pub(crate) fn serialisation(wire: u64, rate_bps: u64, ps_per_byte: u64) -> SimTime {
    SimTime(if ps_per_byte != 0 { wire * ps_per_byte } else { wire * PS_BITS_PER_S / rate_bps })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_multiplication_is_the_division_at_every_rate() {
        let rates = [
            1_000_000_000,
            3_000_000_000,
            7_000_000_000,
            10_000_000_000,
            25_000_000_000,
            40_000_000_000,
            56_000_000_000,
            100_000_000_000,
            400_000_000_000,
            123_456_789,
            1,
        ];
        for rate in rates {
            let ppb = ps_per_byte(rate);
            for wire in [0u64, 1, 64, 84, 1_538, 4_096, 9_000, 65_535, 1 << 20] {
                assert_eq!(serialisation(wire, rate, ppb), SimTime(wire * PS_BITS_PER_S / rate), "rate {rate}, {wire} B");
            }
        }
        assert_eq!(ps_per_byte(10_000_000_000), 800);
        assert_eq!(ps_per_byte(3_000_000_000), 0, "2666.67 ps per byte: divided each time");
    }
}
