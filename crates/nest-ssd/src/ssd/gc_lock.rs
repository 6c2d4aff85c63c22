//! The LPAs running GC jobs have locked, for `ModelSwitches::gc_lock_loses_writebacks` and
//! `gc_lock_hangs_reads`: MQSim
//! locks every valid LPA of a victim when its job starts (`Set_barrier_for_accessing_physical_
//! block`, `src/ssd/Address_Mapping_Unit_Page_Level.cpp:1764-1793`) and unlocks each when its
//! GC write completes (`GC_and_WL_Unit_Base.cpp:143-149`). One bit per logical page, allocated
//! only with the switch on (2 MiB for 2^24 pages); a page moved by two jobs at once (its new
//! block chosen before its first move ends) unlocks at the first move's end.

use super::txn::Kind;
use super::Ssd;

pub(super) struct GcLocks(Vec<u64>);

impl Ssd {
    /// Whether transaction `t`, reaching the FTL (or its mapping entry arriving), meets a GC
    /// job's lock on its LPA and is dropped as MQSim drops it: a user read never completes
    /// (`gc_lock_hangs_reads`), a write-back is lost and keeps its room in the write-back limit
    /// (`gc_lock_loses_writebacks`). MQSim checks at both points (`Address_Mapping_Unit_Page_
    /// Level.cpp:490-492, 1732-1748`). A dropped transaction is released.
    pub(super) fn dropped_at_gc_lock(&mut self, t: u32) -> bool {
        let txn = self.txns[t as usize];
        let m = &self.params.model;
        let drops = match txn.kind {
            Kind::Read => m.gc_lock_hangs_reads,
            Kind::Flush => m.gc_lock_loses_writebacks,
            _ => false,
        };
        if !drops || !self.gc_locks.locked(txn.lpa) {
            return false;
        }
        if txn.kind == Kind::Read {
            self.counters.reads_hung += 1;
        } else {
            self.counters.writebacks_lost += 1;
            self.cache.as_mut().expect("a write cache").flush_done(txn.owner);
        }
        self.txns.release(t);
        true
    }
}

impl GcLocks {
    pub(super) fn new(on: bool, logical_pages: u64) -> Self {
        GcLocks(if on { vec![0; logical_pages.div_ceil(64) as usize] } else { Vec::new() })
    }

    #[inline]
    pub(super) fn lock(&mut self, lpa: u32) {
        if let Some(w) = self.0.get_mut(lpa as usize / 64) {
            *w |= 1 << (lpa % 64);
        }
    }

    #[inline]
    pub(super) fn unlock(&mut self, lpa: u32) {
        if let Some(w) = self.0.get_mut(lpa as usize / 64) {
            *w &= !(1 << (lpa % 64));
        }
    }

    #[inline]
    pub(super) fn locked(&self, lpa: u32) -> bool {
        self.0.get(lpa as usize / 64).is_some_and(|w| (w >> (lpa % 64)) & 1 != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::GcLocks;

    #[test]
    fn a_lock_holds_until_unlocked_and_off_nothing_is_locked() {
        let mut l = GcLocks::new(true, 130);
        l.lock(129);
        l.lock(3);
        assert!(l.locked(129) && l.locked(3) && !l.locked(4) && !l.locked(128));
        l.unlock(129);
        assert!(!l.locked(129) && l.locked(3));
        let mut off = GcLocks::new(false, 130);
        off.lock(3);
        assert!(!off.locked(3) && !off.locked(1 << 30));
    }
}
