//! A flash block's books: its valid and written pages, erase count and state. A leaf, so the
//! parameters can size the drive's tables (`SsdParams::memory_bytes`) without the FTL.

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BlockState {
    Free,
    /// A write frontier (user or GC).
    Open,
    Full,
    /// Chosen by GC; its valid pages are being moved.
    Victim,
}

#[derive(Copy, Clone, Debug)]
pub struct Block {
    pub valid: u32,
    pub written: u32,
    pub erases: u32,
    pub state: BlockState,
    /// Order in which the block was filled (FIFO victim policy).
    pub closed_at: u64,
    /// User programs placed on the block since its last erase and not yet done — and, until
    /// the next erase, pages placed for reads of never-written pages (`Ftl::place_unwritten`) —
    /// which keep MQSim's RGA draw and wear levelling off it (`RgaSampling::Mqsim`).
    pub programs_in_flight: u16,
    /// MQSim's `Has_ongoing_gc_wl` set with no job on the block (`Ftl::mqsim_wl_misfiled_mark`),
    /// which keeps MQSim's RGA draw and wear levelling off it until it is erased.
    pub gc_flagged: bool,
}

impl Block {
    /// A free, never-erased block.
    pub const FREE: Block = Block { valid: 0, written: 0, erases: 0, state: BlockState::Free, closed_at: 0, programs_in_flight: 0, gc_flagged: false };
}
