//! Dies and channels: the timing of senses, programs and erases (per page type), the
//! channel as a FIFO resource shared by its dies, suspended operations resumed with the time
//! they had left.

use super::decomp::{CHANNEL, CHANNEL_WAIT, FLASH, SUSPENDED};
use super::die::Phase;
use super::txn::{Kind, Txn};
use super::{Outbox, Ssd, SsdEvent};
use crate::cmt::Update;
use crate::geometry::NONE;
use crate::switches::ProgramTransfer;
use nest_core::SimTime;

impl Ssd {
    /// The type (LSB 0, CSB 1, …) of a block's page `p` (`page_types`).
    #[inline]
    fn type_at(&self, p: u32) -> usize {
        self.params.model.page_types.of(p, self.params.timing.cell.bits())
    }

    /// The type of page `ppa`; a page without an address (a translation page without
    /// `map_page_offsets`) counts as a block's first.
    #[inline]
    fn page_type(&self, ppa: u32) -> usize {
        if ppa == NONE {
            0
        } else {
            self.type_at(self.layout.page_in_block(ppa))
        }
    }

    pub(super) fn read_time(&self, ppa: u32) -> SimTime {
        self.params.timing.read[self.page_type(ppa)]
    }

    pub(super) fn program_time(&self, ppa: u32) -> SimTime {
        self.params.timing.program[self.page_type(ppa)]
    }

    /// Time to move `bytes` over a channel — in MQSim's whole nanoseconds per two transfers
    /// with `channel_whole_ns` (`src/exec/SSD_Device.cpp:97`, `ONFI_Channel_NVDDR2.h:9`).
    #[inline]
    fn channel_time(&self, bytes: u64) -> SimTime {
        let t = &self.params.timing;
        if !self.params.model.channel_whole_ns {
            return t.channel_time(bytes);
        }
        let two_ns = (1000 / t.channel_mts as u64) * 2;
        SimTime::from_ns(bytes / t.channel_width as u64 / 2 * two_ns)
    }

    /// tR of transaction `t`'s page: a translation page's where it lies (`map_page_offsets`).
    #[inline]
    pub(super) fn sense_time(&self, t: &Txn) -> SimTime {
        match (&self.map_pages, t.kind) {
            (Some(m), Kind::MapRead | Kind::MapMerge) => self.params.timing.read[self.type_at(m.offset(t.owner))],
            _ => self.read_time(t.ppa),
        }
    }

    /// tPROG of transaction `t`'s page: a translation page's where it goes (`map_page_offsets`).
    #[inline]
    fn prog_time(&self, t: &Txn) -> SimTime {
        match (&self.map_pages, t.kind) {
            (Some(m), Kind::MapWrite) => self.params.timing.program[self.type_at(m.offset(t.owner))],
            _ => self.program_time(t.ppa),
        }
    }

