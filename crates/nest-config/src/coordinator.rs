//! `[[coordinator]]`: QoS coordinators (nest-qos) — schema and resolution of the section in one
//! place. Kinds so far: `fixed-budget` (every `period`, each of its hosts may admit `ios`
//! requests through its admission gate), `congestion-monitor` (counts the congestion the
//! sending channels of storage `servers` meet: DCQCN rate cuts and raises, PFC pauses),
//! `plmc` (allocates the DT counts of an NVM-set `pool` among its hosts, docs/plm.md) and
//! `plmlight` (PLM emulated for an SSD without it: read DCs per host, a write DC per device and
//! the write-handling agent at its storage server, docs/plm.md) and `src` (SRC's Algorithm 1 at
//! a storage target, `coordinator_src.rs`, docs/src.md).

use crate::resolve::e2e::NvmeofPlan;
use crate::resolve::network::NetworkPlan;
use crate::resolve::volume::VolumePlan;
use crate::resolve::{SourcePlan, WorkloadPlan};
use crate::resolve::{Ctx, DeviceKindPlan, DevicePlan, HostPlan};
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
    /// plmc: how PLMC and its hosts exchange closes, reports, allocations and asks: network (over
    /// the fabric, from the storage server of the pool's first replica; the default when it
    /// sits in one) | instant (they take no time).
    #[serde(default)]
    pub messages: Option<String>,
    /// plmlight: the SSD (without PLM, in a storage server) whose windows it emulates; src: the
    /// SSD behind split SQs whose write weight it sets.
    #[serde(default)]
    pub device: Option<String>,
    /// src: a target's flash array instead of `device`: SSDs behind split SQs in one storage
    /// server, the demanded read rate divided among them by their reads (docs/src.md).
    #[serde(default)]
    pub devices: Option<Vec<String>>,
    /// plmlight: the fast device on the same server that takes the redirected writes.
    #[serde(default)]
    pub fast: Option<String>,
    /// plmlight: the device's write DC per DTWin (4 KiB units).
    #[serde(default)]
    pub write_counts: Option<u64>,
    /// plmlight: DTWin length (default 1 ms, thesis 3.7).
    #[serde(default)]
    pub t_dw: Option<String>,
    /// plmlight: NDWin minimum (default T_DW) and maximum (default 10 × T_DW).
    #[serde(default)]
    pub t_ndwl: Option<String>,
    #[serde(default)]
    pub t_ndwh: Option<String>,
    /// plmlight: writes smaller than this go to the fast device (default: none; Workload II: "64KiB").
    #[serde(default)]
    pub small_writes_below: Option<String>,
    /// plmlight: bytes the fast device may hold for the SSD (default: its capacity).
    #[serde(default)]
    pub fast_capacity: Option<String>,
    /// plmlight: flushes in flight at once (default 8).
    #[serde(default)]
    pub flush_depth: Option<u32>,
    /// src: the throughput prediction model exported by `nestsim.tpm` (a JSON file).
    #[serde(default)]
    pub model: Option<String>,
    /// src: the workload monitor's window δ (default 10 ms).
    #[serde(default)]
    pub delta: Option<String>,
    /// src: Algorithm 1's τ, the relative change of the prediction below which w stops rising (default 0.1).
    #[serde(default)]
    pub tau: Option<f64>,
    /// src: the largest write weight it sets (default: the model's w_max).
    #[serde(default)]
    pub w_max: Option<u32>,
    /// src: synthetic congestion events, `[["60ms", "6Gbps"], ...]` (time, demanded read rate).
    #[serde(default)]
    pub events: Option<Vec<(String, String)>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CoordinatorKind {
    FixedBudget { period: SimTime, ios: u64 },
    /// Flow ids of the channels the servers send on (completions and read data).
    CongestionMonitor { servers: Vec<String>, flows: Vec<u32> },
    Plmc(PlmcPlan),
    PlmLight(PlmLightPlan),
    Src(crate::coordinator_src::SrcPlan),
}

