//! Resolution of the end-to-end path: which topology host each host's NIC and each device's
//! storage server is, the NVMe-oF connections the workloads need (one pair of message
//! channels per host, server and class), and how every layer treats the class tag (`[qos]`).

use super::network::{transport, NetworkPlan};
use super::volume::VolumePlan;
use super::{ClassPlan, Ctx, DevicePlan, HostPlan, Priority, WorkloadPlan};
pub use crate::plan::e2e::{
    ConnPlan, NvmeofPlan, Tagging, DEFAULT_CTRL_LOSS_TMO, DEFAULT_KEEP_ALIVE, DEFAULT_RECONNECT_DELAY, SPDK_IN_CAPSULE_DATA, SPDK_IO_UNIT, SPDK_QUEUE_DEPTH,
    SPDK_SHARED_BUFFERS,
};
use crate::schema::*;
use nest_core::SimTime;
use nest_net::packet::{PRIO_NORMAL, PRIO_URGENT};
use nest_transport::{Cc, FlowSpec, Target};

/// One layer's `[qos]` value: per class, the class it treats the request as (`None`: ignored).
fn layer(cx: &mut Ctx, key: &str, v: &Option<toml::Value>, classes: &[ClassPlan]) -> Vec<Option<usize>> {
    let follow: Vec<Option<usize>> = (0..classes.len()).map(Some).collect();
    let by_name = |n: &str| classes.iter().position(|c| c.name == n);
    let names = || classes.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ");
    match v {
        None => follow,
        Some(toml::Value::String(s)) if s == "follow" => follow,
        Some(toml::Value::String(s)) if s == "ignore" => vec![None; classes.len()],
        Some(toml::Value::Table(t)) => {
            let mut out = follow;
            for (from, to) in t {
                let Some(f) = by_name(from) else {
                    cx.err(&format!("{key}.{from}"), format!("no class named '{from}' (classes: {})", names()));
                    continue;
                };
                match to.as_str().map(|n| (n, by_name(n))) {
                    Some((_, Some(t))) => out[f] = Some(t),
                    Some((n, None)) => cx.err(&format!("{key}.{from}"), format!("no class named '{n}' (classes: {})", names())),
                    None => cx.err(&format!("{key}.{from}"), "expected the name of the class this layer treats it as"),
                }
            }
            out
        }
        Some(_) => {
            cx.err(key, "expected \"follow\", \"ignore\" or a table mapping class names to class names");
            follow
        }
    }
}