    pub(super) fn start_batch(&mut self, now: SimTime, d: u32, out: &mut Outbox) {
        let n = self.dies[d as usize].n as usize;
        let first = self.txns[self.dies[d as usize].batch[0] as usize].kind;
        if (first.is_program() || first == Kind::Erase) && self.plm.is_some() {
            self.plm_program_in_dt(d, n as u64);
        }
        self.clock_batch_start(d, now);
        self.gc_clock(d, first.is_gc(), now);
        self.dies[d as usize].started = now;
        self.dies[d as usize].op_suspends = 0;
        if first == Kind::Erase {
            self.counters.erase_commands += 1;
            let cmd_t = self.command_phase(now, d, first, n, out);
            let die = &mut self.dies[d as usize];
            die.phase = Phase::Erase;
            die.end = now + cmd_t + self.params.timing.erase;
            out.events.push((die.end, SsdEvent::Die(d)));
            return;
        }
        if first.is_sense() {
            let mut tr = SimTime::ZERO;
            for k in 0..n {
                let t = self.dies[d as usize].batch[k];
                tr = tr.max(self.sense_time(&self.txns[t as usize]));
            }
            self.counters.flash_reads += n as u64;
            self.dies[d as usize].phase = Phase::Sense;
            let cmd_t = self.command_phase(now, d, first, n, out);
            out.events.push((now + cmd_t + tr, SsdEvent::Die(d)));
            return;
        }
        // Programs: take the pages now (the mapping changes when the program starts), then
        // move the data in. The die is marked busy first: starting GC below may kick it.
        self.dies[d as usize].phase = Phase::WaitIn;
        self.counters.program_commands += 1;
        self.counters.multiplane_program_commands += (n > 1) as u64;
        let mut bytes = 0u64;
        for k in 0..n {
            let t = self.dies[d as usize].batch[k];
            let txn = self.txns[t as usize];
            let ppa = match txn.kind {
                Kind::Write | Kind::Flush | Kind::NvFlush if txn.ppa != NONE => txn.ppa,
                Kind::Write | Kind::Flush | Kind::NvFlush => self.place_user_write(&txn),
                Kind::GcWrite if self.params.model.pages_at_dispatch => txn.ppa,
                Kind::GcWrite => self.place_gc_write(&txn),
                _ => NONE,
            };
            if txn.kind != Kind::MapWrite {
                self.txns[t as usize].ppa = ppa;
            }
            // A program loads a whole page register (sub-page writes were merged by the
            // read-modify-write or the cache) — or, as MQSim times it, only the written bytes.
            if !(txn.kind == Kind::GcWrite && self.params.ftl.copyback) {
                bytes += match self.params.model.program_transfer {
                    ProgramTransfer::Page => self.layout.page_size as u64,
                    ProgramTransfer::Written => txn.bytes as u64,
                };
            }
            // GC writes too: with several jobs per plane a GC frontier's new block may start
            // another (MQSim, `Flash_Block_Manager.cpp:52`).
            if txn.kind.is_user_program() || txn.kind == Kind::GcWrite {
                self.maybe_start_gc(now, txn.plane, out);
            }
        }
        if bytes == 0 {
            // No data to move (copyback): the command phase alone, then the program.
            let cmd_t = self.command_phase(now, d, first, n, out);
            self.start_program(now, d, cmd_t, out);
        } else {
            self.request_channel(now, d, bytes, out);
        }
    }

    /// The command phase before die `d`'s batch of `n` (led by `kind`) starts: `timing.command`
    /// on the die, or with `onfi_command_phases` MQSim's NV-DDR2 phase holding the channel (free
    /// then: commands wait for it in that mode; were it busy, the phase stays on the die).
    fn command_phase(&mut self, now: SimTime, d: u32, kind: Kind, n: usize, out: &mut Outbox) -> SimTime {
        if !self.params.model.onfi_command_phases {
            return self.params.timing.command;
        }
        let phase = super::onfi::command_phase(kind, n);
        let c = self.layout.channel_of_die(d);
        let ch = &mut self.channels[c as usize];
        if !ch.busy {
            ch.busy = true;
            ch.die = NONE;
            ch.busy_ps += phase.0;
            out.events.push((now + phase, SsdEvent::Channel(c)));
        }
        phase
    }

    /// A user program's page: the next of its plane's user frontier, the mapping moved to it.
    pub(super) fn place_user_write(&mut self, txn: &Txn) -> u32 {
        let ppa = self.ftl.alloc(txn.plane, self.ftl.user_front_of(txn.lpa));
        self.ftl.program_user(txn.lpa, ppa);
        self.ftl.program_issued(ppa);
        ppa
    }

    /// A GC move's new page: the next of its plane's GC frontier, the mapping moved to it.
    pub(super) fn place_gc_write(&mut self, txn: &Txn) -> u32 {
        let ppa = self.ftl.alloc(txn.plane, crate::ftl::Front::Gc);
        self.ftl.gc_paid(txn.plane);
        if self.ftl.program_move(txn.lpa, txn.ppa, ppa) {
            if let Some(c) = &mut self.cmt {
                if self.params.model.gc_moves_enter_cmt {
                    // MQSim brings the moved page's entry in, dirty (evicting as a miss would),
                    // and counts the move as a query that hits.
                    c.insert(txn.lpa, Update::Program);
                    c.hits += 1;
                } else {
                    c.note_update(txn.lpa);
                }
            }
        }
        ppa
    }

    /// Die `d`'s batch programs, after `cmd_t` of command phase on the die.
    pub(super) fn start_program(&mut self, now: SimTime, d: u32, cmd_t: SimTime, out: &mut Outbox) {
        let n = self.dies[d as usize].n as usize;
        let mut tp = SimTime::ZERO;
        for k in 0..n {
            let t = self.dies[d as usize].batch[k];
            tp = tp.max(self.prog_time(&self.txns[t as usize]));
        }
        let die = &mut self.dies[d as usize];
        die.phase = Phase::Program;
        die.end = now + cmd_t + tp;
        out.events.push((die.end, SsdEvent::Die(d)));
    }

