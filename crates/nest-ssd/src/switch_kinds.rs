//! The choices a model switch picks from (`switches`): each a named policy with the name a
//! scenario gives it, MQSim's and NeSt's side by side.

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
    /// its last) and counts the write-backs it could not place. The table itself, written when
    /// the drive is built (`Store_mapping_table_on_flash_at_start`, `:423-442`), takes its pages
    /// the same way before preconditioning: a plane of a 4 KiB-page drive holding 60 of them
    /// starts a block lower.
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

/// How device-level QoS picks among High, Medium and Low (`sched::urgent_wrr`, `sched::mqsim_wrr`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClassWrr {
    /// Credits per class, refilled when no class with work has any left: every class with work
    /// is found at once.
    Credits,
    /// MQSim's pointer and running weight (`TSU_Priority_OutOfOrder.cpp:301-333`): a lone
    /// low-weight class is found only once the running weight has come down to it.
    Mqsim,
}

impl ClassWrr {
    pub const ALL: [ClassWrr; 2] = [ClassWrr::Credits, ClassWrr::Mqsim];
    pub fn name(self) -> &'static str {
        match self {
            ClassWrr::Credits => "credits",
            ClassWrr::Mqsim => "mqsim",
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