pub(super) fn tagging(cx: &mut Ctx, q: &QosConfig, classes: &[ClassPlan]) -> Tagging {
    let prio = |m: &[Option<usize>], ignored: Priority| m.iter().map(|x| x.map_or(ignored, |c| classes[c].priority)).collect::<Vec<_>>();
    let host = layer(cx, "qos.host", &q.host, classes);
    let network = layer(cx, "qos.network", &q.network, classes);
    let transport = layer(cx, "qos.transport", &q.transport, classes);
    let nvme = layer(cx, "qos.nvme", &q.nvme, classes);
    let device = layer(cx, "qos.device", &q.device, classes);
    Tagging {
        host: prio(&host, Priority::BestEffort),
        network_urgent: network.iter().map(|x| x.is_some_and(|c| classes[c].priority == Priority::Urgent)).collect(),
        transport,
        nvme: prio(&nvme, Priority::Medium),
        device: prio(&device, Priority::Medium),
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn nvmeof(
    cx: &mut Ctx,
    sc: &Scenario,
    hosts: &[HostPlan],
    devices: &[DevicePlan],
    volumes: &[VolumePlan],
    workloads: &[WorkloadPlan],
    classes: &[ClassPlan],
    tagging: &Tagging,
    net: Option<&mut NetworkPlan>,
) -> Option<NvmeofPlan> {
    let c = &sc.nvmeof;
    let any_server = sc.devices.iter().any(|d| d.server().is_some());
    let Some(net) = net else {
        if any_server {
            let i = sc.devices.iter().position(|d| d.server().is_some()).unwrap_or(0);
            cx.err(&format!("device[{i}].server"), "a device in a storage server needs a [network] to reach it over");
        }
        return None;
    };
    let topo = &net.topology;
    let mut host_node = Vec::with_capacity(hosts.len());
    for (i, h) in hosts.iter().enumerate() {
        let explicit = sc.hosts.get(i).and_then(|c| c.node.clone());
        let name = explicit.clone().unwrap_or_else(|| h.name.clone());
        let node = topo.host_by_name(&name);
        if node.is_none() && explicit.is_some() {
            let hint = if topo.node_by_name(&name).is_some() { " (that is a switch)" } else { "" };
            cx.err(&format!("host[{i}].node"), format!("no host named '{name}' in the topology{hint}"));
        }
        host_node.push(node);
    }
    let mut device_server = Vec::with_capacity(devices.len());
    for (i, d) in sc.devices.iter().enumerate() {
        let s = d.server().and_then(|name| {
            let s = topo.host_by_name(name);
            if s.is_none() {
                let hint = if topo.node_by_name(name).is_some() { " (that is a switch)" } else { "" };
                cx.err(&format!("device[{i}].server"), format!("no host named '{name}' in the topology{hint}"));
            }
            s
        });
        device_server.push(s);
    }
    if !any_server {
        return None;
    }
    let default_cc = c.transport.as_deref().and_then(|t| transport(cx, "nvmeof.transport", t)).unwrap_or(Cc::Dctcp);
    let mut class_cc = vec![default_cc; classes.len()];
    for (name, t) in &c.class_transport {
        let key = format!("nvmeof.class_transport.{name}");
        match classes.iter().position(|k| &k.name == name) {
            Some(k) => class_cc[k] = transport(cx, &key, t).unwrap_or(class_cc[k]),
            None => cx.err(&key, format!("no class named '{name}'")),
        }
    }
    let bytes = |cx: &mut Ctx, key: &str, v: &Option<String>, default: u32| match v {
        None => default,
        Some(s) => match cx.size(&format!("nvmeof.{key}"), s) {
            Some(b) if b <= 65_536 => b as u32,
            Some(_) => {
                cx.err(&format!("nvmeof.{key}"), "must be at most 64 KiB");
                default
            }
            None => default,
        },
    };
    let command_capsule = bytes(cx, "command_capsule", &c.command_capsule, 72).max(1);
    let completion_capsule = bytes(cx, "completion_capsule", &c.completion_capsule, 24).max(1);
    let data_header = bytes(cx, "data_header", &c.data_header, 24);
    let time = |cx: &mut Ctx, key: &str, v: &Option<String>| v.as_ref().and_then(|s| cx.dur(&format!("nvmeof.{key}"), s)).unwrap_or(SimTime::ZERO);
    let target_overhead = time(cx, "target_overhead", &c.target_overhead);
    let response_overhead = time(cx, "response_overhead", &c.response_overhead);
    let host_overhead = time(cx, "host_overhead", &c.host_overhead);
    let rdma: Vec<bool> = class_cc.iter().map(|cc| cc.is_rate_based()).collect();
    let rdma_default = default_cc.is_rate_based();
    let target_buffer = match c.target_buffer.as_deref() {
        None => rdma_default.then_some(SPDK_SHARED_BUFFERS * SPDK_IO_UNIT),
        Some("unlimited") => None,
        Some(v) => cx.size("nvmeof.target_buffer", v).and_then(|b| {
            if b < SPDK_IO_UNIT {
                cx.err("nvmeof.target_buffer", format!("{b} bytes: expected at least 8 KiB (one io unit), or \"unlimited\""));
                return None;
            }
            Some(b)
        }),
    };
    let in_capsule_data = match &c.in_capsule_data {
        None => SPDK_IN_CAPSULE_DATA,
        Some(v) => match cx.size("nvmeof.in_capsule_data", v) {
            Some(b) if b <= 1 << 20 => b as u32,
            Some(_) => {
                cx.err("nvmeof.in_capsule_data", "must be at most 1 MiB");
                SPDK_IN_CAPSULE_DATA
            }
            None => SPDK_IN_CAPSULE_DATA,
        },
    };
    let queue_depth = match c.queue_depth {
        Some(0) => {
            cx.err("nvmeof.queue_depth", "expected at least 1 command");
            None
        }
        Some(q) => Some(q),
        None => rdma_default.then_some(SPDK_QUEUE_DEPTH),
    };
    // A host timer: Linux's default when absent, none at "0s".
    let timer = |cx: &mut Ctx, key: &str, v: &Option<String>, default: SimTime| match v {
        None => Some(default),
        Some(v) => cx.dur(&format!("nvmeof.{key}"), v).filter(|t| *t > SimTime::ZERO),
    };
    let keep_alive = timer(cx, "keep_alive", &c.keep_alive, DEFAULT_KEEP_ALIVE);
    let reconnect_delay = timer(cx, "reconnect_delay", &c.reconnect_delay, DEFAULT_RECONNECT_DELAY);
    // Unlike the timers above, "0s" means what it does in Linux: no attempt at all.
    let ctrl_loss_tmo = match c.ctrl_loss_tmo.as_deref() {
        None => Some(DEFAULT_CTRL_LOSS_TMO),
        Some("forever") => None,
        Some(v) => nest_core::units::parse_duration(v).map_err(|e| cx.err("nvmeof.ctrl_loss_tmo", format!("{e}; or \"forever\" for no limit"))).ok(),
    };

    // The connections the workloads need, in a deterministic order.
    let mut needed: Vec<(usize, u32, usize)> = Vec::new();
    for (i, w) in workloads.iter().enumerate() {
        let targets = match w.volume {
            Some(v) => &volumes[v].devices[..],
            None => std::slice::from_ref(&w.device),
        };
        for &d in targets {
            let Some(s) = device_server[d] else { continue };
            match host_node[w.host] {
                Some(h) if h == s => {}
                Some(_) => needed.push((w.host, s, w.class)),
                None => {
                    cx.err(
                        &format!("workload[{i}].host"),
                        format!(
                            "host '{}' reaches device '{}' in a storage server but is not on the network: give it a `node` (a topology host)",
                            hosts[w.host].name, devices[d].name
                        ),
                    );
                    break; // once per workload, not once per device of its volume
                }
            }
        }
    }
    needed.sort_unstable();
    needed.dedup();
    let mut conns = Vec::with_capacity(needed.len());
    for (h, s, k) in needed {
        let Some(hn) = host_node[h] else { continue };
        let spec = |name: String, src: u32, dst: u32| class_channel(name, src, dst, k, class_cc[k], classes, tagging);
        let (hname, sname) = (topo.host_name(hn).to_string(), topo.host_name(s).to_string());
        let fwd = net.flows.len() as u32;
        net.flows.push(spec(format!("nvmeof:{hname}>{sname}:{}", classes[k].name), hn, s));
        net.flows.push(spec(format!("nvmeof:{sname}>{hname}:{}", classes[k].name), s, hn));
        conns.push(ConnPlan { host: h, server: s, class: k, fwd, back: fwd + 1 });
    }
    Some(NvmeofPlan {
        host_node,
        device_server,
        conns,
        command_capsule,
        completion_capsule,
        data_header,
        target_overhead,
        response_overhead,
        host_overhead,
        target_buffer,
        rdma,
        in_capsule_data,
        queue_depth,
        keep_alive,
        reconnect_delay,
        ctrl_loss_tmo,
    })
}

/// A message channel of class `k` on transport `cc` (an NVMe-oF connection's direction, a
/// Haechi queue pair's): the class's QTCP/QRDMA target as `[qos]` tags it, and its urgent
/// priority.
pub(crate) fn class_channel(name: String, src: u32, dst: u32, k: usize, cc: Cc, classes: &[ClassPlan], tagging: &Tagging) -> FlowSpec {
    let target = tagging.transport[k].and_then(|t| match (cc.is_quality_aware(), classes[t].latency_target) {
        (false, _) => None,
        (true, Some(l)) => Some(Target::Latency(l)),
        (true, None) => Some(Target::Ratio(classes[t].ratio)),
    });
    FlowSpec {
        name,
        src,
        dst,
        class: tagging.transport[k].unwrap_or(k) as u8,
        prio: if tagging.network_urgent[k] { PRIO_URGENT } else { PRIO_NORMAL },
        cc,
        start: SimTime::ZERO,
        stop: None,
        bytes: None,
        rate_bps: None,
        deadline: None,
        target,
        messages: true,
    }
}
