//! `plmlight`: PLM emulated for an SSD without it (thesis 3.7; docs/plm.md): read DCs per host,
//! a write DC per device and the write-handling agent at its storage server. Hosts in `hosts`
//! order are its priority order, highest first. Its reads beyond their DCs always wait for
//! NDWin, with CoD prediction: it takes none of `plmc`'s `pool`, `predictor`, `overrun` or
//! `messages`.

use super::allocation::{allocation_keys, Allocation};
use super::{Built, Env, KindConfig, KindPlan, OverrunPlan, PlmcPlan};
use crate::ctx::Ctx;
use crate::plan::{DeviceKindPlan, DevicePlan};
use nest_core::{DeviceId, HostId, SimTime};
use nest_qos::plmlight::PlmLightConfig;
use nest_qos::PlmLight;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlmLightKeys {
    pub name: String,
    /// Hosts it coordinates, highest priority first (default: every host).
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// The SSD (without PLM, in a storage server) whose windows it emulates.
    #[serde(default)]
    pub device: Option<String>,
    /// The fast device on the same server that takes the redirected writes.
    #[serde(default)]
    pub fast: Option<String>,
    /// The read DCs per DTWin it allocates among its hosts.
    #[serde(default)]
    pub counts: Option<u64>,
    /// The device's write DC per DTWin (4 KiB units).
    #[serde(default)]
    pub write_counts: Option<u64>,
    /// DTWin length (default 1 ms, thesis 3.7).
    #[serde(default)]
    pub t_dw: Option<String>,
    /// NDWin minimum (default T_DW) and maximum (default 10 × T_DW).
    #[serde(default)]
    pub t_ndwl: Option<String>,
    #[serde(default)]
    pub t_ndwh: Option<String>,
    /// Writes smaller than this go to the fast device (default: none; Workload II: "64KiB").
    #[serde(default)]
    pub small_writes_below: Option<String>,
    /// Bytes the fast device may hold for the SSD (default: its capacity).
    #[serde(default)]
    pub fast_capacity: Option<String>,
    /// Flushes in flight at once (default 8).
    #[serde(default)]
    pub flush_depth: Option<u32>,
    /// Where a write (not a small one) arriving in NDWin goes: "ssd" (default: the WHA redirects
    /// only the writes beyond the write DC, SPEC §13.7) or "fast" (every NDWin write parked too).
    #[serde(default)]
    pub nd_writes: Option<String>,
    /// PLMC eq. 6's keys, as `plmc`'s (policy default: fixed-ratio).
    #[serde(default)]
    pub zeta: Option<f64>,
    #[serde(default)]
    pub policy: Option<String>,
    #[serde(default)]
    pub ratios: Option<Vec<u64>>,
    #[serde(default)]
    pub c_min: Option<Vec<u64>>,
    #[serde(default)]
    pub min_overflow: Option<String>,
}

