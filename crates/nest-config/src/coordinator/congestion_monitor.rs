//! `congestion-monitor`: counts the congestion the sending channels of storage `servers` meet
//! (DCQCN rate cuts and raises, PFC pauses; nest-qos `congestion_monitor.rs`).

use super::{Built, Env, KindConfig, KindPlan};
use crate::ctx::Ctx;
use crate::plan::DevicePlan;
use nest_core::{FlowId, HostId};
use nest_qos::CongestionMonitor;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CongestionMonitorKeys {
    pub name: String,
    /// Storage servers (network host names) whose sending channels it watches.
    #[serde(default)]
    pub servers: Option<Vec<String>>,
}

impl KindConfig for CongestionMonitorKeys {
    type Plan = CongestionMonitorPlan;
    fn name(&self) -> &str {
        &self.name
    }
    fn resolve(&self, cx: &mut Ctx, key: &str, _: &[usize], env: &Env) -> Option<CongestionMonitorPlan> {
        let Some(names) = self.servers.as_ref().filter(|s| !s.is_empty()) else {
            cx.err(&format!("{key}.servers"), "congestion-monitor needs servers: the storage servers whose channels it watches");
            return None;
        };
        let (Some(net), Some(nv)) = (env.network, env.nvmeof) else {
            cx.err(&format!("{key}.servers"), "congestion-monitor watches NVMe-oF channels: the scenario has no device in a storage server");
            return None;
        };
        let mut flows = Vec::new();
        for (k, n) in names.iter().enumerate() {
            let Some(node) = net.topology.host_by_name(n) else {
                cx.err(&format!("{key}.servers[{k}]"), format!("no network host named '{n}'"));
                continue;
            };
            if !nv.device_server.contains(&Some(node)) {
                cx.err(&format!("{key}.servers[{k}]"), format!("'{n}' holds no device: not a storage server"));
                continue;
            }
            flows.extend(nv.conns.iter().filter(|cn| cn.server == node).map(|cn| cn.back));
        }
        flows.sort_unstable();
        Some(CongestionMonitorPlan { servers: names.clone(), flows })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CongestionMonitorPlan {
    pub servers: Vec<String>,
    /// Flow ids of the channels the servers send on (completions and read data).
    pub flows: Vec<u32>,
}

impl KindPlan for CongestionMonitorPlan {
    fn kind(&self) -> &'static str {
        "congestion-monitor"
    }
    fn params(&self, _: &[DevicePlan]) -> serde_json::Value {
        serde_json::json!({"servers": self.servers})
    }
    fn build(&self, _: Vec<HostId>) -> Built {
        Built::bare(Box::new(CongestionMonitor::new(self.flows.iter().map(|&f| FlowId(f)).collect())))
    }
}
