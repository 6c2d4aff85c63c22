//! The flash transaction scheduler's mechanism: transactions through the CMT into per-die
//! queues (user reads and writes per class, mapping reads, GC, mapping writes), a die's next
//! multi-plane batch filled from the queue its policy (`sched`) chooses, program/erase
//! suspension, and what a finished transaction releases.

use super::decomp::FLASH;
use super::die::{Phase, Suspended};
use super::sched::DieUnit;
use super::txn::{gc_queue, Kind, Txn, Q_GC, Q_GC_READ, Q_MAP_READ, Q_MAP_WRITE, SCAN};
use super::{Outbox, Ssd, SsdEvent, CLASSES};
use crate::cmt::{Lookup, Update};
use crate::geometry::NONE;
use crate::params::{Allocation, MAX_PLANES_PER_DIE};
use crate::switches::{CmtGranularity, MappingWrites};
use nest_core::SimTime;

/// Mapping reads' page offsets (`page_offset`): apart from every data page's (< 2³¹) and from
/// each other's (the translation page's number, the transaction's owner, below the bit).
const MAP_PAGE_OFFSETS: u32 = 1 << 31;

impl Ssd {
    pub(super) fn new_txn(&mut self, t: Txn) -> u32 {
        self.txns.alloc(t)
    }

    /// Through the CMT, then into a die queue.
    pub(super) fn route(&mut self, now: SimTime, t: u32, out: &mut Outbox) {
        if self.dropped_at_gc_lock(t) {
            return;
        }
        let txn = self.txns[t as usize];
        let update = self.entry_update(&txn);
        if let Some(cmt) = &mut self.cmt {
            let found = cmt.lookup(txn.lpa, update);
            if let Lookup::Miss { tp, fetch } = found {
                // The transaction reads (or, programming, rewrites) its entry once the mapping
                // page is in: a flash read from now, hundreds of events later.
                self.ftl.warm(txn.lpa);
                self.txns[t as usize].next = cmt.waiting_head(tp);
                cmt.set_waiting_head(tp, t);
                if fetch {
                    self.counters.map_reads += 1;
                    let plane = self.map_plane(tp);
                    let bytes = self.map_read_bytes();
                    let m = self.new_txn(Txn { kind: Kind::MapRead, class: 0, lpa: NONE, ppa: NONE, plane, owner: tp, bytes, next: NONE, seq: 0 });
                    self.enqueue(now, m, out);
                }
                return;
            }
            self.map_write_backs(now, out);
        }
        self.enqueue(now, t, out);
    }

    /// Die `d`'s batch finished sensing: the transactions waiting for the mapping pages it read
    /// look up their entries when the data is out, a channel transfer from now. Their entries'
    /// lines are asked for now; the lines locating them were asked for when they began to
    /// wait (`route`), so this load mostly hits (`Ftl::warm`).
    pub(super) fn warm_waiters(&self, d: u32) {
        let (Some(cmt), die) = (&self.cmt, &self.dies[d as usize]) else { return };
        for &m in &die.batch[..die.n as usize] {
            let m = &self.txns[m as usize];
            if m.kind != Kind::MapRead {
                continue;
            }
            let mut w = cmt.waiting_head(m.owner);
            while w != NONE {
                let wt = &self.txns[w as usize];
                self.ftl.warm_entry(wt.lpa);
                w = wt.next;
            }
        }
    }

    /// The plane translation page `tp` lives on: striped over the set of the pages it maps.
    #[inline]
    pub(super) fn map_plane(&self, tp: u32) -> u32 {
        let entries = (self.layout.page_size / self.params.model.map_entry_bytes) as u64;
        if let Some(d) = &self.layout.domains {
            return d.map_plane(tp as u64, entries);
        }
        if self.layout.groups == 1 {
            return self.layout.static_plane(tp as u64);
        }
        self.layout.plane_in_set(self.layout.group_of_lpa(tp as u64 * entries), tp as u64)
    }

