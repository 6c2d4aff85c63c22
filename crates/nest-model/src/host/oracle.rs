//! HoD's look-ahead (PLMC §III-C: "we can count precisely how many requests will happen in the
//! next window for our trace-based experiments and supply that to PLMC"): a second copy of each
//! workload a HoD host runs on its pool — the same generator and seed, or the same trace — read
//! ahead of the run to count the 4 KiB read counts each host will issue in a coming window.
//! Only open-loop and trace arrivals can be read ahead (checked at resolution).

use crate::workload::WorkloadRt;
use nest_core::SimTime;
use nest_workload::Op;

pub struct DemandOracle {
    /// (the host's index in its coordinator's order, the copy, its next arrival).
    sources: Vec<(usize, WorkloadRt, Option<SimTime>)>,
}

impl DemandOracle {
    /// `copies`: (host index in the coordinator's order, a fresh copy of one of its workloads).
    pub fn new(copies: Vec<(usize, WorkloadRt)>) -> Result<DemandOracle, String> {
        let mut sources = Vec::with_capacity(copies.len());
        for (j, mut w) in copies {
            let next = w.advance()?;
            sources.push((j, w, next));
        }
        Ok(DemandOracle { sources })
    }

    /// The read counts each host issues in [from, to) into `out` (one per host); arrivals before
    /// `from` are passed over (windows only move forward).
    pub fn demand(&mut self, from: SimTime, to: SimTime, out: &mut [u64]) -> Result<(), String> {
        out.fill(0);
        for (j, w, next) in &mut self.sources {
            while let Some(t) = *next {
                if t >= to {
                    break;
                }
                let io = w.take_io();
                if t >= from && io.op == Op::Read {
                    out[*j] += nest_ssd::plm::read_counts(io.size as u64);
                }
                *next = w.advance()?;
            }
        }
        Ok(())
    }
}
