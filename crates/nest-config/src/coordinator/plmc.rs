//! `plmc`: allocates the DT counts of an NVM-set `pool` among its hosts (PLMC eq. 6;
//! docs/plm.md). Hosts in `hosts` order are its priority order, highest first.

use super::allocation::{allocation_keys, Allocation};
use super::{Built, Env, KindConfig, KindPlan};
use crate::ctx::Ctx;
use crate::plan::volume::VolumePlan;
use crate::plan::workload::SourcePlan;
use crate::plan::DevicePlan;
use nest_core::{FlowId, HostId, SimTime};
use nest_qos::plmc::{MinOverflow, Overrun, PlmcConfig, Policy};
use nest_qos::Plmc;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlmcKeys {
    pub name: String,
    /// Hosts it coordinates, highest priority first (default: every host).
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// The NVM-set pool (a volume with read = "dt-active") whose DT counts it allocates.
    #[serde(default)]
    pub pool: Option<String>,
    /// C, the counts allocated per DTWin (default: the pool's C_RD).
    #[serde(default)]
    pub counts: Option<u64>,
    /// cod (coordinator-directed prediction) | hod (the hosts' exact next-window demand).
    #[serde(default)]
    pub predictor: Option<String>,
    /// ζ of the CoD smoothing (default 0.5).
    #[serde(default)]
    pub zeta: Option<f64>,
    /// strict-priority (default) | fixed-ratio.
    #[serde(default)]
    pub policy: Option<String>,
    /// fixed-ratio: one weight per host (default 2^(k−1−j): 4:2:1 for three).
    #[serde(default)]
    pub ratios: Option<Vec<u64>>,
    /// D_min per host (default 0).
    #[serde(default)]
    pub c_min: Option<Vec<u64>>,
    /// When the minimums exceed C: priority (default) | scale.
    #[serde(default)]
    pub min_overflow: Option<String>,
    /// A read beyond the host's allocation: send (default, thesis) | ask (PLMC §III-A) | nd (PLMC eq. 5).
    #[serde(default)]
    pub overrun: Option<String>,
    /// How PLMC and its hosts exchange closes, reports, allocations and asks: network (over the
    /// fabric, from the storage server of the pool's first replica; the default when it sits in
    /// one) | instant (they take no time).
    #[serde(default)]
    pub messages: Option<String>,
}

impl PlmcKeys {
    fn allocation(&self) -> Allocation<'_> {
        Allocation {
            zeta: self.zeta,
            policy: self.policy.as_deref(),
            ratios: self.ratios.as_deref(),
            c_min: self.c_min.as_deref(),
            min_overflow: self.min_overflow.as_deref(),
        }
    }
}

impl KindConfig for PlmcKeys {
    type Plan = PlmcPlan;
    fn name(&self) -> &str {
        &self.name
    }
    fn hosts(&self) -> Option<&[String]> {
        self.hosts.as_deref()
    }
    fn resolve(&self, cx: &mut Ctx, key: &str, hosts: &[usize], env: &Env) -> Option<PlmcPlan> {
        plmc(cx, key, self, hosts, env)
    }
}

/// `plmc`'s keys, with the defaults docs/plm.md gives (no source gives ζ, the minimums or the
/// overflow rule).
fn plmc(cx: &mut Ctx, key: &str, c: &PlmcKeys, hosts: &[usize], env: &Env) -> Option<PlmcPlan> {
    let (volumes, workloads) = (env.volumes, env.workloads);
    let k = hosts.len();
    let f = |n: &str| format!("{key}.{n}");
    let Some(name) = &c.pool else {
        cx.err(&f("pool"), "plmc needs pool: the volume (read = \"dt-active\") whose DT counts it allocates");
        return None;
    };
    let Some(pool) = volumes.iter().position(|v| &v.name == name) else {
        let hint = crate::suggest::hint(name, volumes.iter().map(|v| v.name.as_str()));
        cx.err(&f("pool"), format!("no volume named '{name}'{hint}"));
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
            let closed = workloads.iter().find(|w| {
                hosts.contains(&w.host) && w.volume == Some(pool) && matches!(&w.source, SourcePlan::Synthetic(s) if s.arrival.outstanding().is_some())
            });
            if let Some(w) = closed {
                cx.err(
                    &f("predictor"),
                    format!("hod reads the hosts' arrivals ahead, but workload '{}' is closed-loop (outstanding): use cod or an open-loop arrival", w.name),
                );
            }
            Some(pp.t_dw)
        }
        Some(o) => {
            cx.err(&f("predictor"), format!("'{o}': expected cod or hod"));
            None
        }
    };
    let (zeta, ratios, c_min, scale_minimums) = allocation_keys(cx, key, &c.allocation(), k, "strict-priority");
    let overrun = match c.overrun.as_deref() {
        None | Some("send") => OverrunPlan::Send,
        Some("ask") => OverrunPlan::Ask,
        Some("nd") => OverrunPlan::Nd,
        Some(o) => {
            cx.err(&f("overrun"), format!("'{o}': expected send, ask or nd"));
            OverrunPlan::Send
        }
    };
    let links = plmc_links(cx, key, c, hosts, env, &volumes[pool], pool);
    Some(PlmcPlan { pool, pool_name: name.clone(), counts, hod, zeta, ratios, c_min, scale_minimums, overrun, links })
}