    /// What `txn` does to its mapping entry: a program changes it, and so does a read of a
    /// never-written page when such reads map it (`unwritten_read_maps`).
    #[inline]
    fn entry_update(&self, txn: &Txn) -> Update {
        if txn.kind.is_program() {
            Update::Program
        } else if self.params.model.unwritten_read_maps && matches!(txn.kind, Kind::Read | Kind::RmwRead) && self.ftl.lookup(txn.lpa).is_none() {
            Update::Maps
        } else {
            Update::None
        }
    }

    /// Bytes a mapping read moves out: caching single entries, the controller reads only the
    /// sector (ECC codeword) it needs; caching pages, the whole page.
    #[inline]
    fn map_read_bytes(&self) -> u32 {
        match self.params.model.cmt_granularity {
            CmtGranularity::Entry => 512.min(self.layout.page_size),
            CmtGranularity::TranslationPage => self.layout.page_size,
        }
    }

    /// Writes back the translation pages whose dirty entries the CMT evicted. A cached page is
    /// programmed as it is; evicted single entries are first merged with the page's other
    /// entries, read from flash (the read MQSim serves even though it never serves the write),
    /// as many bytes as `merge_read` says.
    fn map_write_backs(&mut self, now: SimTime, out: &mut Outbox) {
        while let Some(tp) = self.cmt.as_mut().and_then(|c| c.write_backs.pop()) {
            if self.params.model.cmt_granularity == CmtGranularity::Entry {
                let bytes = self.cmt.as_mut().and_then(|c| c.merge_bytes.pop()).expect("a merge size per write-back");
                self.counters.map_reads += 1;
                let plane = self.map_plane(tp);
                let m = self.new_txn(Txn { kind: Kind::MapMerge, class: 0, lpa: NONE, ppa: NONE, plane, owner: tp, bytes, next: NONE, seq: 0 });
                self.enqueue(now, m, out);
            } else {
                self.map_write(now, tp, out);
            }
        }
    }

    /// Programs translation page `tp` (unless mapping writes are never served).
    fn map_write(&mut self, now: SimTime, tp: u32, out: &mut Outbox) {
        if self.params.model.mapping_writes == MappingWrites::Never {
            return;
        }
        let plane = self.map_plane(tp);
        // Its frontier's next page, programmed or not (`map_page_offsets`).
        if let Some(m) = &mut self.map_pages {
            m.place(tp, plane);
        }
        if self.params.model.mapping_writes == MappingWrites::Pinned {
            if self.ftl.pin_translation_page(plane) {
                // A free block went for good: GC may be due.
                self.maybe_start_gc(now, plane, out);
            }
            return;
        }
        self.counters.map_writes += 1;
        let m = self.new_txn(Txn { kind: Kind::MapWrite, class: 3, lpa: NONE, ppa: NONE, plane, owner: tp, bytes: self.layout.page_size, next: NONE, seq: 0 });
        self.enqueue(now, m, out);
    }

    pub(super) fn queue_index(&self, txn: &Txn) -> usize {
        match txn.kind {
            Kind::MapRead | Kind::MapMerge => Q_MAP_READ,
            Kind::MapWrite => Q_MAP_WRITE,
            Kind::GcRead if self.params.model.gc_reads_first => Q_GC_READ,
            Kind::GcRead | Kind::GcWrite | Kind::Erase => Q_GC,
            k => {
                let class = if self.params.sched.device_qos { txn.class as usize } else { 0 };
                class * 2 + k.is_program() as usize
            }
        }
    }

