//! The NVMe controller in front of a device, sans-IO: it owns the submission queues and the
//! arbitration between them, and hands out the next command when the device has a free slot.
//! Arbitration is pluggable per controller ([`Arbitration`]): NVMe's urgent + WRR over an SQ
//! per host and level ([`PerHostLevels`]) is one; SRC's split read/write queues
//! ([`crate::ssq::SplitQueues`]) are another.

use crate::arbiter::{Arbiter, ArbiterConfig, Level, SqFull, SqId};
use nest_core::lazy_vec::LazyVec;
use nest_core::{Conservation, HostId, Priority};

const CLASS_LEVELS: usize = Priority::COUNT;

/// How a controller queues commands and picks the next one to fetch.
pub trait Arbitration<C>: Send + Sync {
    /// Whether the SQ a command of `host` in class level `class` goes to has room.
    fn has_room(&self, host: HostId, class: Priority, write: bool) -> bool;
    /// Queues a command; refused when its SQ is full (the host must hold it).
    fn submit(&mut self, host: HostId, class: Priority, write: bool, cmd: C) -> Result<(), SqFull>;
    /// The same, knowing the command's LBA range (bytes at `offset`), for arbitrations that
    /// keep commands on overlapping LBAs in order (SRC's split queues).
    fn submit_at(&mut self, host: HostId, class: Priority, write: bool, _offset: u64, _bytes: u32, cmd: C) -> Result<(), SqFull> {
        self.submit(host, class, write, cmd)
    }
    /// A fetched command of this type completed at the device.
    fn done(&mut self, _write: bool) {}
    /// Sets the write weight of arbitrations that have one (SRC's w).
    fn set_write_weight(&mut self, _w: u32) -> Result<(), String> {
        Err("this arbitration has no write weight".into())
    }
    /// Its write weight, when it has one.
    fn write_weight(&self) -> Option<u32> {
        None
    }
    /// The next command to fetch.
    fn next(&mut self) -> Option<C>;
    /// Commands waiting.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Commands waiting per NVMe level (Admin, Urgent, High, Medium, Low), for the summary.
    fn queued_by_level(&self) -> [usize; 5];
}

/// NVMe's arbitration over one SQ per (host, class level): urgent strict, then WRR over High,
/// Medium and Low (best effort shares Low) — or, without QoS, round robin over every SQ.
///
/// A host's SQ is created when its first command comes, at the place in the round robin it
/// would have had (host order): a drive behind a fabric of thousands of hosts holds SQs only for
/// those that use it (up front it held 4 per host: 4,096 per drive on a k = 16 fat-tree).
pub struct PerHostLevels<C> {
    arb: Arbiter<C>,
    /// Each host's SQ per class level (`NO_SQ` until created). Chunked: filled in up front it
    /// wrote 20 B per host for every drive, 110 KB each behind 5,488 hosts (1.1 GB for 10,000
    /// drives, issue 24).
    sqs: LazyVec<[SqId; CLASS_LEVELS]>,
    wrr: bool,
    depth: usize,
}

const NO_SQ: SqId = SqId(u32::MAX);

impl<C> PerHostLevels<C> {
    /// `wrr`: urgent + WRR (else every SQ on one round-robin level); `depth` per SQ.
    pub fn new(hosts: usize, wrr: bool, cfg: ArbiterConfig, depth: usize) -> Result<Self, String> {
        Ok(PerHostLevels { arb: Arbiter::new(cfg)?, sqs: LazyVec::new(hosts, [NO_SQ; CLASS_LEVELS]), wrr, depth })
    }

    fn sq(&mut self, host: HostId, class: Priority) -> SqId {
        let slot = &mut self.sqs[host.ix()][class.index()];
        if *slot == NO_SQ {
            // The key is the SQ's place had every host's been created in order.
            let key = (host.ix() * CLASS_LEVELS + class.index()) as u64;
            *slot = self.arb.add_sq_at(Level::of_class(class, self.wrr), self.depth, key);
        }
        *slot
    }
}

impl<C: Send + Sync> Arbitration<C> for PerHostLevels<C> {
    #[inline]
    fn has_room(&self, host: HostId, class: Priority, _write: bool) -> bool {
        let sq = self.sqs[host.ix()][class.index()];
        sq == NO_SQ || self.arb.has_room(sq)
    }
    #[inline]
    fn submit(&mut self, host: HostId, class: Priority, _write: bool, cmd: C) -> Result<(), SqFull> {
        let sq = self.sq(host, class);
        self.arb.submit(sq, cmd)
    }
    #[inline]
    fn next(&mut self) -> Option<C> {
        self.arb.next().map(|(_, c)| c)
    }
    fn len(&self) -> usize {
        self.arb.len()
    }
    fn queued_by_level(&self) -> [usize; 5] {
        self.arb.queued_by_level()
    }
}

