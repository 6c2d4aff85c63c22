//! `[[coordinator]] kind = "src"`: SRC's Algorithm 1 at the storage target of one SSD behind split
//! submission queues (docs/src.md). Its keys: `device` (an SSD with `nvme.arbitration = "ssq"`,
//! in a storage server), `model` (the throughput prediction model `nestsim.tpm` exported, read and
//! checked here so a bad file is a configuration error), `delta` (the monitor's window, 10 ms in
//! the paper), `tau` (10 %), `w_max` (the model's own by default: it knows nothing beyond) and
//! `events` (synthetic congestion events: time and demanded read rate, for SRC §IV-E's test of
//! the control loop).

use crate::coordinator::CoordinatorConfig;
use crate::resolve::e2e::NvmeofPlan;
use crate::resolve::network::NetworkPlan;
use crate::resolve::{Ctx, DeviceKindPlan, DevicePlan};
use nest_core::{DeviceId, FlowId, SimTime};
use nest_qos::rate_control::{SrcConfig, TreeEnsemble};
use std::path::PathBuf;
use std::sync::Arc;

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

pub(crate) fn src(cx: &mut Ctx, key: &str, c: &CoordinatorConfig, devices: &[DevicePlan], network: Option<&NetworkPlan>, nvmeof: Option<&NvmeofPlan>) -> Option<SrcPlan> {
    let f = |n: &str| format!("{key}.{n}");
    for (v, n) in [
        (c.pool.is_some(), "pool"),
        (c.counts.is_some(), "counts"),
        (c.fast.is_some(), "fast"),
        (c.servers.is_some(), "servers"),
        (c.period.is_some(), "period"),
        (c.ios.is_some(), "ios"),
        (c.t_dw.is_some(), "t_dw"),
    ] {
        if v {
            cx.err(&f(n), "not an src key (src takes device, model, delta, tau, w_max and events)");
        }
    }
    let Some(name) = &c.device else {
        cx.err(&f("device"), "src needs device: the SSD behind split submission queues whose write weight it sets");
        return None;
    };
    let Some(device) = devices.iter().position(|d| &d.name == name) else {
        cx.err(&f("device"), format!("no device named '{name}'"));
        return None;
    };
    let w0 = match &devices[device].kind {
        DeviceKindPlan::Ssd(p) => match p.nvme.split {
            Some(w) => w,
            None => {
                cx.err(&f("device"), format!("'{name}' does not arbitrate by split SQs: give it nvme = {{ arbitration = \"ssq\" }}"));
                1
            }
        },
        _ => {
            cx.err(&f("device"), format!("'{name}' is not an SSD"));
            1
        }
    };
    let model_path = match &c.model {
        Some(p) => cx.path(&f("model"), p),
        None => {
            cx.err(&f("model"), "src needs model: a throughput prediction model exported by nestsim.tpm (docs/src.md)");
            None
        }
    };
    let model = model_path.as_ref().and_then(|p| {
        let read = std::fs::read_to_string(p).map_err(|e| e.to_string()).and_then(|t| TreeEnsemble::from_json(&t));
        read.map_err(|e| cx.err(&f("model"), format!("{}: {e}", p.display()))).ok()
    });
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
    let Some(server) = nv.device_server[device] else {
        cx.err(&f("device"), format!("'{name}' is in no storage server (give it server = ...)"));
        return None;
    };
    let mut flows: Vec<u32> = nv.conns.iter().filter(|cn| cn.server == server).map(|cn| cn.back).collect();
    flows.sort_unstable();
    let ctl = SrcConfig { device: DeviceId(device as u32), flows: flows.into_iter().map(FlowId).collect(), delta, tau, w_max, w0, events };
    Some(SrcPlan { server, server_name: net.topology.host_name(server).to_string(), model_path: model_path?, model: Arc::new(model?), ctl })
}
