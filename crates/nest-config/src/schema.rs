//! The scenario schema (version 1), exactly as users write it. Every struct denies unknown
//! fields. Quantities with units are strings (`"2us"`, `"4KiB"`, `"100Gbps"`) parsed during
//! resolution, so the error can quote what was written. User documentation: docs/scenario.md.

use serde::Deserialize;

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
    #[serde(default)]
    pub output: OutputConfig,
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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "snake_case")]
pub enum DeviceConfig {
    /// k parallel servers with a service-time distribution per operation (SPEC: the "ideal
    /// device" used to isolate host and network effects before the SSD model).
    Ideal(IdealDeviceConfig),
    /// The MQSim-class SSD behind an NVMe controller (SPEC §5–6).
    Ssd(Box<SsdDeviceConfig>),
    /// Persistent memory / SCM (SPEC §7).
    Pm(PmDeviceConfig),
}

impl DeviceConfig {
    pub fn name(&self) -> &str {
        match self {
            DeviceConfig::Ideal(d) => &d.name,
            DeviceConfig::Ssd(d) => &d.name,
            DeviceConfig::Pm(d) => &d.name,
        }
    }
    pub fn server(&self) -> Option<&str> {
        match self {
            DeviceConfig::Ideal(d) => d.server.as_deref(),
            DeviceConfig::Ssd(d) => d.server.as_deref(),
            DeviceConfig::Pm(d) => d.server.as_deref(),
        }
    }
}