    pub(super) fn enqueue(&mut self, now: SimTime, t: u32, out: &mut Outbox) {
        let txn = &mut self.txns[t as usize];
        if matches!(txn.kind, Kind::Read | Kind::RmwRead) {
            txn.ppa = self.ftl.lookup(txn.lpa).unwrap_or(NONE);
            // A never-written page is timed as a read on its home plane — at a page of its own
            // there when such reads map it and pages are taken at dispatch (MQSim), so that its
            // multi-plane partners are found as MQSim finds them (`multiplane_same_page`).
            txn.plane = if txn.ppa != NONE { self.layout.plane_of_ppa(txn.ppa) } else { self.layout.data_plane(txn.lpa as u64) };
            let (lpa, plane, unplaced) = (txn.lpa, txn.plane, txn.ppa == NONE);
            if unplaced && self.params.model.unwritten_read_maps && self.params.model.pages_at_dispatch {
                if let Some(ppa) = self.ftl.place_unwritten(lpa, plane) {
                    self.txns[t as usize].ppa = ppa;
                    self.maybe_start_gc(now, plane, out);
                }
            }
            let txn = self.txns[t as usize];
            self.user_read_issued(txn.kind, txn.ppa);
        } else if txn.kind.is_user_program() {
            txn.ppa = NONE; // a write after its read-modify-write read carries the old page
            txn.plane = match self.params.ftl.allocation {
                Allocation::Static(_) => self.layout.data_plane(txn.lpa as u64),
                Allocation::Dynamic => NONE,
            };
        }
        let txn = self.txns[t as usize];
        if txn.plane == NONE {
            let group = self.layout.group_of_lpa(txn.lpa as u64);
            let plane = self.dynamic_plane(group);
            self.txns[t as usize].plane = plane;
        }
        if self.params.model.pages_at_dispatch {
            // The page now (`pages_at_dispatch`): a user program's where the plane can give one
            // (else, below GC's floor, when the program starts, as without the switch); a GC
            // move's, as MQSim takes it when the read is done (`GC_and_WL_Unit_Base.cpp:119,
            // 134`), so GC's frontier moves on while the writes wait behind the reads.
            let txn = self.txns[t as usize];
            let placed = match txn.kind {
                k if k.is_user_program() && self.ftl.can_alloc_user_for(txn.plane, txn.lpa) => Some(self.place_user_write(&txn)),
                Kind::GcWrite => Some(self.place_gc_write(&txn)),
                _ => None,
            };
            if let Some(ppa) = placed {
                self.txns[t as usize].ppa = ppa;
                // A new block taken may start a GC job.
                self.maybe_start_gc(now, txn.plane, out);
                if txn.kind == Kind::GcWrite {
                    // The move's entry may have evicted a dirty one (`gc_moves_enter_cmt`).
                    self.map_write_backs(now, out);
                }
            }
        }
        self.txns[t as usize].seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        let txn = self.txns[t as usize];
        if txn.kind.is_user_program() && txn.ppa == NONE && !self.ftl.can_alloc_user_for(txn.plane, txn.lpa) {
            // A write the plane cannot give a page now (below GC's floor): it may need a job
            // to free one — with none running and none coming, the write would wait for ever.
            self.maybe_start_gc(now, txn.plane, out);
        }
        let die = self.layout.die_of_plane(txn.plane);
        let qi = self.queue_index(&txn);
        self.clock_enqueued(t, die, now);
        self.queue_at(die, qi, t);
        self.kick(now, die, out);
    }

    /// `pages_at_dispatch`: the user writes queued for `plane` without a page (it was below GC's
    /// floor when they came) take theirs now, in queue order, while it can give them — as
    /// MQSim serves its writes for an overfull plane at each erase
    /// (`Address_Mapping_Unit_Page_Level.cpp:1915-1934`), taking a new block (and starting GC)
    /// at once rather than when the programs start.
    fn place_waiting_writes(&mut self, now: SimTime, plane: u32, out: &mut Outbox) {
        if !self.params.model.pages_at_dispatch {
            return;
        }
        let die = self.layout.die_of_plane(plane) as usize;
        // Collected first: starting GC below may kick the die, which takes from these queues.
        let waiting: Vec<u32> = (0..CLASSES).flat_map(|c| self.dies[die].q[2 * c + 1].iter().copied()).collect();
        for t in waiting {
            let txn = self.txns[t as usize];
            if txn.plane != plane || txn.ppa != NONE || !txn.kind.is_user_program() {
                continue;
            }
            if !self.ftl.can_alloc_user_for(plane, txn.lpa) {
                return;
            }
            self.txns[t as usize].ppa = self.place_user_write(&txn);
            self.maybe_start_gc(now, plane, out);
        }
    }