pub struct Controller<C> {
    arb: Box<dyn Arbitration<C>>,
    /// Commands submitted, and completed by the device.
    pub books: Conservation,
}

impl<C> Controller<C> {
    pub fn new(arb: Box<dyn Arbitration<C>>) -> Self {
        Controller { arb, books: Conservation::default() }
    }

    #[inline]
    pub fn has_room(&self, host: HostId, class: Priority, write: bool) -> bool {
        self.arb.has_room(host, class, write)
    }

    /// Queues a command the host was allowed to send (it checked `has_room`, or holds NVMe-oF
    /// credits for the SQ).
    #[inline]
    pub fn submit(&mut self, host: HostId, class: Priority, write: bool, cmd: C) {
        self.submit_at(host, class, write, 0, 0, cmd)
    }

    /// The same with the command's LBA range (`bytes` at `offset`; 0 bytes: unknown).
    #[inline]
    pub fn submit_at(&mut self, host: HostId, class: Priority, write: bool, offset: u64, bytes: u32, cmd: C) {
        self.books.issue(1);
        if self.arb.submit_at(host, class, write, offset, bytes, cmd).is_err() {
            panic!("a command for a full SQ: the host must check for room (locally its occupancy, over NVMe-oF its credits)");
        }
    }

    /// The next command to hand to the device, by arbitration.
    #[inline]
    pub fn fetch(&mut self) -> Option<C> {
        self.arb.next()
    }

    /// The device completed `n` commands.
    #[inline]
    pub fn completed(&mut self, n: u64) {
        self.books.complete(n);
    }

    /// The device completed a command of this type (arbitrations that share the device's depth
    /// by type count it).
    #[inline]
    pub fn done(&mut self, write: bool) {
        self.arb.done(write);
    }

    pub fn write_weight(&self) -> Option<u32> {
        self.arb.write_weight()
    }

    /// Sets the arbitration's write weight (SRC's w); an error for arbitrations without one.
    pub fn set_write_weight(&mut self, w: u32) -> Result<(), String> {
        self.arb.set_write_weight(w)
    }

    pub fn waiting(&self) -> usize {
        self.arb.len()
    }

    pub fn queued_by_level(&self) -> [usize; 5] {
        self.arb.queued_by_level()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_host_has_its_own_sqs_and_urgent_goes_first() {
        let arb = PerHostLevels::new(2, true, ArbiterConfig::default(), 2).unwrap();
        let mut c: Controller<u32> = Controller::new(Box::new(arb));
        c.submit(HostId(0), Priority::Low, false, 1);
        c.submit(HostId(0), Priority::Low, false, 2);
        assert!(!c.has_room(HostId(0), Priority::Low, false), "host 0's low SQ is full");
        assert!(c.has_room(HostId(1), Priority::Low, false), "host 1's is not");
        assert!(c.has_room(HostId(1), Priority::High, false), "a host's SQ that does not exist yet has room");
        c.submit(HostId(1), Priority::Urgent, true, 3);
        assert_eq!(c.waiting(), 3);
        assert_eq!(c.queued_by_level(), [0, 1, 0, 0, 2]);
        assert_eq!(c.fetch(), Some(3), "urgent first");
        assert_eq!((c.fetch(), c.fetch(), c.fetch()), (Some(1), Some(2), None));
        c.completed(3);
        assert_eq!(c.books.in_flight(), 0);
    }

    #[test]
    fn round_robin_puts_every_sq_on_one_level() {
        let arb = PerHostLevels::new(1, false, ArbiterConfig::default(), 8).unwrap();
        let mut c: Controller<u32> = Controller::new(Box::new(arb));
        c.submit(HostId(0), Priority::Urgent, false, 1);
        c.submit(HostId(0), Priority::Urgent, false, 2);
        c.submit(HostId(0), Priority::Low, false, 3);
        assert_eq!(c.queued_by_level(), [0, 0, 0, 3, 0]);
        // With urgent + WRR it would be 1, 2, 3: here the SQs take turns.
        assert_eq!((c.fetch(), c.fetch(), c.fetch()), (Some(1), Some(3), Some(2)));
    }

    #[test]
    #[should_panic(expected = "full SQ")]
    fn a_command_for_a_full_sq_is_a_bug_upstream() {
        let arb = PerHostLevels::new(1, true, ArbiterConfig::default(), 1).unwrap();
        let mut c: Controller<u32> = Controller::new(Box::new(arb));
        c.submit(HostId(0), Priority::High, false, 1);
        c.submit(HostId(0), Priority::High, false, 2);
    }
}
