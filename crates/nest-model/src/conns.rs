//! The state of the hosts' NVMe-oF connections in a run with faults: each connection's
//! commands out and their timers (`ConnEvent`), whether it is down. A leaf: the events table
//! and the fault state name these types; what happens to a connection is `path/connection.rs`.

use crate::request::ReqId;
use nest_core::SimTime;
use std::collections::{BTreeMap, VecDeque};

/// Timers of the hosts' NVMe-oF connections.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConnEvent {
    /// Connection `c`'s oldest command may be due.
    Timer(u32),
    /// A reconnect attempt on connection `c`.
    Reconnect(u32),
    /// Connection `c`'s Keep Alive, sent while its path was dead, is due.
    KeepAlive(u32),
}

impl ConnEvent {
    pub fn tag(&self) -> u64 {
        match *self {
            ConnEvent::Timer(c) => c as u64,
            ConnEvent::Reconnect(c) => (1 << 32) | c as u64,
            ConnEvent::KeepAlive(c) => (2 << 32) | c as u64,
        }
    }
}

/// One host's connection to one storage server (all its classes' channel pairs).
#[derive(Default)]
pub(crate) struct Conn {
    pub(crate) host: usize,
    /// Index of the server's target.
    pub(crate) target: u32,
    /// Its (forward, back) channels, one pair per class.
    pub(crate) flows: Vec<(u32, u32)>,
    /// Commands out on it, oldest first: (when the host gives up, request, timing generation).
    pub(crate) out: VecDeque<(SimTime, ReqId, u32)>,
    pub(crate) timer_pending: bool,
    /// Its pending timer has nothing to time (counted in `Simulation::dormant_timers`).
    pub(crate) dormant: bool,
    /// A Keep Alive sent while its path was dead is pending.
    pub(crate) keep_alive_due: bool,
    /// Torn down and not (yet) back; since when; its controller removed for good.
    pub(crate) down: bool,
    pub(crate) lost_at: SimTime,
    pub(crate) removed: bool,
}

/// The hosts' NVMe-oF connections, timed (runs with faults only).
#[derive(Default)]
pub struct Connections {
    pub(crate) conns: Vec<Conn>,
    /// (scenario host, target) → index into `conns`.
    pub(crate) index: BTreeMap<(usize, u32), u32>,
    /// Per request slot: its timing's generation (an entry of another generation is stale).
    pub(crate) gen: Vec<u32>,
    /// Requests aborted with their connection while their target held them: let go when their
    /// target has finished them (no completion is sent). True for a crashed host's request
    /// (a ghost, counted lost at the crash).
    pub(crate) stranded: BTreeMap<u32, bool>,
    /// Connections torn down, and commands aborted with them.
    pub teardowns: u64,
    pub aborted: u64,
}

impl Connections {
    pub(crate) fn gen_of(&mut self, r: ReqId) -> &mut u32 {
        if self.gen.len() <= r.0 as usize {
            self.gen.resize(r.0 as usize + 1, 0);
        }
        &mut self.gen[r.0 as usize]
    }

    /// Connection `c`'s live commands, oldest first, emptying it.
    pub(crate) fn take_out(&mut self, c: usize) -> Vec<ReqId> {
        let out = std::mem::take(&mut self.conns[c].out);
        out.into_iter().filter(|&(_, r, g)| self.gen.get(r.0 as usize) == Some(&g)).map(|(_, r, _)| r).collect()
    }

    /// Drops the stale commands at the front of connection `c`.
    pub(crate) fn pop_stale(&mut self, c: usize) {
        while let Some(&(_, r, g)) = self.conns[c].out.front() {
            if self.gen[r.0 as usize] == g {
                return;
            }
            self.conns[c].out.pop_front();
        }
    }
}
