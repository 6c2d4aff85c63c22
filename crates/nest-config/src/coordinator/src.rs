//! `src`: SRC's Algorithm 1 at a storage target, on one SSD or an array of
//! SSDs behind split submission queues (docs/src.md). Its keys: `device` (an SSD with
//! `nvme.arbitration = "ssq"`, in a storage server) or `devices` (several, in one server), `model` (the throughput prediction model `nestsim.tpm` exported, or one shipped for a
//! preset, "shipped:ssd-a"; read and checked here so a bad file is a configuration error), `delta` (the monitor's window, 10 ms in
//! the paper), `tau` (10 %), `w_max` (the model's own by default: it knows nothing beyond) and
//! `events` (synthetic congestion events: time and demanded read rate, for SRC §IV-E's test of
//! the control loop), `observe` (count only: the DCQCN-only baseline on any arbitration).

use super::{Built, Env, KindConfig, KindPlan};
use crate::ctx::Ctx;
use crate::plan::{DeviceKindPlan, DevicePlan};
use nest_core::{DeviceId, FlowId, HostId, SimTime};
use nest_qos::rate_control::{SrcConfig, TreeEnsemble, SHIPPED_PREFIX};
use serde::Deserialize;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SrcKeys {
    pub name: String,
    /// The SSD behind split SQs whose write weight it sets.
    #[serde(default)]
    pub device: Option<String>,
    /// A target's flash array instead of `device`: SSDs behind split SQs in one storage server,
    /// the demanded read rate divided among them by their reads (docs/src.md).
    #[serde(default)]
    pub devices: Option<Vec<String>>,
    /// The throughput prediction model exported by `nestsim.tpm` (a JSON file), or "shipped:PRESET".
    #[serde(default)]
    pub model: Option<String>,
    /// The workload monitor's window δ (default 10 ms).
    #[serde(default)]
    pub delta: Option<String>,
    /// Algorithm 1's τ, the relative change of the prediction below which w stops rising (default 0.1).
    #[serde(default)]
    pub tau: Option<f64>,
    /// The largest write weight it sets (default: the model's w_max).
    #[serde(default)]
    pub w_max: Option<u32>,
    /// Only observe: count the congestion signals and the demanded rate as SRC does, set no
    /// weight — the paper's "DCQCN only" baseline, whose drives keep the NVMe default arbitration
    /// (no split SQs needed).
    #[serde(default)]
    pub observe: bool,
    /// Synthetic congestion events, `[["60ms", "6Gbps"], ...]` (time, demanded read rate).
    #[serde(default)]
    pub events: Option<Vec<(String, String)>>,
}

impl KindConfig for SrcKeys {
    type Plan = SrcPlan;
    fn name(&self) -> &str {
        &self.name
    }
    fn resolve(&self, cx: &mut Ctx, key: &str, _: &[usize], env: &Env) -> Option<SrcPlan> {
        src(cx, key, self, env)
    }
}

