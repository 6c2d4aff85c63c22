//! The scenario schema (version 1), exactly as users write it. Every struct denies unknown
//! fields. Quantities with units are strings (`"2us"`, `"4KiB"`, `"100Gbps"`) parsed during
//! resolution, so the error can quote what was written. One file per section; everything is
//! re-exported here. User documentation: docs/scenario.md.

use serde::Deserialize;

mod device;
mod e2e;
mod host;
mod network;
mod workload;

pub use device::*;
pub use e2e::*;
pub use host::*;
pub use network::*;
pub use workload::*;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Schema version; must be 1.
    pub schema: u32,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub run: RunConfig,
    /// QoS classes; when absent: urgent, high, medium, low, best_effort.
    #[serde(default, rename = "class")]
    pub classes: Vec<ClassConfig>,
    #[serde(default, rename = "device")]
    pub devices: Vec<DeviceConfig>,
    /// Hosts; when absent, one host `host0` with the default queue depth.
    #[serde(default, rename = "host")]
    pub hosts: Vec<HostConfig>,
    /// Logical volumes over devices (single, striped, replicated); a workload may target one.
    #[serde(default, rename = "volume")]
    pub volumes: Vec<VolumeConfig>,
    #[serde(default, rename = "workload")]
    pub workloads: Vec<WorkloadConfig>,
    /// The packet-level fabric (SPEC §4); absent = no network.
    #[serde(default)]
    pub network: Option<NetworkConfig>,
    /// Transport flows across the fabric.
    #[serde(default, rename = "flow")]
    pub flows: Vec<FlowConfig>,
    /// NVMe-oF between hosts and the storage servers their devices sit in (docs/e2e.md).
    #[serde(default)]
    pub nvmeof: NvmeofConfig,
    /// How each layer of the path treats the class tag (thesis 4.4.3): follow it, ignore it,
    /// or apply its own mapping (uncoordinated QoS).
    #[serde(default)]
    pub qos: QosConfig,
    /// QoS coordinators (PLMC, SRC, Haechi…; `crate::coordinator`).
    #[serde(default, rename = "coordinator")]
    pub coordinators: Vec<crate::coordinator::CoordinatorConfig>,
    /// Faults injected during the run (docs/faults.md).
    #[serde(default, rename = "fault")]
    pub faults: Vec<FaultConfig>,
    #[serde(default)]
    pub output: OutputConfig,
    /// Haechi's clients and data nodes on the `[network]` (`resolve::haechi`; docs/haechi.md).
    #[serde(default)]
    pub haechi: Option<crate::haechi::HaechiSpec>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    pub seed: Option<u64>,
    /// Window in which synthetic workloads generate arrivals ("100ms").
    pub duration: Option<String>,
    /// Requests arriving in the first `warmup` ("10ms" or "10%" of duration) are not counted.
    pub warmup: Option<String>,
    /// Requests arriving in the last `wrapup` are not counted.
    pub wrapup: Option<String>,
    /// Time-series interval ("1ms").
    pub interval: Option<String>,
    /// After arrivals stop, run until every request completes (default true).
    pub drain: Option<bool>,
    /// Hard stop, whatever is still in flight (no limit by default).
    pub max_time: Option<String>,
    /// How long a drain may last after `duration` ("none": until `max_time`); default 100 ×
    /// the duration, at least 10 s and 10 × the longest host I/O timeout (issue 63: a drain
    /// that never ends is bounded by default).
    pub drain_limit: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassConfig {
    pub name: String,
    /// urgent | high | medium | low | best_effort
    pub priority: String,
    /// Throughput share relative to the other classes (QTCP targets; default high 3,
    /// medium 2, low 1, urgent 1, best effort 1).
    #[serde(default)]
    pub ratio: Option<f64>,
    /// Latency-centric class: the target its QTCP flows steer their smoothed RTT to ("200us").
    #[serde(default)]
    pub latency_target: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputConfig {
    /// Write requests.parquet (one row per request); default true.
    pub requests: Option<bool>,
    /// Write timeseries.parquet; default true.
    pub timeseries: Option<bool>,
    /// Which intervals of a sampled state (queue, window, rate) get a row: "interval" (every
    /// one, the default) or "change" (only where the value changed; read forward-filled).
    pub timeseries_rows: Option<String>,
    /// Also write fio-style JSON (fio.json); default false.
    pub fio_json: Option<bool>,
}
