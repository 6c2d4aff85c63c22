//! `[[workload]]`: synthetic arrivals, sizes and addresses, on/off periods, trace replay, fio jobs.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadConfig {
    pub name: String,
    #[serde(default)]
    pub host: Option<String>,
    pub device: String,
    #[serde(default)]
    pub class: Option<String>,
    // --- synthetic ---
    #[serde(default)]
    pub arrival: Option<ArrivalConfig>,
    /// Size of every request (or of reads and writes alike).
    #[serde(default)]
    pub size: Option<SizeConfig>,
    #[serde(default)]
    pub read_size: Option<SizeConfig>,
    #[serde(default)]
    pub write_size: Option<SizeConfig>,
    #[serde(default)]
    pub read_fraction: Option<f64>,
    #[serde(default)]
    pub address: Option<AddressConfig>,
    /// Address range ("10GiB"); defaults to the device capacity (minus `range_start`).
    #[serde(default)]
    pub range: Option<String>,
    /// Where the range starts on the device ("0" by default).
    #[serde(default)]
    pub range_start: Option<String>,
    #[serde(default)]
    pub align: Option<String>,
    #[serde(default)]
    pub start: Option<String>,
    #[serde(default)]
    pub stop: Option<String>,
    #[serde(default)]
    pub on_off: Option<OnOffConfig>,
    #[serde(default)]
    pub max_ios: Option<u64>,
    /// Requests drawn as MQSim draws them (compat; the MQSim importer sets it).
    #[serde(default)]
    pub mqsim_draws: Option<MqsimDrawsConfig>,
    // --- trace replay ---
    #[serde(default)]
    pub trace: Option<TraceConfig>,
    // --- fio job file ---
    #[serde(default)]
    pub fio: Option<FioConfig>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "snake_case")]
pub enum ArrivalConfig {
    /// Exponential gaps; give `rate_iops` or `bandwidth` (converted with the mean size).
    Poisson {
        rate_iops: Option<f64>,
        bandwidth: Option<String>,
    },
    Constant {
        rate_iops: Option<f64>,
        bandwidth: Option<String>,
    },
    /// Closed loop: keep `outstanding` requests in flight.
    Burst {
        outstanding: u32,
    },
    /// 2-phase MMPP given directly: arrival rates per phase and phase-leaving rates (per second).
    Mmpp {
        rates: [f64; 2],
        switch: [f64; 2],
    },
    /// 2-phase MMPP fitted to inter-arrival statistics (mean gap, SCV, skewness, lag-1).
    MmppFit {
        mean_gap: String,
        scv: f64,
        skewness: f64,
        lag1: f64,
    },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "dist", rename_all = "snake_case")]
pub enum SizeConfig {
    Fixed { bytes: String },
    Exp { mean: String, align: Option<String>, min: Option<String>, max: Option<String> },
    UniformBlocks { min: u32, max: u32, block: Option<String> },
    Empirical { values: Vec<String>, weights: Vec<f64> },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "pattern", rename_all = "snake_case")]
pub enum AddressConfig {
    Uniform,
    /// `random_start`: from a seeded uniform offset in the range (MQSim's `STREAMING`), not its start.
    Sequential {
        #[serde(default)]
        random_start: bool,
    },
    Zipf {
        theta: f64,
    },
    Hotcold {
        hot_fraction: f64,
        hot_share: f64,
    },
}

/// MQSim's flow as its generators see it (`nest_workload::mqsim_draws::MqsimFlow`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MqsimDrawsConfig {
    pub seed: i32,
    pub first_sector: u64,
    pub last_sector: u64,
    pub logical_pages: u64,
    pub size_sectors: u32,
    #[serde(default)]
    pub size_sd: Option<f64>,
    #[serde(default)]
    pub align_sectors: Option<u64>,
    #[serde(default)]
    pub gap_ns: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffConfig {
    pub on: String,
    pub off: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    pub path: String,
    pub format: String,
    #[serde(default)]
    pub time_scale: Option<f64>,
    /// Unit of bare times for formats where it varies: "ns", "us", "ms", "s".
    #[serde(default)]
    pub time_unit: Option<String>,
    #[serde(default)]
    pub offset_shift: Option<String>,
    /// Wrap offsets into this range (defaults to the device capacity when `wrap = true`).
    #[serde(default)]
    pub wrap: Option<bool>,
    /// An offset past this is first taken modulo it (MQSim's trace flow: `Start_LBA % (end − start)`).
    #[serde(default)]
    pub wrap_at: Option<String>,
    #[serde(default)]
    pub trace_device: Option<u64>,
    #[serde(default)]
    pub reorder_window: Option<usize>,
    #[serde(default)]
    pub skip_invalid: Option<bool>,
    #[serde(default)]
    pub max_records: Option<u64>,
    /// Times the whole trace is replayed (MQSim's `Relay_Count`).
    #[serde(default)]
    pub repeat: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FioConfig {
    pub path: String,
    /// Only this job section (all jobs when absent).
    #[serde(default)]
    pub job: Option<String>,
}
