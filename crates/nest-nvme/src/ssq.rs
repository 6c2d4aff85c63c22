//! SRC's separate submission queues (SRC §III-A, SPEC §5): reads go to the read SQ (RSQ), writes
//! to the write SQ (WSQ), one completion queue for both, and the controller fetches from the two
//! by a token weighted round robin with read weight 1 and write weight w ≥ 1.
//!
//! Readings of what the paper leaves open (docs/src.md):
//! - **Tokens.** A round gives the RSQ 1 token and the WSQ w; a fetch from an SQ takes a token
//!   *of the fetched command's type* (the LBA rule below can put a command in the other type's
//!   SQ). The RSQ is served while it has a token, then the WSQ while it has; when neither has one
//!   left the round restarts ("if no token exists for an SQ, we reset its token number"). So a
//!   backlogged controller fetches exactly 1 read per w writes.
//! - **Empty SQ.** When one SQ is empty the other is fetched without spending tokens.
//! - **Queue depth.** The device's queue depth QD (commands inside the device at once) is
//!   partitioned by the ratio: reads may hold ⌈QD / (1 + w)⌉ of it, writes the rest (at least 1
//!   each). A type at its share is not fetched while the other SQ has a command it may fetch; when
//!   the other SQ is empty the share is not enforced (like the empty-SQ rule: the device is never
//!   left idle with commands waiting).
//! - **LBA consistency.** A command whose LBA range overlaps a command still waiting in either SQ
//!   joins the SQ of the latest such command, so the two keep their order.
//! - **Room.** Each host keeps the room it has with per-(host, level) SQs (`sq_depth` commands
//!   waiting per host and class level), so NVMe-oF credits mean what they meant; the two SQs hold
//!   whatever the hosts were allowed to send.

use crate::arbiter::{SqFull, SqId};
use crate::controller::Arbitration;
use nest_core::{HostId, Priority};
use std::collections::VecDeque;

const READ: usize = 0;
const WRITE: usize = 1;

/// The index of a command's type (and of its own SQ).
#[inline]
fn kind(write: bool) -> usize {
    if write {
        WRITE
    } else {
        READ
    }
}

#[derive(Debug)]
struct Entry<C> {
    cmd: C,
    write: bool,
    host: HostId,
    class: Priority,
    /// LBA range in bytes, [start, end).
    start: u64,
    end: u64,
    /// Arrival order over both SQs.
    seq: u64,
}

pub struct SplitQueues<C> {
    /// RSQ and WSQ.
    sqs: [VecDeque<Entry<C>>; 2],
    /// w: the write weight (read weight 1).
    w: u32,
    tokens: [u32; 2],
    /// The device's queue depth and each type's share of it; commands of each type inside the device.
    qd: u32,
    cap: [u32; 2],
    in_device: [u32; 2],
    /// Commands waiting per (host, class level), and the room each has.
    waiting: Vec<[u32; Priority::COUNT]>,
    sq_depth: u32,
    /// Commands placed in the other type's SQ by the LBA rule.
    pub lba_redirects: u64,
    next_seq: u64,
}

impl<C> SplitQueues<C> {
    /// `qd`: the device's queue depth; `sq_depth`: commands each host may have waiting per class
    /// level; `w` ≥ 1.
    pub fn new(hosts: usize, sq_depth: u32, qd: u32, w: u32) -> Result<Self, String> {
        if sq_depth == 0 || qd < 2 {
            return Err(format!("split queues need an SQ depth ≥ 1 and a device queue depth ≥ 2 (got {sq_depth}, {qd})"));
        }
        let mut s = SplitQueues {
            sqs: [VecDeque::new(), VecDeque::new()],
            w: 1,
            tokens: [0; 2],
            qd,
            cap: [0; 2],
            in_device: [0; 2],
            waiting: vec![[0; Priority::COUNT]; hosts],
            sq_depth,
            lba_redirects: 0,
            next_seq: 0,
        };
        s.set_write_weight(w)?;
        Ok(s)
    }