/// `plmlight`: hosts in `CoordinatorPlan::hosts` order are its priority order, highest first.
#[derive(Debug, Clone, PartialEq)]
pub struct PlmLightPlan {
    /// The SSD and the fast device (device indices), and the storage server (network host) they sit in.
    pub device: usize,
    pub fast: usize,
    pub server: u32,
    pub server_name: String,
    /// Read DCs per DTWin (C) and the device's write DC.
    pub read_counts: u64,
    pub write_counts: u64,
    pub t_dw: SimTime,
    pub t_ndwl: SimTime,
    pub t_ndwh: SimTime,
    pub small_below: u32,
    pub fast_capacity: u64,
    pub flush_depth: u32,
    /// The read allocation, as PLMC's (predictor always CoD, overrun always nd).
    pub alloc: PlmcPlan,
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

#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorPlan {
    pub name: String,
    pub kind: CoordinatorKind,
    /// Host indices.
    pub hosts: Vec<usize>,
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn resolve(cx: &mut Ctx, i: usize, c: &CoordinatorConfig, hosts: &[HostPlan], devices: &[DevicePlan], volumes: &[VolumePlan], workloads: &[WorkloadPlan], network: Option<&NetworkPlan>, nvmeof: Option<&NvmeofPlan>) -> Option<CoordinatorPlan> {
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
    if c.devices.is_some() && c.kind != "src" {
        cx.err(&format!("{key}.devices"), format!("not a {} key (only src takes a list of devices)", c.kind));
    }
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
        "plmc" => CoordinatorKind::Plmc(plmc(cx, &key, c, &idx, hosts, volumes, workloads, network, nvmeof)?),
        "plmlight" => CoordinatorKind::PlmLight(plmlight(cx, &key, c, &idx, devices, network, nvmeof)?),
        "src" => CoordinatorKind::Src(crate::coordinator_src::src(cx, &key, c, devices, network, nvmeof)?),
        o => {
            cx.err(&format!("{key}.kind"), format!("'{o}': expected fixed-budget, congestion-monitor, plmc, plmlight or src"));
            return None;
        }
    };
    Some(CoordinatorPlan { name: c.name.clone(), kind, hosts: idx })
}

/// `plmc`'s keys, with the defaults docs/plm.md gives (no source gives ζ, the minimums or the
/// overflow rule).
#[allow(clippy::too_many_arguments)]
fn plmc(cx: &mut Ctx, key: &str, c: &CoordinatorConfig, hosts: &[usize], host_plans: &[HostPlan], volumes: &[VolumePlan], workloads: &[WorkloadPlan], network: Option<&NetworkPlan>, nvmeof: Option<&NvmeofPlan>) -> Option<PlmcPlan> {
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
    let (zeta, ratios, c_min, scale_minimums) = allocation_keys(cx, key, c, k, "strict-priority");
    let overrun = match c.overrun.as_deref() {
        None | Some("send") => OverrunPlan::Send,
        Some("ask") => OverrunPlan::Ask,
        Some("nd") => OverrunPlan::Nd,
        Some(o) => {
            cx.err(&f("overrun"), format!("'{o}': expected send, ask or nd"));
            OverrunPlan::Send
        }
    };
    let links = plmc_links(cx, key, c, hosts, host_plans, &volumes[pool], pool, workloads, network, nvmeof);
    Some(PlmcPlan { pool, pool_name: name.clone(), counts, hod, zeta, ratios, c_min, scale_minimums, overrun, links })
}

