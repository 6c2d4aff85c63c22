//! Address patterns: where on its volume a workload's next I/O lands (SPEC §3: uniform random,
//! sequential, Zipf hotspot, and MQSim's two-region hot/cold). Offsets are aligned to `align` bytes and an I/O never runs past
//! the end of the range unless it is larger than the range itself.

use crate::zipf::Zipf;
use nest_core::rng::RngStream;

#[derive(Clone, Debug, PartialEq)]
pub enum AddressPattern {
    Uniform,
    /// In order from the range's start, or (`random_start`) from a seeded uniform aligned
    /// offset in it, as MQSim starts a `STREAMING` flow (`src/host/IO_Flow_Synthetic.cpp:
    /// 201-205`); back to the range's start at its end.
    Sequential {
        random_start: bool,
    },
    /// Rank 1 (hottest) is the first aligned block of the range; the exponent is fio's θ.
    Zipf(f64),
    /// Two regions, each uniform: `hot_share` of the I/Os start in the first `hot_fraction` of
    /// the range, the rest after it (MQSim's RANDOM_HOTCOLD: a hot region of r % of the space
    /// takes 100 − r % of the requests, `src/host/IO_Flow_Synthetic.cpp:129-145`). An I/O
    /// starting near the hot region's end may run into the cold one, as in MQSim.
    HotCold {
        hot_fraction: f64,
        hot_share: f64,
    },
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
            AddressPattern::Sequential { .. } => {
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
            AddressPattern::HotCold { hot_fraction, hot_share } => {
                // At least one block in each region, where the range has two.
                let hot = ((blocks as f64 * hot_fraction) as u64).clamp(1, blocks.saturating_sub(1).max(1));
                let block = if blocks <= hot || rng.uniform() < hot_share { rng.below(hot) } else { hot + rng.below(blocks - hot) };
                block.min(slots - 1) * self.align
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
        for p in [
            AddressPattern::Uniform,
            AddressPattern::Sequential { random_start: false },
            AddressPattern::Zipf(0.9),
            AddressPattern::HotCold { hot_fraction: 0.2, hot_share: 0.8 },
        ] {
            let mut g = AddressGen::new(p.clone(), 1 << 20, 4096, 0).unwrap();
            for _ in 0..10_000 {
                let off = g.next(8192, &mut r);
                assert_eq!(off % 4096, 0, "{p:?}");
                assert!(off + 8192 <= 1 << 20, "{p:?} {off}");
            }
        }
        let mut s = AddressGen::new(AddressPattern::Sequential { random_start: false }, 1 << 20, 4096, 0).unwrap();
        assert_eq!((s.next(4096, &mut r), s.next(4096, &mut r)), (0, 4096));
    }

    #[test]
    fn hot_cold_sends_its_share_to_the_hot_region_uniformly() {
        let mut r = RngStream::from_seed(3);
        let range = 1000 * 4096;
        let mut g = AddressGen::new(AddressPattern::HotCold { hot_fraction: 0.2, hot_share: 0.8 }, range, 4096, 0).unwrap();
        let n = 100_000;
        let offs: Vec<u64> = (0..n).map(|_| g.next(4096, &mut r)).collect();
        let hot = offs.iter().filter(|&&o| o < 200 * 4096).count() as f64 / n as f64;
        assert!((hot - 0.8).abs() < 0.01, "hot share {hot}");
        // Uniform within each region: the hot region's halves, and the cold region's, alike.
        let count = |lo: u64, hi: u64| offs.iter().filter(|&&o| o >= lo * 4096 && o < hi * 4096).count() as f64;
        assert!((count(0, 100) / count(100, 200) - 1.0).abs() < 0.05);
        assert!((count(200, 600) / count(600, 1000) - 1.0).abs() < 0.05);
        assert!(offs.iter().all(|&o| o + 4096 <= range));
    }
}
