//! A synthetic workload: an arrival process, a read/write mix, size distributions and an
//! address pattern, active between `start` and `stop` and optionally only during the "on"
//! part of an on/off cycle (transient congestion episodes, SPEC §3).
//!
//! Four independent random streams (arrivals, op choice, sizes, addresses) so that changing,
//! say, the size distribution does not change the arrival times.

use crate::address::{AddressGen, AddressPattern};
use crate::arrival::{ArrivalSpec, ArrivalState};
use crate::dist::SizeDist;
use crate::mqsim_draws::{MqsimDraws, MqsimFlow};
use crate::request::{IoDesc, Op};
use nest_core::rng::RngStream;
use nest_core::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticSpec {
    pub arrival: ArrivalSpec,
    pub read_fraction: f64,
    pub read_size: SizeDist,
    pub write_size: SizeDist,
    pub address: AddressPattern,
    pub range_bytes: u64,
    /// First byte of the range (disjoint ranges per flow, as MQSim gives them).
    pub range_start: u64,
    pub align: u32,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    /// (on, off) durations of the activity cycle, starting "on" at `start`.
    pub on_off: Option<(SimTime, SimTime)>,
    /// Stop after issuing this many I/Os (fio's `size=`/`number_ios=`).
    pub max_ios: Option<u64>,
    /// Requests (and Poisson gaps) drawn as MQSim draws them, from its seed (`mqsim_draws`);
    /// the range then starts at the flow's first sector.
    pub mqsim: Option<MqsimFlow>,
}

pub struct SyntheticWorkload {
    spec: SyntheticSpec,
    arrivals: ArrivalState,
    rng_arrival: RngStream,
    rng_op: RngStream,
    rng_size: RngStream,
    rng_addr: RngStream,
    addr: AddressGen,
    mqsim: Option<MqsimDraws>,
    issued: u64,
}

impl SyntheticSpec {
    /// Mean request size in bytes over its mix of reads and writes.
    pub fn mean_size(&self) -> f64 {
        self.read_fraction * self.read_size.mean() + (1.0 - self.read_fraction) * self.write_size.mean()
    }

    /// The payload it offers over [`from`, `to`), bits per second, when that is known in
    /// advance: an open-loop process active for the whole interval (its on/off duty cycle
    /// counted); `None` for a closed loop, an I/O budget, or a start or stop inside the interval.
    pub fn offered_bps(&self, from: SimTime, to: SimTime) -> Option<f64> {
        let rate = self.arrival.mean_rate()?;
        if self.max_ios.is_some() || self.start > from || self.stop.is_some_and(|s| s < to) {
            return None;
        }
        let size = self.mean_size();
        let duty = match self.on_off {
            Some((on, off)) => on.0 as f64 / (on.0 + off.0).max(1) as f64,
            None => 1.0,
        };
        Some(rate * size * 8.0 * duty)
    }
}

impl SyntheticWorkload {
    pub fn new(spec: SyntheticSpec, seed: u64, index: u64) -> Result<Self, String> {
        let mut rng_arrival = RngStream::derive(seed, "workload", index, "arrivals");
        // A stream's first offset, on a stream of its own so the other draws stay as they were.
        let start = match spec.address {
            AddressPattern::Sequential { random_start: true } => {
                let align = spec.align.max(1) as u64;
                RngStream::derive(seed, "workload", index, "stream-start").below((spec.range_bytes / align).max(1)) * align
            }
            _ => 0,
        };
        let addr = AddressGen::new(spec.address.clone(), spec.range_bytes, spec.align, start)?;
        let mqsim = spec.mqsim.as_ref().map(|f| MqsimDraws::new(f, spec.read_fraction, &spec.address)).transpose()?;
        Ok(SyntheticWorkload {
            mqsim,
            arrivals: ArrivalState::new(spec.arrival.clone(), &mut rng_arrival),
            rng_arrival,
            rng_op: RngStream::derive(seed, "workload", index, "ops"),
            rng_size: RngStream::derive(seed, "workload", index, "sizes"),
            rng_addr: RngStream::derive(seed, "workload", index, "addresses"),
            addr,
            spec,
            issued: 0,
        })
    }

    pub fn spec(&self) -> &SyntheticSpec {
        &self.spec
    }

    /// Closed-loop depth, if this is a burst workload.
    pub fn outstanding(&self) -> Option<u32> {
        self.spec.arrival.outstanding()
    }

    /// The earliest time ≥ `t` at which this workload may issue, or `None` when it is finished.
    pub fn gate(&self, t: SimTime) -> Option<SimTime> {
        if self.spec.max_ios.is_some_and(|m| self.issued >= m) {
            return None;
        }
        let t = t.max(self.spec.start);
        let t = match self.spec.on_off {
            Some((on, off)) if on.0 > 0 && off.0 > 0 => {
                let period = on.0 + off.0;
                let phase = (t.0 - self.spec.start.0) % period;
                if phase < on.0 {
                    t
                } else {
                    SimTime(t.0 + (period - phase))
                }
            }
            _ => t,
        };
        match self.spec.stop {
            Some(stop) if t >= stop => None,
            _ => Some(t),
        }
    }

