//! MQSim's write admission, page by page (`WriteAdmission::Page`, the compat mode's): a host
//! write enters the write cache a page at a time while the write-backs in flight leave room,
//! a new write goes first even past writes that wait, and each finished write-back retries
//! the waiting writes in order (`Data_Cache_Manager_Flash_Advanced.cpp`, 7ec40e3).
//!
//! A command being admitted keeps one extra count in `remaining` (the admission token) until
//! its last page is in, so the DRAM writes of its earlier parts cannot complete it.

use super::decomp::WRITE_CACHE;
use super::{Outbox, Ssd};
use nest_core::SimTime;

impl Ssd {
    /// Command `c`'s data arrived: admit what fits now, wait for the rest.
    pub(super) fn start_page_admission(&mut self, now: SimTime, c: u32, out: &mut Outbox) {
        self.cmds[c as usize].remaining = 1;
        if !self.admit_pages(now, c, out) {
            // One queue whatever the class: MQSim keeps the waiting writes of a shared cache in
            // one list (`waiting_user_requests_queue_for_dram_free_slot[0]`, `:251-258`), so a
            // Medium write that waits is retried before a High one that came later. (By class,
            // a busy High flow's waiting writes held a Medium write back until High finished.)
            self.cache_wait[0].push_back(c);
            self.counters.write_stalls += 1;
        }
        self.flush_due(now, out, 0);
    }

    /// Admits command `c`'s next pages while write-backs in flight stay under the limit and the
    /// cache has a slot, with one DRAM write for them; whether every page is now in.
    fn admit_pages(&mut self, now: SimTime, c: u32, out: &mut Outbox) -> bool {
        let cmd = self.cmds[c as usize];
        let (mut i, mut bytes) = (cmd.admitted, 0u64);
        while i < cmd.npages && self.writeback_room() {
            let lpa = self.lpa_of(&cmd, i);
            let b = self.page_bytes(&cmd, i);
            let cache = self.cache.as_mut().expect("a write cache");
            if cache.slot_of(lpa).is_none() && cache.available() == 0 {
                // No slot: write back the least recently written dirty page to make one.
                self.flush_due(now, out, 1);
                break;
            }
            if let Some(s) = cache.write(lpa, cmd.class, b, now.0) {
                let (lpa, class, fb) = cache.flush_now(s);
                self.issue_flush(now, s, lpa, class, fb, out);
            }
            bytes += b as u64;
            i += 1;
        }
        if i > cmd.admitted {
            if cmd.admitted == 0 {
                self.cmd_stage(c, WRITE_CACHE, now);
            }
            let m = &mut self.cmds[c as usize];
            m.admitted = i;
            m.remaining += 1;
            self.dram_access(now, c, bytes, out);
        }
        let all = i == cmd.npages;
        if all {
            self.cmds[c as usize].remaining -= 1;
        }
        self.cache.as_mut().expect("a write cache").admission_done(now.0);
        all
    }

    /// A write-back finished: the waiting writes in arrival order, each taking what fits, until
    /// the write-backs in flight fill the limit again (`:467-479`). They are all in queue 0
    /// (`start_page_admission`); the other queues are the command admission's, by class.
    pub(super) fn admit_waiting_pages(&mut self, now: SimTime, out: &mut Outbox) {
        'queues: for q in 0..self.cache_wait.len() {
            let mut k = 0;
            while k < self.cache_wait[q].len() {
                let c = self.cache_wait[q][k];
                if self.admit_pages(now, c, out) {
                    self.cache_wait[q].remove(k);
                } else {
                    k += 1;
                }
                if !self.writeback_room() {
                    break 'queues;
                }
            }
        }
        self.flush_due(now, out, 0);
    }
}
