//! User programs riding with a GC program (`ModelSwitches::gc_user_partners`): MQSim's
//! transaction scheduler, GC being urgent (always, when it is not preemptible), issues a chip's
//! GC writes with the user writes as its second queue (`src/ssd/TSU_Priority_OutOfOrder.cpp:
//! 475-481`), and `issue_command_to_chip` fills the die's other planes from that queue with
//! writes at the same page offset (`TSU_Base.cpp:102-117`). So while a chip's GC holds its user
//! writes back, those that happen to sit at the GC write's offset go with it.

use super::txn::{Kind, SCAN};
use super::{Ssd, CLASSES};
use crate::params::MAX_PLANES_PER_DIE;

impl Ssd {
    /// Die `d`'s batch (`n` transactions on `planes_used`) is a GC program: adds startable user
    /// programs from the die's write queues on its other planes, at the batch's page offset
    /// under `multiplane_same_page`.
    pub(super) fn user_partners(&mut self, d: u32, planes_used: &mut u32, n: &mut usize) {
        if self.txns[self.dies[d as usize].batch[0] as usize].kind != Kind::GcWrite {
            return;
        }
        let ppd = self.layout.dims[3] as usize;
        let want = if self.params.model.multiplane_same_page { self.dies[d as usize].batch_page } else { None };
        for c in 0..CLASSES {
            let qi = 2 * c + 1;
            let mut chosen = [0usize; MAX_PLANES_PER_DIE as usize];
            let mut m = 0;
            for i in 0..self.dies[d as usize].q[qi].len().min(SCAN) {
                if *n + m == ppd {
                    break;
                }
                let t = self.dies[d as usize].q[qi][i];
                let txn = self.txns[t as usize];
                let bit = 1u32 << self.layout.plane_in_die(txn.plane);
                if *planes_used & bit != 0 || !txn.kind.is_user_program() || !self.startable(t) {
                    continue;
                }
                if want.is_some() && self.page_offset(&txn) != want {
                    continue;
                }
                chosen[m] = i;
                m += 1;
                *planes_used |= bit;
            }
            self.move_to_batch(d, qi, &chosen[..m], n);
            self.counters.gc_partnered_programs += m as u64;
        }
    }
}
