//! `[[device]]`: ideal, SSD (geometry, flash timing, FTL, cache, host interface, NVMe, scheduler,
//! preconditioning) and PM devices.

use serde::Deserialize;

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
    /// "mqsim": MQSim's model choices (the `model` table's switches, suspension off); `model`
    /// keys still override them.
    #[serde(default)]
    pub compat: Option<String>,
    #[serde(default)]
    pub model: Option<ModelConfig>,
    /// NVM sets: the channels split into this many groups, each with its own LBA range.
    #[serde(default)]
    pub nvm_sets: Option<u32>,
    /// How the sets sit on the flash: "channels" (default: each set its own channels) or
    /// "shared-dies" (equal address ranges striped over the whole drive, as PLMC's MQSim runs).
    #[serde(default)]
    pub nvm_set_layout: Option<String>,
    /// Predictable Latency Mode on some NVM sets (docs/plm.md).
    #[serde(default)]
    pub plm: Option<PlmConfig>,
}

/// `[device.plm]`: which NVM sets run Predictable Latency Mode and their attributes (thesis
/// Table 3.1; defaults and their sources in docs/plm.md).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct PlmConfig {
    /// Indices of the sets with PLM; absent = every set.
    pub sets: Option<Vec<u32>>,
    /// C_RD: 4 KiB reads per DTWin; absent = no read budget.
    pub c_rd: Option<u64>,
    /// C_WR: optimal-size writes per DTWin; absent = no write budget.
    pub c_wr: Option<u64>,
    pub t_dw: Option<String>,
    pub t_ndwh: Option<String>,
    pub t_ndwl: Option<String>,
    pub t_nd_max: Option<String>,
    pub optimal_write_size: Option<String>,
    pub nv_buffer: Option<String>,
    pub nd_delay_mean: Option<String>,
}