    pub(super) fn request_channel(&mut self, now: SimTime, d: u32, bytes: u64, out: &mut Outbox) {
        self.dies[d as usize].xfer_bytes = bytes;
        let c = self.layout.channel_of_die(d);
        if self.channels[c as usize].busy {
            self.wait_for_channel(c, d);
        } else {
            self.start_transfer(now, c, d, out);
        }
    }

    /// Queues die `d` for channel `c`: last, or (`mapping_out_first`) mapping-read data after
    /// the mapping data already waiting but before user and GC data (MQSim).
    fn wait_for_channel(&mut self, c: u32, d: u32) {
        if self.params.model.mapping_out_first && self.is_mapping_out(d) {
            let at = self.channels[c as usize].waiting.iter().take_while(|&&e| self.is_mapping_out(e)).count();
            self.channels[c as usize].waiting.insert(at, d);
        } else {
            self.channels[c as usize].waiting.push_back(d);
        }
    }

    /// Whether die `d` waits to move mapping-read data out.
    #[inline]
    fn is_mapping_out(&self, d: u32) -> bool {
        let die = &self.dies[d as usize];
        die.phase == Phase::WaitOut && matches!(self.txns[die.batch[0] as usize].kind, Kind::MapRead | Kind::MapMerge)
    }

    pub(super) fn start_transfer(&mut self, now: SimTime, c: u32, d: u32, out: &mut Outbox) {
        // The transactions this transfer moves: the next page alone (`data_out_per_page`, sized
        // here), or the whole batch.
        let (from, to) = if self.params.model.data_out_per_page && self.dies[d as usize].phase == Phase::WaitOut {
            let k = self.dies[d as usize].out_next as usize;
            let t = self.dies[d as usize].batch[k];
            self.dies[d as usize].xfer_bytes = self.txns[t as usize].bytes as u64;
            (k, k + 1)
        } else {
            (0, self.dies[d as usize].n as usize)
        };
        self.stamp_batch(d, from, to, CHANNEL_WAIT, now);
        let die = &mut self.dies[d as usize];
        die.phase = if die.phase == Phase::WaitIn { Phase::In } else { Phase::Out };
        let (bytes, program, n) = (die.xfer_bytes, die.phase == Phase::In, die.n as usize);
        let mut dt = self.channel_time(bytes);
        if program && self.params.model.onfi_command_phases {
            // MQSim sends a program's command and its data in one hold of the channel.
            dt += super::onfi::command_phase(self.txns[self.dies[d as usize].batch[0] as usize].kind, n);
        }
        let ch = &mut self.channels[c as usize];
        ch.busy = true;
        ch.die = d;
        ch.busy_ps += dt.0;
        out.events.push((now + dt, SsdEvent::Channel(c)));
    }

    pub(super) fn on_die(&mut self, now: SimTime, d: u32, out: &mut Outbox) {
        let stale = &mut self.dies[d as usize].stale;
        if let Some(i) = stale.iter().position(|&t| t == now) {
            // The end of an operation that was suspended; it was rescheduled on resume. (A
            // live event of this die at the same picosecond is the same `Die(d)`: dropping
            // either one is the same.)
            stale.swap_remove(i);
            return;
        }
        match self.dies[d as usize].phase {
            Phase::Suspending => {
                let die = &mut self.dies[d as usize];
                die.busy_ps += (now - die.started).0;
                self.start_batch(now, d, out)
            }
            Phase::Sense => {
                let n = self.dies[d as usize].n as usize;
                self.stamp_batch(d, 0, n, FLASH, now);
                self.warm_waiters(d);
                let t = self.dies[d as usize].batch[0];
                let copyback = self.txns[t as usize].kind == Kind::GcRead && self.params.ftl.copyback;
                if copyback {
                    self.batch_done(now, d, out);
                } else if self.params.model.data_out_per_page {
                    // Each page is a transfer of its own, queued for the channel in batch order
                    // (the first may start at once); `start_transfer` sizes each.
                    let n = self.dies[d as usize].n;
                    self.dies[d as usize].out_next = 0;
                    self.dies[d as usize].phase = Phase::WaitOut;
                    self.request_channel(now, d, 0, out);
                    let c = self.layout.channel_of_die(d);
                    for _ in 1..n {
                        self.wait_for_channel(c, d);
                    }
                } else {
                    let n = self.dies[d as usize].n as usize;
                    let bytes: u64 = (0..n).map(|k| self.txns[self.dies[d as usize].batch[k] as usize].bytes as u64).sum();
                    self.dies[d as usize].phase = Phase::WaitOut;
                    self.request_channel(now, d, bytes, out);
                }
            }
            Phase::Program | Phase::Erase => {
                let n = self.dies[d as usize].n as usize;
                self.stamp_batch(d, 0, n, FLASH, now);
                self.batch_done(now, d, out)
            }
            p => unreachable!("die event in phase {p:?}"),
        }
    }

