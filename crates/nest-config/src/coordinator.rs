//! `[[coordinator]]`: QoS coordinators (nest-qos) — schema and resolution of the section in one
//! place. Kinds so far: `fixed-budget` (every `period`, each of its hosts may admit `ios`
//! requests through its admission gate), `congestion-monitor` (counts the congestion the
//! sending channels of storage `servers` meet: DCQCN rate cuts and raises, PFC pauses) and
//! `plmc` (allocates the DT counts of an NVM-set `pool` among its hosts, docs/plm.md).

use crate::resolve::e2e::NvmeofPlan;
use crate::resolve::network::NetworkPlan;
use crate::resolve::volume::VolumePlan;
use crate::resolve::{SourcePlan, WorkloadPlan};
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
    /// plmc: the NVM-set pool (a volume with read = "dt-active") whose DT counts it allocates.
    #[serde(default)]
    pub pool: Option<String>,
    /// plmc: C, the counts allocated per DTWin (default: the pool's C_RD).
    #[serde(default)]
    pub counts: Option<u64>,
    /// plmc: cod (coordinator-directed prediction) | hod (the hosts' exact next-window demand).
    #[serde(default)]
    pub predictor: Option<String>,
    /// plmc: ζ of the CoD smoothing (default 0.5).
    #[serde(default)]
    pub zeta: Option<f64>,
    /// plmc: strict-priority (default) | fixed-ratio.
    #[serde(default)]
    pub policy: Option<String>,
    /// plmc fixed-ratio: one weight per host (default 2^(k−1−j): 4:2:1 for three).
    #[serde(default)]
    pub ratios: Option<Vec<u64>>,
    /// plmc: D_min per host (default 0).
    #[serde(default)]
    pub c_min: Option<Vec<u64>>,
    /// plmc: when the minimums exceed C: priority (default) | scale.
    #[serde(default)]
    pub min_overflow: Option<String>,
    /// plmc: a read beyond the host's allocation: send (default, thesis) | ask (PLMC §III-A) | nd (PLMC eq. 5).
    #[serde(default)]
    pub overrun: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CoordinatorKind {
    FixedBudget { period: SimTime, ios: u64 },
    /// Flow ids of the channels the servers send on (completions and read data).
    CongestionMonitor { servers: Vec<String>, flows: Vec<u32> },
    Plmc(PlmcPlan),
}

/// `plmc`: hosts in `CoordinatorPlan::hosts` order are its priority order, highest first.
#[derive(Debug, Clone, PartialEq)]
pub struct PlmcPlan {
    /// The pool's volume index and name.
    pub pool: usize,
    pub pool_name: String,
    pub counts: u64,
    /// HoD: each window is allocated the hosts' exact demand over the next `Some(T_DW)`.
    pub hod: Option<SimTime>,
    pub zeta: f64,
    /// None: strict priority; Some(weights): fixed ratio.
    pub ratios: Option<Vec<u64>>,
    pub c_min: Vec<u64>,
    /// true: minimums beyond C are scaled; false: granted by priority.
    pub scale_minimums: bool,
    pub overrun: OverrunPlan,
}

/// What a PLMC host does with a read its allocation does not cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverrunPlan {
    /// Sends it to the DT-active replica anyway (thesis 3.3.1).
    Send,
    /// Asks PLMC for more counts (PLMC §III-A); refused, it goes to a replica in NDWin.
    Ask,
    /// Sends it to a replica in NDWin without asking (PLMC eq. 5: beyond the allocation,
    /// non-deterministic latency).
    Nd,
}

