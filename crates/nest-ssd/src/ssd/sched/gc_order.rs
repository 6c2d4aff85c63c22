//! When GC goes before user I/O: a plane below the hard threshold always; non-preemptible GC
//! every other turn of its die, so a long job neither starves nor is starved by user I/O; or,
//! with non-preemptible GC and `GcPrecedence::First`, always (see `order::pick`).

use super::order::take_gc;
use super::DieUnit;
use crate::ftl::GcNeed;
use crate::ssd::txn::{gc_queue, NQ};
use crate::ssd::Ssd;
use crate::switches::GcPrecedence;

/// The GC order's state: the precedence, and per die whether GC has the next turn.
pub(crate) struct GcOrder {
    /// Non-preemptible GC with `GcPrecedence::First`: GC work goes before user I/O.
    pub(crate) first: bool,
    /// Non-preemptible GC: whether GC has the die's next turn.
    turn: Vec<bool>,
}

impl GcOrder {
    pub(crate) fn new(ssd_dies: u32, preemptible: bool, precedence: GcPrecedence) -> Self {
        GcOrder { first: !preemptible && precedence == GcPrecedence::First, turn: vec![true; ssd_dies as usize] }
    }
}

impl Ssd {
    /// Takes a GC batch at die `d` if GC must go before user I/O now.
    pub(super) fn take_gc_turn(&mut self, d: u32) -> bool {
        if !(0..NQ).any(|qi| gc_queue(qi) && !self.dies[d as usize].q[qi].is_empty()) {
            return false;
        }
        let turn = &mut self.gc_order.turn[d as usize];
        let gc_turn = !self.params.ftl.gc_preemptible && std::mem::replace(turn, false);
        if (gc_turn || self.die_in_hard_gc(d)) && take_gc(&mut DieUnit { ssd: self, d }) {
            return true;
        }
        self.gc_order.turn[d as usize] = true;
        false
    }

    fn die_in_hard_gc(&self, d: u32) -> bool {
        let ppd = self.layout.dims[3];
        (d * ppd..(d + 1) * ppd).any(|p| self.ftl.planes[p as usize].gc_jobs > 0 && self.ftl.gc_need(p) == GcNeed::Hard)
    }
}
