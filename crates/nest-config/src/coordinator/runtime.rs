//! What the World asks of every resolved coordinator kind: how to build its runtime
//! coordinator (nest-qos) and what the run's summary says of it. Each kind implements
//! [`KindPlan`] in its own file, beside its keys, so the World (`nest-model/src/qos.rs`) builds
//! any kind without naming it.

use crate::plan::DevicePlan;
use nest_core::{FlowId, HostId, SimTime};
use nest_qos::Coordinator;

/// A kind's runtime pieces, for the World to wire.
pub struct Built {
    pub coordinator: Box<dyn Coordinator>,
    /// An agent at a storage server's routing hook: (network host, router).
    pub agent: Option<(u32, Box<dyn nest_nvme::Router>)>,
    /// Whether its hosts' requests pass an admission gate it opens.
    pub gates: bool,
    /// The NVM-set pool (volume index) whose reads it decides for its hosts; the coordinator is
    /// then a `DtPool`.
    pub dt_pool: Option<u32>,
    /// Per host (the plan's order): the (host → coordinator, coordinator → host) channels its
    /// control messages travel on; `None`: they take no time.
    pub links: Option<Vec<(FlowId, FlowId)>>,
}

impl Built {
    /// A coordinator with no gate, pool, agent or links of its own.
    pub fn bare(coordinator: Box<dyn Coordinator>) -> Built {
        Built { coordinator, agent: None, gates: false, dt_pool: None, links: None }
    }
}

/// A resolved coordinator kind, as the World sees it.
pub trait KindPlan {
    /// The `kind` value it was configured by.
    fn kind(&self) -> &'static str;
    /// Its parameters for the summary's `coordinators` section.
    fn params(&self, devices: &[DevicePlan]) -> serde_json::Value;
    /// The runtime coordinator for `hosts` (the plan's order).
    fn build(&self, hosts: Vec<HostId>) -> Built;
    /// The storage server (network host, name) whose routing hook its agent takes, if any: one
    /// agent per server.
    fn agent_server(&self) -> Option<(u32, &str)> {
        None
    }
    /// A look-ahead of its hosts' demand on a pool: (pool volume, horizon).
    fn look_ahead(&self) -> Option<(usize, SimTime)> {
        None
    }
    /// Whether the run measures SRC's aggregate throughput for it.
    fn measures_aggregate(&self) -> bool {
        false
    }
}