/// `messages`: PLMC sits at the storage server of the pool's first replica; each host talks to
/// it on its connection to that server for the class of its first workload on the pool (the
/// lowest class it has a connection for when it has none).
#[allow(clippy::too_many_arguments)]
fn plmc_links(cx: &mut Ctx, key: &str, c: &CoordinatorConfig, hosts: &[usize], host_plans: &[HostPlan], pool: &VolumePlan, v: usize, workloads: &[WorkloadPlan], network: Option<&NetworkPlan>, nvmeof: Option<&NvmeofPlan>) -> Option<PlmcLinks> {
    let f = format!("{key}.messages");
    let server = nvmeof.zip(network).and_then(|(nv, net)| nv.device_server[pool.devices[0]].map(|s| (nv, net, s)));
    let wanted = match c.messages.as_deref() {
        None => server.is_some(),
        Some("instant") => false,
        Some("network") => {
            if server.is_none() {
                cx.err(&f, format!("network: the first replica of pool '{}' is not in a storage server, so PLMC has no place on the network (set messages = \"instant\")", pool.name));
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
                cx.err(&f, format!("host '{}' has no NVMe-oF connection to '{server_name}', where PLMC runs (it reaches no device there): set messages = \"instant\"", host_plans[h].name));
                return None;
            }
        }
    }
    Some(PlmcLinks { server_name, channels })
}

