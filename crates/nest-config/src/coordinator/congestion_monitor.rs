//! `congestion-monitor`: counts the congestion the sending channels of storage `servers` meet
//! (DCQCN rate cuts and raises, PFC pauses; nest-qos `congestion_monitor.rs`).

use super::{CoordinatorKind, Env, KindConfig};
use crate::ctx::Ctx;
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
    fn name(&self) -> &str {
        &self.name
    }
    fn resolve(&self, cx: &mut Ctx, key: &str, _: &[usize], env: &Env) -> Option<CoordinatorKind> {
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
        Some(CoordinatorKind::CongestionMonitor { servers: names.clone(), flows })
    }
}
