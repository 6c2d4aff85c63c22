//! Every parameter of the SSD model, with the checks that make a configuration runnable.
//! Presets (presets.rs) fill these; the scenario file and the MQSim importer override them.

pub use crate::preconditioning::{Precondition, Replay};
use crate::switches::ModelSwitches;
use nest_core::SimTime;

/// Flash array shape (MQSim's Flash_Channel_Count, Chip_No_Per_Channel, Die_No_Per_Chip, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    /// Bytes of user data per page.
    pub page_size: u32,
}

impl Geometry {
    pub fn chips(&self) -> u32 {
        self.channels * self.chips_per_channel
    }
    pub fn dies(&self) -> u32 {
        self.chips() * self.dies_per_chip
    }
    pub fn planes(&self) -> u32 {
        self.dies() * self.planes_per_die
    }
    pub fn blocks(&self) -> u64 {
        self.planes() as u64 * self.blocks_per_plane as u64
    }
    pub fn pages(&self) -> u64 {
        self.blocks() * self.pages_per_block as u64
    }
}

/// Cell type: bits per cell decide how many page types (LSB/CSB/MSB/...) a wordline has.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    Slc = 1,
    Mlc = 2,
    Tlc = 3,
    Qlc = 4,
}

impl Cell {
    pub fn from_name(s: &str) -> Option<Cell> {
        Some(match s.to_ascii_lowercase().as_str() {
            "slc" => Cell::Slc,
            "mlc" => Cell::Mlc,
            "tlc" => Cell::Tlc,
            "qlc" => Cell::Qlc,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        ["", "slc", "mlc", "tlc", "qlc"][self as usize]
    }
    pub fn bits(self) -> u32 {
        self as u32
    }
}

/// Flash array timing. Page type `i` of a block's page `p` is `p % bits_per_cell` (MQSim's
/// alternation of LSB/CSB/MSB pages), so reads and programs of different pages take different
/// times on MLC/TLC/QLC.
#[derive(Clone, Debug, PartialEq)]
pub struct FlashTiming {
    pub cell: Cell,
    /// tR per page type (LSB, CSB, MSB, 4th).
    pub read: [SimTime; 4],
    /// tPROG per page type.
    pub program: [SimTime; 4],
    /// tBERS.
    pub erase: SimTime,
    /// Command/address phase and ready/busy overhead added to every die operation.
    pub command: SimTime,
    /// Channel (ONFI bus) transfer rate in MT/s and width in bytes.
    pub channel_mts: u32,
    pub channel_width: u32,
}

impl FlashTiming {
    /// The array's operations — tR, tPROG, tBERS and the command phase — `factor` times longer,
    /// the channel as it is: a fail-slow die (read retries and longer program/verify loops of
    /// worn cells, or thermal throttling) slows the array, not the bus.
    pub fn scaled(&self, factor: f64) -> FlashTiming {
        let s = |t: SimTime| SimTime((t.0 as f64 * factor).round() as u64);
        FlashTiming { read: self.read.map(s), program: self.program.map(s), erase: s(self.erase), command: s(self.command), ..self.clone() }
    }

    /// Time to move `bytes` over one channel: bytes / width / rate.
    #[inline]
    pub fn channel_time(&self, bytes: u64) -> SimTime {
        // 1e6 ps per µs / MT/s = ps per transfer.
        SimTime(bytes * 1_000_000 / (self.channel_width as u64 * self.channel_mts as u64))
    }
}

/// How logical pages are spread over planes. `Static(order)`: the LPA's digits in the order
/// given (first letter varies fastest: "CWDP" = channel, then way/chip, die, plane) fix its
/// plane, as MQSim's 24 static schemes do. `Dynamic`: a write goes to the plane of the die with
/// the fewest queued transactions (channel-first tie-break), so the plane of a page changes.
#[derive(Clone, Debug, PartialEq)]
pub enum Allocation {
    Static([u8; 4]),
    Dynamic,
}

impl Allocation {
    pub fn parse(s: &str) -> Option<Allocation> {
        let up = s.to_ascii_uppercase();
        if up == "DYNAMIC" {
            return Some(Allocation::Dynamic);
        }
        let b = up.as_bytes();
        if b.len() != 4 {
            return None;
        }
        let mut order = [0u8; 4];
        for (i, c) in b.iter().enumerate() {
            order[i] = match c {
                b'C' => 0,
                b'W' => 1,
                b'D' => 2,
                b'P' => 3,
                _ => return None,
            };
        }
        let mut seen = [false; 4];
        for &o in &order {
            if seen[o as usize] {
                return None;
            }
            seen[o as usize] = true;
        }
        Some(Allocation::Static(order))
    }
    pub fn name(&self) -> String {
        match self {
            Allocation::Dynamic => "dynamic".into(),
            Allocation::Static(o) => o.iter().map(|&i| ['C', 'W', 'D', 'P'][i as usize]).collect(),
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VictimPolicy {
    /// Fewest valid pages.
    Greedy,
    /// Uniformly random full block.
    Random,
    /// Randomized greedy: the fewest valid pages among `d` random full blocks.
    Rga,
    /// The block that was closed first.
    Fifo,
}

impl VictimPolicy {
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s.to_ascii_lowercase().as_str() {
            "greedy" => VictimPolicy::Greedy,
            "random" => VictimPolicy::Random,
            "rga" => VictimPolicy::Rga,
            "fifo" => VictimPolicy::Fifo,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            VictimPolicy::Greedy => "greedy",
            VictimPolicy::Random => "random",
            VictimPolicy::Rga => "rga",
            VictimPolicy::Fifo => "fifo",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FtlParams {
    /// Fraction of physical pages hidden from the host.
    pub overprovisioning: f64,
    /// Cached mapping table size in bytes; it caches whole translation pages (page_size / 4
    /// entries each). `None` = the whole table in DRAM (no mapping reads).
    pub cmt_bytes: Option<u64>,
    pub allocation: Allocation,
    pub victim: VictimPolicy,
    /// Sample size of RGA.
    pub rga_d: u32,
    /// Soft GC starts when a plane's free blocks fall below this fraction of its blocks; it is
    /// background work, scheduled below user I/O, and may be deferred (PLM's DTWin).
    pub gc_soft: f64,
    /// Below this fraction GC is urgent: never deferred, scheduled before user I/O.
    pub gc_hard: f64,
    /// Move valid pages inside the die without crossing the channel.
    pub copyback: bool,
    /// Preemptible GC: GC work yields to user I/O (it runs when the die has nothing else, or
    /// first once a plane is below the hard threshold). Non-preemptible (MQSim's stock
    /// setting): a started job's work alternates with user I/O at its die, one batch each.
    pub gc_preemptible: bool,
    /// Dynamic wear levelling: take the least-erased free block.
    pub dynamic_wl: bool,
    /// Static wear levelling: when a plane's erase-count spread reaches this, migrate its
    /// coldest block. `None` disables it.
    pub static_wl_threshold: Option<u32>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CacheMode {
    Off,
    Write,
    Read,
    WriteRead,
}

impl CacheMode {
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s.to_ascii_lowercase().as_str() {
            "off" | "turned_off" => CacheMode::Off,
            "write" | "write_cache" => CacheMode::Write,
            "read" | "read_cache" => CacheMode::Read,
            "write_read" | "write_read_cache" => CacheMode::WriteRead,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            CacheMode::Off => "off",
            CacheMode::Write => "write",
            CacheMode::Read => "read",
            CacheMode::WriteRead => "write_read",
        }
    }
    pub fn writes(self) -> bool {
        matches!(self, CacheMode::Write | CacheMode::WriteRead)
    }
    pub fn reads(self) -> bool {
        matches!(self, CacheMode::Read | CacheMode::WriteRead)
    }
}

/// DRAM data cache: page-sized slots, LRU; one DRAM channel whose access costs
/// tRCD + tCL + bytes / burst / 2 / rate (double data rate).
#[derive(Clone, Debug, PartialEq)]
pub struct CacheParams {
    pub mode: CacheMode,
    pub capacity: u64,
    pub dram_mts: u32,
    pub dram_burst: u32,
    pub t_rcd: SimTime,
    pub t_cl: SimTime,
    /// Row size and precharge time: used only by MQSim's row formula (`DramTiming::MqsimRows`).
    pub row_bytes: u32,
    pub t_rp: SimTime,
    /// Write-back starts when free + clean slots fall below this fraction of the cache.
    pub flush_reserve: f64,
}

/// Host interface (PCIe) and the controller's command slots.
#[derive(Clone, Debug, PartialEq)]
pub struct HostIfParams {
    pub pcie_lanes: u32,
    /// Bytes per second per lane.
    pub lane_bytes_per_s: f64,
    /// Commands the controller holds at once (fetched from SQs); the rest wait in the SQs,
    /// which is where NVMe arbitration acts.
    pub queue_depth: u32,
    /// Controller processing per command (fetch, decode, completion posting).
    pub command_overhead: SimTime,
}

impl HostIfParams {
    /// PCIe payload time; 24 B of TLP header per 256 B payload.
    #[inline]
    pub fn transfer_time(&self, bytes: u64) -> SimTime {
        let wire = bytes + bytes.div_ceil(256) * 24;
        SimTime((wire as f64 / (self.pcie_lanes as f64 * self.lane_bytes_per_s) * 1e12).round() as u64)
    }
}

/// Device-level QoS (thesis 4.4.2, Fig 4.6): per-class transaction queues at every die,
/// urgent strict then WRR over High/Medium/Low. Off: one FIFO per kind, class ignored.
#[derive(Clone, Debug, PartialEq)]
pub struct SchedParams {
    pub device_qos: bool,
    pub weights: [u32; 3],
    pub suspend: SuspendParams,
}

impl Default for SchedParams {
    fn default() -> Self {
        SchedParams { device_qos: false, weights: [3, 2, 1], suspend: SuspendParams::default() }
    }
}

/// Program/erase suspension (MQSim's `CMD_Suspension_Support`, Wu & He, FAST'12): a read that
/// reaches a die busy with a long program or erase — or, for an erase, a write — suspends it,
/// is served, and the operation resumes with the time it had left. One operation is
/// suspended per die at a time; a suspension serves one batch, then the operation resumes.
#[derive(Clone, Debug, PartialEq)]
pub struct SuspendParams {
    pub program: bool,
    pub erase: bool,
    /// Time the die takes to suspend (tPSPD, tESPD); the suspending command starts after it.
    pub program_latency: SimTime,
    pub erase_latency: SimTime,
    /// Suspend only an operation with at least this much left (MQSim's
    /// `Preferred_suspend_write_time_for_read`, `Preferred_suspend_erase_time_for_read/_write`):
    /// close to its end, waiting is cheaper than suspending.
    pub program_min_remaining: SimTime,
    pub erase_min_remaining_read: SimTime,
    pub erase_min_remaining_write: SimTime,
    /// Suspensions one operation may take. Parts bound this (an operation resumed only to be
    /// suspended again by the next arrival would never finish: GC would starve under a read
    /// stream); MQSim has no bound.
    pub max_per_op: u32,
}

impl Default for SuspendParams {
    /// Off; the latencies of a public NAND timing set (5 µs program, 20 µs erase suspend).
    fn default() -> Self {
        SuspendParams {
            program: false,
            erase: false,
            program_latency: SimTime::from_us(5),
            erase_latency: SimTime::from_us(20),
            program_min_remaining: SimTime::ZERO,
            erase_min_remaining_read: SimTime::ZERO,
            erase_min_remaining_write: SimTime::ZERO,
            max_per_op: 2,
        }
    }
}

impl SuspendParams {
    /// off, program, erase or program_erase (the importer maps MQSim's NONE to off).
    pub fn set_kinds(&mut self, s: &str) -> bool {
        (self.program, self.erase) = match s {
            "off" => (false, false),
            "program" => (true, false),
            "erase" => (false, true),
            "program_erase" => (true, true),
            _ => return false,
        };
        true
    }
    pub fn kinds(&self) -> &'static str {
        match (self.program, self.erase) {
            (false, false) => "off",
            (true, false) => "program",
            (false, true) => "erase",
            (true, true) => "program_erase",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SsdParams {
    pub geometry: Geometry,
    pub timing: FlashTiming,
    pub ftl: FtlParams,
    pub cache: CacheParams,
    pub host: HostIfParams,
    pub sched: SchedParams,
    pub precondition: Option<Precondition>,
    /// Where MQSim's model differs from NeSt's default (see `switches`).
    pub model: ModelSwitches,
    /// NVM sets: the channels split into this many equal groups, each with its own share of
    /// the logical space (an equal LBA range) and its own blocks, so sets do not share dies,
    /// channels or GC (NVMe 1.4; thesis 3.2). 1 = the whole drive is one set.
    pub nvm_sets: u32,
    /// The sets are address ranges striped over the whole drive instead (they share dies,
    /// channels and GC): PLMC's MQSim set-up, where the pool's copies were address ranges of one
    /// drive (PLMC §IV-A; SPEC §13.6).
    pub nvm_sets_share_dies: bool,
    /// Predictable Latency Mode on some NVM sets (`plm`), or `None`.
    pub plm: Option<PlmParams>,
}

/// Predictable Latency Mode: which NVM sets have it and their DTWin attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct PlmParams {
    /// The sets with PLM enabled (indices below `nvm_sets`).
    pub sets: Vec<u32>,
    pub attrs: crate::plm::PlmAttrs,
}

pub const MAX_PLANES_PER_DIE: u32 = 16;
/// Most NVM sets that share a drive's dies (address ranges; NVMe allows 65,535 sets, a pool
/// uses two or three).
pub const MAX_SHARED_SETS: u32 = 64;
/// Dies (LUNs) per chip at most: real packages have up to 8; the chip-level scheduler keeps a
/// 64-bit set of a chip's dies.
pub const MAX_DIES_PER_CHIP: u32 = 64;

impl SsdParams {
    /// Logical pages the host can address.
    pub fn logical_pages(&self) -> u64 {
        let per_plane = (self.geometry.blocks_per_plane as u64 * self.geometry.pages_per_block as u64) as f64 * (1.0 - self.ftl.overprovisioning);
        per_plane.floor() as u64 * self.geometry.planes() as u64
    }
    pub fn capacity(&self) -> u64 {
        self.logical_pages() * self.geometry.page_size as u64
    }
    /// The memory the drive's tables take when built and filled (bytes, an upper estimate): per
    /// physical page its reverse map entry; per block its state and free-list entry; per
    /// logical page its mapping entry (the map fills as the drive is written or preconditioned)
    /// and the CMT's bit; per cache slot its page, state, class, write stamp and two LRU links;
    /// per translation page its waiting list head and flags. Checked before a run, so a
    /// geometry or cache typo is refused instead of exhausting the machine.
    pub fn memory_bytes(&self) -> u64 {
        let g = &self.geometry;
        let blocks = g.planes() as u64 * g.blocks_per_plane as u64;
        let physical = blocks * g.pages_per_block as u64;
        let logical = self.logical_pages();
        let translation_pages = logical.div_ceil((g.page_size / self.model.map_entry_bytes.max(1)).max(1) as u64);
        let block_bytes = std::mem::size_of::<crate::block::Block>() as u64 + 4;
        // CMT slots of single entries (Entry granularity): LRU links, dirty bit, slot entry.
        let cmt_units = self.cmt_units();
        // Per translation page: its waiting-list head and dirty flag, and its LRU links once used.
        physical * 4 + blocks * block_bytes + logical * 4 + logical / 8 + self.cache_slots() as u64 * 32 + translation_pages * 15 + cmt_units * 16
    }
    /// What the drive holds before it is written, when it is not preconditioned (then
    /// [`memory_bytes`](Self::memory_bytes): preconditioning fills the tables). Blocks, the free
    /// lists, the GC indexes' places and the maps' chunks are created as pages are written, so an
    /// idle drive costs its cache's and CMT's arrays, the maps' chunk directories (8 B per 64 Ki
    /// logical pages per map) and its translation pages' entries. The block records' and GC
    /// indexes' directories are created with their first chunk. What the workloads write later
    /// is watched by the run's memory budget.
    pub fn memory_bytes_at_start(&self) -> u64 {
        if self.precondition.as_ref().is_some_and(|p| p.occupancy > 0.0) {
            return self.memory_bytes();
        }
        let g = &self.geometry;
        let logical = self.logical_pages();
        let translation_pages = logical.div_ceil((g.page_size / self.model.map_entry_bytes.max(1)).max(1) as u64);
        let cmt_units = self.cmt_units();
        let maps = if self.cache.mode == CacheMode::Off { 1 } else { 2 };
        maps * logical.div_ceil(128 * 512) * 8 + self.cache_slots() as u64 * 32 + translation_pages * 6 + cmt_units * 16
    }
    /// Slots the CMT keeps for single entries (`Entry` granularity). With translation pages
    /// (DFTL-style, the default) its state is per translation page and counted with them — it
    /// was counted as `cmt_bytes / cmt_entry_bytes` units, 3.7 MB for the stock drive's 2 MiB
    /// CMT against ~0.4 MB built.
    fn cmt_units(&self) -> u64 {
        match (self.ftl.cmt_bytes, self.model.cmt_granularity) {
            (None, _) => 0,
            (Some(_), crate::switches::CmtGranularity::TranslationPage) => 0,
            (Some(b), crate::switches::CmtGranularity::Entry) => (b / self.model.cmt_entry_bytes.max(1) as u64).min(u32::MAX as u64 / 2),
        }
    }
    pub fn cache_slots(&self) -> u32 {
        if self.cache.mode == CacheMode::Off {
            0
        } else {
            (self.cache.capacity / self.geometry.page_size as u64).min(u32::MAX as u64 / 2) as u32
        }
    }
    pub fn soft_free_blocks(&self) -> u32 {
        self.soft_by_fraction().max(self.model.gc_floor_blocks)
    }
    fn soft_by_fraction(&self) -> u32 {
        self.blocks_of(self.ftl.gc_soft).max(3)
    }
    /// `fraction` of a plane's blocks, rounded up or truncated (`gc_thresholds_truncated`).
    fn blocks_of(&self, fraction: f64) -> u32 {
        let b = fraction * self.geometry.blocks_per_plane as f64;
        (if self.model.gc_thresholds_truncated { b.floor() } else { b.ceil() }) as u32
    }
    /// MQSim's model choices for this drive (`compat = "mqsim"`).
    pub fn mqsim_switches(&self) -> ModelSwitches {
        ModelSwitches::mqsim(self.geometry.pages(), self.geometry.page_size, self.geometry.planes())
    }
    pub fn hard_free_blocks(&self) -> u32 {
        self.blocks_of(self.ftl.gc_hard).clamp(2, self.soft_free_blocks())
    }

    /// Every problem as (key, what was expected).
    pub fn validate(&self) -> Vec<(String, String)> {
        let mut e = Vec::new();
        let g = &self.geometry;
        let mut need = |k: &str, ok: bool, msg: &str| {
            if !ok {
                e.push((k.to_string(), msg.to_string()));
            }
        };
        for (k, v) in [
            ("geometry.channels", g.channels),
            ("geometry.chips_per_channel", g.chips_per_channel),
            ("geometry.dies_per_chip", g.dies_per_chip),
            ("geometry.planes_per_die", g.planes_per_die),
            ("geometry.pages_per_block", g.pages_per_block),
        ] {
            need(k, v >= 1, "expected at least 1");
        }
        need("geometry.planes_per_die", g.planes_per_die <= MAX_PLANES_PER_DIE, "expected at most 16");
        need("geometry.dies_per_chip", g.dies_per_chip <= MAX_DIES_PER_CHIP, "expected at most 64");
        need("geometry.blocks_per_plane", g.blocks_per_plane >= 8, "expected at least 8 (GC needs spare blocks)");
        need("geometry.page_size", g.page_size >= 512 && g.page_size.is_multiple_of(512), "expected a multiple of 512 bytes");
        // In u64 with overflow checked: the bounds above are reported, not enforced, so a die
        // or plane count of 2^31 still reaches here (nest-fuzz found it).
        let pages = [g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die, g.blocks_per_plane, g.pages_per_block]
            .iter()
            .try_fold(1u64, |a, &x| a.checked_mul(x as u64));
        need("geometry", pages.is_some_and(|p| p < (1u64 << 31)), "expected fewer than 2^31 physical pages in total");
        let op = self.ftl.overprovisioning;
        need("ftl.overprovisioning", op > 0.0 && op < 0.9, "expected a fraction in (0, 0.9): GC needs spare pages");
        need("ftl.gc_soft", self.ftl.gc_soft > 0.0 && self.ftl.gc_soft < 0.5, "expected a fraction in (0, 0.5)");
        need("ftl.gc_hard", self.ftl.gc_hard >= 0.0 && self.ftl.gc_hard <= self.ftl.gc_soft, "expected a fraction in [0, gc_soft]");
        need("ftl.rga_d", self.ftl.rga_d >= 1, "expected at least 1");
        need(
            "ftl.gc_soft",
            // The fraction's; MQSim's floor (`model.gc_floor_blocks`) may exceed the spare
            // blocks, as it does in MQSim (GC then runs whenever a block has a stale page).
            (self.soft_by_fraction() as f64) < g.blocks_per_plane as f64 * op,
            "expected the soft threshold below the over-provisioned blocks of a plane",
        );
        if let Some(c) = self.ftl.cmt_bytes {
            need("ftl.cmt", c >= g.page_size as u64, "expected at least one page");
        }
        let t = &self.timing;
        need("timing.channel_rate", t.channel_mts >= 1, "expected at least 1 MT/s");
        need("timing.channel_width", t.channel_width >= 1, "expected at least 1 byte");
        for i in 0..t.cell.bits() as usize {
            need("timing.read", t.read[i].0 > 0, "expected a positive read latency for every page type");
            need("timing.program", t.program[i].0 > 0, "expected a positive program latency for every page type");
        }
        need("timing.erase", t.erase.0 > 0, "expected a positive erase latency");
        if self.cache.mode != CacheMode::Off {
            need("cache.capacity", self.cache.capacity >= 16 * g.page_size as u64, "expected at least 16 pages");
            need("cache.dram_rate", self.cache.dram_mts >= 1, "expected at least 1 MT/s");
            need("cache.dram_burst", self.cache.dram_burst >= 1, "expected at least 1 byte");
            need("cache.dram_row", self.cache.row_bytes >= 2 * self.cache.dram_burst, "expected at least two bursts");
            need("cache.flush_reserve", self.cache.flush_reserve > 0.0 && self.cache.flush_reserve < 1.0, "expected a fraction in (0, 1)");
        }
        need("host.pcie_lanes", self.host.pcie_lanes >= 1, "expected at least 1");
        need("host.lane_bandwidth", self.host.lane_bytes_per_s > 0.0, "expected a positive bandwidth");
        // An NVMe queue holds at most 65,536 entries; the controller's slots are allocated.
        need("host.queue_depth", (1..=65_536).contains(&self.host.queue_depth), "expected 1 to 65536 commands held at once");
        need("scheduler.weights", self.sched.weights.iter().all(|w| *w >= 1), "expected three weights ≥ 1");
        need("scheduler.suspend_max_per_operation", (1..=255).contains(&self.sched.suspend.max_per_op), "expected 1 to 255");
        if let Some(p) = &self.precondition {
            need("precondition.occupancy", p.occupancy >= 0.0 && p.occupancy <= 1.0, "expected a fraction in [0, 1]");
            need("precondition.overwrites", p.overwrites >= 0.0 && p.overwrites <= 20.0, "expected 0–20 (multiples of the occupied pages)");
            if let Some((f, s)) = p.hot {
                need("precondition.hot_fraction", f > 0.0 && f < 1.0, "expected a fraction in (0, 1)");
                need("precondition.hot_share", (0.0..=1.0).contains(&s), "expected a fraction in [0, 1]");
            }
            need(
                "precondition.dirty_cache",
                !p.dirty_cache || matches!(self.cache.mode, CacheMode::Write | CacheMode::WriteRead),
                "a dirty cache needs a write cache (cache.mode = \"write\" or \"write_read\")",
            );
        }
        if self.nvm_sets_share_dies {
            need("nvm_sets", (1..=MAX_SHARED_SETS).contains(&self.nvm_sets), "expected 1 to 64 sets sharing the drive's dies");
        } else {
            need(
                "nvm_sets",
                self.nvm_sets >= 1 && g.channels.is_multiple_of(self.nvm_sets.max(1)),
                "expected at least 1 and a divisor of geometry.channels (a set is a group of whole channels)",
            );
        }
        need("model.domains", self.model.domains.is_empty() || self.nvm_sets == 1, "expected one NVM set with address domains");
        need(
            "model.domains",
            self.model.domains.is_empty() || matches!(self.ftl.allocation, Allocation::Static(_)),
            "expected a static allocation (ftl.allocation a plane order such as \"CWDP\"): a dynamic one writes on any plane",
        );
        self.model.validate(g.page_size, [g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die], &mut e);
        if let Some(plm) = &self.plm {
            if plm.sets.is_empty() || plm.sets.iter().any(|&s| s >= self.nvm_sets) {
                e.push(("plm.sets".into(), "expected set indices below nvm_sets".into()));
            }
            // Named by their scenario keys.
            let key = |k: &str| {
                match k {
                    "optimal_write_bytes" => "optimal_write_size",
                    "nv_buffer_bytes" => "nv_buffer",
                    k => k,
                }
                .to_string()
            };
            e.extend(plm.attrs.validate().into_iter().map(|(k, m)| (format!("plm.{}", key(k)), m)));
        }
        e
    }
}