    pub(super) fn on_channel(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        let d = self.channels[c as usize].die;
        self.channels[c as usize].busy = false;
        if d == NONE {
            // A command phase ended (`onfi_command_phases`): the channel is free again.
            if let Some(next) = self.channels[c as usize].waiting.pop_front() {
                self.start_transfer(now, c, next, out);
            }
            if self.params.model.command_waits_for_channel {
                self.dispatch_channel(now, c, out);
            }
            return;
        }
        // Page by page out: a page that is not the batch's last completes on its own, and the
        // die waits for its next page's turn (already queued) before the channel moves on.
        let die = &mut self.dies[d as usize];
        let page_done = (self.params.model.data_out_per_page && die.phase == Phase::Out && die.out_next + 1 < die.n).then(|| {
            let t = die.batch[die.out_next as usize];
            die.out_next += 1;
            die.phase = Phase::WaitOut;
            t
        });
        // The transfer's own transactions leave the channel: a page of the batch, or the
        // batch's pages from `out_next` on (all of them for program data).
        let (n, from) = (die.n as usize, if die.phase == Phase::Out { die.out_next as usize } else { 0 });
        match page_done {
            Some(t) => self.stamp(t, CHANNEL, now),
            None => self.stamp_batch(d, from, n, CHANNEL, now),
        }
        // The next waiter gets the channel before this die's completion can queue more work.
        if let Some(next) = self.channels[c as usize].waiting.pop_front() {
            self.start_transfer(now, c, next, out);
        }
        match (page_done, self.dies[d as usize].phase) {
            (Some(t), _) => self.txn_done(now, t, out),
            // With `onfi_command_phases` the command phase went with the data (`start_transfer`).
            (None, Phase::In) => {
                let cmd_t = if self.params.model.onfi_command_phases { SimTime::ZERO } else { self.params.timing.command };
                self.start_program(now, d, cmd_t, out)
            }
            // Pages before `out_next` completed one by one (it stays 0 moving the batch at once).
            (None, Phase::Out) => self.batch_done_from(now, d, self.dies[d as usize].out_next as usize, out),
            (None, p) => unreachable!("channel event for a die in phase {p:?}"),
        }
        if self.params.model.command_waits_for_channel {
            // The channel may be idle now: its chips are offered commands in turn.
            self.dispatch_channel(now, c, out);
        }
    }

    pub(super) fn batch_done(&mut self, now: SimTime, d: u32, out: &mut Outbox) {
        self.batch_done_from(now, d, 0, out);
    }

    /// The die's batch is done; its transactions from `from` on complete (the earlier ones
    /// already did, page by page).
    fn batch_done_from(&mut self, now: SimTime, d: u32, from: usize, out: &mut Outbox) {
        let n = self.dies[d as usize].n as usize;
        let batch = self.dies[d as usize].batch;
        self.gc_clock(d, false, now);
        let die = &mut self.dies[d as usize];
        die.busy_ps += (now - die.started).0;
        die.phase = Phase::Idle;
        die.n = 0;
        if let Some(s) = die.suspended.take() {
            // Resume before the batch's completions can queue (and kick) more work here.
            die.phase = s.phase;
            die.batch = s.batch;
            die.n = s.n;
            die.op_suspends = s.count;
            die.started = now;
            die.end = now + s.remaining;
            out.events.push((die.end, SsdEvent::Die(d)));
            self.stamp_txns(&s.batch[..s.n as usize], SUSPENDED, now);
            let gc = self.txns[s.batch[0] as usize].kind.is_gc();
            self.gc_clock(d, gc, now);
        }
        for &t in &batch[from..n] {
            self.txn_done(now, t, out);
        }
        self.kick(now, d, out);
    }
}