    /// Queued user writes without a page whose plane can (`room`) or cannot give one now.
    #[cfg(test)]
    pub(crate) fn unplaced_writes(&self, room: bool) -> usize {
        let user_writes = (0..CLASSES).map(|c| 2 * c + 1);
        let queued = |d: &super::die::Die| user_writes.clone().flat_map(|qi| d.q[qi].iter().copied()).collect::<Vec<_>>();
        let txns = self.dies.iter().flat_map(queued).map(|t| self.txns[t as usize]);
        txns.filter(|t| t.kind.is_user_program() && t.ppa == NONE && self.ftl.can_alloc_user_for(t.plane, t.lpa) == room).count()
    }

    /// Dynamic allocation: the die of channel group `group` with the fewest queued
    /// transactions, planes in turn.
    pub(super) fn dynamic_plane(&mut self, group: u32) -> u32 {
        let mut best = (usize::MAX, 0u32);
        let dps = self.layout.dies_per_group() as usize;
        for (d, die) in self.dies.iter().enumerate().skip(group as usize * dps).take(dps) {
            let n: usize = die.q.iter().map(|q| q.len()).sum::<usize>() + (die.phase != Phase::Idle) as usize;
            if n < best.0 {
                best = (n, d as u32);
            }
        }
        let die = &mut self.dies[best.1 as usize];
        let p = die.next_plane;
        die.next_plane = self.layout.plane_in_die(p + 1);
        best.1 * self.layout.dims[3] + p
    }

    pub(super) fn kick(&mut self, now: SimTime, d: u32, out: &mut Outbox) {
        let (waits_for_channel, interleave) = (self.params.model.command_waits_for_channel, self.params.model.die_interleave);
        let phase = self.dies[d as usize].phase;
        match phase {
            Phase::Idle if waits_for_channel => self.offer_channel(now, self.layout.channel_of_die(d), out),
            Phase::Idle if !interleave => self.start_chip(now, self.layout.chip_of_die(d), out),
            Phase::Idle if self.pick(d) => self.start_batch(now, d, out),
            Phase::Program if self.params.sched.suspend.program => self.try_suspend(now, d, out),
            Phase::Erase if self.params.sched.suspend.erase => self.try_suspend(now, d, out),
            _ => {}
        }
    }

    /// The page offset a transaction's multi-plane partners must share (`multiplane_same_page`):
    /// the page it senses, or the page its program will take; `None` (any) for mapping writes
    /// and erases. A mapping read's is its translation page's offset where `map_read_partners`
    /// pairs it (`map_pages` knows where translation pages lie); otherwise it is taken to share
    /// its offset with no other page.
    #[inline]
    pub(super) fn page_offset(&self, txn: &Txn) -> Option<u32> {
        match txn.kind {
            Kind::MapRead | Kind::MapMerge if self.params.model.map_read_partners && self.map_pages.is_some() => {
                self.map_pages.as_ref().map(|m| m.offset(txn.owner))
            }
            Kind::Write | Kind::Flush | Kind::NvFlush if txn.ppa != NONE => Some(self.layout.page_in_block(txn.ppa)),
            Kind::Write | Kind::Flush | Kind::NvFlush => Some(self.ftl.next_page_offset(txn.plane, self.ftl.user_front_of(txn.lpa))),
            Kind::GcWrite if self.params.model.pages_at_dispatch => Some(self.layout.page_in_block(txn.ppa)),
            Kind::GcWrite => Some(self.ftl.next_page_offset(txn.plane, crate::ftl::Front::Gc)),
            Kind::MapRead | Kind::MapMerge => Some(MAP_PAGE_OFFSETS | (txn.owner & (MAP_PAGE_OFFSETS - 1))),
            Kind::MapWrite | Kind::Erase => None,
            _ if txn.ppa == NONE => Some(0),
            _ => Some(self.layout.page_in_block(txn.ppa)),
        }
    }

