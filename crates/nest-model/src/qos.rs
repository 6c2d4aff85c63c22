//! The QoS seam's state: the run's coordinators (sans-IO, from `nest-qos`), built from the
//! scenario's `[[coordinator]]` sections together with the admission gates of the hosts they
//! cover. `path/qos.rs` calls them — at time zero, at the wake-ups they ask for
//! (`Event::Qos`), on every completed application request when they measure — and carries out
//! their actions. A new mechanism adds its coordinator in `nest-qos` and its kind in
//! nest-config's `coordinator/` (keys, plan, construction: one file); only a new kind of action
//! adds its effect in `path/qos.rs`.

use crate::host::gate::AdmissionGate;
use nest_config::coordinator::CoordinatorPlan;
use nest_core::{CoordId, FlowId, HostId, SimTime};
use nest_qos::{Coordinator, Msg, Outbox};

/// Timers of the QoS seam.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QosEvent {
    /// Coordinator `c` asked to be woken with `token`.
    Wake(CoordId, u32),
}

impl QosEvent {
    pub fn tag(&self) -> u64 {
        match *self {
            QosEvent::Wake(c, token) => ((c.0 as u64) << 32) | token as u64,
        }
    }
}

pub struct QosRt {
    pub plans: Vec<CoordinatorPlan>,
    pub(crate) coords: Vec<Box<dyn Coordinator>>,
    /// Whether any coordinator measures completions.
    pub(crate) measuring: bool,
    pub(crate) out: Outbox,
    /// (flow, coordinator) pairs: who is told of each watched flow's congestion, by flow.
    pub(crate) watchers: Vec<(FlowId, CoordId)>,
    /// Per host: the PLMC that decides its reads of an NVM-set pool, and that pool's volume.
    pub(crate) dt_coord: Vec<Option<(CoordId, u32)>>,
    /// Per coordinator: the NVM-set pool it is the DT-count coordinator of.
    pub(crate) dt_pools: Vec<Option<u32>>,
    /// Per coordinator: a HoD PLMC's look-ahead, its horizon (T_DW) and a demand buffer.
    pub(crate) oracles: Vec<Option<(crate::host::oracle::DemandOracle, SimTime, Vec<u64>)>>,
    /// Agents the coordinators place at storage servers (network host, router), installed
    /// once the NVMe-oF targets exist.
    pub(crate) routers: Vec<(u32, Box<dyn nest_nvme::Router>)>,
    /// Control messages between coordinators and their hosts' agents (`Action::Send`).
    pub(crate) msgs: Messages,
}

/// A control message on the network: from which coordinator, and when it was sent.
#[derive(Copy, Clone, Debug)]
pub(crate) struct InTransit {
    pub coord: CoordId,
    pub msg: Msg,
    pub sent: SimTime,
}

/// Control messages between coordinators and their hosts' agents: carried on the hosts' NVMe-oF
/// connections when the coordinator has links (`PlmcLinks`), else delivered at once, in order.
#[derive(Default)]
pub(crate) struct Messages {
    /// Per coordinator: per host (its plan's order) the (host → coordinator, coordinator →
    /// host) channels; `None`: its messages take no time.
    pub links: Vec<Option<Vec<(FlowId, FlowId)>>>,
    /// Messages on the network, by the tag they travel with.
    pub on_wire: nest_core::Pool<InTransit>,
    /// Messages that take no time, waiting their turn, and whether they are being delivered.
    pub instant: std::collections::VecDeque<(CoordId, Msg)>,
    pub delivering: bool,
    /// Application reads held at their hosts while an agent asks (not yet the hosts').
    pub asking_apps: u64,
    /// Per coordinator: messages sent over the network and received, their total and largest
    /// one-way delay (ps).
    pub books: Vec<MsgBooks>,
}

#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct MsgBooks {
    pub sent: u64,
    pub received: u64,
    pub delay_ps: u64,
    pub max_delay: SimTime,
}

/// Bytes of a coordinator's control message on the wire: an NVMe command capsule's 64 (no
/// source gives PLMC's message format).
pub(crate) const CONTROL_MESSAGE_BYTES: u64 = 64;

impl QosRt {
    /// The coordinators of a run and the admission gates of the hosts they cover (`None` for
    /// every host when the run has no coordinator).
    pub fn new(plans: &[CoordinatorPlan], hosts: usize) -> (Option<Box<QosRt>>, Vec<Option<AdmissionGate>>) {
        let mut gates: Vec<Option<AdmissionGate>> = (0..hosts).map(|_| None).collect();
        if plans.is_empty() {
            return (None, gates);
        }
        let mut dt_coord = vec![None; hosts];
        let (mut coords, mut routers, mut dt_pools, mut links) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (k, p) in plans.iter().enumerate() {
            let built = p.kind.plan().build(p.hosts.iter().map(|&h| HostId(h as u32)).collect());
            if built.gates {
                for &h in &p.hosts {
                    gates[h].get_or_insert_with(AdmissionGate::default);
                }
            }
            if let Some(pool) = built.dt_pool {
                for &h in &p.hosts {
                    dt_coord[h] = Some((CoordId(k as u32), pool));
                }
            }
            routers.extend(built.agent);
            coords.push(built.coordinator);
            dt_pools.push(built.dt_pool);
            links.push(built.links);
        }
        let measuring = coords.iter().any(|c| c.measures_completions());
        let msgs = Messages { links, books: vec![MsgBooks::default(); plans.len()], ..Default::default() };
        (
            Some(Box::new(QosRt {
                plans: plans.to_vec(),
                coords,
                measuring,
                out: Outbox::default(),
                watchers: Vec::new(),
                dt_coord,
                dt_pools,
                oracles: (0..plans.len()).map(|_| None).collect(),
                routers,
                msgs,
            })),
            gates,
        )
    }
}

/// The look-ahead of every HoD PLMC: a fresh copy of each workload its hosts run on its pool.
pub(crate) fn build_oracles(rt: &mut QosRt, resolved: &nest_config::Resolved, seed: u64, arrivals_end: Option<SimTime>) -> Result<(), String> {
    for (k, p) in rt.plans.iter().enumerate() {
        let Some((pool, horizon)) = p.kind.plan().look_ahead() else { continue };
        let mut copies = Vec::new();
        for (i, w) in resolved.workloads.iter().enumerate() {
            let Some(j) = p.hosts.iter().position(|&h| h == w.host) else { continue };
            if w.volume == Some(pool) {
                let prio = resolved.tagging.host[w.class];
                copies.push((j, crate::workload::WorkloadRt::new(w, prio, i as u64, seed, arrivals_end)?));
            }
        }
        rt.oracles[k] = Some((crate::host::oracle::DemandOracle::new(copies)?, horizon, vec![0; p.hosts.len()]));
    }
    Ok(())
}