impl OverrunPlan {
    pub fn name(self) -> &'static str {
        match self {
            OverrunPlan::Send => "send",
            OverrunPlan::Ask => "ask",
            OverrunPlan::Nd => "nd",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorPlan {
    pub name: String,
    pub kind: CoordinatorKind,
    /// Host indices.
    pub hosts: Vec<usize>,
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn resolve(cx: &mut Ctx, i: usize, c: &CoordinatorConfig, hosts: &[HostPlan], volumes: &[VolumePlan], workloads: &[WorkloadPlan], network: Option<&NetworkPlan>, nvmeof: Option<&NvmeofPlan>) -> Option<CoordinatorPlan> {
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
        "plmc" => CoordinatorKind::Plmc(plmc(cx, &key, c, &idx, volumes, workloads)?),
        o => {
            cx.err(&format!("{key}.kind"), format!("'{o}': expected fixed-budget, congestion-monitor or plmc"));
            return None;
        }
    };
    Some(CoordinatorPlan { name: c.name.clone(), kind, hosts: idx })
}

/// `plmc`'s keys, with the defaults docs/plm.md gives (no source gives ζ, the minimums or the
/// overflow rule).
fn plmc(cx: &mut Ctx, key: &str, c: &CoordinatorConfig, hosts: &[usize], volumes: &[VolumePlan], workloads: &[WorkloadPlan]) -> Option<PlmcPlan> {
    let k = hosts.len();
    let f = |n: &str| format!("{key}.{n}");
    let Some(name) = &c.pool else {
        cx.err(&f("pool"), "plmc needs pool: the volume (read = \"dt-active\") whose DT counts it allocates");
        return None;
    };
    let Some(pool) = volumes.iter().position(|v| &v.name == name) else {
        cx.err(&f("pool"), format!("no volume named '{name}'"));
        return None;
    };
    let Some(pp) = &volumes[pool].pool else {
        cx.err(&f("pool"), format!("volume '{name}' is not an NVM-set pool (read = \"dt-active\")"));
        return None;
    };
    let counts = match c.counts {
        Some(0) => {
            cx.err(&f("counts"), "must be at least 1");
            return None;
        }
        Some(n) => n,
        None if pp.c_rd == u64::MAX => {
            cx.err(&f("counts"), "the pool's drives set no c_rd: give counts (DT counts per DTWin) here or c_rd in their [device.plm]");
            return None;
        }
        None => pp.c_rd,
    };
    let hod = match c.predictor.as_deref() {
        None | Some("cod") => None,
        Some("hod") => {
            // The exact demand is read ahead from the hosts' arrival streams: a closed loop's
            // arrivals depend on its completions, so it has none to read ahead.
            let closed = workloads.iter().find(|w| hosts.contains(&w.host) && w.volume == Some(pool) && matches!(&w.source, SourcePlan::Synthetic(s) if s.arrival.outstanding().is_some()));
            if let Some(w) = closed {
                cx.err(&f("predictor"), format!("hod reads the hosts' arrivals ahead, but workload '{}' is closed-loop (outstanding): use cod or an open-loop arrival", w.name));
            }
            Some(pp.t_dw)
        }
        Some(o) => {
            cx.err(&f("predictor"), format!("'{o}': expected cod or hod"));
            None
        }
    };
    let zeta = c.zeta.unwrap_or(0.5);
    if !(zeta > 0.0 && zeta <= 1.0) {
        cx.err(&f("zeta"), format!("{zeta}: expected 0 < zeta ≤ 1"));
    }
    let ratios = match c.policy.as_deref() {
        None | Some("strict-priority") => {
            if c.ratios.is_some() {
                cx.err(&f("ratios"), "only policy = \"fixed-ratio\" has ratios");
            }
            None
        }
        Some("fixed-ratio") => {
            let r = c.ratios.clone().unwrap_or_else(|| (0..k).map(|j| 1u64 << (k - 1 - j).min(62)).collect());
            if r.len() != k || r.iter().all(|&x| x == 0) {
                cx.err(&f("ratios"), format!("expected one weight per host ({k}), not all zero"));
            }
            Some(r)
        }
        Some(o) => {
            cx.err(&f("policy"), format!("'{o}': expected strict-priority or fixed-ratio"));
            None
        }
    };
    let c_min = c.c_min.clone().unwrap_or_else(|| vec![0; k]);
    if c_min.len() != k {
        cx.err(&f("c_min"), format!("expected one minimum per host ({k}), got {}", c_min.len()));
    }
    let scale_minimums = match c.min_overflow.as_deref() {
        None | Some("priority") => false,
        Some("scale") => true,
        Some(o) => {
            cx.err(&f("min_overflow"), format!("'{o}': expected priority or scale"));
            false
        }
    };
    let overrun = match c.overrun.as_deref() {
        None | Some("send") => OverrunPlan::Send,
        Some("ask") => OverrunPlan::Ask,
        Some("nd") => OverrunPlan::Nd,
        Some(o) => {
            cx.err(&f("overrun"), format!("'{o}': expected send, ask or nd"));
            OverrunPlan::Send
        }
    };
    Some(PlmcPlan { pool, pool_name: name.clone(), counts, hod, zeta, ratios, c_min, scale_minimums, overrun })
}
