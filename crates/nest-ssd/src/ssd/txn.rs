//! A flash transaction: what it does (`Kind`), for whom, where; and the per-die queues it
//! waits in. A leaf the scheduler, the dies and the latency decomposition share.

use super::CLASSES;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Read,
    Write,
    /// Read half of a sub-page write (read-modify-write).
    RmwRead,
    Flush,
    /// A page of a PLM set's NV buffer written to flash in NDWin.
    NvFlush,
    MapRead,
    /// Read of a translation page's unchanged entries, merged with evicted dirty entries
    /// before the page is written back (single-entry CMT).
    MapMerge,
    MapWrite,
    GcRead,
    GcWrite,
    Erase,
}

impl Kind {
    pub(super) fn is_program(self) -> bool {
        matches!(self, Kind::Write | Kind::Flush | Kind::NvFlush | Kind::MapWrite | Kind::GcWrite)
    }
    /// A user-data program: takes a page of the user frontier.
    pub(super) fn is_user_program(self) -> bool {
        matches!(self, Kind::Write | Kind::Flush | Kind::NvFlush)
    }
    pub(super) fn is_gc(self) -> bool {
        matches!(self, Kind::GcRead | Kind::GcWrite | Kind::Erase)
    }
    pub(super) fn is_sense(self) -> bool {
        matches!(self, Kind::Read | Kind::RmwRead | Kind::MapRead | Kind::MapMerge | Kind::GcRead)
    }
}

#[derive(Copy, Clone, Debug)]
pub(super) struct Txn {
    pub(super) kind: Kind,
    pub(super) class: u8,
    pub(super) lpa: u32,
    /// Source page of reads and moves; block id of erases; page written by programs.
    pub(super) ppa: u32,
    pub(super) plane: u32,
    /// Command slot (Read/Write/RmwRead), cache slot (Flush), NVM set (NvFlush), translation
    /// page (Map*), plane (Gc*, Erase).
    pub(super) owner: u32,
    pub(super) bytes: u32,
    /// Link in a CMT wait list.
    pub(super) next: u32,
    /// Order of arrival at the die queues (wrapping), so a chip can serve its oldest
    /// transaction first (`die_interleave = false`).
    pub(super) seq: u32,
}

pub(super) const Q_MAP_READ: usize = 2 * CLASSES;
pub(super) const Q_GC: usize = 2 * CLASSES + 1;
pub(super) const Q_MAP_WRITE: usize = 2 * CLASSES + 2;
/// GC's page reads, apart from its writes and erases (`gc_reads_first`).
pub(super) const Q_GC_READ: usize = 2 * CLASSES + 3;
/// GC's erases, apart from its moves (`gc_erases_last`).
pub(super) const Q_GC_ERASE: usize = 2 * CLASSES + 4;
pub(super) const NQ: usize = 2 * CLASSES + 5;
/// GC's queues: its page reads, its moves' writes (and erases, unless apart), its erases.
#[inline]
pub(super) fn gc_queue(qi: usize) -> bool {
    qi == Q_GC || qi == Q_GC_READ || qi == Q_GC_ERASE
}
/// How far down a queue the scheduler looks for transactions to join a multi-plane batch or
/// to find a write whose plane has room (out-of-order within a die).
pub(super) const SCAN: usize = 32;