    /// Sets w (SRC's Algorithm 1 does at run time): a new round starts and the depth is
    /// partitioned again.
    pub fn set_write_weight(&mut self, w: u32) -> Result<(), String> {
        if w == 0 {
            return Err("the write weight w must be at least 1".into());
        }
        self.w = w;
        self.tokens = [1, w];
        let reads = self.qd.div_ceil(1 + w).clamp(1, self.qd - 1);
        self.cap = [reads, self.qd - reads];
        Ok(())
    }

    pub fn write_weight(&self) -> u32 {
        self.w
    }

    /// Each type's share of the device's queue depth (reads, writes).
    pub fn shares(&self) -> [u32; 2] {
        self.cap
    }

    /// The SQ a command goes to: its type's, unless it overlaps a waiting command (LBA rule).
    fn sq_for(&self, write: bool, start: u64, end: u64) -> usize {
        let own = kind(write);
        // The latest overlapping command in either SQ: each SQ is in arrival order, so its last
        // overlapping entry is its latest; the two are compared by arrival number.
        let mut latest: Option<(usize, u64)> = None; // (sq, seq)
        for (q, sq) in self.sqs.iter().enumerate() {
            if let Some(e) = sq.iter().rev().find(|e| e.start < end && start < e.end) {
                if latest.is_none_or(|(_, s)| e.seq > s) {
                    latest = Some((q, e.seq));
                }
            }
        }
        latest.map_or(own, |(q, _)| q)
    }

    /// Whether SQ `q` has a head whose type is below its share of the device's depth.
    fn fits(&self, q: usize) -> bool {
        self.sqs[q].front().is_some_and(|e| self.in_device[kind(e.write)] < self.cap[kind(e.write)])
    }

    fn take(&mut self, q: usize, spend: bool) -> C {
        let e = self.sqs[q].pop_front().expect("a non-empty SQ");
        let t = kind(e.write);
        if spend {
            self.tokens[t] = self.tokens[t].saturating_sub(1);
        }
        self.in_device[t] += 1;
        self.waiting[e.host.ix()][e.class.index()] -= 1;
        e.cmd
    }
}

impl<C: Send + Sync> Arbitration<C> for SplitQueues<C> {
    #[inline]
    fn has_room(&self, host: HostId, class: Priority, _write: bool) -> bool {
        self.waiting[host.ix()][class.index()] < self.sq_depth
    }

    fn submit(&mut self, host: HostId, class: Priority, write: bool, cmd: C) -> Result<(), SqFull> {
        self.submit_at(host, class, write, 0, 0, cmd)
    }

    fn submit_at(&mut self, host: HostId, class: Priority, write: bool, offset: u64, bytes: u32, cmd: C) -> Result<(), SqFull> {
        if !self.has_room(host, class, write) {
            return Err(SqFull(SqId(kind(write) as u32)));
        }
        let (start, end) = (offset, offset + bytes.max(1) as u64);
        let q = if bytes == 0 { kind(write) } else { self.sq_for(write, start, end) };
        if q != kind(write) {
            self.lba_redirects += 1;
        }
        self.waiting[host.ix()][class.index()] += 1;
        self.next_seq += 1;
        self.sqs[q].push_back(Entry { cmd, write, host, class, start, end, seq: self.next_seq });
        Ok(())
    }

    fn next(&mut self) -> Option<C> {
        match (self.sqs[READ].is_empty(), self.sqs[WRITE].is_empty()) {
            (true, true) => None,
            // One SQ empty: the other is fetched without tokens, whatever the shares.
            (false, true) => Some(self.take(READ, false)),
            (true, false) => Some(self.take(WRITE, false)),
            (false, false) => {
                let ok = [self.fits(READ), self.fits(WRITE)];
                let q = match ok {
                    [false, false] => return None,
                    [true, false] => READ,
                    [false, true] => WRITE,
                    [true, true] => {
                        if self.tokens == [0, 0] {
                            self.tokens = [1, self.w];
                        }
                        if self.tokens[READ] > 0 {
                            READ
                        } else {
                            WRITE
                        }
                    }
                };
                Some(self.take(q, true))
            }
        }
    }

