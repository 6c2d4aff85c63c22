//! The QoS seam's state: the run's coordinators (sans-IO, from `nest-qos`), built from the
//! scenario's `[[coordinator]]` sections together with the admission gates of the hosts they
//! cover. `path/qos.rs` calls them — at time zero, at the wake-ups they ask for
//! (`Event::Qos`), on every completed application request when they measure — and carries out
//! their actions. A new mechanism adds its coordinator in `nest-qos`, its construction here,
//! its actions' effects in `path/qos.rs`, and nothing in the rest of the World.

use crate::host::gate::AdmissionGate;
use nest_config::coordinator::{CoordinatorKind, CoordinatorPlan};
use nest_core::{CoordId, FlowId, HostId};
use nest_qos::{CongestionMonitor, Coordinator, FixedBudget, Outbox};

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
}

impl QosRt {
    /// The coordinators of a run and the admission gates of the hosts they cover (`None` for
    /// every host when the run has no coordinator).
    pub fn new(plans: &[CoordinatorPlan], hosts: usize) -> (Option<Box<QosRt>>, Vec<Option<AdmissionGate>>) {
        let mut gates: Vec<Option<AdmissionGate>> = (0..hosts).map(|_| None).collect();
        if plans.is_empty() {
            return (None, gates);
        }
        let coords: Vec<Box<dyn Coordinator>> = plans
            .iter()
            .map(|p| {
                let hosts: Vec<HostId> = p.hosts.iter().map(|&h| HostId(h as u32)).collect();
                match p.kind {
                    CoordinatorKind::FixedBudget { period, ios } => {
                        for h in &hosts {
                            gates[h.ix()].get_or_insert_with(AdmissionGate::default);
                        }
                        Box::new(FixedBudget::new(period, ios, hosts)) as Box<dyn Coordinator>
                    }
                    CoordinatorKind::CongestionMonitor { ref flows, .. } => Box::new(CongestionMonitor::new(flows.iter().map(|&f| FlowId(f)).collect())),
                }
            })
            .collect();
        let measuring = coords.iter().any(|c| c.measures_completions());
        (Some(Box::new(QosRt { plans: plans.to_vec(), coords, measuring, out: Outbox::default(), watchers: Vec::new() })), gates)
    }
}
