//! Model switches: the places where MQSim models an SSD differently from NeSt's default.
//!
//! Each switch is one named, documented policy that a scenario may set on its own
//! (`[device.model]`). The defaults are what NeSt takes to be physically right; [`ModelSwitches::mqsim`]
//! gives MQSim's choices (`[[device]] compat = "mqsim"`, or `nestsim run --mqsim … --compat`), so
//! NeSt can be checked against MQSim on the same work. docs/mqsim.md has the table: MQSim's
//! behaviour, NeSt's default, the switch, and which is physically right and why.

use nest_core::SimTime;

/// How the DRAM write cache sends data to flash.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Destage {
    /// Write-back: dirty pages stay in DRAM until free + clean slots fall below the reserve,
    /// then the least recently written go to flash (what drives with a DRAM or SLC buffer do).
    Lazy,
    /// MQSim's destage buffer: a page not written within the last `hot_window` is sent to
    /// flash at once (cold data), a page written again within it stays dirty in DRAM (hot); a
    /// finished write-back frees its slot.
    Eager,
}

impl Destage {
    /// Every value, for parsing by `name`.
    pub const ALL: [Destage; 2] = [Destage::Lazy, Destage::Eager];
    /// The scenario key's value.
    pub fn name(self) -> &'static str {
        match self {
            Destage::Lazy => "lazy",
            Destage::Eager => "eager",
        }
    }
}

/// When eager destage's hot window starts over (`Destage::Eager`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HotReset {
    /// On a fixed grid from t = 0: a page is hot when written again within the same window.
    Grid,
    /// MQSim's (`src/ssd/Data_Cache_Manager_Flash_Advanced.cpp:349-352`, 7ec40e3): at the end
    /// of the first admission of write pages after the milestone (0 at the start), the pages
    /// written so far are forgotten — the admitted ones too — and the next milestone is a window
    /// later. Windows drift with the writes, and a page written just before a reset is cold
    /// again at once. MQSim keeps one filter per stream and clears the writing stream's; NeSt's
    /// cache has one filter, cleared whole. Not a bug: a cheaper filter.
    AfterWrite,
}

impl HotReset {
    pub const ALL: [HotReset; 2] = [HotReset::Grid, HotReset::AfterWrite];
    pub fn name(self) -> &'static str {
        match self {
            HotReset::Grid => "grid",
            HotReset::AfterWrite => "after_write",
        }
    }
}

/// How a host write gets into the write cache.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WriteAdmission {
    /// A whole command at once, in arrival order, once the cache has room for all its pages
    /// and write-backs leave room (`writeback_limit_pages`).
    Command,
    /// MQSim's `write_to_destage_buffer` (`src/ssd/Data_Cache_Manager_Flash_Advanced.cpp:251-
    /// 258, 281-282, 467-479`, 7ec40e3): a new write is admitted at once page by page while
    /// write-backs in flight stay under the limit, even past writes that wait; a partly admitted
    /// write waits for the rest; each finished write-back retries the waiting writes in order.
    /// Each admitted part is its own DRAM write.
    Page,
}

impl WriteAdmission {
    pub const ALL: [WriteAdmission; 2] = [WriteAdmission::Command, WriteAdmission::Page];
    pub fn name(self) -> &'static str {
        match self {
            WriteAdmission::Command => "command",
            WriteAdmission::Page => "page",
        }
    }
}

/// How the RGA victim policy (`VictimPolicy::Rga`) samples its d candidate blocks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RgaSampling {
    /// Random draws among the plane's full blocks with a stale page, keeping the one with the
    /// fewest valid pages (greedy when the draws find none).
    FullBlocks,
    /// MQSim's `Check_gc_required`, RGA case (`src/ssd/GC_and_WL_Unit_Page_Level.cpp:69-86`,
    /// 7ec40e3): d distinct blocks drawn among any that are not a write frontier or in GC (free
    /// blocks included); the lowest-numbered of them, replaced by any fully written one with
    /// more invalid pages; no GC this time when that block has no invalid page (`:143-145`).
    /// Not a bug: a cheaper sample whose victims hold more valid pages while the drive has free
    /// blocks to draw.
    Mqsim,
}