/// The keys of PLMC eq. 6 that PLMC and PLMLight share: ζ, the policy and its ratios, the
/// minimums and their overflow rule (`default_policy` when none is given).
fn allocation_keys(cx: &mut Ctx, key: &str, c: &CoordinatorConfig, k: usize, default_policy: &str) -> (f64, Option<Vec<u64>>, Vec<u64>, bool) {
    let f = |n: &str| format!("{key}.{n}");
    let zeta = c.zeta.unwrap_or(0.5);
    if !(zeta > 0.0 && zeta <= 1.0) {
        cx.err(&f("zeta"), format!("{zeta}: expected 0 < zeta ≤ 1"));
    }
    let ratios = match c.policy.as_deref().unwrap_or(default_policy) {
        "strict-priority" => {
            if c.ratios.is_some() {
                cx.err(&f("ratios"), "only policy = \"fixed-ratio\" has ratios");
            }
            None
        }
        "fixed-ratio" => {
            let r = c.ratios.clone().unwrap_or_else(|| (0..k).map(|j| 1u64 << (k - 1 - j).min(62)).collect());
            if r.len() != k || r.iter().all(|&x| x == 0) {
                cx.err(&f("ratios"), format!("expected one weight per host ({k}), not all zero"));
            }
            Some(r)
        }
        o => {
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
    (zeta, ratios, c_min, scale_minimums)
}

/// `plmlight`'s keys (docs/plm.md, "PLMLight"): the thesis gives T_DW = 1 ms and fixed ratio;
/// the NDWin bounds, the flush depth and the fast device's share are NeSt's defaults.
#[allow(clippy::too_many_arguments)]
fn plmlight(cx: &mut Ctx, key: &str, c: &CoordinatorConfig, hosts: &[usize], devices: &[DevicePlan], network: Option<&NetworkPlan>, nvmeof: Option<&NvmeofPlan>) -> Option<PlmLightPlan> {
    let f = |n: &str| format!("{key}.{n}");
    let dev = |cx: &mut Ctx, field: &str, v: &Option<String>| -> Option<usize> {
        let Some(name) = v else {
            cx.err(&f(field), format!("plmlight needs {field}: {}", if field == "device" { "the SSD whose windows it emulates" } else { "the fast device that takes the redirected writes" }));
            return None;
        };
        let d = devices.iter().position(|d| &d.name == name);
        if d.is_none() {
            cx.err(&f(field), format!("no device named '{name}'"));
        }
        d
    };
    let (device, fast) = (dev(cx, "device", &c.device), dev(cx, "fast", &c.fast));
    let (device, fast) = (device?, fast?);
    match &devices[device].kind {
        DeviceKindPlan::Ssd(p) if p.params.plm.is_some() => cx.err(&f("device"), format!("'{}' has PLM: PLMLight emulates it for an SSD without (use plmc)", devices[device].name)),
        DeviceKindPlan::Ssd(_) => {}
        _ => cx.err(&f("device"), format!("'{}' is not an SSD", devices[device].name)),
    }
    if fast == device {
        cx.err(&f("fast"), "the fast device must be another device than the SSD");
    }
    let (Some(net), Some(nv)) = (network, nvmeof) else {
        cx.err(&f("device"), "the write-handling agent sits in the SSD's storage server: the scenario has no device in a storage server");
        return None;
    };
    let Some(server) = nv.device_server[device] else {
        cx.err(&f("device"), format!("'{}' is in no storage server (give it server = ...)", devices[device].name));
        return None;
    };
    if nv.device_server[fast] != Some(server) {
        cx.err(&f("fast"), format!("'{}' must sit in the same storage server as '{}'", devices[fast].name, devices[device].name));
    }
    let read_counts = match c.counts {
        Some(n) if n > 0 => n,
        _ => {
            cx.err(&f("counts"), "plmlight needs counts ≥ 1: the read DCs per DTWin it allocates among its hosts");
            0
        }
    };
    let write_counts = match c.write_counts {
        Some(n) if n > 0 => n,
        _ => {
            cx.err(&f("write_counts"), "plmlight needs write_counts ≥ 1: the device's write DC per DTWin (4 KiB units)");
            0
        }
    };
    let t_dw = c.t_dw.as_ref().and_then(|s| cx.dur(&f("t_dw"), s)).unwrap_or(SimTime::from_ms(1));
    if t_dw == SimTime::ZERO {
        cx.err(&f("t_dw"), "must be positive");
    }
    let t_ndwl = c.t_ndwl.as_ref().and_then(|s| cx.dur(&f("t_ndwl"), s)).unwrap_or(t_dw);
    let t_ndwh = c.t_ndwh.as_ref().and_then(|s| cx.dur(&f("t_ndwh"), s)).unwrap_or(SimTime(t_dw.0.saturating_mul(10)).max(t_ndwl));
    if t_ndwl == SimTime::ZERO {
        // The reads held for NDWin are routed again just after it starts; an NDWin that could
        // end at once would hand them to the next DTWin's allocation instead.
        cx.err(&f("t_ndwl"), "must be positive: the reads held for NDWin are served at its start");
    }
    if t_ndwh < t_ndwl {
        cx.err(&f("t_ndwh"), "must be at least t_ndwl");
    }
    let small_below = match &c.small_writes_below {
        None => 0,
        Some(s) => cx.size32(&f("small_writes_below"), s).unwrap_or(0),
    };
    let fast_capacity = match &c.fast_capacity {
        None => devices[fast].capacity,
        Some(s) => cx.size(&f("fast_capacity"), s).unwrap_or(0),
    };
    let flush_depth = c.flush_depth.unwrap_or(8);
    if flush_depth == 0 {
        cx.err(&f("flush_depth"), "must be at least 1");
    }
    for (v, n) in [(c.pool.is_some(), "pool"), (c.predictor.is_some(), "predictor"), (c.overrun.is_some(), "overrun"), (c.messages.is_some(), "messages")] {
        if v {
            cx.err(&f(n), "not a plmlight key (its reads beyond their DCs always wait for NDWin, with CoD prediction)");
        }
    }
    let k = hosts.len();
    let (zeta, ratios, c_min, scale_minimums) = allocation_keys(cx, key, c, k, "fixed-ratio");
    let alloc = PlmcPlan { pool: usize::MAX, pool_name: String::new(), counts: read_counts, hod: None, zeta, ratios, c_min, scale_minimums, overrun: OverrunPlan::Nd, links: None };
    let server_name = net.topology.host_name(server).to_string();
    Some(PlmLightPlan { device, fast, server, server_name, read_counts, write_counts, t_dw, t_ndwl, t_ndwh, small_below, fast_capacity, flush_depth, alloc })
}
