//! A workload's plan: where it runs, what it targets, and its source (synthetic or a trace).

use nest_workload::synthetic::SyntheticSpec;
use nest_workload::trace::{TraceFormat, TraceOptions};
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub enum SourcePlan {
    Synthetic(SyntheticSpec),
    Trace { path: PathBuf, format: TraceFormat, opts: TraceOptions },
}

#[derive(Debug, Clone)]
pub struct WorkloadPlan {
    pub name: String,
    pub host: usize,
    /// The device it targets, or the first device of its volume.
    pub device: usize,
    /// The volume it targets, if it names one instead of a device.
    pub volume: Option<usize>,
    pub class: usize,
    pub source: SourcePlan,
}
