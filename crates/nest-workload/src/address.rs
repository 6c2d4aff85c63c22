//! Address patterns: where on its volume a workload's next I/O lands (SPEC §3: uniform random,
//! sequential, Zipf hotspot). Offsets are aligned to `align` bytes and an I/O never runs past
//! the end of the range unless it is larger than the range itself.

use crate::zipf::Zipf;
use nest_core::rng::RngStream;

#[derive(Clone, Debug, PartialEq)]
pub enum AddressPattern {
    Uniform,
    Sequential,
    /// Rank 1 (hottest) is the first aligned block of the range; the exponent is fio's θ.
    Zipf(f64),
}

#[derive(Clone, Debug)]
pub struct AddressGen {
    pattern: AddressPattern,
    zipf: Option<Zipf>,
    range: u64,
    align: u64,
    next_seq: u64,
}

impl AddressGen {
    pub fn new(pattern: AddressPattern, range_bytes: u64, align: u32, start: u64) -> Result<Self, String> {
        let align = align.max(1) as u64;
        if range_bytes < align {
            return Err(format!("address range {range_bytes} B is smaller than the alignment {align} B"));
        }
        let zipf = match pattern {
            AddressPattern::Zipf(theta) => Some(Zipf::new(range_bytes / align, theta)?),
            _ => None,
        };
        Ok(AddressGen { pattern, zipf, range: range_bytes, align, next_seq: start % range_bytes })
    }

    /// The offset of the next I/O of `size` bytes.
    pub fn next(&mut self, size: u32, rng: &mut RngStream) -> u64 {
        let blocks = self.range / self.align;
        let span = (size as u64).div_ceil(self.align).max(1);
        let slots = blocks.saturating_sub(span) + 1;
        match self.pattern {
            AddressPattern::Uniform => rng.below(slots) * self.align,
            AddressPattern::Sequential => {
                if self.next_seq + size as u64 > self.range {
                    self.next_seq = 0;
                }
                let off = self.next_seq;
                self.next_seq += span * self.align;
                off
            }
            AddressPattern::Zipf(_) => {
                let rank = self.zipf.as_ref().expect("built with the pattern").sample(rng);
                (rank - 1).min(slots - 1) * self.align
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_aligned_and_in_range() {
        let mut r = RngStream::from_seed(1);
        for p in [AddressPattern::Uniform, AddressPattern::Sequential, AddressPattern::Zipf(0.9)] {
            let mut g = AddressGen::new(p.clone(), 1 << 20, 4096, 0).unwrap();
            for _ in 0..10_000 {
                let off = g.next(8192, &mut r);
                assert_eq!(off % 4096, 0, "{p:?}");
                assert!(off + 8192 <= 1 << 20, "{p:?} {off}");
            }
        }
        let mut s = AddressGen::new(AddressPattern::Sequential, 1 << 20, 4096, 0).unwrap();
        assert_eq!((s.next(4096, &mut r), s.next(4096, &mut r)), (0, 4096));
    }
}
