//! `[[coordinator]]`: QoS coordinators (nest-qos) — schema and resolution of the section in one
//! place. Kinds so far: `fixed-budget` (every `period`, each of its hosts may admit `ios`
//! requests through its admission gate) and `congestion-monitor` (counts the congestion the
//! sending channels of storage `servers` meet: DCQCN rate cuts and raises, PFC pauses).

use crate::resolve::e2e::NvmeofPlan;
use crate::resolve::network::NetworkPlan;
use crate::resolve::{Ctx, HostPlan};
use nest_core::SimTime;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoordinatorConfig {
    pub name: String,
    /// fixed-budget
    pub kind: String,
    /// fixed-budget: the budget period.
    pub period: Option<String>,
    /// fixed-budget: requests each host may admit per period.
    pub ios: Option<u64>,
    /// Hosts it coordinates (default: every host).
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// congestion-monitor: storage servers (network host names) whose sending channels it watches.
    #[serde(default)]
    pub servers: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CoordinatorKind {
    FixedBudget { period: SimTime, ios: u64 },
    /// Flow ids of the channels the servers send on (completions and read data).
    CongestionMonitor { servers: Vec<String>, flows: Vec<u32> },
}

#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorPlan {
    pub name: String,
    pub kind: CoordinatorKind,
    /// Host indices.
    pub hosts: Vec<usize>,
}

pub(crate) fn resolve(cx: &mut Ctx, i: usize, c: &CoordinatorConfig, hosts: &[HostPlan], network: Option<&NetworkPlan>, nvmeof: Option<&NvmeofPlan>) -> Option<CoordinatorPlan> {
    let key = format!("coordinator[{i}]");
    let idx: Vec<usize> = match &c.hosts {
        None => (0..hosts.len()).collect(),
        Some(names) => {
            let mut idx = Vec::new();
            for (k, n) in names.iter().enumerate() {
                match hosts.iter().position(|h| &h.name == n) {
                    Some(h) if idx.contains(&h) => cx.err(&format!("{key}.hosts[{k}]"), format!("host '{n}' appears twice")),
                    Some(h) => idx.push(h),
                    None => cx.err(&format!("{key}.hosts[{k}]"), format!("no host named '{n}'")),
                }
            }
            if idx.is_empty() && names.is_empty() {
                cx.err(&format!("{key}.hosts"), "an empty list: the coordinator would coordinate nobody");
            }
            idx
        }
    };
    let kind = match c.kind.as_str() {
        "fixed-budget" => {
            let period = match &c.period {
                Some(p) => cx.dur(&format!("{key}.period"), p)?,
                None => {
                    cx.err(&format!("{key}.period"), "fixed-budget needs a period (e.g. \"1ms\")");
                    return None;
                }
            };
            if period == SimTime::ZERO {
                cx.err(&format!("{key}.period"), "must be positive");
                return None;
            }
            let Some(ios) = c.ios else {
                cx.err(&format!("{key}.ios"), "fixed-budget needs ios: the requests each host may admit per period");
                return None;
            };
            CoordinatorKind::FixedBudget { period, ios }
        }
        "congestion-monitor" => {
            let Some(names) = c.servers.as_ref().filter(|s| !s.is_empty()) else {
                cx.err(&format!("{key}.servers"), "congestion-monitor needs servers: the storage servers whose channels it watches");
                return None;
            };
            let (Some(net), Some(nv)) = (network, nvmeof) else {
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
            CoordinatorKind::CongestionMonitor { servers: names.clone(), flows }
        }
        o => {
            cx.err(&format!("{key}.kind"), format!("'{o}': expected fixed-budget or congestion-monitor"));
            return None;
        }
    };
    Some(CoordinatorPlan { name: c.name.clone(), kind, hosts: idx })
}
