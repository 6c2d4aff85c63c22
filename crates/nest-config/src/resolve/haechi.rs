//! `[haechi]` in a scenario with a `[network]`: Haechi's clients and data nodes are topology
//! hosts, and their verbs travel as messages over the packet fabric beside the storage traffic
//! (SPEC §10, issue 20: "Haechi traffic sharing the fabric with QTCP/QRDMA storage classes").
//! Each (client, data node) pair gets two message channels — requests one way, answers the
//! other — in the scenario class `class` with the transport `transport` (RoCE's DCQCN by
//! default), so the class's QTCP/QRDMA target and urgent priority apply to them as to an
//! NVMe-oF connection of that class. The endpoints' costs (client CPU, the data node's NIC
//! pipelines and CPU) stay those of `nest_transport::verbs`; the fabric is the World's.

use super::e2e::{class_channel, Tagging};
use super::network::{transport, NetworkPlan};
use super::{ClassPlan, Ctx, RunPlan};
use crate::haechi::HaechiSpec;
use nest_transport::Cc;

#[derive(Debug, Clone)]
pub struct HaechiPlan {
    /// The run's spec, its duration, warm-up and node count taken from the scenario.
    pub spec: HaechiSpec,
    /// The topology node of each client, and of each data node.
    pub client_nodes: Vec<u32>,
    pub data_nodes: Vec<u32>,
    /// Per (client c, data node j), at `c * nodes + j`: its request and answer channels.
    pub channels: Vec<(u32, u32)>,
}

/// At most this many (client, data node) pairs: each is two flows of the fabric.
pub const MAX_PAIRS: usize = 1 << 16;

/// Keys of the verbs model's own switch: on the packet fabric, the `[network]` decides them.
const FABRIC_KEYS: [&str; 4] = ["link_gbps", "link_delay_ns", "switch_latency_ns", "mtu"];

pub(crate) fn resolve(
    cx: &mut Ctx,
    spec: &HaechiSpec,
    run: &RunPlan,
    classes: &[ClassPlan],
    tagging: &Tagging,
    net: Option<&mut NetworkPlan>,
) -> Option<HaechiPlan> {
    let Some(net) = net else {
        cx.err("haechi", "a World scenario's [haechi] runs on its [network] (without one, write the [haechi] table alone in its own file: docs/haechi.md)");
        return None;
    };
    let mut s = spec.clone();
    let mut ok = true;
    for (key, given) in [("duration_s", s.duration_s != 0.0), ("warmup_s", s.warmup_s != 0.0)] {
        if given {
            cx.err(&format!("haechi.{key}"), "on the packet fabric, [run].duration and [run].warmup govern the Haechi run too");
            ok = false;
        }
    }
    let v = &s.verbs;
    for (key, given) in FABRIC_KEYS.iter().zip([v.link_gbps.is_some(), v.link_delay_ns.is_some(), v.switch_latency_ns.is_some(), v.mtu.is_some()]) {
        if given {
            cx.err(&format!("haechi.verbs.{key}"), "the verbs model's own switch; on the packet fabric the [network] sets links and switches");
            ok = false;
        }
    }
    match run.duration {
        Some(d) => s.duration_s = d.as_secs_f64(),
        None => {
            cx.err("run.duration", "a run with [haechi] needs a duration (its periods and clients never stop on their own)");
            ok = false;
        }
    }
    s.warmup_s = run.warmup.as_secs_f64();
    let topo = &net.topology;
    let host = |cx: &mut Ctx, key: &str, name: &str| {
        let n = topo.host_by_name(name);
        if n.is_none() {
            let hint = if topo.node_by_name(name).is_some() { " (that is a switch)" } else { "" };
            cx.err(key, format!("no host named '{name}' in the topology{hint}"));
        }
        n
    };
    if s.clients.len().saturating_mul(s.data_nodes.len()) > MAX_PAIRS {
        cx.err(
            "haechi.data_nodes",
            format!(
                "{} clients × {} data nodes: at most {MAX_PAIRS} pairs on the fabric (each is two queue pairs' flows)",
                s.clients.len(),
                s.data_nodes.len()
            ),
        );
        return None;
    }
    if s.data_nodes.is_empty() {
        cx.err("haechi.data_nodes", "expected the topology hosts that are the data nodes, e.g. [\"s0\"]");
        return None;
    }
    let data_nodes: Vec<Option<u32>> = s.data_nodes.iter().enumerate().map(|(j, n)| host(cx, &format!("haechi.data_nodes[{j}]"), n)).collect();
    let mut client_nodes = Vec::with_capacity(s.clients.len());
    for (i, c) in s.clients.iter().enumerate() {
        let key = format!("haechi.clients[{i}].host");
        match c.host.as_deref() {
            None => {
                cx.err(&key, "on the packet fabric every client names the topology host it runs on");
                client_nodes.push(None);
            }
            Some(name) => {
                let n = host(cx, &key, name);
                if n.is_some() && data_nodes.contains(&n) {
                    cx.err(&key, format!("'{name}' is a data node: a client reaches its data nodes over the fabric"));
                }
                client_nodes.push(n);
            }
        }
    }
    for (j, n) in s.data_nodes.iter().enumerate() {
        if s.data_nodes[..j].contains(n) {
            cx.err(&format!("haechi.data_nodes[{j}]"), format!("'{n}' is listed twice"));
            ok = false;
        }
    }
    let class = match s.class.as_deref() {
        None => classes.iter().position(|c| c.name == "high").unwrap_or(0),
        Some(name) => match classes.iter().position(|c| c.name == name) {
            Some(k) => k,
            None => {
                cx.err("haechi.class", format!("no class named '{name}'"));
                return None;
            }
        },
    };
    let cc = match s.transport.as_deref() {
        None => Cc::Dcqcn,
        Some(t) => transport(cx, "haechi.transport", t)?,
    };
    s.nodes = s.data_nodes.len() as u32;
    if let Err(e) = s.check_common() {
        // "key: what was expected" names the key under [haechi].
        match e.split_once(": ").filter(|(k, _)| !k.contains(' ')) {
            Some((k, m)) => cx.err(&format!("haechi.{k}"), m),
            None => cx.err("haechi", e),
        }
        ok = false;
    }
    let (Some(client_nodes), Some(data_nodes)) = (client_nodes.into_iter().collect::<Option<Vec<u32>>>(), data_nodes.into_iter().collect::<Option<Vec<u32>>>())
    else {
        return None;
    };
    if !ok {
        return None;
    }
    let flow = |name: String, src: u32, dst: u32| class_channel(name, src, dst, class, cc, classes, tagging);
    let mut channels = Vec::with_capacity(client_nodes.len() * data_nodes.len());
    for (c, &cn) in client_nodes.iter().enumerate() {
        for &dn in &data_nodes {
            let (cname, dname) = (topo_name(net, cn), topo_name(net, dn));
            let fwd = net.flows.len() as u32;
            net.flows.push(flow(format!("haechi:{cname}>{dname}:c{c}"), cn, dn));
            net.flows.push(flow(format!("haechi:{dname}>{cname}:c{c}"), dn, cn));
            channels.push((fwd, fwd + 1));
        }
    }
    Some(HaechiPlan { spec: s, client_nodes, data_nodes, channels })
}

fn topo_name(net: &NetworkPlan, node: u32) -> String {
    net.topology.host_name(node).to_string()
}
