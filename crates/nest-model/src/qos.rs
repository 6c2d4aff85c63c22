//! The QoS seam's state: the run's coordinators (sans-IO, from `nest-qos`), built from the
//! scenario's `[[coordinator]]` sections together with the admission gates of the hosts they
//! cover. `path/qos.rs` calls them — at time zero, at the wake-ups they ask for
//! (`Event::Qos`), on every completed application request when they measure — and carries out
//! their actions. A new mechanism adds its coordinator in `nest-qos`, its construction here,
//! its actions' effects in `path/qos.rs`, and nothing in the rest of the World.

use crate::host::gate::AdmissionGate;
use nest_config::coordinator::PlmcPlan;
use nest_config::coordinator::{CoordinatorKind, CoordinatorPlan, OverrunPlan};
use nest_core::DeviceId;
use nest_core::{CoordId, FlowId, HostId, SimTime};
use nest_qos::plmc::{MinOverflow, Overrun, PlmcConfig, Policy};
use nest_qos::plmlight::PlmLightConfig;
use nest_qos::{CongestionMonitor, Coordinator, FixedBudget, Msg, Outbox, PlmLight, Plmc};

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

fn policy(m: &PlmcPlan) -> Policy {
    m.ratios.clone().map_or(Policy::StrictPriority, Policy::FixedRatio)
}

fn overflow(m: &PlmcPlan) -> MinOverflow {
    if m.scale_minimums {
        MinOverflow::Scale
    } else {
        MinOverflow::Priority
    }
}

impl QosRt {
    /// The coordinators of a run and the admission gates of the hosts they cover (`None` for
    /// every host when the run has no coordinator).
    pub fn new(plans: &[CoordinatorPlan], hosts: usize) -> (Option<Box<QosRt>>, Vec<Option<AdmissionGate>>) {
        let mut gates: Vec<Option<AdmissionGate>> = (0..hosts).map(|_| None).collect();
        if plans.is_empty() {
            return (None, gates);
        }
        let mut dt_coord = vec![None; hosts];
        let mut routers = Vec::new();
        let coords: Vec<Box<dyn Coordinator>> = plans
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let hosts: Vec<HostId> = p.hosts.iter().map(|&h| HostId(h as u32)).collect();
                match p.kind {
                    CoordinatorKind::FixedBudget { period, ios } => {
                        for h in &hosts {
                            gates[h.ix()].get_or_insert_with(AdmissionGate::default);
                        }
                        Box::new(FixedBudget::new(period, ios, hosts)) as Box<dyn Coordinator>
                    }
                    CoordinatorKind::CongestionMonitor { ref flows, .. } => Box::new(CongestionMonitor::new(flows.iter().map(|&f| FlowId(f)).collect())),
                    CoordinatorKind::Plmc(ref m) => {
                        for h in &hosts {
                            dt_coord[h.ix()] = Some((CoordId(k as u32), m.pool as u32));
                        }
                        Box::new(Plmc::new(PlmcConfig {
                            hosts,
                            c: m.counts,
                            c_min: m.c_min.clone(),
                            policy: policy(m),
                            overflow: overflow(m),
                            zeta: m.zeta,
                            hod: m.hod.is_some(),
                            overrun: match m.overrun {
                                OverrunPlan::Send => Overrun::Send,
                                OverrunPlan::Ask => Overrun::Ask,
                                OverrunPlan::Nd => Overrun::Nd,
                            },
                        }))
                    }
                    CoordinatorKind::PlmLight(ref m) => {
                        let (coord, router) = PlmLight::new(PlmLightConfig {
                            hosts,
                            read_counts: m.read_counts,
                            c_min: m.alloc.c_min.clone(),
                            policy: policy(&m.alloc),
                            overflow: overflow(&m.alloc),
                            zeta: m.alloc.zeta,
                            write_counts: m.write_counts,
                            ssd: DeviceId(m.device as u32),
                            fast: DeviceId(m.fast as u32),
                            t_dw: m.t_dw,
                            t_ndwl: m.t_ndwl,
                            t_ndwh: m.t_ndwh,
                            small_below: m.small_below,
                            fast_capacity: m.fast_capacity,
                            flush_depth: m.flush_depth,
                        })
                        .split();
                        routers.push((m.server, Box::new(router) as Box<dyn nest_nvme::Router>));
                        Box::new(coord)
                    }
                    CoordinatorKind::Src(ref m) => {
                        let (coord, agent) = nest_qos::src(m.ctl.clone(), m.model.clone());
                        routers.push((m.server, Box::new(agent) as Box<dyn nest_nvme::Router>));
                        Box::new(coord)
                    }
                }
            })
            .collect();
        let measuring = coords.iter().any(|c| c.measures_completions());
        let links = plans
            .iter()
            .map(|p| match &p.kind {
                CoordinatorKind::Plmc(PlmcPlan { links: Some(l), .. }) => Some(l.channels.iter().map(|&(up, down)| (FlowId(up), FlowId(down))).collect()),
                _ => None,
            })
            .collect();
        let msgs = Messages { links, books: vec![MsgBooks::default(); plans.len()], ..Default::default() };
        (
            Some(Box::new(QosRt {
                plans: plans.to_vec(),
                coords,
                measuring,
                out: Outbox::default(),
                watchers: Vec::new(),
                dt_coord,
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
        let CoordinatorKind::Plmc(m) = &p.kind else { continue };
        let Some(horizon) = m.hod else { continue };
        let mut copies = Vec::new();
        for (i, w) in resolved.workloads.iter().enumerate() {
            let Some(j) = p.hosts.iter().position(|&h| h == w.host) else { continue };
            if w.volume == Some(m.pool) {
                let prio = resolved.tagging.host[w.class];
                copies.push((j, crate::workload::WorkloadRt::new(w, prio, i as u64, seed, arrivals_end)?));
            }
        }
        rt.oracles[k] = Some((crate::host::oracle::DemandOracle::new(copies)?, horizon, vec![0; p.hosts.len()]));
    }
    Ok(())
}