    /// For open-loop workloads: the next arrival after the one at `prev` (or the first, with
    /// `None`). Off periods pause the process: the gap is drawn and then pushed past the pause.
    pub fn next_arrival(&mut self, prev: Option<SimTime>) -> Option<SimTime> {
        let base = prev.unwrap_or(self.spec.start);
        let gap = match self.mqsim.as_mut().and_then(|m| m.next_gap_ns()) {
            // MQSim's BANDWIDTH gaps (its first one too, from the start).
            Some(ns) if matches!(self.spec.arrival, ArrivalSpec::Poisson { .. }) => SimTime::from_ns(ns),
            _ => self.arrivals.next_gap(&mut self.rng_arrival)?,
        };
        let t = if prev.is_none() && matches!(self.spec.arrival, ArrivalSpec::Constant { .. }) {
            base // constant rate starts at `start`
        } else {
            base.saturating_add(gap)
        };
        self.gate(t)
    }

    /// Draws the next I/O and counts it as issued.
    pub fn make_io(&mut self) -> IoDesc {
        self.issued += 1;
        if let Some(m) = self.mqsim.as_mut() {
            let r = m.next_request();
            let first = self.spec.mqsim.as_ref().map_or(0, |f| f.first_sector);
            let op = if r.read { Op::Read } else { Op::Write };
            let size = r.sectors * 512;
            // MQSim's drive holds a few more logical pages than NeSt's (`mqsim_draws`): a
            // request drawn past the range ends at its end.
            let offset = ((r.sector - first) * 512).min(self.spec.range_bytes.saturating_sub(size as u64));
            return IoDesc { op, offset: self.spec.range_start + offset, size };
        }
        let op = if self.rng_op.uniform() < self.spec.read_fraction { Op::Read } else { Op::Write };
        let size = match op {
            Op::Read => self.spec.read_size.sample(&mut self.rng_size),
            Op::Write => self.spec.write_size.sample(&mut self.rng_size),
        }
        .max(1);
        let offset = self.spec.range_start + self.addr.next(size, &mut self.rng_addr);
        IoDesc { op, offset, size }
    }

    pub fn issued(&self) -> u64 {
        self.issued
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SyntheticSpec {
        SyntheticSpec {
            arrival: ArrivalSpec::Poisson { rate: 100_000.0 },
            read_fraction: 0.7,
            read_size: SizeDist::Fixed(4096),
            write_size: SizeDist::Fixed(8192),
            address: AddressPattern::Uniform,
            range_bytes: 1 << 30,
            range_start: 0,
            align: 4096,
            start: SimTime::from_ms(1),
            stop: Some(SimTime::from_ms(11)),
            on_off: Some((SimTime::from_ms(2), SimTime::from_ms(3))),
            max_ios: None,
            mqsim: None,
        }
    }

    #[test]
    fn arrivals_respect_start_stop_and_off_periods() {
        let mut w = SyntheticWorkload::new(spec(), 1, 0).unwrap();
        let mut t = None;
        let mut n = 0;
        let mut reads = 0;
        while let Some(a) = w.next_arrival(t) {
            assert!(a >= SimTime::from_ms(1) && a < SimTime::from_ms(11));
            let phase = (a.0 - SimTime::from_ms(1).0) % SimTime::from_ms(5).0;
            assert!(phase < SimTime::from_ms(2).0, "arrival in an off period at {a}");
            if w.make_io().op == Op::Read {
                reads += 1;
            }
            n += 1;
            t = Some(a);
        }
        // 10 ms window, on 2 of every 5 ms → ~4 ms on at 100k/s ≈ 400 arrivals.
        assert!((330..470).contains(&n), "{n}");
        assert!((reads as f64 / n as f64 - 0.7).abs() < 0.1);
    }

    #[test]
    fn same_seed_same_requests_and_max_ios_stops() {
        let mut s = spec();
        s.max_ios = Some(5);
        let mut a = SyntheticWorkload::new(s.clone(), 9, 3).unwrap();
        let mut b = SyntheticWorkload::new(s, 9, 3).unwrap();
        for _ in 0..5 {
            assert_eq!(a.make_io(), b.make_io());
        }
        assert!(a.gate(SimTime::from_ms(1)).is_none());
    }

    /// A stream starts at the range's start, or with `random_start` at an aligned offset the
    /// seed picks (MQSim's STREAMING), and goes on in order from there.
    #[test]
    fn a_stream_starts_where_its_seed_says_when_asked() {
        let first_two = |random_start: bool, seed: u64| {
            let mut s = spec();
            s.address = AddressPattern::Sequential { random_start };
            let mut w = SyntheticWorkload::new(s, seed, 0).unwrap();
            let (a, b) = (w.make_io(), w.make_io());
            (a.offset, b.offset - a.offset)
        };
        assert_eq!(first_two(false, 1).0, 0);
        assert_eq!(first_two(false, 2).0, 0);
        let starts: Vec<u64> = (1..6).map(|seed| first_two(true, seed).0).collect();
        assert!(starts.iter().all(|&o| o % 4096 == 0 && o < 1 << 30), "{starts:?}");
        assert!(starts.windows(2).any(|w| w[0] != w[1]), "{starts:?}");
        assert_eq!(first_two(true, 3), first_two(true, 3), "the same seed, the same start");
        let step = first_two(true, 1).1;
        assert!(step == 4096 || step == 8192, "in order from there: {step}");
    }
}