    /// Suspends die `d`'s program or erase for a waiting read (or, for an erase, a write) if
    /// enough of it is left (see `SuspendParams`): the die spends the suspend latency, serves
    /// one batch, and `batch_done` resumes the operation with the time it had left.
    pub(super) fn try_suspend(&mut self, now: SimTime, d: u32, out: &mut Outbox) {
        let sp = &self.params.sched.suspend;
        let die = &self.dies[d as usize];
        if die.suspended.is_some() || die.op_suspends as u32 >= sp.max_per_op {
            return;
        }
        let remaining = die.end.saturating_sub(now);
        let erase = die.phase == Phase::Erase;
        let (latency, min_read) = if erase { (sp.erase_latency, sp.erase_min_remaining_read) } else { (sp.program_latency, sp.program_min_remaining) };
        if remaining <= latency {
            return;
        }
        let user = |k: usize| (0..CLASSES).any(|c| !die.q[2 * c + k].is_empty());
        let reads = remaining >= min_read && (!die.q[Q_MAP_READ].is_empty() || user(0));
        let writes = erase && remaining >= sp.erase_min_remaining_write && user(1);
        if !reads && !writes {
            return;
        }
        let (batch, n, phase, count) = (die.batch, die.n, die.phase, die.op_suspends + 1);
        let got = (reads && (self.take_batch(d, Q_MAP_READ) || self.pick_kind(d, 0))) || (writes && self.pick_kind(d, 1));
        let die = &mut self.dies[d as usize];
        if !got {
            // Nothing startable (writes waiting for space): the batch array is untouched.
            die.n = n;
            return;
        }
        die.suspended = Some(Suspended { phase, batch, n, remaining, count });
        self.stamp_txns(&batch[..n as usize], FLASH, now);
        self.gc_clock(d, false, now);
        let die = &mut self.dies[d as usize];
        die.busy_ps += (now - die.started).0;
        die.stale.push(die.end);
        die.phase = Phase::Suspending;
        die.started = now;
        die.end = now + latency;
        out.events.push((die.end, SsdEvent::Die(d)));
        if erase {
            self.counters.erase_suspends += 1;
        } else {
            self.counters.program_suspends += 1;
        }
    }

    /// The next batch of user reads (`kind` 0) or writes (1), by die `d`'s policy.
    pub(super) fn pick_kind(&mut self, d: u32, kind: usize) -> bool {
        self.settle_visits_of_die(d);
        let mut p = std::mem::take(&mut self.policies[d as usize]);
        let got = p.pick_kind(&mut DieUnit { ssd: self, d }, kind);
        self.policies[d as usize] = p;
        got
    }

    /// Die `d`'s next batch, by its policy (`sched`).
    pub(super) fn pick(&mut self, d: u32) -> bool {
        self.settle_visits_of_die(d);
        let mut p = std::mem::take(&mut self.policies[d as usize]);
        let got = p.pick(self.gc_order.first, &mut DieUnit { ssd: self, d });
        self.policies[d as usize] = p;
        got
    }

    /// Whether transaction `t` can start now (writes need a page on their plane).
    #[inline]
    pub(super) fn startable(&self, t: u32) -> bool {
        let txn = &self.txns[t as usize];
        !txn.kind.is_user_program() || txn.ppa != NONE || self.ftl.can_alloc_user_for(txn.plane, txn.lpa)
    }

