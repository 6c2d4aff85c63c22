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
}

impl MappingWrites {
    /// Every value, for parsing by `name`.
    pub const ALL: [MappingWrites; 2] = [MappingWrites::Flash, MappingWrites::Never];
    /// The scenario key's value.
    pub fn name(self) -> &'static str {
        match self {
            MappingWrites::Flash => "flash",
            MappingWrites::Never => "never",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModelSwitches {
    /// Dies of a chip run operations independently (interleaving). Off (MQSim): a chip runs one
    /// command at a time — the dies' batches start together and the chip takes no new command
    /// until all of them are done.
    pub die_interleave: bool,
    /// A multi-plane batch needs the same page offset on every plane (MQSim; ONFI multi-plane
    /// commands on many parts). Off: any page per plane (newer parts' independent plane reads).
    pub multiplane_same_page: bool,
    pub program_transfer: ProgramTransfer,
    pub cmt_granularity: CmtGranularity,
    /// DRAM bytes per cached entry in `Entry` mode (MQSim: ⌈(2·log2 P + sectors per page) / 8⌉).
    pub cmt_entry_bytes: u32,
    /// Bytes per mapping entry on flash: a translation page holds page_size / this many.
    pub map_entry_bytes: u32,
    pub mapping_writes: MappingWrites,
    /// A read of a never-written page maps it (MQSim assigns it a physical page, a dirty mapping
    /// entry). Off: it stays unmapped and its entry clean.
    pub unwritten_read_maps: bool,
    pub destage: Destage,
    /// `Eager`: a page written again within this window is hot (MQSim: 1 s).
    pub hot_window: SimTime,
    /// Write-backs in flight at most, in pages' worth of bytes; a host write waits for room
    /// (MQSim's back-pressure: one page per plane). `None`: no limit beyond the cache's slots.
    pub writeback_limit_pages: Option<u32>,
}

impl Default for ModelSwitches {
    fn default() -> Self {
        ModelSwitches {
            die_interleave: true,
            multiplane_same_page: false,
            program_transfer: ProgramTransfer::Page,
            cmt_granularity: CmtGranularity::TranslationPage,
            cmt_entry_bytes: 9,
            map_entry_bytes: 4,
            mapping_writes: MappingWrites::Flash,
            unwritten_read_maps: false,
            destage: Destage::Lazy,
            hot_window: SimTime::from_ms(1000),
            writeback_limit_pages: None,
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
            multiplane_same_page: true,
            program_transfer: ProgramTransfer::Written,
            cmt_granularity: CmtGranularity::Entry,
            cmt_entry_bytes: ((2.0 * bits + sectors) / 8.0).ceil() as u32,
            map_entry_bytes: ((bits + sectors) / 8.0).ceil() as u32,
            mapping_writes: MappingWrites::Never,
            unwritten_read_maps: true,
            destage: Destage::Eager,
            hot_window: SimTime::from_ms(1000),
            writeback_limit_pages: Some(planes),
        }
    }

    pub fn validate(&self, page_size: u32, e: &mut Vec<(String, String)>) {
        if self.cmt_entry_bytes == 0 || self.cmt_entry_bytes > 64 {
            e.push(("model.cmt_entry_bytes".into(), "expected 1 to 64 bytes".into()));
        }
        if self.map_entry_bytes == 0 || self.map_entry_bytes > page_size {
            e.push(("model.map_entry_bytes".into(), "expected 1 byte up to the page size".into()));
        }
        if self.hot_window.0 == 0 {
            e.push(("model.hot_window".into(), "expected a positive duration".into()));
        }
    }
}
