//! What a scenario resolves to, section by section: plain data, checked and in the model's
//! units. Apart from the resolvers (`resolve`) so that a coordinator kind, which reads the
//! plans of the other sections, does not depend on their resolution.

pub mod cache;
pub mod e2e;
pub mod network;
pub mod volume;
pub mod workload;

use nest_core::class::Priority;
use nest_core::SimTime;
use nest_workload::dist::TimeDist;

#[derive(Debug, Clone)]
pub struct RunPlan {
    pub seed: u64,
    pub duration: Option<SimTime>,
    pub warmup: SimTime,
    pub wrapup: SimTime,
    pub interval: SimTime,
    pub drain: bool,
    pub max_time: SimTime,
    /// How long the drain may last after `duration` (None: no duration, no drain, or "none").
    pub drain_limit: Option<SimTime>,
}

#[derive(Debug, Clone)]
pub struct ClassPlan {
    pub name: String,
    pub priority: Priority,
    /// Throughput share relative to the other classes (QTCP targets).
    pub ratio: f64,
    /// Latency-centric class: the smoothed-RTT target of its QTCP flows.
    pub latency_target: Option<SimTime>,
}

#[derive(Debug, Clone)]
pub struct IdealDevicePlan {
    pub servers: u32,
    pub read: TimeDist,
    pub write: TimeDist,
    pub read_bps: Option<f64>,
    pub write_bps: Option<f64>,
    pub queue_depth: u32,
}

/// NVMe submission-queue arbitration of a device's controller.
#[derive(Debug, Clone, PartialEq)]
pub struct NvmePlan {
    /// Urgent + WRR over High/Medium/Low; false = plain round robin over every SQ (no QoS).
    pub wrr: bool,
    pub weights: [u32; 3],
    pub burst: u32,
    pub sq_depth: u32,
    /// SRC's separate read/write SQs with this write weight w (read weight 1), instead of the
    /// per-(host, level) SQs.
    pub split: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct SsdPlan {
    pub params: nest_ssd::SsdParams,
    pub nvme: NvmePlan,
}

#[derive(Debug, Clone)]
pub struct PmPlan {
    pub params: nest_pm::PmParams,
}

#[derive(Debug, Clone)]
pub enum DeviceKindPlan {
    Ideal(IdealDevicePlan),
    Ssd(Box<SsdPlan>),
    Pm(PmPlan),
}

#[derive(Debug, Clone)]
pub struct DevicePlan {
    pub name: String,
    pub capacity: u64,
    pub kind: DeviceKindPlan,
}

#[derive(Debug, Clone)]
pub struct HostPlan {
    pub name: String,
    pub queue_depth: u32,
    pub cache: Option<cache::CachePlan>,
    /// An I/O unanswered this long fails (or is retried on another replica), and its device is
    /// taken as dead from then on.
    pub io_timeout: SimTime,
}

/// The default I/O timeout: Linux's `nvme_core.io_timeout`.
pub const DEFAULT_IO_TIMEOUT: SimTime = SimTime::from_ms(30_000);

#[derive(Debug, Clone)]
pub struct OutputPlan {
    pub requests: bool,
    pub timeseries: bool,
    pub timeseries_rows: nest_core::stats::series::Rows,
    pub fio_json: bool,
}