/// The model switches where MQSim differs from NeSt's default (nest_ssd::switches).
/// An address domain (`[[device.model.domains]]`): from byte `start` on, its pages are striped
/// over these channels, chips, dies and planes (every one of a kind when a list is absent).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainConfig {
    pub start: u64,
    pub channels: Option<Vec<u32>>,
    pub chips: Option<Vec<u32>>,
    pub dies: Option<Vec<u32>>,
    pub planes: Option<Vec<u32>>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    pub die_interleave: Option<bool>,
    pub command_waits_for_channel: Option<bool>,
    pub multiplane_same_page: Option<bool>,
    pub data_out_per_page: Option<bool>,
    pub mapping_out_first: Option<bool>,
    pub multiplane_across_classes: Option<bool>,
    /// page | written
    pub program_transfer: Option<String>,
    /// translation_page | entry
    pub cmt_granularity: Option<String>,
    pub cmt_entry_bytes: Option<u32>,
    pub map_entry_bytes: Option<u32>,
    /// flash | never
    pub mapping_writes: Option<String>,
    /// page | clean_cached_sectors
    pub merge_read: Option<String>,
    pub evicted_entry_misfiled: Option<bool>,
    pub unwritten_read_maps: Option<bool>,
    /// lazy | eager
    pub destage: Option<String>,
    /// alternate | first
    pub gc_precedence: Option<String>,
    pub hot_window: Option<String>,
    /// When the hot window starts over: "grid" or "after_write" (MQSim).
    pub hot_reset: Option<String>,
    /// A command's submission entry over the link, queued with write data (MQSim).
    pub sqe_over_pcie: Option<bool>,
    /// Write-backs in flight at most, in pages; 0 = no limit.
    pub writeback_limit_pages: Option<u32>,
    /// linear | mqsim_rows
    pub dram_timing: Option<String>,
    /// command | page
    pub write_admission: Option<String>,
    /// tlp256 | mqsim_tlp128
    pub pcie_framing: Option<String>,
    /// full_blocks | mqsim
    pub rga_sampling: Option<String>,
    /// Free blocks per plane below which GC starts at the least (0: `ftl.gc_soft` alone).
    pub gc_floor_blocks: Option<u32>,
    /// GC's thresholds truncated to whole blocks, as MQSim converts them (MQSim); else rounded up.
    pub gc_thresholds_truncated: Option<bool>,
    /// A GC job waits for the user reads in flight on its victim before moving pages (MQSim).
    pub gc_waits_for_user_reads: Option<bool>,
    /// A translation page's write-back makes its dirty cached entries the most recently used (MQSim).
    pub writeback_refreshes_siblings: Option<bool>,
    /// Pages taken at dispatch to the die's queue (MQSim) rather than at the program's start.
    pub pages_at_dispatch: Option<bool>,
    /// Byte offsets where MQSim's per-stream address domains start (the importer's, per flow).
    pub mapping_domains: Option<Vec<u64>>,
    /// Address ranges on flash resources of their own (MQSim's per-flow `Channel_IDs` …
    /// `Plane_IDs`).
    pub domains: Option<Vec<DomainConfig>>,
    /// How device-level QoS picks among High, Medium and Low: "credits" or "mqsim".
    pub class_wrr: Option<String>,
    /// GC jobs a plane runs at once at most (MQSim: 10).
    pub gc_jobs_per_plane: Option<u32>,
    /// GC's page reads before its writes and erases (MQSim).
    pub gc_reads_first: Option<bool>,
    /// A CMT of the full capacity per MQSim flow (MQSim's bug).
    pub cmt_per_domain: Option<bool>,
    /// Write frontiers open from the start, replaced at once when full (MQSim).
    pub open_frontiers: Option<bool>,
    /// User programs ride with GC programs on other planes (MQSim).
    pub gc_user_partners: Option<bool>,
    /// A write-back to an LPA a running GC job has locked is lost (MQSim's bug).
    pub gc_lock_loses_writebacks: Option<bool>,
    /// A chip's GC erases wait until no GC read or write is queued (MQSim).
    pub gc_erases_last: Option<bool>,
    /// Which type each page of a block is: "modulo" or MQSim's TLC map ("mqsim").
    pub page_types: Option<String>,
    /// Mapping reads timed at the translation page's own page type (MQSim).
    pub map_page_offsets: Option<bool>,
    /// Channel transfers in MQSim's whole nanoseconds per two transfers (MQSim's bug).
    pub channel_whole_ns: Option<bool>,
    /// A step's transactions all queued before any channel is offered a command (MQSim).
    pub schedule_after_submit: Option<bool>,
    /// Each submission offers every idle channel its chips, as MQSim's `Schedule()` walks them.
    pub walk_idle_channels: Option<bool>,
    /// Preconditioning leaves every plane's frontiers on fresh blocks (MQSim).
    pub precondition_closes_frontiers: Option<bool>,
    /// Preconditioning lays pages out by MQSim's mean-field steady state (MQSim).
    pub mean_field_layout: Option<bool>,
    /// GC starts only at MQSim's checks: a block taken, an erase below the GC floor (MQSim).
    pub gc_at_block_takes: Option<bool>,
    /// A GC move brings its page's mapping entry into the CMT, dirty (MQSim).
    pub gc_moves_enter_cmt: Option<bool>,
    /// Static wear levelling checked after every erase by block numbers (MQSim's bug).
    pub static_wl_block_ids: Option<bool>,
    /// User reads ride in GC read batches at their page offset (MQSim).
    pub gc_read_partners: Option<bool>,
    /// Mapping reads take GC or user reads at their page offset into their batch (MQSim).
    pub map_read_partners: Option<bool>,
    /// A user read of a GC-locked LPA never completes (MQSim's bug).
    pub gc_lock_hangs_reads: Option<bool>,
    /// MQSim's GC generator seed for RGA's draws (the drive's `Seed` + 1).
    pub gc_seed: Option<i32>,
    /// User write frontiers per address domain (MQSim's per-flow frontiers).
    pub stream_frontiers: Option<bool>,
    /// Per address domain, bytes MQSim's flow start lies past a page boundary (MQSim's bug).
    pub segment_skews: Option<Vec<u64>>,
    /// ONFI command phases in MQSim's NV-DDR2 times, holding the channel (MQSim).
    pub onfi_command_phases: Option<bool>,
    /// GC's reads, writes and erases in multi-plane batches (MQSim).
    pub gc_multiplane: Option<bool>,
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
    /// Row size and precharge: used by MQSim's row formula only (`model.dram_timing`).
    pub dram_row: Option<String>,
    pub t_rp: Option<String>,
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
    /// ssq: the write weight w (read weight 1), an integer ≥ 1 (default 1).
    pub write_weight: Option<u32>,
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
    /// The write cache starts dirty up to its flush threshold (a write-bound drive's state).
    pub dirty_cache: Option<bool>,
    /// Hot/cold overwrites: this fraction of the logical space (its start) …
    pub hot_fraction: Option<f64>,
    /// … takes this share of them (both or neither).
    pub hot_share: Option<f64>,
    /// The share of the mapping cache preconditioning fills with the entries of pages it wrote:
    /// one for every address domain, or one per domain (MQSim's warm-up).
    pub cmt_warm: Option<Shares>,
    /// Write the pages the drive's synthetic workloads will draw, in their order (MQSim's).
    pub from_workloads: Option<bool>,
    /// MQSim's drive `Seed`: its warm-up walk's draws (with `from_workloads`).
    pub walk_seed: Option<i32>,
}

/// A share given once for every address domain or once per domain.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged, expecting = "precondition.cmt_warm: a share of the mapping cache (0 to 1), or a list of them")]
pub enum Shares {
    One(f64),
    Many(Vec<f64>),
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
