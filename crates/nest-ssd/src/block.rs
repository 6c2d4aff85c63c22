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
}

impl Block {
    /// A free, never-erased block.
    pub const FREE: Block = Block { valid: 0, written: 0, erases: 0, state: BlockState::Free, closed_at: 0 };
}