fn src(cx: &mut Ctx, key: &str, c: &SrcKeys, env: &Env) -> Option<SrcPlan> {
    let (devices, network, nvmeof) = (env.devices, env.network, env.nvmeof);
    let f = |n: &str| format!("{key}.{n}");
    let names: Vec<&String> = match (&c.device, &c.devices) {
        (Some(d), None) => vec![d],
        (None, Some(ds)) if !ds.is_empty() => ds.iter().collect(),
        (Some(_), Some(_)) => {
            cx.err(&f("devices"), "give device (one SSD) or devices (a target's array), not both");
            return None;
        }
        _ => {
            cx.err(&f("device"), "src needs device (or devices): the SSD behind split submission queues whose write weight it sets");
            return None;
        }
    };
    let key_of = |k: usize| if c.devices.is_some() { format!("{key}.devices[{k}]") } else { f("device") };
    let mut chosen: Vec<(usize, u32)> = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let Some(device) = devices.iter().position(|d| &d.name == *name) else {
            let hint = crate::suggest::hint(name, devices.iter().map(|d| d.name.as_str()));
            cx.err(&key_of(k), format!("no device named '{name}'{hint}"));
            continue;
        };
        if chosen.iter().any(|&(d, _)| d == device) {
            cx.err(&key_of(k), format!("'{name}' is listed twice"));
            continue;
        }
        let w0 = match &devices[device].kind {
            DeviceKindPlan::Ssd(p) => match p.nvme.split {
                Some(w) => w,
                None if c.observe => 1,
                None => {
                    cx.err(&key_of(k), format!("'{name}' does not arbitrate by split SQs: give it nvme = {{ arbitration = \"ssq\" }}"));
                    1
                }
            },
            _ => {
                cx.err(&key_of(k), format!("'{name}' is not an SSD"));
                1
            }
        };
        chosen.push((device, w0));
    }
    if chosen.len() < names.len() {
        return None;
    }
    // A shipped model is named, not a path: "shipped:ssd-a".
    let model_path = match &c.model {
        Some(p) if p.starts_with(SHIPPED_PREFIX) => Some(PathBuf::from(p)),
        Some(p) => cx.path(&f("model"), p),
        None => {
            cx.err(&f("model"), "src needs model: \"shipped:PRESET\" (ssd-a, ssd-b, ssd-c) or a model file exported by nestsim.tpm (docs/src.md)");
            None
        }
    };
    let model = model_path.as_ref().and_then(|p| TreeEnsemble::load(&p.to_string_lossy()).map_err(|e| cx.err(&f("model"), e)).ok());
    let delta = match &c.delta {
        None => SimTime::from_ms(10),
        Some(s) => cx.dur(&f("delta"), s).unwrap_or(SimTime::from_ms(10)),
    };
    if delta == SimTime::ZERO {
        cx.err(&f("delta"), "must be positive: the monitor's window");
    }
    let tau = c.tau.unwrap_or(0.1);
    if !(tau > 0.0 && tau < 1.0) {
        cx.err(&f("tau"), format!("expected a share in (0, 1), got {tau}"));
    }
    let w_max = match (c.w_max, &model) {
        _ if c.observe => {
            if c.w_max.is_some_and(|w| w != 1) {
                cx.err(&f("w_max"), "an observing src sets no weight: leave w_max out");
            }
            1
        }
        (Some(w), _) => w,
        (None, Some(m)) => m.w_max,
        (None, None) => 1,
    };
    if !(1..=1024).contains(&w_max) {
        cx.err(&f("w_max"), format!("expected an integer 1..1024, got {w_max}"));
    }
    let mut events = Vec::new();
    for (k, (t, r)) in c.events.iter().flatten().enumerate() {
        let (at, rate) = (cx.dur(&format!("{key}.events[{k}][0]"), t), cx.rate(&format!("{key}.events[{k}][1]"), r));
        let (Some(at), Some(rate)) = (at, rate) else { continue };
        if rate <= 0.0 {
            cx.err(&format!("{key}.events[{k}][1]"), "a demanded rate must be positive");
        } else if events.last().is_some_and(|&(prev, _)| at < prev) {
            cx.err(&format!("{key}.events[{k}][0]"), "events must be in time order");
        } else {
            events.push((at, rate));
        }
    }
    let (Some(net), Some(nv)) = (network, nvmeof) else {
        cx.err(&f("device"), "src acts on the congestion of the target's channels: the scenario has no device in a storage server");
        return None;
    };
    let mut server = None;
    for (k, &(device, _)) in chosen.iter().enumerate() {
        match (nv.device_server[device], server) {
            (None, _) => {
                cx.err(&key_of(k), format!("'{}' is in no storage server (give it server = ...)", devices[device].name));
                return None;
            }
            (Some(s), Some(first)) if s != first => {
                cx.err(
                    &key_of(k),
                    format!("'{}' is in another storage server than '{}': one SRC acts at one target", devices[device].name, devices[chosen[0].0].name),
                );
                return None;
            }
            (Some(s), _) => server = Some(s),
        }
    }
    let server = server.expect("at least one device");
    let mut flows: Vec<u32> = nv.conns.iter().filter(|cn| cn.server == server).map(|cn| cn.back).collect();
    flows.sort_unstable();
    let devices = chosen.into_iter().map(|(d, w0)| (DeviceId(d as u32), w0)).collect();
    let ctl = SrcConfig { devices, flows: flows.into_iter().map(FlowId).collect(), delta, tau, w_max, events };
    Some(SrcPlan { server, server_name: net.topology.host_name(server).to_string(), model_path: model_path?, model: Arc::new(model?), ctl })
}

#[derive(Debug, Clone)]
pub struct SrcPlan {
    /// The storage server (network host) the SSD sits in.
    pub server: u32,
    pub server_name: String,
    pub model_path: PathBuf,
    pub model: Arc<TreeEnsemble>,
    /// The controller's own configuration (device, watched channels, δ, τ, w_max, w₀, events).
    pub ctl: SrcConfig,
}

/// Plans are compared by what defines them: a model by its file.
impl PartialEq for SrcPlan {
    fn eq(&self, o: &SrcPlan) -> bool {
        (self.server, &self.model_path, &self.ctl) == (o.server, &o.model_path, &o.ctl)
    }
}

impl KindPlan for SrcPlan {
    fn kind(&self) -> &'static str {
        "src"
    }
    fn params(&self, devices: &[DevicePlan]) -> serde_json::Value {
        let ctl = &self.ctl;
        serde_json::json!({
            "device": devices[ctl.devices[0].0.ix()].name,
            "devices": ctl.devices.iter().map(|&(d, _)| devices[d.ix()].name.as_str()).collect::<Vec<_>>(), "server": self.server_name, "model": self.model_path.file_name().map(|n| n.to_string_lossy().into_owned()),
            "model_kind": self.model.kind, "model_trees": self.model.n_trees(), "delta_ms": ctl.delta.0 as f64 / 1e9, "tau": ctl.tau, "w_max": ctl.w_max,
            "watched_channels": ctl.flows.len(),
            "events_ms_gbps": ctl.events.iter().map(|&(t, r)| serde_json::json!([t.0 as f64 / 1e9, r / 1e9])).collect::<Vec<_>>(),
        })
    }
    fn build(&self, _: Vec<HostId>) -> Built {
        let (coord, agent) = nest_qos::src(self.ctl.clone(), self.model.clone());
        Built { agent: Some((self.server, Box::new(agent))), ..Built::bare(Box::new(coord)) }
    }
    fn agent_server(&self) -> Option<(u32, &str)> {
        Some((self.server, &self.server_name))
    }
    fn measures_aggregate(&self) -> bool {
        true
    }
}
