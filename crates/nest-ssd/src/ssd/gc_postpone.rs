//! GC jobs that wait for the user reads in flight on their victim
//! (`ModelSwitches::gc_waits_for_user_reads`): MQSim locks a victim's LPAs when it picks it but
//! runs the job only once no user read or program on the block is in flight (`Can_execute_gc_wl`,
//! `src/ssd/GC_and_WL_Unit_Page_Level.cpp:153-160`, `GC_and_WL_Unit_Base.cpp:271`); else the job
//! starts when the last of them completes (`GC_and_WL_Unit_Base.cpp:62-100`). MQSim counts a read
//! from the moment its page is known (`Read_transaction_issued`,
//! `Address_Mapping_Unit_Page_Level.cpp:625`) to its completion. (Programs need no count here:
//! MQSim's draw passes by blocks with programs in flight, `rga_mqsim`.)

use super::txn::Kind;
use super::{Outbox, Ssd};
use nest_core::SimTime;

/// User reads in flight per block (allocated only with the switch on), and the jobs waiting.
pub(super) struct Postponed {
    reads: Vec<u16>,
    /// (victim, job id)
    jobs: Vec<(u32, u32)>,
}

impl Postponed {
    pub(super) fn new(on: bool, blocks: u64) -> Self {
        Postponed { reads: if on { vec![0; blocks as usize] } else { Vec::new() }, jobs: Vec::new() }
    }

    /// Whether job `id` on `victim` must wait (and then it is held).
    pub(super) fn hold(&mut self, victim: u32, id: u32) -> bool {
        let busy = self.reads.get(victim as usize).is_some_and(|&n| n > 0);
        if busy {
            self.jobs.push((victim, id));
        }
        busy
    }
}

impl Ssd {
    /// A user read (or a read-modify-write's read) of `ppa` was issued to its die's queue.
    #[inline]
    pub(super) fn user_read_issued(&mut self, kind: Kind, ppa: u32) {
        if !self.gc_postponed.reads.is_empty() && matches!(kind, Kind::Read | Kind::RmwRead) && ppa != super::NONE {
            self.gc_postponed.reads[self.layout.block_of_ppa(ppa) as usize] += 1;
        }
    }

    /// A user read of `ppa` completed: a job waiting on its block starts when none is left.
    #[inline]
    pub(super) fn user_read_done(&mut self, now: SimTime, kind: Kind, ppa: u32, out: &mut Outbox) {
        if self.gc_postponed.reads.is_empty() || !matches!(kind, Kind::Read | Kind::RmwRead) || ppa == super::NONE {
            return;
        }
        let b = self.layout.block_of_ppa(ppa);
        let n = &mut self.gc_postponed.reads[b as usize];
        *n = n.saturating_sub(1);
        if *n == 0 {
            if let Some(i) = self.gc_postponed.jobs.iter().position(|&(v, _)| v == b) {
                let (_, id) = self.gc_postponed.jobs.swap_remove(i);
                self.counters.gc_jobs_postponed += 1;
                self.start_moves(now, id, out);
            }
        }
    }
}
