//! Division by a number fixed when the drive is built (pages per block, planes per die, the
//! page size, …): a shift and a mask when it is a power of two, as it is in almost every
//! geometry, instead of a hardware division (tens of cycles for 64 bits) on every address a
//! request touches. The static allocation's four 64-bit divisions per page were 4–5 % of the
//! stock drive's run (issue 24).

macro_rules! divisor {
    ($name:ident, $t:ty) => {
        #[derive(Clone, Copy, Debug)]
        pub struct $name {
            d: $t,
            /// log2(d) when d is a power of two.
            shift: Option<u32>,
        }

        impl $name {
            /// Division by `d` (≥ 1).
            pub fn new(d: $t) -> Self {
                assert!(d > 0, "division by zero");
                $name { d, shift: d.is_power_of_two().then(|| d.trailing_zeros()) }
            }

            #[inline]
            pub fn get(self) -> $t {
                self.d
            }

            /// Whether it divides by shifting (`d` a power of two).
            pub fn is_shift(self) -> bool {
                self.shift.is_some()
            }

            #[inline]
            pub fn quotient(self, x: $t) -> $t {
                match self.shift {
                    Some(s) => x >> s,
                    None => x / self.d,
                }
            }

            #[inline]
            pub fn remainder(self, x: $t) -> $t {
                match self.shift {
                    Some(_) => x & (self.d - 1),
                    None => x % self.d,
                }
            }
        }
    };
}

divisor!(Div32, u32);
divisor!(Div64, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotients_and_remainders_are_the_hardwares() {
        let xs32 = [0u32, 1, 2, 3, 7, 8, 9, 255, 256, 1023, 65_537, u32::MAX - 1, u32::MAX];
        let xs64 = [0u64, 1, 5, 4095, 4096, 8193, 1 << 40, (1 << 40) + 3, u64::MAX - 1, u64::MAX];
        for d in [1u32, 2, 3, 4, 6, 7, 8, 256, 1000, 1024, 1 << 31, u32::MAX] {
            let v = Div32::new(d);
            assert_eq!(v.get(), d);
            for &x in &xs32 {
                assert_eq!((v.quotient(x), v.remainder(x)), (x / d, x % d), "{x} / {d}");
            }
            let w = Div64::new(d as u64 * 3 + 1);
            let p = Div64::new(d as u64 * 4);
            for &x in &xs64 {
                assert_eq!((w.quotient(x), w.remainder(x)), (x / w.get(), x % w.get()), "{x} / {}", w.get());
                assert_eq!((p.quotient(x), p.remainder(x)), (x / p.get(), x % p.get()), "{x} / {}", p.get());
            }
        }
    }

    #[test]
    #[should_panic(expected = "division by zero")]
    fn zero_is_refused() {
        Div32::new(0);
    }
}
