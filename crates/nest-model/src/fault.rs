//! The state of a run's faults (`[[fault]]`): which devices are dead, which the hosts know to be
//! dead, and what the faults did. How requests meet them is in `path/fault.rs`.

use nest_config::resolve::FaultPlan;
use nest_core::SimTime;
use std::collections::{BTreeMap, BTreeSet};

/// How long an I/O to a device its host already takes as dead takes to fail: the driver's error
/// path. Not zero, so a closed loop against a dead device fails at a finite rate instead of
/// livelocking at one instant.
pub const FAIL_FAST: SimTime = SimTime::from_us(10);

/// The faults of a run and what they did.
pub struct FaultRt {
    pub plan: Vec<FaultPlan>,
    /// The device answers nothing (its fault happened).
    pub dead: Vec<bool>,
    /// Some host timed out on it: hosts steer around it and fail what they still send it.
    pub known_dead: Vec<bool>,
    /// When the hosts took it as dead (their reconnect attempts over NVMe-oF count from there).
    pub lost_at: Vec<SimTime>,
    /// Its hosts' reconnect attempts ran out (`ctrl_loss_tmo`): they removed its controller and
    /// do not use it again in this run.
    pub removed: Vec<bool>,
    /// Split requests one of whose parts failed: they fail when their last part is back.
    pub failed_parents: BTreeSet<u32>,
    /// Requests sitting at a dead device, and when their hosts give up on them (an earlier
    /// give-up — a keep-alive that found the server lost — leaves a timeout event behind that
    /// this tells apart).
    pub hanging: BTreeMap<u32, SimTime>,
    pub timeouts: u64,
    pub failed: u64,
    pub retried: u64,
    pub degraded_writes: u64,
    pub failed_by_workload: Vec<u64>,
    /// Crashed hosts; requests their workloads had in flight when they crashed (lost), per
    /// workload; and how many of those are still somewhere in the system (a device, a target,
    /// the network) — they end without their host.
    pub crashed: Vec<bool>,
    pub lost: u64,
    pub lost_by_workload: Vec<u64>,
    pub ghosts: u64,
    /// (time, kind, what: a device's index or a link's name) of each fault that happened.
    pub happened: Vec<(SimTime, &'static str, Subject)>,
    /// Each slowed SSD's own flash timing, kept to scale from and to restore.
    pub base_timing: Vec<Option<nest_ssd::params::FlashTiming>>,
    /// The hosts' NVMe-oF connections, timed (`path/connection.rs`; with NVMe-oF only).
    pub conns: Option<Box<crate::conns::Connections>>,
}

impl FaultRt {
    pub fn new(plan: &[FaultPlan], devices: usize, workloads: usize, hosts: usize) -> Self {
        FaultRt {
            plan: plan.to_vec(),
            dead: vec![false; devices],
            known_dead: vec![false; devices],
            lost_at: vec![SimTime::ZERO; devices],
            removed: vec![false; devices],
            failed_parents: BTreeSet::new(),
            hanging: BTreeMap::new(),
            timeouts: 0,
            failed: 0,
            retried: 0,
            degraded_writes: 0,
            failed_by_workload: vec![0; workloads],
            crashed: vec![false; hosts],
            lost: 0,
            lost_by_workload: vec![0; workloads],
            ghosts: 0,
            happened: Vec::new(),
            base_timing: vec![None; devices],
            conns: None,
        }
    }
}

impl FaultRt {
    /// The hosts take device `d` as dead from `now` (if they did not already). Whether they did
    /// only now.
    pub fn take_as_dead(&mut self, d: usize, now: SimTime) -> bool {
        let new = !self.known_dead[d];
        if new {
            self.known_dead[d] = true;
            self.lost_at[d] = now;
        }
        new
    }
}

/// What a fault happened to.
#[derive(Clone, Debug)]
pub enum Subject {
    Device(usize),
    Link(String),
    Switch(String),
    Server(String),
    Host(usize),
    /// A host's NVMe-oF connection to a storage server: (host, index of the server's target).
    Conn(usize, u32),
    /// The routing, converging.
    Routes,
}
