//! User programs riding with a GC program (`ModelSwitches::gc_user_partners`): MQSim's
//! transaction scheduler, GC being urgent (always, when it is not preemptible), issues a chip's
//! GC writes with the user writes as its second queue (`src/ssd/TSU_Priority_OutOfOrder.cpp:
//! 475-481`), and `issue_command_to_chip` fills the die's other planes from that queue with
//! writes at the same page offset (`TSU_Base.cpp:102-117`). So while a chip's GC holds its user
//! writes back, those that happen to sit at the GC write's offset go with it.
//!
//! User reads riding with a GC read (`ModelSwitches::gc_read_partners`): the same for reads —
//! GC being urgent, a chip's GC reads go first with its user reads as the second queue
//! (`TSU_Priority_OutOfOrder.cpp:352-359`). A job's reads go in page order, so its sweep over the
//! victim's pages picks up every user read waiting on the die's other planes as it passes that
//! read's page offset — not rare, as chance pairing would be: about half the reads that arrive
//! during a chip's GC get out before it ends.
//!
//! Reads riding with a mapping read (`ModelSwitches::map_read_partners`): a chip's mapping reads
//! go first of all, with its GC reads (GC urgent) or else its user reads as the second queue
//! (`TSU_Priority_OutOfOrder.cpp:340-351`).

use super::txn::{Kind, Txn, Q_GC, Q_GC_READ, SCAN};
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
        let want = if self.params.model.multiplane_same_page { self.dies[d as usize].batch_page } else { None };
        let m = self.add_partners(d, 1, want, |t| t.kind.is_user_program(), planes_used, n);
        self.counters.gc_partnered_programs += m;
    }

    /// Die `d`'s batch (`n` transactions on `planes_used`) is a GC read: adds user reads from
    /// the die's read queues on its other planes at the batch's page offset.
    pub(super) fn read_partners(&mut self, d: u32, planes_used: &mut u32, n: &mut usize) {
        // MQSim pairs reads at one page offset only (`multiplane_same_page`).
        let want = self.dies[d as usize].batch_page.filter(|_| self.params.model.multiplane_same_page);
        if self.txns[self.dies[d as usize].batch[0] as usize].kind != Kind::GcRead || want.is_none() {
            return;
        }
        let m = self.add_partners(d, 0, want, |t| matches!(t.kind, Kind::Read | Kind::RmwRead), planes_used, n);
        self.counters.gc_partnered_reads += m;
    }

    /// Die `d`'s batch (`n` transactions on `planes_used`) is a mapping read: adds the die's GC
    /// reads at its page offset if GC is urgent and has a read queued, otherwise its user reads
    /// there.
    pub(super) fn map_read_partners(&mut self, d: u32, planes_used: &mut u32, n: &mut usize) {
        let want = self.dies[d as usize].batch_page;
        if self.map_pages.is_none() || want.is_none() || !self.params.model.multiplane_same_page {
            return;
        }
        let gcq = if self.params.model.gc_reads_first { Q_GC_READ } else { Q_GC };
        let before = *n;
        let gc_reads = self.dies[d as usize].q[gcq].iter().any(|&t| self.txns[t as usize].kind == Kind::GcRead);
        if self.gc_order.first && gc_reads {
            // MQSim's second queue is the whole GC read queue (`fill_batch` scans all of a GC
            // queue under `gc_multiplane`), at the batch's page offset.
            let mut kind = Some(Kind::GcRead);
            self.fill_batch(d, gcq, &mut kind, planes_used, n);
        } else {
            self.add_partners(d, 0, want, |t| matches!(t.kind, Kind::Read | Kind::RmwRead), planes_used, n);
        }
        self.counters.map_partnered_reads += (*n - before) as u64;
    }

    /// Moves startable transactions that pass `fits` from die `d`'s user queues of `kind` (0
    /// reads, 1 writes), class by class, into the batch — one per plane not yet used, at page
    /// offset `want` if given. Returns how many.
    fn add_partners(&mut self, d: u32, kind: usize, want: Option<u32>, fits: impl Fn(&Txn) -> bool, planes_used: &mut u32, n: &mut usize) -> u64 {
        let ppd = self.layout.dims[3] as usize;
        let mut added = 0;
        for c in 0..CLASSES {
            let qi = 2 * c + kind;
            let mut chosen = [0usize; MAX_PLANES_PER_DIE as usize];
            let mut m = 0;
            for i in 0..self.dies[d as usize].q[qi].len().min(SCAN) {
                if *n + m == ppd {
                    break;
                }
                let t = self.dies[d as usize].q[qi][i];
                let txn = self.txns[t as usize];
                let bit = 1u32 << self.layout.plane_in_die(txn.plane);
                if *planes_used & bit != 0 || !fits(&txn) || !self.startable(t) {
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
            added += m as u64;
        }
        added
    }
}