impl PlmLightKeys {
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

impl KindConfig for PlmLightKeys {
    type Plan = PlmLightPlan;
    fn name(&self) -> &str {
        &self.name
    }
    fn hosts(&self) -> Option<&[String]> {
        self.hosts.as_deref()
    }
    fn resolve(&self, cx: &mut Ctx, key: &str, hosts: &[usize], env: &Env) -> Option<PlmLightPlan> {
        plmlight(cx, key, self, hosts, env)
    }
}

/// `plmlight`'s keys (docs/plm.md, "PLMLight"): the thesis gives T_DW = 1 ms and fixed ratio;
/// the NDWin bounds, the flush depth and the fast device's share are NeSt's defaults.
fn plmlight(cx: &mut Ctx, key: &str, c: &PlmLightKeys, hosts: &[usize], env: &Env) -> Option<PlmLightPlan> {
    let (devices, network, nvmeof) = (env.devices, env.network, env.nvmeof);
    let f = |n: &str| format!("{key}.{n}");
    let dev = |cx: &mut Ctx, field: &str, v: &Option<String>| -> Option<usize> {
        let Some(name) = v else {
            cx.err(
                &f(field),
                format!(
                    "plmlight needs {field}: {}",
                    if field == "device" { "the SSD whose windows it emulates" } else { "the fast device that takes the redirected writes" }
                ),
            );
            return None;
        };
        let d = devices.iter().position(|d| &d.name == name);
        if d.is_none() {
            let hint = crate::suggest::hint(name, devices.iter().map(|d| d.name.as_str()));
            cx.err(&f(field), format!("no device named '{name}'{hint}"));
        }
        d
    };
    let (device, fast) = (dev(cx, "device", &c.device), dev(cx, "fast", &c.fast));
    let (device, fast) = (device?, fast?);
    match &devices[device].kind {
        DeviceKindPlan::Ssd(p) if p.params.plm.is_some() => {
            cx.err(&f("device"), format!("'{}' has PLM: PLMLight emulates it for an SSD without (use plmc)", devices[device].name))
        }
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
    // As the device's PLM (plm/attrs.rs): a window shorter than a flash operation schedules
    // nothing, and an idle device's windows are caught up one by one in a single event (with
    // PLMC's smoothing updated each window), so picosecond windows would spin there.
    if t_dw < SimTime::from_us(1) {
        cx.err(&f("t_dw"), format!("{t_dw} is under 1 µs: a DTWin must outlast the flash operations it schedules"));
    }
    let t_ndwl = c.t_ndwl.as_ref().and_then(|s| cx.dur(&f("t_ndwl"), s)).unwrap_or(t_dw);
    let t_ndwh = c.t_ndwh.as_ref().and_then(|s| cx.dur(&f("t_ndwh"), s)).unwrap_or(SimTime(t_dw.0.saturating_mul(10)).max(t_ndwl));
    if t_ndwl < SimTime::from_us(1) {
        // The reads held for NDWin are routed again just after it starts; an NDWin that could
        // end at once would hand them to the next DTWin's allocation instead.
        cx.err(&f("t_ndwl"), format!("{t_ndwl} is under 1 µs: the reads held for NDWin are served at its start, so it must last"));
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
    let nd_writes_to_fast = match c.nd_writes.as_deref() {
        None | Some("ssd") => false,
        Some("fast") => true,
        Some(o) => {
            cx.err(&f("nd_writes"), format!("'{o}': expected ssd or fast"));
            false
        }
    };
    let flush_depth = c.flush_depth.unwrap_or(8);
    if flush_depth == 0 {
        cx.err(&f("flush_depth"), "must be at least 1");
    }
    let k = hosts.len();
    let (zeta, ratios, c_min, scale_minimums) = allocation_keys(cx, key, &c.allocation(), k, "fixed-ratio");
    let alloc = PlmcPlan {
        pool: usize::MAX,
        pool_name: String::new(),
        counts: read_counts,
        hod: None,
        zeta,
        ratios,
        c_min,
        scale_minimums,
        overrun: OverrunPlan::Nd,
        links: None,
    };
    let server_name = net.topology.host_name(server).to_string();
    Some(PlmLightPlan {
        device,
        fast,
        server,
        server_name,
        read_counts,
        write_counts,
        t_dw,
        t_ndwl,
        t_ndwh,
        small_below,
        fast_capacity,
        flush_depth,
        nd_writes_to_fast,
        alloc,
    })
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
    /// NDWin writes go to the fast device too (`nd_writes = "fast"`).
    pub nd_writes_to_fast: bool,
    /// The read allocation, as PLMC's (predictor always CoD, overrun always nd).
    pub alloc: PlmcPlan,
}

impl KindPlan for PlmLightPlan {
    fn kind(&self) -> &'static str {
        "plmlight"
    }
    fn params(&self, devices: &[DevicePlan]) -> serde_json::Value {
        let a = &self.alloc;
        serde_json::json!({
            "device": devices[self.device].name, "fast": devices[self.fast].name, "server": self.server_name,
            "counts": self.read_counts, "write_counts": self.write_counts, "zeta": a.zeta,
            "policy": a.policy_name(), "ratios": a.ratios,
            "c_min": a.c_min, "min_overflow": a.min_overflow_name(),
            "t_dw_ms": self.t_dw.0 as f64 / 1e9, "t_ndwl_ms": self.t_ndwl.0 as f64 / 1e9, "t_ndwh_ms": self.t_ndwh.0 as f64 / 1e9,
            "small_writes_below": self.small_below, "fast_capacity": self.fast_capacity, "flush_depth": self.flush_depth,
            "nd_writes": if self.nd_writes_to_fast { "fast" } else { "ssd" },
        })
    }
    fn build(&self, hosts: Vec<HostId>) -> Built {
        let a = &self.alloc;
        let (coord, router) = PlmLight::new(PlmLightConfig {
            hosts,
            read_counts: self.read_counts,
            c_min: a.c_min.clone(),
            policy: a.policy(),
            overflow: a.overflow(),
            zeta: a.zeta,
            write_counts: self.write_counts,
            ssd: DeviceId(self.device as u32),
            fast: DeviceId(self.fast as u32),
            t_dw: self.t_dw,
            t_ndwl: self.t_ndwl,
            t_ndwh: self.t_ndwh,
            small_below: self.small_below,
            fast_capacity: self.fast_capacity,
            flush_depth: self.flush_depth,
            nd_writes_to_fast: self.nd_writes_to_fast,
        })
        .split();
        Built { agent: Some((self.server, Box::new(router))), ..Built::bare(Box::new(coord)) }
    }
    fn agent_server(&self) -> Option<(u32, &str)> {
        Some((self.server, &self.server_name))
    }
}