    fn done(&mut self, write: bool) {
        let t = kind(write);
        self.in_device[t] = self.in_device[t].saturating_sub(1);
    }

    fn len(&self) -> usize {
        self.sqs[READ].len() + self.sqs[WRITE].len()
    }

    fn queued_by_level(&self) -> [usize; 5] {
        let mut by = [0usize; 5];
        for q in &self.sqs {
            for e in q {
                by[crate::arbiter::Level::of_class(e.class, true) as usize] += 1;
            }
        }
        by
    }

    fn set_write_weight(&mut self, w: u32) -> Result<(), String> {
        SplitQueues::set_write_weight(self, w)
    }

    fn write_weight(&self) -> Option<u32> {
        Some(self.w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: HostId = HostId(0);

    fn backlog(w: u32, n: u32) -> SplitQueues<u32> {
        let mut s = SplitQueues::new(1, 10_000, 1_000_000, w).unwrap();
        for k in 0..n {
            s.submit_at(H, Priority::High, false, (k as u64) << 20, 4096, k).unwrap();
            s.submit_at(H, Priority::High, true, ((k + n) as u64) << 20, 4096, 100_000 + k).unwrap();
        }
        s
    }

    #[test]
    fn a_backlogged_controller_fetches_one_read_per_w_writes() {
        for w in 1..=8u32 {
            let mut s = backlog(w, 1000);
            let rounds = 50;
            let got: Vec<u32> = (0..rounds * (1 + w)).map(|_| s.next().unwrap()).collect();
            let reads = got.iter().filter(|&&c| c < 100_000).count() as u32;
            assert_eq!((reads, got.len() as u32 - reads), (rounds, rounds * w), "w = {w}");
            // Each round: the read, then w writes, in arrival order within each SQ.
            assert!(got[0] == 0 && got[1..=w as usize].iter().all(|&c| c >= 100_000), "w = {w}: {:?}", &got[..=w as usize]);
        }
    }

    #[test]
    fn an_empty_sq_lets_the_other_be_fetched_without_spending_tokens() {
        let mut s: SplitQueues<u32> = SplitQueues::new(1, 100, 1000, 3).unwrap();
        for k in 0..5 {
            s.submit_at(H, Priority::High, true, k << 20, 4096, k as u32).unwrap();
        }
        let got: Vec<u32> = (0..5).map(|_| s.next().unwrap()).collect();
        assert_eq!(got, vec![0, 1, 2, 3, 4], "writes alone: all fetched, no round limits them");
        assert_eq!(s.tokens, [1, 3], "and no token spent");
        assert_eq!(s.next(), None);
    }

    #[test]
    fn the_device_depth_is_shared_by_the_ratio_while_both_types_wait() {
        // QD 8, w = 3: reads may hold 2 slots, writes 6.
        let mut s: SplitQueues<u32> = SplitQueues::new(1, 100, 8, 3).unwrap();
        assert_eq!(s.shares(), [2, 6]);
        for k in 0..10u32 {
            s.submit_at(H, Priority::High, false, (k as u64) << 20, 4096, k).unwrap();
        }
        s.submit_at(H, Priority::High, true, 99 << 20, 4096, 500).unwrap();
        // Round: read 0, write 500; then tokens [0, 2] with the WSQ empty: reads go on alone.
        assert_eq!((s.next(), s.next()), (Some(0), Some(500)));
        let rest: Vec<u32> = std::iter::from_fn(|| s.next()).take(20).collect();
        assert_eq!(rest.len(), 9, "with no write waiting the read share is not enforced");
        // Now both wait: reads stop at their 2 slots, writes at their 6, while the other waits.
        let mut s: SplitQueues<u32> = SplitQueues::new(1, 100, 8, 3).unwrap();
        for k in 0..4u32 {
            s.submit_at(H, Priority::High, false, (k as u64) << 20, 4096, k).unwrap();
        }
        for k in 0..8u32 {
            s.submit_at(H, Priority::High, true, ((k + 10) as u64) << 20, 4096, 100 + k).unwrap();
        }
        let got: Vec<u32> = std::iter::from_fn(|| s.next()).take(20).collect();
        assert_eq!(got, vec![0, 100, 101, 102, 1, 103, 104, 105], "2 reads and 6 writes inside the device: nothing more");
        s.done(false);
        assert_eq!(s.next(), Some(2), "a read completed: room for one more read");
        assert_eq!(s.next(), None);
        s.done(true);
        assert_eq!(s.next(), Some(106));
    }

    #[test]
    fn a_command_overlapping_a_waiting_one_joins_its_sq_and_keeps_the_order() {
        let mut s: SplitQueues<u32> = SplitQueues::new(1, 100, 1000, 4).unwrap();
        s.submit_at(H, Priority::High, false, 0, 8192, 1).unwrap(); // read [0, 8K)
        s.submit_at(H, Priority::High, true, 1 << 20, 4096, 2).unwrap(); // write elsewhere
        s.submit_at(H, Priority::High, true, 4096, 4096, 3).unwrap(); // write into the read's range
        assert_eq!(s.lba_redirects, 1);
        assert_eq!(s.len(), 3);
        // Round 1: RSQ's read (read token), then the WSQ's write; the redirected write waits in
        // the RSQ behind the read — never before it.
        assert_eq!(s.next(), Some(1));
        assert_eq!(s.next(), Some(2));
        // Tokens now [0, 3]: the RSQ holds only the write, the WSQ is empty: fetched freely.
        assert_eq!(s.next(), Some(3));
        // The later of two overlapping commands decides: a read over both the queued write and read.
        let mut s: SplitQueues<u32> = SplitQueues::new(1, 100, 1000, 1).unwrap();
        s.submit_at(H, Priority::High, false, 0, 4096, 1).unwrap();
        s.submit_at(H, Priority::High, true, 0, 4096, 2).unwrap(); // overlaps the read: RSQ
        s.submit_at(H, Priority::High, true, 8192, 4096, 3).unwrap(); // WSQ
        s.submit_at(H, Priority::High, false, 8192, 4096, 4).unwrap(); // overlaps write 3: WSQ
        assert_eq!(s.lba_redirects, 2);
        assert_eq!([s.sqs[READ].len(), s.sqs[WRITE].len()], [2, 2]);
        // Overlapping a command in each SQ, the later of the two decides, wherever it sits.
        let mut s: SplitQueues<u32> = SplitQueues::new(1, 100, 1000, 1).unwrap();
        s.submit_at(H, Priority::High, true, 0, 4096, 1).unwrap(); // WSQ, first; last in its SQ
        s.submit_at(H, Priority::High, false, 4096, 4096, 2).unwrap(); // RSQ, after the write
        for k in 0..3u64 {
            s.submit_at(H, Priority::High, false, (k + 1) << 20, 4096, 10 + k as u32).unwrap();
            // RSQ, elsewhere
        }
        // Overlaps write 1 (nearer its SQ's back) and read 2 (deeper in its SQ, but later).
        s.submit_at(H, Priority::High, true, 0, 8192, 3).unwrap();
        assert_eq!(s.sqs[READ].back().map(|e| e.cmd), Some(3));
    }

    #[test]
    fn each_host_keeps_its_room_per_class_level() {
        let mut s: SplitQueues<u32> = SplitQueues::new(2, 2, 64, 2).unwrap();
        s.submit_at(H, Priority::Low, false, 0, 4096, 1).unwrap();
        s.submit_at(H, Priority::Low, true, 1 << 20, 4096, 2).unwrap();
        assert!(!s.has_room(H, Priority::Low, false));
        assert!(s.has_room(H, Priority::High, false) && s.has_room(HostId(1), Priority::Low, true));
        assert!(s.submit_at(H, Priority::Low, false, 2 << 20, 4096, 3).is_err());
        assert_eq!(s.queued_by_level(), [0, 0, 0, 0, 2]);
        s.next();
        assert!(s.has_room(H, Priority::Low, false), "a fetched command frees its host's room");
        assert!(SplitQueues::<u32>::new(1, 2, 64, 0).is_err());
    }
}