/// `messages`: PLMC sits at the storage server of the pool's first replica; each host talks to
/// it on its connection to that server for the class of its first workload on the pool (the
/// lowest class it has a connection for when it has none).
fn plmc_links(cx: &mut Ctx, key: &str, c: &PlmcKeys, hosts: &[usize], env: &Env, pool: &VolumePlan, v: usize) -> Option<PlmcLinks> {
    let (host_plans, workloads, network, nvmeof) = (env.hosts, env.workloads, env.network, env.nvmeof);
    let f = format!("{key}.messages");
    let server = nvmeof.zip(network).and_then(|(nv, net)| nv.device_server[pool.devices[0]].map(|s| (nv, net, s)));
    let wanted = match c.messages.as_deref() {
        None => server.is_some(),
        Some("instant") => false,
        Some("network") => {
            if server.is_none() {
                cx.err(
                    &f,
                    format!(
                        "network: the first replica of pool '{}' is not in a storage server, so PLMC has no place on the network (set messages = \"instant\")",
                        pool.name
                    ),
                );
            }
            true
        }
        Some(o) => {
            cx.err(&f, format!("'{o}': expected network or instant"));
            false
        }
    };
    let (nv, net, s) = server.filter(|_| wanted)?;
    let server_name = net.topology.host_name(s).to_string();
    let mut channels = Vec::with_capacity(hosts.len());
    for &h in hosts {
        let class = workloads.iter().find(|w| w.host == h && w.volume == Some(v)).map(|w| w.class);
        let mut conns = nv.conns.iter().filter(|cn| cn.host == h && cn.server == s);
        let conn = match class {
            Some(k) => conns.find(|cn| cn.class == k),
            None => conns.min_by_key(|cn| cn.class),
        };
        match conn {
            Some(cn) => channels.push((cn.fwd, cn.back)),
            None => {
                cx.err(
                    &f,
                    format!(
                        "host '{}' has no NVMe-oF connection to '{server_name}', where PLMC runs (it reaches no device there): set messages = \"instant\"",
                        host_plans[h].name
                    ),
                );
                return None;
            }
        }
    }
    Some(PlmcLinks { server_name, channels })
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
    /// Where PLMC runs when its messages cross the network (`None`: they take no time).
    pub links: Option<PlmcLinks>,
}

/// PLMC at a storage server: its messages to and from each host travel on that host's NVMe-oF
/// connection to the server (behind whatever data is queued there).
#[derive(Debug, Clone, PartialEq)]
pub struct PlmcLinks {
    /// The storage server's name (a network host).
    pub server_name: String,
    /// Per host (`CoordinatorPlan::hosts` order): the (host → server, server → host) channels.
    pub channels: Vec<(u32, u32)>,
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

impl PlmcPlan {
    pub(crate) fn policy(&self) -> Policy {
        self.ratios.clone().map_or(Policy::StrictPriority, Policy::FixedRatio)
    }
    pub(crate) fn overflow(&self) -> MinOverflow {
        if self.scale_minimums {
            MinOverflow::Scale
        } else {
            MinOverflow::Priority
        }
    }
    pub(crate) fn policy_name(&self) -> &'static str {
        if self.ratios.is_some() {
            "fixed-ratio"
        } else {
            "strict-priority"
        }
    }
    pub(crate) fn min_overflow_name(&self) -> &'static str {
        if self.scale_minimums {
            "scale"
        } else {
            "priority"
        }
    }
}

impl KindPlan for PlmcPlan {
    fn kind(&self) -> &'static str {
        "plmc"
    }
    fn params(&self, _: &[DevicePlan]) -> serde_json::Value {
        serde_json::json!({
            "pool": self.pool_name, "counts": self.counts, "predictor": if self.hod.is_some() { "hod" } else { "cod" }, "zeta": self.zeta,
            "policy": self.policy_name(), "ratios": self.ratios,
            "c_min": self.c_min, "min_overflow": self.min_overflow_name(),
            "overrun": self.overrun.name(),
            "messages": if self.links.is_some() { "network" } else { "instant" }, "server": self.links.as_ref().map(|l| l.server_name.as_str()),
        })
    }
    fn build(&self, hosts: Vec<HostId>) -> Built {
        let coordinator = Plmc::new(PlmcConfig {
            hosts,
            c: self.counts,
            c_min: self.c_min.clone(),
            policy: self.policy(),
            overflow: self.overflow(),
            zeta: self.zeta,
            hod: self.hod.is_some(),
            overrun: match self.overrun {
                OverrunPlan::Send => Overrun::Send,
                OverrunPlan::Ask => Overrun::Ask,
                OverrunPlan::Nd => Overrun::Nd,
            },
        });
        Built {
            dt_pool: Some(self.pool as u32),
            links: self.links.as_ref().map(|l| l.channels.iter().map(|&(up, down)| (FlowId(up), FlowId(down))).collect()),
            ..Built::bare(Box::new(coordinator))
        }
    }
    fn look_ahead(&self) -> Option<(usize, SimTime)> {
        self.hod.map(|h| (self.pool, h))
    }
}