    /// Moves a batch from queue `qi` of die `d` into the die: the first startable transaction
    /// and further ones of the same kind on other planes — from the same queue first, then
    /// (user I/O with device QoS, `multiplane_across_classes`) from the same kind's queues of
    /// the other classes, so per-class queues do not cost multi-plane parallelism.
    pub(super) fn take_batch(&mut self, d: u32, qi: usize) -> bool {
        let ppd = self.layout.dims[3];
        let mut planes_used = 0u32;
        let mut kind = None;
        let mut n = 0usize;
        self.fill_batch(d, qi, &mut kind, &mut planes_used, &mut n);
        if n == 0 {
            return false;
        }
        if qi < 2 * CLASSES && self.params.sched.device_qos && self.params.model.multiplane_across_classes && (n as u32) < ppd {
            let k = qi % 2;
            for c in 0..CLASSES {
                let other = 2 * c + k;
                if other != qi && !self.dies[d as usize].q[other].is_empty() {
                    self.fill_batch(d, other, &mut kind, &mut planes_used, &mut n);
                }
            }
        }
        if qi == Q_GC && self.params.model.gc_user_partners && (n as u32) < ppd {
            self.user_partners(d, &mut planes_used, &mut n);
        }
        if (qi == Q_GC_READ || qi == Q_GC) && self.params.model.gc_read_partners && (n as u32) < ppd {
            self.read_partners(d, &mut planes_used, &mut n);
        }
        if qi == Q_MAP_READ && self.params.model.map_read_partners && (n as u32) < ppd {
            self.map_read_partners(d, &mut planes_used, &mut n);
        }
        if n > 1 && gc_queue(qi) {
            self.counters.gc_batched += n as u64;
        }
        self.dies[d as usize].n = n as u8;
        true
    }

    /// Adds transactions of queue `qi` to die `d`'s batch (see `take_batch`).
    pub(super) fn fill_batch(&mut self, d: u32, qi: usize, kind: &mut Option<Kind>, planes_used: &mut u32, n: &mut usize) {
        let ppd = self.layout.dims[3];
        let mut chosen: [usize; MAX_PLANES_PER_DIE as usize] = [0; MAX_PLANES_PER_DIE as usize];
        let mut m = 0usize;
        let gc_alone = gc_queue(qi) && !self.params.model.gc_multiplane;
        let len = if gc_queue(qi) && !gc_alone { self.dies[d as usize].q[qi].len() } else { self.dies[d as usize].q[qi].len().min(SCAN) };
        let same_page = self.params.model.multiplane_same_page;
        for i in 0..len {
            if *n + m == ppd as usize {
                break;
            }
            let t = self.dies[d as usize].q[qi][i];
            let txn = self.txns[t as usize];
            let bit = 1u32 << self.layout.plane_in_die(txn.plane);
            if *planes_used & bit != 0 {
                continue;
            }
            match *kind {
                None => {
                    if !self.startable(t) {
                        continue;
                    }
                    *kind = Some(txn.kind);
                    if same_page {
                        self.dies[d as usize].batch_page = self.page_offset(&txn);
                    }
                }
                Some(k) if k == txn.kind && self.startable(t) => {
                    if same_page {
                        let (want, got) = (self.dies[d as usize].batch_page, self.page_offset(&txn));
                        if want.is_some() && got.is_some() && want != got {
                            continue;
                        }
                    }
                }
                _ => continue,
            }
            chosen[m] = i;
            m += 1;
            *planes_used |= bit;
            // GC work (moves, erases) goes one transaction at a time, in queue order — or, as
            // MQSim issues it (`gc_multiplane`), with partners from anywhere in the queue.
            if gc_alone {
                break;
            }
        }
        self.move_to_batch(d, qi, &chosen[..m], n);
    }

    /// Moves the transactions at queue positions `chosen` (rising) of die `d`'s queue `qi` into
    /// its batch after the `n` already there.
    pub(super) fn move_to_batch(&mut self, d: u32, qi: usize, chosen: &[usize], n: &mut usize) {
        let die = &mut self.dies[d as usize];
        for (k, &i) in chosen.iter().enumerate().rev() {
            die.batch[*n + k] = die.q[qi].remove(i).expect("index in range");
        }
        *n += chosen.len();
    }