impl RgaSampling {
    pub const ALL: [RgaSampling; 2] = [RgaSampling::FullBlocks, RgaSampling::Mqsim];
    pub fn name(self) -> &'static str {
        match self {
            RgaSampling::FullBlocks => "full_blocks",
            RgaSampling::Mqsim => "mqsim",
        }
    }
}

/// How a data transfer over PCIe is framed (the bytes on the link for a payload).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PcieFraming {
    /// 24 B of TLP header and framing per 256 B of payload (a common Max_Payload_Size), at the
    /// lanes' rate.
    Tlp256,
    /// MQSim's `PCIe_Link::estimate_transfer_time` (`src/host/PCIe_Link.h:44-53`, 7ec40e3): TLPs
    /// of at most 128 B payload, each with 28 B of overhead (20 B header, 6 B DLLP, 2 B
    /// physical), the bytes spread over the lanes in whole bytes per lane, the time truncated to
    /// a nanosecond. Not a bug: a smaller Max_Payload_Size (64 KiB costs 20.0 µs at 4 × 1 GB/s
    /// against `Tlp256`'s 17.9 µs).
    Mqsim,
}

impl PcieFraming {
    pub const ALL: [PcieFraming; 2] = [PcieFraming::Tlp256, PcieFraming::Mqsim];
    pub fn name(self) -> &'static str {
        match self {
            PcieFraming::Tlp256 => "tlp256",
            PcieFraming::Mqsim => "mqsim_tlp128",
        }
    }
}

/// How long a DRAM cache access takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DramTiming {
    /// tRCD + tCL + bytes / (2 × burst) transfers: the bytes at the DRAM's rate, whatever their
    /// size.
    Linear,
    /// MQSim's `estimate_dram_access_time` (`src/ssd/Data_Cache_Manager_Base.h:66-78`, 7ec40e3)
    /// as written: up to a row as `Linear` (integer division); above, `(tRCD + tCL + row's
    /// transfer + tRP) × (bytes / row / 2)` plus the remainder *divided* by the burst's time
    /// instead of multiplied — **a bug**: halving the row count and dividing make an access
    /// above a row far cheaper than its bytes (12 KiB: 0.4 µs against 61 µs at MQSim's stock
    /// 100 MT/s × 1 B; 128 KiB: 328 µs against 655).
    MqsimRows,
}

impl DramTiming {
    pub const ALL: [DramTiming; 2] = [DramTiming::Linear, DramTiming::MqsimRows];
    pub fn name(self) -> &'static str {
        match self {
            DramTiming::Linear => "linear",
            DramTiming::MqsimRows => "mqsim_rows",
        }
    }
}

/// How many bytes a program moves over the channel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProgramTransfer {
    /// The whole page register (an MLC/TLC program loads every bit of a wordline's page).
    Page,
    /// Only the sectors the host wrote (MQSim).
    Written,
}

impl ProgramTransfer {
    /// Every value, for parsing by `name`.
    pub const ALL: [ProgramTransfer; 2] = [ProgramTransfer::Page, ProgramTransfer::Written];
    /// The scenario key's value.
    pub fn name(self) -> &'static str {
        match self {
            ProgramTransfer::Page => "page",
            ProgramTransfer::Written => "written",
        }
    }
}

/// What a merge read (reading a translation page's entries before writing back the evicted
/// dirty ones) moves over the channel, caching single entries.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MergeRead {
    /// The whole translation page: the entries not in DRAM, which the write-back must carry
    /// over, are spread over all its sectors.
    Page,
    /// The sectors that hold the page's clean cached entries, 512 B each, possibly none (MQSim's
    /// `generate_flash_writeback_request_for_mapping_data` sizes the read so).
    CleanCachedSectors,
}

impl MergeRead {
    /// Every value, for parsing by `name`.
    pub const ALL: [MergeRead; 2] = [MergeRead::Page, MergeRead::CleanCachedSectors];
    /// The scenario key's value.
    pub fn name(self) -> &'static str {
        match self {
            MergeRead::Page => "page",
            MergeRead::CleanCachedSectors => "clean_cached_sectors",
        }
    }
}

/// What the cached mapping table holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CmtGranularity {
    /// Whole translation pages (DFTL-style): one miss brings in page_size / map_entry_bytes
    /// entries.
    TranslationPage,
    /// Single entries of `cmt_entry_bytes` each (MQSim): a miss still reads the translation page
    /// from flash, but only the wanted entries are kept.
    Entry,
}

