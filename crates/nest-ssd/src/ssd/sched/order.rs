//! The queue order policies share (see the module comment of `sched`).

use super::{DiePolicy, Unit};
use crate::ssd::txn::{Q_GC, Q_GC_ERASE, Q_GC_READ, Q_MAP_READ, Q_MAP_WRITE};
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
/// erase (queued apart, last, with `gc_erases_last`).
#[inline]
pub(crate) fn take_gc(u: &mut impl Unit) -> bool {
    u.take(Q_GC_READ) || u.take(Q_GC) || (!u.has(Q_GC_READ) && !u.has(Q_GC) && u.take(Q_GC_ERASE))
}

/// User reads (`kind` 0) or writes (1): the class the policy chooses; if it cannot start
/// (writes waiting for space), the other classes with work in priority order.
#[inline]
pub(crate) fn pick_kind<P: DiePolicy>(p: &mut P, u: &mut impl Unit, kind: usize) -> bool {
    let Some(c) = p.class(kind, |c| u.has(2 * c + kind)) else { return false };
    take_class(u, kind, c)
}

/// A batch of `kind` from class `c`, or, if nothing there can start (writes waiting for room),
/// from the other classes with work in priority order.
#[inline]
pub(crate) fn take_class(u: &mut impl Unit, kind: usize, c: usize) -> bool {
    u.take(2 * c + kind) || (0..CLASSES).any(|c2| c2 != c && u.has(2 * c2 + kind) && u.take(2 * c2 + kind))
}

#[cfg(test)]
mod tests {
    use crate::geometry::NONE;
    use crate::ssd::gc::GcJob;
    use crate::ssd::txn::{Kind, Txn, Q_GC};
    use crate::ssd::Ssd;
    use crate::switches::GcPrecedence;

    /// `gc_erases_last`: a job's erase queued before another job's GC write goes first in
    /// queue order; with erases kept apart (MQSim's erase queue) it waits for the write, and
    /// goes once no GC move is queued.
    #[test]
    fn an_erase_waits_for_queued_gc_moves_when_last() {
        for last in [false, true] {
            let mut p = crate::tests::small();
            p.ftl.gc_preemptible = false;
            p.model.gc_precedence = GcPrecedence::First;
            p.model.gc_erases_last = last;
            let mut ssd = Ssd::new(p, 1, 0).unwrap();
            ssd.gc_jobs.push(GcJob { plane: 0, victim: 0, ..GcJob::default() });
            ssd.queue_erase(0);
            let write = ssd.new_txn(Txn { kind: Kind::GcWrite, class: 3, lpa: 5, ppa: NONE, plane: 1, owner: 1, bytes: 4096, next: NONE, seq: 0 });
            ssd.queue_at(0, Q_GC, write);
            let first = |ssd: &mut Ssd| {
                assert!(ssd.pick(0));
                ssd.txns[ssd.dies[0].batch[0] as usize].kind
            };
            if last {
                assert_eq!(first(&mut ssd), Kind::GcWrite);
                assert_eq!(first(&mut ssd), Kind::Erase, "no move queued: the erase goes");
            } else {
                assert_eq!(first(&mut ssd), Kind::Erase);
            }
        }
    }
}