/// A value given once for every page type or once per page type (LSB, CSB, MSB, …).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SsdDeviceConfig {
    pub name: String,
    /// The storage server (a host of the topology) this device sits in; absent = attached
    /// to every host directly.
    #[serde(default)]
    pub server: Option<String>,
    /// A named drive (`nestsim presets`); the tables below override its fields.
    #[serde(default)]
    pub preset: Option<String>,
    #[serde(default)]
    pub geometry: Option<SsdGeometryConfig>,
    #[serde(default)]
    pub flash: Option<FlashConfig>,
    #[serde(default)]
    pub ftl: Option<FtlConfig>,
    #[serde(default)]
    pub cache: Option<CacheConfig>,
    #[serde(default)]
    pub host_interface: Option<HostInterfaceConfig>,
    #[serde(default)]
    pub nvme: Option<NvmeConfig>,
    #[serde(default)]
    pub scheduler: Option<SchedulerConfig>,
    #[serde(default)]
    pub precondition: Option<PreconditionConfig>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SsdGeometryConfig {
    pub channels: Option<u32>,
    pub chips_per_channel: Option<u32>,
    pub dies_per_chip: Option<u32>,
    pub planes_per_die: Option<u32>,
    pub blocks_per_plane: Option<u32>,
    pub pages_per_block: Option<u32>,
    pub page_size: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FlashConfig {
    /// slc | mlc | tlc | qlc
    pub cell: Option<String>,
    pub read: Option<OneOrMany>,
    pub program: Option<OneOrMany>,
    pub erase: Option<String>,
    pub command: Option<String>,
    /// Channel transfer rate in MT/s and bus width in bytes.
    pub channel_rate: Option<u32>,
    pub channel_width: Option<u32>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    pub overprovisioning: Option<f64>,
    /// Cached mapping table size ("2MiB"), or "all" for the whole table in DRAM.
    pub cmt: Option<String>,
    /// A static order of C/W/D/P ("CWDP") or "dynamic".
    pub allocation: Option<String>,
    /// greedy | random | rga | fifo
    pub gc_policy: Option<String>,
    pub rga_d: Option<u32>,
    pub gc_soft: Option<f64>,
    pub gc_hard: Option<f64>,
    pub copyback: Option<bool>,
    /// GC work yields to user I/O unless a plane is below the hard threshold.
    pub gc_preemptible: Option<bool>,
    pub dynamic_wear_levelling: Option<bool>,
    /// Erase-count spread that triggers static wear levelling; 0 disables it.
    pub static_wear_levelling: Option<u32>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// off | write | read | write_read
    pub mode: Option<String>,
    pub capacity: Option<String>,
    /// DRAM transfer rate (MT/s) and burst width (bytes).
    pub dram_rate: Option<u32>,
    pub dram_burst: Option<u32>,
    pub t_rcd: Option<String>,
    pub t_cl: Option<String>,
    pub flush_reserve: Option<f64>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct HostInterfaceConfig {
    pub pcie_lanes: Option<u32>,
    /// Per-lane bandwidth ("1GB/s", "8Gbps").
    pub lane_bandwidth: Option<String>,
    /// Commands the controller holds at once.
    pub queue_depth: Option<u32>,
    pub command_overhead: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct NvmeConfig {
    /// rr (round robin over all submission queues, no QoS) | wrr (urgent strict + weighted
    /// round robin over High/Medium/Low).
    pub arbitration: Option<String>,
    pub weights: Option<Vec<u32>>,
    pub burst: Option<u32>,
    /// Depth of each submission queue.
    pub sq_depth: Option<u32>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SchedulerConfig {
    /// Device-level QoS: per-class queues at every die, urgent + WRR (thesis Fig 4.6).
    pub device_qos: Option<bool>,
    pub weights: Option<Vec<u32>>,
    /// Program/erase suspension: off | program | erase | program_erase.
    pub suspend: Option<String>,
    /// Time the die takes to suspend a program / an erase.
    pub suspend_program_latency: Option<String>,
    pub suspend_erase_latency: Option<String>,
    /// Suspend only operations with at least this much left.
    pub suspend_program_min_remaining: Option<String>,
    pub suspend_erase_min_remaining_read: Option<String>,
    pub suspend_erase_min_remaining_write: Option<String>,
    /// Suspensions one operation may take.
    pub suspend_max_per_operation: Option<u32>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct PreconditionConfig {
    /// Fraction of the logical space holding data before time 0.
    pub occupancy: Option<f64>,
    /// Random overwrites before time 0, in multiples of the occupied pages (1.0 ≈ steady state).
    pub overwrites: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmDeviceConfig {
    pub name: String,
    /// The storage server (a host of the topology) this device sits in; absent = attached
    /// to every host directly.
    #[serde(default)]
    pub server: Option<String>,
    #[serde(default)]
    pub capacity: Option<String>,
    /// Media access latency of a read / write.
    #[serde(default)]
    pub read: Option<String>,
    #[serde(default)]
    pub write: Option<String>,
    /// Extra latency drawn uniformly in [0, jitter].
    #[serde(default)]
    pub jitter: Option<String>,
    #[serde(default)]
    pub read_bandwidth: Option<String>,
    #[serde(default)]
    pub write_bandwidth: Option<String>,
    /// Access granularity: sizes round up to whole lines (64 B cache line, 256 B media line).
    #[serde(default)]
    pub line: Option<String>,
    /// Independent units (interleaved modules) serving requests in parallel.
    #[serde(default)]
    pub units: Option<u32>,
    #[serde(default)]
    pub queue_depth: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdealDeviceConfig {
    pub name: String,
    /// The storage server (a host of the topology) this device sits in; absent = attached
    /// to every host directly.
    #[serde(default)]
    pub server: Option<String>,
    /// Parallel servers (1 = a single FIFO server).
    #[serde(default)]
    pub servers: Option<u32>,
    pub read: TimeDistConfig,
    pub write: TimeDistConfig,
    /// Optional transfer component: size / bandwidth is added to each service time.
    #[serde(default)]
    pub read_bandwidth: Option<String>,
    #[serde(default)]
    pub write_bandwidth: Option<String>,
    /// Addressable capacity ("1TiB" by default); workloads default to this range.
    #[serde(default)]
    pub capacity: Option<String>,
    /// Maximum requests queued (waiting + in service); the host holds the rest.
    #[serde(default)]
    pub queue_depth: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "dist", rename_all = "snake_case")]
pub enum TimeDistConfig {
    Fixed { value: String },
    Exp { mean: String },
    Uniform { min: String, max: String },
    Lognormal { mean: String, cv: f64 },
    Empirical { values: Vec<String>, weights: Vec<f64> },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    pub name: String,
    /// The topology host this host's NIC is (default: the topology host of the same name).
    #[serde(default)]
    pub node: Option<String>,
    /// Requests a host keeps outstanding at devices; the rest wait in its class queues.
    #[serde(default)]
    pub queue_depth: Option<u32>,
    /// A host cache between this host's workloads and its storage (docs/fussycache.md).
    #[serde(default)]
    pub cache: Option<HostCacheConfig>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeConfig {
    pub name: String,
    /// single | stripe | replicate
    pub layout: String,
    pub devices: Vec<String>,
    /// stripe: bytes per device before moving to the next (a multiple of 4 KiB).
    #[serde(default)]
    pub stripe_unit: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostCacheConfig {
    /// lru | arc | sarc | fussy | fussy-qos
    pub algorithm: String,
    /// Capacity as bytes ("64MiB") …
    #[serde(default)]
    pub size: Option<String>,
    /// … or in 4 KiB blocks.
    #[serde(default)]
    pub blocks: Option<u64>,
    /// through (default) | allocate
    #[serde(default)]
    pub write_miss: Option<String>,
    #[serde(default)]
    pub freq_threshold: Option<u32>,
    #[serde(default)]
    pub access_threshold: Option<u32>,
    #[serde(default)]
    pub hr_count: Option<u32>,
    #[serde(default)]
    pub warmup: Option<u32>,
    #[serde(default)]
    pub dmc_size: Option<u64>,
    #[serde(default)]
    pub lru_fallback: Option<bool>,
    #[serde(default)]
    pub prefetch_degree: Option<u32>,
    #[serde(default)]
    pub urgent_share: Option<f64>,
    #[serde(default)]
    pub rebalance_every: Option<u32>,
    /// Per-operation costs overriding the measured defaults.
    #[serde(default)]
    pub costs: Option<CacheCostConfig>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheCostConfig {
    #[serde(default)]
    pub lookup: Option<String>,
    #[serde(default)]
    pub dm: Option<String>,
    #[serde(default)]
    pub mdm: Option<String>,
    #[serde(default)]
    pub copy: Option<String>,
}

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
    Poisson { rate_iops: Option<f64>, bandwidth: Option<String> },
    Constant { rate_iops: Option<f64>, bandwidth: Option<String> },
    /// Closed loop: keep `outstanding` requests in flight.
    Burst { outstanding: u32 },
    /// 2-phase MMPP given directly: arrival rates per phase and phase-leaving rates (per second).
    Mmpp { rates: [f64; 2], switch: [f64; 2] },
    /// 2-phase MMPP fitted to inter-arrival statistics (mean gap, SCV, skewness, lag-1).
    MmppFit { mean_gap: String, scv: f64, skewness: f64, lag1: f64 },
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
    Sequential,
    Zipf { theta: f64 },
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
    #[serde(default)]
    pub trace_device: Option<u64>,
    #[serde(default)]
    pub reorder_window: Option<usize>,
    #[serde(default)]
    pub skip_invalid: Option<bool>,
    #[serde(default)]
    pub max_records: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FioConfig {
    pub path: String,
    /// Only this job section (all jobs when absent).
    #[serde(default)]
    pub job: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputConfig {
    /// Write requests.parquet (one row per request); default true.
    pub requests: Option<bool>,
    /// Write timeseries.parquet; default true.
    pub timeseries: Option<bool>,
    /// Also write fio-style JSON (fio.json); default false.
    pub fio_json: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkConfig {
    /// dumbbell | fat_tree | clos | graph
    pub topology: String,
    /// Every link's rate and one-way propagation delay, unless a graph link says otherwise.
    pub link_rate: Option<String>,
    pub link_delay: Option<String>,
    /// IP MTU in bytes (1500 or 9000); the TCP segment is MTU − header.
    pub mtu: Option<u32>,
    /// Link-layer bytes per frame: "ethernet" (38: header, FCS, preamble, gap), "ppp" (2, as
    /// ns-3's point-to-point links) or a number.
    pub framing: Option<toml::Value>,
    /// dumbbell: senders `s0…` and receivers `r0…` on switch `sw0`.
    pub senders: Option<u32>,
    pub receivers: Option<u32>,
    /// fat_tree: k (even); k³/4 hosts `h0…`.
    pub k: Option<u32>,
    /// clos: pods × (leaves, tors, hosts_per_tor) + spines (SRC: 4 × (2, 4, 16) + 2).
    pub pods: Option<u32>,
    pub leaves: Option<u32>,
    pub tors: Option<u32>,
    pub hosts_per_tor: Option<u32>,
    pub spines: Option<u32>,
    /// graph: explicit nodes and links.
    #[serde(default, rename = "node")]
    pub nodes: Vec<NodeConfig>,
    #[serde(default, rename = "link")]
    pub links: Vec<LinkConfig>,
    #[serde(default)]
    pub switch: SwitchConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
    #[serde(default)]
    pub qtcp: QtcpConfig,
    #[serde(default)]
    pub dcqcn: DcqcnConfig,
    /// Sample every egress port's queue into the time series (default: switch ports only).
    pub sample_ports: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    pub name: String,
    /// host | switch
    pub kind: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub a: String,
    pub b: String,
    pub rate: Option<String>,
    pub delay: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchConfig {
    /// Shared packet buffer per switch ("4MiB").
    pub buffer: Option<String>,
    /// Part of the buffer reserved for urgent packets ("64KiB").
    pub urgent_reserve: Option<String>,
    /// step (DCTCP, K) | red (Kmin, Kmax, Pmax) | none
    pub ecn: Option<String>,
    /// Thresholds: a number of packets (65) or a size ("97KB").
    pub ecn_k: Option<toml::Value>,
    pub ecn_kmin: Option<toml::Value>,
    pub ecn_kmax: Option<toml::Value>,
    pub ecn_pmax: Option<f64>,
    /// Lossless fabric with PFC.
    pub pfc: Option<bool>,
    pub pfc_xoff: Option<String>,
    pub pfc_xon: Option<String>,
    /// ACKs and CNPs in the strict-priority control queue (default true).
    pub control_priority: Option<bool>,
    /// Strict priority for the urgent class (default true).
    pub urgent_priority: Option<bool>,
    /// Host NICs mark ECN with the same rule (default false).
    pub nic_ecn: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    pub g: Option<f64>,
    pub alpha_init: Option<f64>,
    pub init_cwnd: Option<u32>,
    pub min_cwnd: Option<u32>,
    pub delayed_ack: Option<u32>,
    pub delayed_ack_timeout: Option<String>,
    pub min_rto: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QtcpConfig {
    /// Weight of the old value in the throughput/latency EWMAs (default 15/16).
    pub gamma: Option<f64>,
    /// Bottleneck bandwidth the class shares divide (default: the link rate × goodput share).
    pub bottleneck: Option<String>,
    pub interference: Option<bool>,
    pub sigma: Option<f64>,
}

/// DCQCN/QRDMA reaction and notification point parameters (defaults: the DCQCN authors' set).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcqcnConfig {
    pub g: Option<f64>,
    pub alpha_period: Option<String>,
    pub rate_timer: Option<String>,
    /// Bytes per byte-counter event ("300KB"; "0" = off).
    pub byte_counter: Option<String>,
    pub cnp_interval: Option<String>,
    pub fast_recovery_steps: Option<u32>,
    pub rate_ai: Option<String>,
    pub rate_hai: Option<String>,
    pub min_rate: Option<String>,
    pub clamp_target: Option<bool>,
    pub initial_rate: Option<String>,
    /// RoCE retransmission timeout floor (NIC local-ACK timeout).
    pub min_rto: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    pub name: String,
    /// Source and destination host names of the topology.
    pub src: String,
    pub dst: String,
    pub class: String,
    /// dctcp | qtcp | d2tcp | dcqcn | qrdma
    pub transport: String,
    pub start: Option<String>,
    /// Stop producing data (default: the run's duration).
    pub stop: Option<String>,
    /// Message size ("2MB"); absent = long-lived.
    pub size: Option<String>,
    /// Offered load of a rate-limited application ("3Gbps").
    pub rate: Option<String>,
    /// D2TCP deadline after `start`.
    pub deadline: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NvmeofConfig {
    /// Transport of every class's connections: dctcp | qtcp | d2tcp | dcqcn | qrdma (default dctcp).
    pub transport: Option<String>,
    /// Per-class transport overrides by class name ({ urgent = "qrdma" }).
    #[serde(default)]
    pub class_transport: std::collections::BTreeMap<String, String>,
    /// Command capsule bytes (NVMe/TCP: 8 B PDU header + 64 B SQE = 72).
    pub command_capsule: Option<String>,
    /// Completion capsule bytes (8 B PDU header + 16 B CQE = 24).
    pub completion_capsule: Option<String>,
    /// Header bytes of a data PDU (H2C/C2H data: 24).
    pub data_header: Option<String>,
    /// Target software time per received command (its FIFO request queue), per completion
    /// (its response queue), and the host's time per completion.
    pub target_overhead: Option<String>,
    pub response_overhead: Option<String>,
    pub host_overhead: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QosConfig {
    /// Each: "follow" (default), "ignore", or a table { CLASS = "OTHER CLASS", ... }.
    pub host: Option<toml::Value>,
    pub network: Option<toml::Value>,
    pub transport: Option<toml::Value>,
    pub nvme: Option<toml::Value>,
    pub device: Option<toml::Value>,
}
