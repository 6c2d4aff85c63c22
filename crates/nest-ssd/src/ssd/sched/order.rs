//! The queue order policies share (see the module comment of `sched`).

use super::{DiePolicy, Unit};
use crate::ssd::txn::{Q_GC, Q_GC_READ, Q_MAP_READ, Q_MAP_WRITE};
use crate::ssd::CLASSES;

/// The unit's next batch. With `gc_first` (non-preemptible GC, `GcPrecedence::First`):
/// mapping reads, GC, user reads, user writes, mapping writes. Otherwise: GC that must go first
/// (a plane below the hard threshold, or non-preemptible GC's turn), mapping reads (they block
/// user I/O), user reads, user writes, background GC, mapping writes.
#[inline]
pub(crate) fn pick<P: DiePolicy>(p: &mut P, gc_first: bool, u: &mut impl Unit) -> bool {
    if gc_first {
        return u.take(Q_MAP_READ) || take_gc(u) || p.pick_kind(u, 0) || p.pick_kind(u, 1) || u.take(Q_MAP_WRITE);
    }
    u.gc_turn() || u.take(Q_MAP_READ) || p.pick_kind(u, 0) || p.pick_kind(u, 1) || take_gc(u) || u.take(Q_MAP_WRITE)
}

/// GC's next step: a page read (queued apart with `gc_reads_first`), else a move's write or an
/// erase.
#[inline]
pub(crate) fn take_gc(u: &mut impl Unit) -> bool {
    u.take(Q_GC_READ) || u.take(Q_GC)
}

/// User reads (`kind` 0) or writes (1): the class the policy chooses; if it cannot start
/// (writes waiting for space), the other classes with work in priority order.
#[inline]
pub(crate) fn pick_kind<P: DiePolicy>(p: &mut P, u: &mut impl Unit, kind: usize) -> bool {
    let Some(c) = p.class(kind, |c| u.has(2 * c + kind)) else { return false };
    u.take(2 * c + kind) || (0..CLASSES).any(|c2| c2 != c && u.has(2 * c2 + kind) && u.take(2 * c2 + kind))
}