impl CmtGranularity {
    /// Every value, for parsing by `name`.
    pub const ALL: [CmtGranularity; 2] = [CmtGranularity::TranslationPage, CmtGranularity::Entry];
    /// The scenario key's value.
    pub fn name(self) -> &'static str {
        match self {
            CmtGranularity::TranslationPage => "translation_page",
            CmtGranularity::Entry => "entry",
        }
    }
}

/// What happens to a dirty mapping entry's translation page when it is evicted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MappingWrites {
    /// It is programmed to flash (a write transaction on the die).
    Flash,
    /// MQSim: a write-back is queued but its queue is never served, and the translation page
    /// counts as still in memory from then on — later misses on it cost no flash read.
    Never,
    /// MQSim 7ec40e3 as written: as `Never`, and each write-back also takes a page on its
    /// plane's translation frontier (`Address_Mapping_Unit_Page_Level.cpp:1203-1223`,
    /// `Flash_Block_Manager.cpp:91-106`), marking a program in flight that never finishes, so
    /// the block is never a GC victim (`GC_and_WL_Unit_Base.cpp:234`): translation write-backs
    /// use up free blocks for good — **a bug** (the space is neither written nor reclaimed).
    /// NeSt stops taking blocks when a plane is down to GC's hard threshold (MQSim would take
    /// its last) and counts the write-backs it could not place.
    Pinned,
}

impl MappingWrites {
    /// Every value, for parsing by `name`.
    pub const ALL: [MappingWrites; 3] = [MappingWrites::Flash, MappingWrites::Never, MappingWrites::Pinned];
    /// The scenario key's value.
    pub fn name(self) -> &'static str {
        match self {
            MappingWrites::Flash => "flash",
            MappingWrites::Never => "never",
            MappingWrites::Pinned => "never_pinned",
        }
    }

    /// Whether a write-back programs the flash (else its page counts as in memory for good).
    pub fn programmed(self) -> bool {
        self == MappingWrites::Flash
    }
}

/// Which type (LSB, CSB, MSB, …) each page of a block is (`ModelSwitches::page_types`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PageTypes {
    /// Page `p` is type `p mod bits per cell`: the types alternate down the block.
    Modulo,
    /// MQSim's map (`src/nvm_chip/flash_memory/Flash_Chip.h:85-93`): on TLC the first six
    /// pages are LSB, the next two CSB, then pairs of pages cycle LSB, CSB, MSB — the
    /// programming order of TLC word lines after Yaakobi et al. (ICNC 2012); MLC and SLC as
    /// `Modulo`.
    Mqsim,
}

impl PageTypes {
    /// Every value, for parsing by `name`.
    pub const ALL: [PageTypes; 2] = [PageTypes::Modulo, PageTypes::Mqsim];
    /// The scenario key's value.
    pub fn name(self) -> &'static str {
        match self {
            PageTypes::Modulo => "modulo",
            PageTypes::Mqsim => "mqsim",
        }
    }
    /// The type of page `p` of a block on a part with `bits` bits per cell.
    #[inline]
    pub fn of(self, p: u32, bits: u32) -> usize {
        match self {
            PageTypes::Mqsim if bits == 3 => match p {
                0..=5 => 0,
                6..=7 => 1,
                _ => (((p - 8) >> 1) % 3) as usize,
            },
            _ => (p % bits) as usize,
        }
    }
}

/// When non-preemptible GC work at a die (or chip) is served.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GcPrecedence {
    /// GC takes every other turn, so a long job neither starves nor is starved by user I/O.
    Alternate,
    /// GC goes first whenever it has work (after mapping reads): user I/O at the die waits for
    /// the whole job (MQSim's non-preemptible GC, always "urgent").
    First,
}

