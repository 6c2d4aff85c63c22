//! A workload at run time: a synthetic generator or a streaming trace, bound to its host,
//! device and class, with its own conservation books.

use nest_config::resolve::{Priority, SourcePlan, WorkloadPlan};
use nest_core::conservation::Conservation;
use nest_core::SimTime;
use nest_core::{DeviceId, HostId};
use nest_workload::synthetic::SyntheticWorkload;
use nest_workload::trace::{TraceRecord, TraceSource, TraceStats};
use nest_workload::IoDesc;

pub enum Source {
    /// Open-loop synthetic: `last` is the time of the previous arrival.
    Open { gen: SyntheticWorkload, last: Option<SimTime> },
    /// Closed-loop synthetic: keep `target` requests outstanding.
    Closed { gen: SyntheticWorkload, target: u32 },
    /// Trace replay with a one-record lookahead.
    Trace { src: Box<TraceSource>, next: Option<TraceRecord>, start: SimTime, stop: Option<SimTime> },
}

pub struct WorkloadRt {
    pub name: String,
    pub host: HostId,
    pub device: DeviceId,
    /// The volume it targets (its requests are split into device parts).
    pub volume: Option<u32>,
    pub class: u16,
    pub prio: Priority,
    pub source: Source,
    pub in_flight: u32,
    pub wake_pending: bool,
    pub books: Conservation,
}

impl WorkloadRt {
    pub fn new(plan: &WorkloadPlan, prio: Priority, index: u64, seed: u64, run_stop: Option<SimTime>) -> Result<Self, String> {
        let source = match &plan.source {
            SourcePlan::Synthetic(spec) => {
                let gen = SyntheticWorkload::new(spec.clone(), seed, index).map_err(|e| format!("workload '{}': {e}", plan.name))?;
                match spec.arrival.outstanding() {
                    Some(n) => Source::Closed { gen, target: n },
                    None => Source::Open { gen, last: None },
                }
            }
            SourcePlan::Trace { path, format, opts } => {
                let src = TraceSource::open(path, *format, opts.clone()).map_err(|e| e.to_string())?;
                Source::Trace { src: Box::new(src), next: None, start: SimTime::ZERO, stop: run_stop }
            }
        };
        Ok(WorkloadRt {
            name: plan.name.clone(),
            host: HostId(plan.host as u32),
            device: DeviceId(plan.device as u32),
            volume: plan.volume.map(|v| v as u32),
            class: plan.class as u16,
            prio,
            source,
            in_flight: 0,
            wake_pending: false,
            books: Conservation::default(),
        })
    }

    /// For open-loop and trace sources: pulls the next arrival time (reading the trace), or
    /// `None` when the source is exhausted.
    pub fn advance(&mut self) -> Result<Option<SimTime>, String> {
        match &mut self.source {
            Source::Open { gen, last } => {
                let t = gen.next_arrival(*last);
                *last = t;
                Ok(t)
            }
            Source::Trace { src, next, start, stop } => {
                *next = src.next_record().map_err(|e| e.to_string())?;
                Ok(match next {
                    Some(r) => {
                        let t = *start + r.time;
                        if stop.is_some_and(|s| t >= s) {
                            *next = None;
                            None
                        } else {
                            Some(t)
                        }
                    }
                    None => None,
                })
            }
            Source::Closed { .. } => Ok(None),
        }
    }

    /// The I/O of the arrival that is due now (open-loop, trace) or the next closed-loop one.
    pub fn take_io(&mut self) -> IoDesc {
        match &mut self.source {
            Source::Open { gen, .. } | Source::Closed { gen, .. } => gen.make_io(),
            Source::Trace { next, .. } => {
                let r = next.expect("a trace wake-up always has a record");
                IoDesc { op: r.op, offset: r.offset, size: r.size }
            }
        }
    }

    pub fn trace_stats(&self) -> Option<TraceStats> {
        match &self.source {
            Source::Trace { src, .. } => Some(src.stats()),
            _ => None,
        }
    }
}
