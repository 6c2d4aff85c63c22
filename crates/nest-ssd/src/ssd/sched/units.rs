//! The two units a policy schedules, over the mechanism: one die (`take_batch`), or one chip's
//! dies, each queue served from the die whose head arrived first (`take_oldest`).

use super::Unit;
use crate::ssd::Ssd;

pub(crate) struct DieUnit<'a> {
    pub(crate) ssd: &'a mut Ssd,
    pub(crate) d: u32,
}

impl Unit for DieUnit<'_> {
    #[inline]
    fn has(&self, qi: usize) -> bool {
        !self.ssd.dies[self.d as usize].q[qi].is_empty()
    }
    #[inline]
    fn take(&mut self, qi: usize) -> bool {
        self.ssd.take_batch(self.d, qi)
    }
    #[inline]
    fn gc_turn(&mut self) -> bool {
        self.ssd.take_gc_turn(self.d)
    }
}

/// A chip's dies `first..first + dies`; `picked` is the die whose batch was taken.
pub(crate) struct ChipUnit<'a> {
    pub(crate) ssd: &'a mut Ssd,
    pub(crate) first: u32,
    pub(crate) dies: u32,
    pub(crate) picked: Option<u32>,
}

impl Unit for ChipUnit<'_> {
    fn has(&self, qi: usize) -> bool {
        (self.first..self.first + self.dies).any(|e| !self.ssd.dies[e as usize].q[qi].is_empty())
    }
    fn take(&mut self, qi: usize) -> bool {
        self.picked = self.ssd.take_oldest(self.first, qi);
        self.picked.is_some()
    }
    /// GC that must go first is decided die by die, as the die-level pick decides it.
    fn gc_turn(&mut self) -> bool {
        self.picked = (self.first..self.first + self.dies).find(|&e| self.ssd.take_gc_turn(e));
        self.picked.is_some()
    }
}
