//! The SSD's host interface: command slots, PCIe transfers in and out, the DRAM data cache's
//! read hits and write admission (per class with device-level QoS), and the split of a command
//! into page transactions.

use super::decomp::{DevParts, DRAM, HOST_IF, WRITE_CACHE};
use super::txn::{Kind, Txn};
use super::{Done, Outbox, Ssd, SsdEvent};
use crate::geometry::NONE;
use nest_core::SimTime;

/// An NVMe submission queue entry, a completion queue entry, a doorbell write and a read
/// request's payload as MQSim sizes them (`sqe_over_pcie`; `src/ssd/Host_Interface_Base.cpp:58-76`,
/// `src/host/PCIe_Root_Complex.cpp:31-38`). MQSim sends `sizeof(Submission_Queue_Entry)`, 72
/// bytes with the struct's padding (`src/ssd/Host_Interface_Defs.h:50-61`), where NVMe's entry
/// is 64.
const SQE_BYTES: u64 = 72;
const CQE_BYTES: u64 = 16;
const DOORBELL_BYTES: u64 = 2;
const FETCH_BYTES: u64 = 4;

#[derive(Copy, Clone, Debug)]
pub(super) struct Cmd {
    pub(super) tag: u32,
    pub(super) write: bool,
    pub(super) class: u8,
    pub(super) bytes: u32,
    pub(super) first_lpa: u32,
    pub(super) npages: u32,
    /// Byte offset of the command inside its first page.
    pub(super) head: u32,
    pub(super) remaining: u32,
    /// Pages admitted into the write cache so far (`WriteAdmission::Page`).
    pub(super) admitted: u32,
    /// Where the command's time went so far (`decomp`), and when its current stage began.
    pub(super) parts: DevParts,
    pub(super) mark: SimTime,
    /// PLM: the window the command arrived in (0 no PLM, 1 DTWin, 2 NDWin), and whether it is
    /// a DTWin write bound for the NV buffer.
    pub(super) plm: u8,
    pub(super) nv: bool,
    /// `sqe_over_pcie`: how many of the command's NVMe messages have crossed the link.
    pub(super) messages: u8,
    /// `segment_skews`: the second piece names the first piece's page (MQSim's bug).
    pub(super) dup_first: bool,
}

