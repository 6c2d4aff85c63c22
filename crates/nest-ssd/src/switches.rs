//! Model switches: the places where MQSim models an SSD differently from NeSt's default.
//!
//! Each switch is one named, documented policy that a scenario may set on its own
//! (`[device.model]`). The defaults are what NeSt takes to be physically right; [`ModelSwitches::mqsim`]
//! gives MQSim's choices (`[[device]] compat = "mqsim"`, or `nestsim run --mqsim … --compat`), so
//! NeSt can be checked against MQSim on the same work. docs/mqsim.md has the table: MQSim's
//! behaviour, NeSt's default, the switch, and which is physically right and why.

pub use crate::switch_kinds::*;
use nest_core::SimTime;

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
    /// GC's soft and hard thresholds are their fractions of a plane's blocks truncated, as
    /// MQSim converts them (`(unsigned int)(gc_threshold * block_no_per_plane)`,
    /// `src/ssd/GC_and_WL_Unit_Base.cpp:24, 28`): 5 % of 512 blocks is 25, so GC starts below 25
    /// free blocks. Off: rounded up (26), so a plane keeps at least the fraction asked for. Not
    /// a bug, a reading; on a GC-bound drive the one block moves GC's count by ~9 %.
    pub gc_thresholds_truncated: bool,
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
    /// Address ranges on flash resources of their own: from each one's first byte, its pages
    /// are striped over its channel, chip, die and plane ids — an MQSim flow's `Channel_IDs`,
    /// `Chip_IDs`, `Die_IDs` and `Plane_IDs` (`crate::domains`). Empty: the whole drive.
    pub domains: Vec<crate::domains::DomainResources>,
    /// How device-level QoS picks among High, Medium and Low (`ClassWrr`).
    pub class_wrr: ClassWrr,
    /// GC jobs a plane runs at once at most. Beyond the first, a job starts only when a frontier
    /// of the plane has taken a free block since the last one started (or at an erase while
    /// user writes wait below the GC floor), as MQSim's `Check_gc_required` is called
    /// (`Flash_Block_Manager.cpp:33, 52, 105`, `GC_and_WL_Unit_Base.cpp:161-164`) with its
    /// `max_ongoing_gc_reqs_per_plane` (10, `SSD_Device.cpp:310`). 1: one job per plane.
    pub gc_jobs_per_plane: u32,
    /// GC starts only where MQSim checks for it: once for each block a plane's frontiers take
    /// (`Check_gc_required`, `Flash_Block_Manager.cpp:33, 52, 105`) and after an erase while user
    /// writes wait below the GC floor (`GC_and_WL_Unit_Base.cpp:161-164`) — also the first job,
    /// and a check that starts none (no victim with an invalid page, ten jobs running) is spent.
    /// A plane below the threshold that takes no blocks (reads, few writes) then collects
    /// nothing. Off: a plane with no job starts one whenever it is below the threshold.
    pub gc_at_block_takes: bool,
    /// A GC move brings its page's mapping entry into the CMT, dirty — evicting the least
    /// recently used entry, whose write-back is queued if it was dirty — as MQSim's
    /// `Allocate_new_page_for_gc` does (`Address_Mapping_Unit_Page_Level.cpp:762-826`); the move
    /// counts as a CMT query that hits. GC then churns the CMT, and with `mapping_writes` never
    /// served each write-back leaves its translation page readable for free. Off: a move updates
    /// a cached entry and writes an uncached one through, at no modelled cost.
    pub gc_moves_enter_cmt: bool,
    /// Static wear levelling as MQSim 7ec40e3 checks it, at the end of every erase, comparing
    /// the *numbers* of the most- and least-erased blocks instead of their erase counts
    /// (`src/ssd/Flash_Block_Manager_Base.cpp:146-162`, **a bug**): a GC-bound plane soon
    /// migrates its block 0, all valid, beside its GC jobs (`wl_mqsim`). Off: NeSt's check, the
    /// spread of erase counts, at each GC job's start.
    pub static_wl_block_ids: bool,
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
    /// User reads join a GC read's batch on the die's other planes at its page offset, as MQSim
    /// issues a chip's GC reads with its user reads as the second queue
    /// (`src/ssd/TSU_Priority_OutOfOrder.cpp:352-359`, `TSU_Base.cpp:102-117`; `partners`): a GC
    /// job's sweep over its victim's pages lets waiting reads out. Off: a GC read batch holds GC
    /// reads only (and a chip's user reads wait for its GC).
    pub gc_read_partners: bool,
    /// A mapping read's batch takes reads at its translation page's offset on the die's other
    /// planes — its GC reads when it has any (GC being urgent), otherwise its user reads — as
    /// MQSim issues a chip's mapping reads first with one of those as the second queue
    /// (`src/ssd/TSU_Priority_OutOfOrder.cpp:340-351`, `TSU_Base.cpp:102-117`); mapping reads
    /// pair with each other at one offset too. Needs `map_page_offsets` (where translation pages
    /// lie). Off: a mapping read goes alone.
    pub map_read_partners: bool,
    /// A write-back whose LPA a running GC job has locked (from the job's start until that
    /// page's GC write completes) is lost, as MQSim 7ec40e3 loses it: the mapping unit parks it
    /// behind the lock (`Address_Mapping_Unit_Page_Level.cpp:484-486`), then "services" it by a
    /// call that returns at once for anything but mapping transactions (`:1665-1670`, from
    /// `Remove_barrier_for_accessing_lpa`, `:1813-1819`) — so it is never programmed, the GC
    /// copy stays mapped, and the cache never hears of it: its sectors count against the
    /// write-back limit for good (`Data_Cache_Manager_Flash_Advanced.cpp:455`). **A bug**; the
    /// GC-heavy run loses 68, shrinking the limit from 128 pages to 60. NeSt takes the write-back
    /// as lost when it is issued (MQSim's outcome, without the wait; its cache slot is freed).
    pub gc_lock_loses_writebacks: bool,
    /// A user read of an LPA a running GC job has locked never completes, as in MQSim 7ec40e3:
    /// parked behind the lock (`Address_Mapping_Unit_Page_Level.cpp:484-486`), it is handed to
    /// the mapping unit's own handler when the lock lifts, which returns at once for anything but
    /// mapping transactions, and deleted (`:1836-1842`, `:1665-1670`) — **a bug**: the host
    /// request hangs and its queue slot is lost for the rest of the run (a closed loop at queue
    /// depth 16 that hangs ten reads runs at 6 by its end). NeSt drops the read when it reaches
    /// the FTL while its LPA is locked; the command is reported in flight at the end.
    pub gc_lock_hangs_reads: bool,
    /// A GC or wear-levelling job whose victim has user reads in flight locks the victim's LPAs
    /// at once but starts moving its pages only when the last of those reads completes, as
    /// MQSim postpones it (`Can_execute_gc_wl`, `GC_and_WL_Unit_Page_Level.cpp:153-160`,
    /// `GC_and_WL_Unit_Base.cpp:62-100, 271`). Physically sound (a block is not erased under a
    /// read); off, the job's reads queue at once behind them.
    pub gc_waits_for_user_reads: bool,
    /// A translation page's write-back makes each dirty cached entry of it the most recently
    /// used, in LPA order, as MQSim's does: its loop that cleans them reads each one's PPA
    /// through `Retrieve_ppa`, which moves the entry to the LRU list's front
    /// (`Address_Mapping_Unit_Page_Level.cpp:48-50, 1587-1591`) — **a bug** (bookkeeping is not
    /// a use). Entries of one request then leave the CMT far apart: its first entry, evicted,
    /// writes the page back and sends its siblings to the front, so the next eviction is
    /// another request's first entry and another write-back (MQSim 6,895 write-backs for 22,473
    /// evictions of 256 KiB requests' entries; one per 32 without). Entry mode only.
    pub writeback_refreshes_siblings: bool,
    /// With `rga_sampling = "mqsim"`: the blocks RGA samples are drawn by MQSim's generator
    /// seeded with this (`GC_and_WL_Unit_Page_Level.cpp:76`), so that a drive whose GC checks
    /// come in MQSim's order picks MQSim's victims. MQSim's GC unit is always seeded 432: the
    /// drive's `Seed` + 1 is passed where its constructor takes `dynamic_wearleveling_enabled`,
    /// and the seed keeps its default (`src/exec/SSD_Device.cpp:305-311`,
    /// `GC_and_WL_Unit_Page_Level.h:21`) — **a bug**. None: NeSt's own stream.
    pub gc_seed: Option<i32>,
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
    /// With `schedule_after_submit`, a step that queued work offers *every* idle channel its chips in turn, as MQSim's `Schedule()`
    /// walks all idle channels after each submission (`src/ssd/TSU_Priority_OutOfOrder.cpp:281-296`): each visit moves the
    /// channel's chip turn and, with `class_wrr = "mqsim"`, asks a busy chip's class round-robin. Off: only the channels the step
    /// queued work for.
    pub walk_idle_channels: bool,
    /// After preconditioning, every plane's partly written user and GC frontier is closed (the
    /// rest of its block left invalid) and the run's writes start on fresh blocks, as MQSim's
    /// preconditioning fills each block to its end and then takes a new one
    /// (`Flash_Block_Manager.cpp:57-90`): the planes of a die then write the same page offsets,
    /// which multi-plane programs need (`multiplane_same_page`). Off: the frontiers stay where
    /// the preconditioning writes left them, at different offsets plane by plane.
    pub precondition_closes_frontiers: bool,
    /// Preconditioning lays each plane's pages out by the steady state the workload would reach
    /// as MQSim estimates it (`mean_field`, `ssd/laid_out.rs`; `src/ssd/FTL.cpp:430-634`,
    /// `Address_Mapping_Unit_Page_Level.cpp:611-740`): so many blocks holding each count of valid
    /// pages — Van Houdt's mean-field model of the GC policy for random writes, blocks full or
    /// empty for a stream (`overwrites` 0) — over a goal of `blocks − ⌊threshold / 2⌋` blocks
    /// a plane, the rest invalid. Off: the pages written in order and overwritten at random,
    /// GC running instantly, which leaves every plane near GC's threshold.
    pub mean_field_layout: bool,
    /// Each address domain (`mapping_domains`: MQSim's flows) writes to user frontiers of its own
    /// on every plane, as MQSim keeps one per flow (`Data_wf[stream_id]`,
    /// `Flash_Block_Manager.cpp:20-35`): a flow whose reads of never-written pages take pages
    /// (`unwritten_read_maps`) then does not move another flow's frontiers, whose planes keep
    /// writing the same page offsets and pairing in multi-plane programs. Off: one user frontier
    /// per plane for every flow.
    pub stream_frontiers: bool,
    /// Per address domain of `mapping_domains` (same order), the bytes by which MQSim's start of
    /// that flow's slice lies past a page boundary. MQSim splits a request at page boundaries of
    /// the drive's address space but numbers the pages from the flow's start
    /// (`Host_Interface_NVMe.cpp:172-191`): where that start is not on a page boundary, a
    /// request's first two pieces can name the same page — **a bug** (16 KiB pages, a 16 KiB
    /// write 4 KiB past a page: two pieces, one page, the second then "hot" and kept in the
    /// cache). Empty (NeSt's): a request's pages are the pages it covers.
    pub segment_skews: Vec<u64>,
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
            gc_thresholds_truncated: false,
            pages_at_dispatch: false,
            mapping_domains: Vec::new(),
            domains: Vec::new(),
            class_wrr: ClassWrr::Credits,
            gc_jobs_per_plane: 1,
            gc_at_block_takes: false,
            gc_moves_enter_cmt: false,
            static_wl_block_ids: false,
            gc_reads_first: false,
            cmt_per_domain: false,
            open_frontiers: false,
            gc_user_partners: false,
            gc_read_partners: false,
            map_read_partners: false,
            gc_lock_loses_writebacks: false,
            gc_lock_hangs_reads: false,
            gc_waits_for_user_reads: false,
            writeback_refreshes_siblings: false,
            gc_seed: None,
            gc_erases_last: false,
            page_types: PageTypes::Modulo,
            map_page_offsets: false,
            channel_whole_ns: false,
            schedule_after_submit: false,
            walk_idle_channels: false,
            precondition_closes_frontiers: false,
            mean_field_layout: false,
            stream_frontiers: false,
            segment_skews: Vec::new(),
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
            gc_thresholds_truncated: true,
            pages_at_dispatch: true,
            mapping_domains: Vec::new(),
            domains: Vec::new(),
            class_wrr: ClassWrr::Mqsim,
            gc_jobs_per_plane: 10,
            gc_at_block_takes: true,
            gc_moves_enter_cmt: true,
            static_wl_block_ids: true,
            gc_reads_first: true,
            cmt_per_domain: true,
            open_frontiers: true,
            gc_user_partners: true,
            gc_read_partners: true,
            map_read_partners: true,
            gc_lock_loses_writebacks: true,
            gc_lock_hangs_reads: true,
            gc_waits_for_user_reads: true,
            writeback_refreshes_siblings: true,
            gc_seed: None,
            gc_erases_last: true,
            page_types: PageTypes::Mqsim,
            map_page_offsets: true,
            channel_whole_ns: true,
            schedule_after_submit: true,
            walk_idle_channels: true,
            precondition_closes_frontiers: true,
            mean_field_layout: true,
            stream_frontiers: true,
            segment_skews: Vec::new(),
            onfi_command_phases: true,
            gc_multiplane: true,
        }
    }

    /// `dims`: the drive's channels, chips per channel, dies per chip and planes per die.
    pub fn validate(&self, page_size: u32, dims: [u32; 4], e: &mut Vec<(String, String)>) {
        if !self.domains.is_empty() {
            if self.domains[0].start != 0
                || self.domains.windows(2).any(|w| w[1].start <= w[0].start)
                || self.domains.iter().any(|d| d.start % page_size as u64 != 0)
            {
                e.push(("model.domains".into(), "expected starts rising from 0, each a multiple of the page size".into()));
            }
            let ok = |d: &crate::domains::DomainResources| d.ids.iter().zip(dims).all(|(l, n)| !l.is_empty() && l.iter().all(|&i| i < n));
            if !self.domains.iter().all(ok) {
                e.push(("model.domains".into(), "expected non-empty channel, chip, die and plane lists, each id below its count in the geometry".into()));
            }
        }
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