impl GcPrecedence {
    /// Every value, for parsing by `name`.
    pub const ALL: [GcPrecedence; 2] = [GcPrecedence::Alternate, GcPrecedence::First];
    /// The scenario key's value.
    pub fn name(self) -> &'static str {
        match self {
            GcPrecedence::Alternate => "alternate",
            GcPrecedence::First => "first",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModelSwitches {
    /// Dies of a chip run operations independently (interleaving). Off (MQSim): a chip runs one
    /// die's command at a time, chosen at the chip — the queue by priority, then the die of its
    /// oldest transaction — and takes no new command until that one (data out included) is done.
    pub die_interleave: bool,
    /// A command is issued only while the chip's channel is idle and no data transfer waits for
    /// it; a freed channel offers its chips a command round robin (MQSim). Off: the command
    /// phase (~100 ns) slips in between transfers, so a die never waits for the bus to start.
    pub command_waits_for_channel: bool,
    /// A multi-plane batch needs the same page offset on every plane (MQSim; ONFI multi-plane
    /// commands on many parts). Off: any page per plane (newer parts' independent plane reads).
    pub multiplane_same_page: bool,
    /// A multi-plane read moves its pages out one transfer each, and each page's request may
    /// complete after its own transfer (MQSim; each later page queues behind the channel's other
    /// waiting transfers). Off: one transfer of all the batch's pages, after which all complete.
    pub data_out_per_page: bool,
    /// Data of mapping reads waiting for the channel goes out before user and GC data waiting
    /// (MQSim). Off: the channel serves waiting transfers first come, first served.
    pub mapping_out_first: bool,
    /// With device-level QoS, a multi-plane batch of one class's reads or writes is filled up
    /// with the other classes' transactions on the die's free planes. Off (MQSim): partners
    /// come from the same class queue only.
    pub multiplane_across_classes: bool,
    pub program_transfer: ProgramTransfer,
    pub cmt_granularity: CmtGranularity,
    /// DRAM bytes per cached entry in `Entry` mode (MQSim: ⌈(2·log2 P + sectors per page) / 8⌉).
    pub cmt_entry_bytes: u32,
    /// Bytes per mapping entry on flash: a translation page holds page_size / this many.
    pub map_entry_bytes: u32,
    pub mapping_writes: MappingWrites,
    pub merge_read: MergeRead,
    /// A bug in MQSim's older code (docs/mqsim.md): a dirty entry evicted from the single-entry CMT to make room for LPA x is
    /// filed under x — x's translation page is the one written back, and x arrives mapped, so a
    /// read of it changes nothing. Off: the evicted entry's own translation page is written.
    pub evicted_entry_misfiled: bool,
    /// A read of a never-written page maps it (MQSim assigns it a physical page, a dirty mapping
    /// entry). Off: it stays unmapped and its entry clean.
    pub unwritten_read_maps: bool,
    pub destage: Destage,
    /// Non-preemptible GC's turn at a die (preemptible GC goes after user I/O either way, first
    /// only below the hard threshold).
    pub gc_precedence: GcPrecedence,
    /// `Eager`: a page written again within this window is hot (MQSim: 1 s).
    pub hot_window: SimTime,
    /// When the hot window starts over (`HotReset`).
    pub hot_reset: HotReset,
    /// Write-backs in flight at most, in pages' worth of bytes; a host write waits for room
    /// (MQSim's back-pressure: one page per plane). `None`: no limit beyond the cache's slots.
    pub writeback_limit_pages: Option<u32>,
    /// How a DRAM cache access is timed (`DramTiming`).
    pub dram_timing: DramTiming,
    /// How host writes enter the write cache (`WriteAdmission`).
    pub write_admission: WriteAdmission,
    /// How data transfers over PCIe are framed (`PcieFraming`).
    pub pcie_framing: PcieFraming,
    /// NVMe's messages cross the link, each direction one first-come queue with the data: a
    /// command's doorbell (2 B) in, its entry's fetch request (4 B) out and the 72 B entry in,
    /// then for a write its data's fetch request out and the data in, each message queued when
    /// the one before it has crossed; a 16 B completion entry out after a read's data or a
    /// write's admission, answered by the host's 2 B head doorbell. So a read waits behind
    /// write data already on the link but passes data not yet asked for. MQSim
    /// (`src/host/PCIe_Link.cpp:28-75`, `src/ssd/Host_Interface_NVMe.cpp:220-376`). Off: a
    /// command starts after `command_overhead`, and only data crosses the link.
    pub sqe_over_pcie: bool,
    /// How RGA draws its candidates (`RgaSampling`).
    pub rga_sampling: RgaSampling,
    /// GC starts below at least this many free blocks per plane, whatever `ftl.gc_soft` says.
    /// MQSim raises its threshold to `max_ongoing_gc_reqs_per_plane`, hard-coded 10
    /// (`src/exec/SSD_Device.cpp:310`, `src/ssd/GC_and_WL_Unit_Base.cpp:22-33`): above 5 % of a
    /// plane below 200 blocks — and user writes wait while a plane has fewer free blocks
    /// (`Stop_servicing_writes`, `GC_and_WL_Unit_Base.cpp:216-219`,
    /// `Address_Mapping_Unit_Page_Level.cpp:601`), retried after each erase on it. 0: `gc_soft`
    /// alone, and writes wait only for GC's last block.
    pub gc_floor_blocks: u32,
    /// A transaction takes its physical page when it is dispatched to its die's queue, as
    /// MQSim translates addresses (`translate_lpa_to_ppa`, `Address_Mapping_Unit_Page_Level.cpp:584-605`):
    /// a user program's page then, and — with `unwritten_read_maps` — a never-written page's read
    /// its own (`online_create_entry_for_reads`, `:1225-1388`), both from the plane's user
    /// frontier in dispatch order; a GC move's page from the GC frontier when its read is done
    /// (`GC_and_WL_Unit_Base.cpp:119, 134`); writes that came while their plane was below the GC
    /// floor theirs at the erase that lifts it (`Address_Mapping_Unit_Page_Level.cpp:1915-1934`).
    /// Multi-plane partners (`multiplane_same_page`) are then found among those pages. Off: a
    /// program takes the frontier's page when it starts, and a read of a never-written page
    /// senses no page of its own.
    pub pages_at_dispatch: bool,
    /// Byte offsets where MQSim's per-stream address domains start (its host interface makes each
    /// flow's addresses start from zero, `Host_Interface_NVMe.cpp:186`, and the CMT, shared,
    /// keys them by stream); the importer gives one per flow. With `evicted_entry_misfiled` off,
    /// a dirty entry evicted by a miss of another stream is written back in the missing stream's
    /// domain at the evicted entry's offset, as MQSim's `request_mapping_entry` does (it passes
    /// the evicted, stream-local LPA with the requester's stream). Empty: one domain.
    pub mapping_domains: Vec<u64>,
    /// GC jobs a plane runs at once at most. Beyond the first, a job starts only when a frontier
    /// of the plane has taken a free block since the last one started (or at an erase while
    /// user writes wait below the GC floor), as MQSim's `Check_gc_required` is called
    /// (`Flash_Block_Manager.cpp:33, 52, 105`, `GC_and_WL_Unit_Base.cpp:161-164`) with its
    /// `max_ongoing_gc_reqs_per_plane` (10, `SSD_Device.cpp:310`). 1: one job per plane.
    pub gc_jobs_per_plane: u32,
    /// GC's page reads wait in a queue of their own that goes before GC's writes and erases:
    /// a chip (a die, with die interleaving) reads every page its GC jobs have to move before
    /// it writes any, so with several jobs running each ends only when all have read. MQSim's
    /// transaction scheduler keeps GC reads, writes and erases in separate queues per chip and
    /// serves reads first (`src/ssd/TSU_Priority_OutOfOrder.cpp:352-372, 475-490`). Off: one GC
    /// queue in arrival order, a job's writes between the next job's reads.
    pub gc_reads_first: bool,
    /// Each address domain (`mapping_domains`: an MQSim flow) caches mapping entries in a CMT
    /// of its own of the full capacity, never evicting another's. MQSim 7ec40e3's `SHARED` CMT
    /// mode creates its shared table inside the loop that builds the domains
    /// (`src/ssd/Address_Mapping_Unit_Page_Level.cpp:322-338`), so every flow gets a whole one
    /// — **a bug**: two flows cache twice what the configured capacity holds. Off: one table of
    /// the configured capacity for all flows.
    pub cmt_per_domain: bool,
    /// Every plane's user and GC write frontiers are open from the start and a full one takes
    /// its next free block at once (MQSim: `src/ssd/Flash_Block_Manager_Base.cpp:54-56`,
    /// `Flash_Block_Manager.cpp:30-33, 49-52`). Off: a frontier takes a block when its first
    /// page is wanted. With MQSim's GC triggers (a job per block taken below the threshold) the
    /// choice sets how GC bursts grow: a burst's first job finds room in an open GC frontier
    /// (`frontiers`).
    pub open_frontiers: bool,
    /// User programs join a GC program's batch on the die's other planes (at its page offset
    /// under `multiplane_same_page`), as MQSim issues a chip's GC writes with its user writes as
    /// the second queue (`src/ssd/TSU_Priority_OutOfOrder.cpp:475-481`, `TSU_Base.cpp:102-117`;
    /// `partners`). Off: GC work goes one transaction at a time.
    pub gc_user_partners: bool,
    /// A GC job's erase waits until its chip (its die, with die interleaving) has no GC read
    /// or GC write queued — of any job — as MQSim keeps erases in a queue of their own, served
    /// only when the GC read and write queues are empty (`src/ssd/TSU_Priority_OutOfOrder.cpp:
    /// 352-372, 475-490, 537-552`). So with several jobs running, the blocks they free come
    /// back together at the end of the burst. Off: an erase queues with GC's writes, in order,
    /// as soon as its job has moved its last page.
    pub gc_erases_last: bool,
    /// Which type (LSB, CSB, MSB) a block's page `p` is, so which tR and tPROG it takes.
    pub page_types: PageTypes,
    /// A mapping read senses the translation page where it lies: laid out in order over the
    /// planes when the drive is built and moved to the frontier's next page at each
    /// write-back, as MQSim does (`map_pages`), so on MLC/TLC parts it takes the sense time of
    /// that page's type. Off: a mapping read is timed as a block's first page (its LSB, the
    /// fastest) — NeSt does not otherwise track where translation pages lie.
    pub map_page_offsets: bool,
    /// Channel transfers timed as MQSim times them: two transfers take `1000 / rate` ns cut to whole nanoseconds, doubled
    /// (`src/exec/SSD_Device.cpp:97`, `src/ssd/ONFI_Channel_NVDDR2.h:9`) — **a bug**: 333 MT/s stays 333 MB/s a byte wide, but 800 MT/s
    /// moves 1,000 MB/s and a rate above 1,000 MT/s moves data in no time. Off: bytes / width / rate.
    pub channel_whole_ns: bool,
    /// Transactions that reach the scheduler in one step (a mapping read's waiters, a command's pages, GC's batch) are all queued
    /// before any channel is offered a command, then the idle channels in order, as MQSim's `Prepare_for_transaction_submit` …
    /// `Schedule()` does (`src/ssd/TSU_Base.h:36-50`, `TSU_Priority_OutOfOrder.cpp:196-296`): a channel's round-robin turn then
    /// picks among all the new work. Off: each transaction is offered as it is queued (`command_waits_for_channel` only).
    pub schedule_after_submit: bool,
    /// A command's ONFI phases take MQSim's NV-DDR2 times and hold the channel before the die starts
    /// (`src/ssd/ONFI_Channel_NVDDR2.cpp:16-36`, `NVM_PHY_ONFI_NVDDR2.cpp:170-310`; `onfi`). Off: `timing.command` on the die.
    pub onfi_command_phases: bool,
    /// GC's reads, writes and erases go in multi-plane batches as user work does, a die's whole GC
    /// queue scanned for partners (MQSim: `TSU_Base.cpp:72-139`). Off: one GC transaction at a time.
    pub gc_multiplane: bool,
}

impl Default for ModelSwitches {
    fn default() -> Self {
        ModelSwitches {
            die_interleave: true,
            command_waits_for_channel: false,
            multiplane_same_page: false,
            data_out_per_page: false,
            mapping_out_first: false,
            multiplane_across_classes: true,
            program_transfer: ProgramTransfer::Page,
            cmt_granularity: CmtGranularity::TranslationPage,
            cmt_entry_bytes: 9,
            map_entry_bytes: 4,
            mapping_writes: MappingWrites::Flash,
            merge_read: MergeRead::Page,
            evicted_entry_misfiled: false,
            unwritten_read_maps: false,
            destage: Destage::Lazy,
            gc_precedence: GcPrecedence::Alternate,
            hot_window: SimTime::from_ms(1000),
            hot_reset: HotReset::Grid,
            writeback_limit_pages: None,
            dram_timing: DramTiming::Linear,
            write_admission: WriteAdmission::Command,
            pcie_framing: PcieFraming::Tlp256,
            sqe_over_pcie: false,
            rga_sampling: RgaSampling::FullBlocks,
            gc_floor_blocks: 0,
            pages_at_dispatch: false,
            mapping_domains: Vec::new(),
            gc_jobs_per_plane: 1,
            gc_reads_first: false,
            cmt_per_domain: false,
            open_frontiers: false,
            gc_user_partners: false,
            gc_erases_last: false,
            page_types: PageTypes::Modulo,
            map_page_offsets: false,
            channel_whole_ns: false,
            schedule_after_submit: false,
            onfi_command_phases: false,
            gc_multiplane: false,
        }
    }
}

impl ModelSwitches {
    /// MQSim's choices for a drive of `physical_pages` pages of `page_size` bytes and `planes`
    /// planes (entry sizes and the back-pressure limit follow from them as in MQSim).
    pub fn mqsim(physical_pages: u64, page_size: u32, planes: u32) -> Self {
        let sectors = (page_size / 512) as f64;
        let bits = (physical_pages.max(2) as f64).log2();
        ModelSwitches {
            die_interleave: false,
            command_waits_for_channel: true,
            multiplane_same_page: true,
            data_out_per_page: true,
            mapping_out_first: true,
            multiplane_across_classes: false,
            program_transfer: ProgramTransfer::Written,
            cmt_granularity: CmtGranularity::Entry,
            cmt_entry_bytes: ((2.0 * bits + sectors) / 8.0).ceil() as u32,
            map_entry_bytes: ((bits + sectors) / 8.0).ceil() as u32,
            mapping_writes: MappingWrites::Pinned,
            merge_read: MergeRead::CleanCachedSectors,
            evicted_entry_misfiled: false,
            unwritten_read_maps: true,
            destage: Destage::Eager,
            gc_precedence: GcPrecedence::First,
            hot_window: SimTime::from_ms(1000),
            hot_reset: HotReset::AfterWrite,
            writeback_limit_pages: Some(planes),
            dram_timing: DramTiming::MqsimRows,
            write_admission: WriteAdmission::Page,
            pcie_framing: PcieFraming::Mqsim,
            sqe_over_pcie: true,
            rga_sampling: RgaSampling::Mqsim,
            gc_floor_blocks: 10,
            pages_at_dispatch: true,
            mapping_domains: Vec::new(),
            gc_jobs_per_plane: 10,
            gc_reads_first: true,
            cmt_per_domain: true,
            open_frontiers: true,
            gc_user_partners: true,
            gc_erases_last: true,
            page_types: PageTypes::Mqsim,
            map_page_offsets: true,
            channel_whole_ns: true,
            schedule_after_submit: true,
            onfi_command_phases: true,
            gc_multiplane: true,
        }
    }

    pub fn validate(&self, page_size: u32, e: &mut Vec<(String, String)>) {
        if self.cmt_entry_bytes == 0 || self.cmt_entry_bytes > 64 {
            e.push(("model.cmt_entry_bytes".into(), "expected 1 to 64 bytes".into()));
        }
        if self.map_entry_bytes == 0 || self.map_entry_bytes > page_size {
            e.push(("model.map_entry_bytes".into(), "expected 1 byte up to the page size".into()));
        }
        if self.gc_jobs_per_plane == 0 || self.gc_jobs_per_plane > 64 {
            e.push(("model.gc_jobs_per_plane".into(), "expected 1 to 64 jobs".into()));
        }
        if self.hot_window.0 == 0 {
            e.push(("model.hot_window".into(), "expected a positive duration".into()));
        }
    }
}

#[cfg(test)]
mod page_type_tests {
    use super::PageTypes;

    #[test]
    fn mqsims_tlc_map_starts_with_lsb_pages_then_cycles_pairs() {
        let mq: Vec<usize> = (0..16).map(|p| PageTypes::Mqsim.of(p, 3)).collect();
        assert_eq!(mq, vec![0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 0, 0]);
        let modulo: Vec<usize> = (0..6).map(|p| PageTypes::Modulo.of(p, 3)).collect();
        assert_eq!(modulo, vec![0, 1, 2, 0, 1, 2]);
        // MLC and SLC alike under both.
        assert!((0..64).all(|p| PageTypes::Mqsim.of(p, 2) == PageTypes::Modulo.of(p, 2) && PageTypes::Mqsim.of(p, 1) == 0));
    }
}