impl Ssd {
    /// Accepts a host command (`class`: 0 urgent, 1 high, 2 medium, 3 low).
    #[allow(clippy::too_many_arguments)]
    pub fn submit(&mut self, now: SimTime, tag: u32, write: bool, offset: u64, size: u32, class: u8, out: &mut Outbox) {
        let opened = self.open_submission();
        self.accept(now, tag, write, offset, size, class, out);
        self.schedule(opened, now, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn accept(&mut self, now: SimTime, tag: u32, write: bool, offset: u64, size: u32, class: u8, out: &mut Outbox) {
        let ps = self.layout.page;
        let size = size.max(1);
        if !self.params.model.segment_skews.is_empty() {
            return self.accept_skewed(now, tag, write, offset, size, class, out);
        }
        let first = ps.quotient(offset);
        let last = ps.quotient(offset + size as u64 - 1);
        self.accept_pages(now, tag, write, class, size, first, last - first + 1, ps.remainder(offset) as u32, false, out);
    }

    /// `segment_skews`: the pieces MQSim makes of a request in a flow whose slice starts
    /// `skew` bytes past a page boundary — split where the drive's pages end, numbered from the
    /// slice's start: piece 0 names the page of its own first byte (counted from the slice),
    /// piece k ≥ 1 the page of its grid start less one grid page, so pieces 0 and 1 share a
    /// page when the request starts at or past `skew` into a page of the slice.
    #[allow(clippy::too_many_arguments)]
    fn accept_skewed(&mut self, now: SimTime, tag: u32, write: bool, offset: u64, size: u32, class: u8, out: &mut Outbox) {
        let ps = self.layout.page_size as u64;
        let m = &self.params.model;
        // The domain the offset lies in (the importer gives them rising, the skews in that order).
        let d = m.mapping_domains.partition_point(|&b| b <= offset).saturating_sub(1);
        let start = m.mapping_domains.get(d).copied().unwrap_or(0);
        let skew = m.segment_skews.get(d).copied().unwrap_or(0) % ps;
        let (base, x) = (start / ps, offset - start);
        let y = x + skew;
        let pieces = (y + size as u64 - 1) / ps - y / ps + 1;
        let dup = skew > 0 && pieces > 1 && x / ps == y / ps;
        self.accept_pages(now, tag, write, class, size, base + x / ps, pieces, (y % ps) as u32, dup, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn accept_pages(
        &mut self,
        now: SimTime,
        tag: u32,
        write: bool,
        class: u8,
        size: u32,
        first: u64,
        npages: u64,
        head: u32,
        dup_first: bool,
        out: &mut Outbox,
    ) {
        let logical = self.logical_pages as u64;
        let cmd = Cmd {
            tag,
            write,
            class: class.min(3),
            bytes: size,
            // An offset past the drive wraps (the division only then).
            first_lpa: (if first < logical { first } else { first % logical }) as u32,
            npages: npages as u32,
            head,
            remaining: 0,
            admitted: 0,
            parts: DevParts::default(),
            mark: now,
            plm: 0,
            nv: false,
            messages: 0,
            dup_first,
        };
        let c = self.cmds.alloc(cmd);
        self.in_flight += 1;
        self.counters.commands += 1;
        if self.plm.is_some() {
            let delay = self.plm_admit(now, c, out);
            if delay > SimTime::ZERO {
                out.events.push((now + delay, SsdEvent::Delayed(c)));
                return;
            }
        }
        self.begin_cmd(now, c, out);
    }

    /// Command `c` starts: a write's data comes over PCIe, a read goes to the cache or flash.
    pub(super) fn begin_cmd(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        let (write, size) = (self.cmds[c as usize].write, self.cmds[c as usize].bytes);
        let overhead = self.params.host.command_overhead;
        if self.params.model.sqe_over_pcie {
            // The host rings the doorbell after the command overhead; each later message is
            // queued on its direction when the one before it has crossed (`nvme_message`).
            out.events.push((now + overhead, SsdEvent::HostIn(c)));
        } else if write {
            let t = self.pcie_in(now + overhead, size as u64);
            out.events.push((t, SsdEvent::HostIn(c)));
        } else {
            self.start_read(now, c, out);
        }
    }

    /// `sqe_over_pcie`: command `c`'s next NVMe message, as MQSim sends them — the doorbell in,
    /// the entry's fetch request out and the entry in, then for a write its data's fetch
    /// request out and the data in — each queued on its direction of the link only when the
    /// one before it has crossed (`src/host/PCIe_Link.cpp:28-75`,
    /// `src/ssd/Host_Interface_NVMe.cpp:220-345`). So a later command's doorbell and entry
    /// pass an earlier write's data that has not been asked for yet, as they do in MQSim; the
    /// whole chain booked at once put every read behind all the write data ahead of it.
    /// True when the command's last message (a read's entry, a write's data) is in.
    fn nvme_message(&mut self, now: SimTime, c: u32, out: &mut Outbox) -> bool {
        let cmd = &mut self.cmds[c as usize];
        let (sent, write, size) = (cmd.messages, cmd.write, cmd.bytes as u64);
        cmd.messages += 1;
        let t = match (sent, write) {
            (0, _) => self.pcie_in(now, DOORBELL_BYTES),
            (1, _) | (3, true) => self.pcie_out(now, FETCH_BYTES),
            (2, _) => self.pcie_in(now, SQE_BYTES),
            (4, true) => self.pcie_in(now, size),
            _ => return true,
        };
        out.events.push((t, SsdEvent::HostIn(c)));
        false
    }

    /// `bytes` over the link toward the drive, queued from `at`; when they are in.
    fn pcie_in(&mut self, at: SimTime, bytes: u64) -> SimTime {
        let t = at.max(self.pcie_in_free) + self.params.host.transfer_time_by(bytes, self.params.model.pcie_framing);
        self.pcie_in_free = t;
        t
    }

    /// `bytes` over the link toward the host, queued from `at`; when they are out.
    fn pcie_out(&mut self, at: SimTime, bytes: u64) -> SimTime {
        let t = at.max(self.pcie_out_free) + self.params.host.transfer_time_by(bytes, self.params.model.pcie_framing);
        self.pcie_out_free = t;
        t
    }

    /// Command `c`'s data (a write) or its submission entry (a read, `sqe_over_pcie`) arrived.
    pub(super) fn host_in(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        if self.params.model.sqe_over_pcie && !self.nvme_message(now, c, out) {
            return;
        }
        if self.cmds[c as usize].write {
            self.start_write(now, c, out)
        } else {
            self.cmd_stage(c, HOST_IF, now);
            self.start_read(now, c, out)
        }
    }

    /// Bytes of page `i` of command `c` that the command covers.
    #[inline]
    pub(super) fn page_bytes(&self, c: &Cmd, i: u32) -> u32 {
        let ps = self.layout.page_size;
        let start = if i == 0 { c.head } else { 0 };
        let end = ((c.head as u64 + c.bytes as u64) - i as u64 * ps as u64).min(ps as u64) as u32;
        end - start
    }

    #[inline]
    pub(super) fn lpa_of(&self, c: &Cmd, i: u32) -> u32 {
        let l = c.first_lpa + i - (c.dup_first && i > 0) as u32;
        if l >= self.logical_pages {
            l - self.logical_pages
        } else {
            l
        }
    }

    pub(super) fn start_read(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        let cmd = self.cmds[c as usize];
        let mut dram_bytes = 0u64;
        let mut flash = 0u32;
        for i in 0..cmd.npages {
            let lpa = self.lpa_of(&cmd, i);
            let bytes = self.page_bytes(&cmd, i);
            self.counters.read_pages += 1;
            if self.nv_holds(lpa) || self.cache.as_mut().is_some_and(|k| k.read(lpa)) {
                dram_bytes += bytes as u64;
                continue;
            }
            flash += 1;
            let t = self.new_txn(Txn { kind: Kind::Read, class: cmd.class, lpa, ppa: NONE, plane: NONE, owner: c, bytes, next: NONE, seq: 0 });
            self.start_clock(t, now);
            self.route(now, t, out);
        }
        self.cmds[c as usize].remaining += flash;
        if dram_bytes > 0 {
            self.cmds[c as usize].remaining += 1;
            self.dram_access(now, c, dram_bytes, out);
        }
    }

    pub(super) fn dram_access(&mut self, now: SimTime, c: u32, bytes: u64, out: &mut Outbox) {
        let service = self.params.cache.access_time_by(bytes, self.params.model.dram_timing);
        let t = now.max(self.dram_free) + service;
        self.dram_free = t;
        self.dram_busy += service;
        out.events.push((t, SsdEvent::Dram(c)));
    }

    pub(super) fn start_write(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        self.cmd_stage(c, HOST_IF, now);
        let cmd = self.cmds[c as usize];
        self.counters.write_pages += cmd.npages as u64;
        if cmd.nv {
            return self.nv_write(now, c, out);
        }
        let cacheable = self.params.cache.mode.writes() && self.cache.as_ref().is_some_and(|k| cmd.npages <= k.slots);
        if cacheable && self.params.model.write_admission == crate::switches::WriteAdmission::Page {
            return self.start_page_admission(now, c, out);
        }
        if cacheable {
            if self.cache_wait.iter().all(|q| q.is_empty()) && self.cache_admits(&cmd) && self.writeback_room() {
                self.cache_write(now, c, out);
            } else {
                let q = if self.params.sched.device_qos { cmd.class as usize } else { 0 };
                self.cache_wait[q].push_back(c);
                self.counters.write_stalls += 1;
                self.admit_waiting(now, out);
            }
            return;
        }
        self.cmds[c as usize].remaining = cmd.npages;
        for i in 0..cmd.npages {
            let lpa = self.lpa_of(&cmd, i);
            let bytes = self.page_bytes(&cmd, i);
            let partial = bytes < self.layout.page_size && self.ftl.lookup(lpa).is_some();
            let kind = if partial { Kind::RmwRead } else { Kind::Write };
            if partial {
                self.counters.rmw_reads += 1;
            }
            let t = self.new_txn(Txn {
                kind,
                class: cmd.class,
                lpa,
                ppa: NONE,
                plane: NONE,
                owner: c,
                bytes: if partial { self.layout.page_size - bytes } else { bytes },
                next: NONE,
                seq: 0,
            });
            self.start_clock(t, now);
            self.route(now, t, out);
        }
    }

    /// Whether the cache has room for `cmd` now: a slot for each page it does not hold, not
    /// counting the command's own clean pages (written first, they turn dirty and stop being
    /// available — else placing a miss could evict a page the command is about to rewrite).
    pub(super) fn cache_admits(&self, cmd: &Cmd) -> bool {
        self.cache_need(cmd) <= self.cache.as_ref().unwrap().available()
    }

    /// Whether write-backs in flight leave room for another host write (MQSim's back-pressure,
    /// `writeback_limit_pages`): a write waits while they fill the limit.
    #[inline]
    pub(super) fn writeback_room(&self) -> bool {
        self.params.model.writeback_limit_pages.is_none_or(|p| self.writeback_bytes < p as u64 * self.layout.page_size as u64)
    }

    /// Available slots `cmd` needs (see `cache_admits`).
    pub(super) fn cache_need(&self, cmd: &Cmd) -> u32 {
        let cache = self.cache.as_ref().unwrap();
        let (mut new, mut own_clean) = (0u32, 0u32);
        for i in 0..cmd.npages {
            match cache.slot_of(self.lpa_of(cmd, i)) {
                None => new += 1,
                Some(s) if cache.state[s as usize] == crate::cache::Slot::Clean => own_clean += 1,
                Some(_) => {}
            }
        }
        new + own_clean
    }

    pub(super) fn cache_write(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        self.cmd_stage(c, WRITE_CACHE, now);
        let cmd = self.cmds[c as usize];
        // Pages the cache holds first, then the misses (see `cache_admits`).
        for hits in [true, false] {
            for i in 0..cmd.npages {
                let lpa = self.lpa_of(&cmd, i);
                let bytes = self.page_bytes(&cmd, i);
                let cache = self.cache.as_mut().unwrap();
                if cache.slot_of(lpa).is_some() == hits {
                    if let Some(s) = cache.write(lpa, cmd.class, bytes, now.0) {
                        // Eager destage: a cold page goes to flash now.
                        let (lpa, class, bytes) = cache.flush_now(s);
                        self.issue_flush(now, s, lpa, class, bytes, out);
                    }
                }
            }
        }
        self.cache.as_mut().unwrap().admission_done(now.0);
        self.cmds[c as usize].remaining = 1;
        self.dram_access(now, c, cmd.bytes as u64, out);
        self.flush_due(now, out, 0);
    }

    pub(super) fn issue_flush(&mut self, now: SimTime, slot: u32, lpa: u32, class: u8, bytes: u32, out: &mut Outbox) {
        // `bytes`: what the host wrote into the slot since its last write-back — the program's
        // transfer under `ProgramTransfer::Written`, and what counts against the write-back
        // limit. (A dirty slot always has some; a whole page is the safe fallback.)
        let bytes = if bytes == 0 { self.layout.page_size } else { bytes };
        self.writeback_bytes += bytes as u64;
        // A write-back to a GC-locked LPA is lost in `route` (`gc_lock_loses_writebacks`).
        let t = self.new_txn(Txn { kind: Kind::Flush, class, lpa, ppa: NONE, plane: NONE, owner: slot, bytes, next: NONE, seq: 0 });
        self.route(now, t, out);
    }

    /// Starts write-back of LRU dirty slots while free + clean slots are short of the reserve
    /// or of `want` (what a waiting write needs: a write larger than the reserve must not wait
    /// for a flush that never starts).
    pub(super) fn flush_due(&mut self, now: SimTime, out: &mut Outbox, want: u32) {
        loop {
            let Some((slot, lpa, class, bytes)) = self.cache.as_mut().and_then(|k| k.next_flush(want)) else { return };
            self.issue_flush(now, slot, lpa, class, bytes, out);
        }
    }

    /// A part of command `c` finished: a flash transaction with its `parts`, or (`None`) its
    /// DRAM access. The last part to finish is the command's critical path.
    pub(super) fn cmd_part_done(&mut self, now: SimTime, c: u32, parts: Option<&DevParts>, out: &mut Outbox) {
        let cmd = &mut self.cmds[c as usize];
        cmd.remaining -= 1;
        if cmd.remaining > 0 {
            return;
        }
        match parts {
            Some(p) => {
                cmd.parts.iter_mut().zip(p).for_each(|(a, b)| *a += b);
                cmd.mark = now;
            }
            None => self.cmd_stage(c, DRAM, now),
        }
        let cqe = self.params.model.sqe_over_pcie;
        if self.cmds[c as usize].write {
            if cqe {
                let t = self.pcie_out(now, CQE_BYTES);
                out.events.push((t, SsdEvent::HostOut(c)));
            } else {
                self.finish_cmd(now, c, out);
            }
        } else {
            let mut t = self.pcie_out(now, self.cmds[c as usize].bytes as u64);
            if cqe {
                t = self.pcie_out(t, CQE_BYTES);
            }
            out.events.push((t + self.params.host.command_overhead, SsdEvent::HostOut(c)));
        }
    }

    /// Ends command `c`'s current stage at `now`, counting it as `part`.
    #[inline]
    pub(super) fn cmd_stage(&mut self, c: u32, part: usize, now: SimTime) {
        let cmd = &mut self.cmds[c as usize];
        cmd.parts[part] += (now - cmd.mark).0;
        cmd.mark = now;
    }

    /// Command `c`'s completion reached the host. With `sqe_over_pcie` the host answers a
    /// completion entry with the completion queue's head doorbell (`src/host/IO_Flow_Base.cpp:439`).
    pub(super) fn host_out(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        if self.params.model.sqe_over_pcie {
            self.pcie_in(now, DOORBELL_BYTES);
        }
        self.finish_cmd(now, c, out)
    }

    pub(super) fn finish_cmd(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        self.cmd_stage(c, HOST_IF, now);
        let cmd = &self.cmds[c as usize];
        out.done.push(Done { tag: cmd.tag, parts: cmd.parts });
        if cmd.plm != 0 {
            let latency = cmd.parts.iter().sum();
            self.plm_finished(now, c, latency, out);
        }
        self.cmds.release(c);
        self.in_flight -= 1;
    }

    /// Writes waiting for cache room: in order, or by class (urgent first, then WRR). The
    /// chosen write waits for room rather than letting a smaller one pass, and a WRR turn is
    /// spent only when its write gets in.
    pub(super) fn admit_waiting(&mut self, now: SimTime, out: &mut Outbox) {
        if self.params.model.write_admission == crate::switches::WriteAdmission::Page {
            return self.admit_waiting_pages(now, out);
        }
        loop {
            let w = &self.cache_wait;
            let mut wrr = self.cache_wrr.clone();
            let Some(q) = wrr.pick_class(!w[0].is_empty(), |c| !w[c].is_empty()) else { return };
            let c = *w[q].front().unwrap();
            let need = self.cache_need(&self.cmds[c as usize]);
            if need > self.cache.as_ref().unwrap().available() {
                return self.flush_due(now, out, need);
            }
            if !self.writeback_room() {
                return;
            }
            self.cache_wrr = wrr;
            self.cache_wait[q].pop_front();
            self.cache_write(now, c, out);
        }
    }
}