    pub(super) fn txn_done(&mut self, now: SimTime, t: u32, out: &mut Outbox) {
        let txn = self.txns[t as usize];
        self.txns.release(t);
        if txn.kind.is_user_program() {
            self.ftl.program_done(txn.ppa);
        }
        self.user_read_done(now, txn.kind, txn.ppa, out);
        match txn.kind {
            Kind::Read => {
                if self.params.cache.mode.reads() {
                    if let Some(k) = &mut self.cache {
                        k.fill(txn.lpa);
                    }
                }
                let parts = self.times[t as usize].parts;
                self.cmd_part_done(now, txn.owner, Some(&parts), out);
            }
            Kind::Write => {
                let parts = self.times[t as usize].parts;
                self.cmd_part_done(now, txn.owner, Some(&parts), out)
            }
            Kind::RmwRead => {
                // The write carries its read's clock: both are on the command's path.
                let clock = self.times[t as usize];
                let w = self.new_txn(Txn { kind: Kind::Write, bytes: self.layout.page_size, ..txn });
                self.start_clock(w, now);
                self.times[w as usize] = clock;
                self.route(now, w, out);
            }
            Kind::Flush => {
                self.cache.as_mut().unwrap().flush_done(txn.owner);
                self.writeback_bytes -= txn.bytes as u64;
                self.admit_waiting(now, out);
                self.flush_due(now, out, 0);
            }
            Kind::MapRead => {
                let tp = txn.owner;
                let cmt = self.cmt.as_mut().unwrap();
                let mut w = cmt.take_waiting(tp);
                let mut waiters = std::mem::take(&mut self.scratch_txns);
                waiters.clear();
                while w != NONE {
                    waiters.push(w);
                    w = self.txns[w as usize].next;
                }
                // Waiters were linked newest first; their entries go in (and they are served)
                // in arrival order.
                for &w in waiters.iter().rev() {
                    let wt = self.txns[w as usize];
                    let update = self.entry_update(&wt);
                    self.cmt.as_mut().unwrap().insert(wt.lpa, update);
                }
                self.map_write_backs(now, out);
                for &w in waiters.iter().rev() {
                    if !self.dropped_at_gc_lock(w) {
                        self.enqueue(now, w, out);
                    }
                }
                self.scratch_txns = waiters;
            }
            Kind::NvFlush => self.nv_flushed(now, txn.lpa, txn.owner, out),
            Kind::MapMerge => self.map_write(now, txn.owner, out),
            Kind::MapWrite => {}
            Kind::GcRead => {
                if self.ftl.is_valid(txn.ppa) {
                    let w = self.new_txn(Txn { kind: Kind::GcWrite, ..txn });
                    self.enqueue(now, w, out);
                } else {
                    self.gc_locks.unlock(txn.lpa);
                    self.ftl.gc_paid(txn.plane);
                    self.gc_step(now, txn.owner, out);
                }
            }
            Kind::GcWrite => {
                self.gc_locks.unlock(txn.lpa);
                self.counters.gc_moves += 1;
                self.gc_step(now, txn.owner, out);
            }
            Kind::Erase => {
                self.ftl.erase(txn.ppa);
                let plane = self.erase_done(now, txn.owner);
                if self.params.model.static_wl_block_ids {
                    // MQSim checks before it places waiting writes and checks for GC.
                    self.mqsim_static_wl(now, plane, out);
                }
                self.place_waiting_writes(now, plane, out);
                self.maybe_start_gc(now, plane, out);
                // Writes held for space on this plane may go now.
                let die = self.layout.die_of_plane(plane);
                self.kick(now, die, out);
                if self.plm.is_some() {
                    self.plm_plane_work(now, plane, out);
                }
            }
        }
    }
}
