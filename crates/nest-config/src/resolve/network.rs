//! Resolution of `[network]` and `[[flow]]`: the topology is built here (so a bad name or an
//! unreachable host is reported at its key), the switch and transport parameters parsed, and
//! every flow's endpoints and class checked.

use super::{ClassPlan, Ctx, RunPlan};
pub use crate::plan::network::{NetworkPlan, SamplePorts};
use crate::schema::*;
use nest_core::SimTime;
use nest_net::packet::{PRIO_NORMAL, PRIO_URGENT};
use nest_net::{FabricParams, Marking, PfcParams, Threshold, Topology};
use nest_transport::{Cc, DcqcnParams, FlowSpec, QtcpParams, RecoveryTarget, Slack, Target, TcpParams};

const IP_TCP_HEADER: u32 = 52;

/// The transport named `t` at `key`, or `None` with the error recorded.
pub(crate) fn transport(cx: &mut Ctx, key: &str, t: &str) -> Option<Cc> {
    let cc = Cc::from_name(t);
    if cc.is_none() {
        cx.err(key, format!("'{t}' is not a transport (expected {})", Cc::expected()));
    }
    cc
}

/// The variant of an enum-valued key named `v`; if none is, an error on `key` that lists them all
/// (so the message stays right when a variant is added).
fn named<T: Copy>(cx: &mut Ctx, key: &str, v: &str, all: &[T], name: fn(T) -> &'static str) -> Option<T> {
    let found = all.iter().copied().find(|&x| name(x) == v);
    if found.is_none() {
        let names: Vec<&str> = all.iter().map(|&x| name(x)).collect();
        cx.err(key, format!("'{v}' is not {}", names.join(" or ")));
    }
    found
}

fn threshold(cx: &mut Ctx, key: &str, v: &toml::Value) -> Option<Threshold> {
    match v {
        toml::Value::Integer(n) if *n >= 0 && *n <= u32::MAX as i64 => Some(Threshold::Packets(*n as u32)),
        toml::Value::String(s) => cx.size(key, s).map(Threshold::Bytes),
        _ => {
            cx.err(key, "expected a number of packets (65) or a size (\"97KB\")");
            None
        }
    }
}

/// The most hosts a generated topology may have (a 1M-host fabric's routing tables alone are
/// beyond any machine; the memory estimate refuses far smaller ones on small machines).
const MAX_HOSTS: u128 = 1_000_000;

/// The slowest link accepted, b/s.
const MIN_LINK_BPS: f64 = 1e6;

pub(super) fn network(cx: &mut Ctx, sc: &Scenario, run: &RunPlan, classes: &[ClassPlan]) -> Option<Box<NetworkPlan>> {
    let Some(n) = &sc.network else {
        if !sc.flows.is_empty() {
            cx.err("flow", "[[flow]] needs a [network] to run on");
        }
        return None;
    };
    let rate = n.link_rate.as_ref().map_or(Some(10e9), |r| cx.rate("network.link_rate", r)).unwrap_or(10e9);
    // Below 1 Mb/s one MTU takes 12 ms to serialize: such a "datacenter" run is a near-livelock
    // (issue 63, S10), not a model of anything NeSt is for.
    if rate < MIN_LINK_BPS {
        cx.err("network.link_rate", format!("must be at least 1 Mbps, got {rate} b/s"));
    }
    let delay = n.link_delay.as_ref().map_or(Some(SimTime::from_us(1)), |d| cx.dur("network.link_delay", d)).unwrap_or(SimTime::from_us(1));
    let rate_u = rate.round() as u64;
    let mtu = n.mtu.unwrap_or(1500);
    if !(576..=9216).contains(&mtu) {
        cx.err("network.mtu", format!("must be 576..9216 bytes, got {mtu}"));
    }
    let framing = match &n.framing {
        None => 38,
        Some(toml::Value::String(s)) if s == "ethernet" => 38,
        Some(toml::Value::String(s)) if s == "ppp" => 2,
        Some(toml::Value::Integer(b)) if (0..=1000).contains(b) => *b as u32,
        Some(_) => {
            cx.err("network.framing", "expected \"ethernet\", \"ppp\" or a number of bytes");
            38
        }
    };
    // Sized before it is built: a typo in k or a count must not build a billion-host fabric.
    let planned_hosts = match n.topology.as_str() {
        "dumbbell" => n.senders.unwrap_or(2) as u128 + n.receivers.unwrap_or(1) as u128,
        "fat_tree" => (n.k.unwrap_or(4) as u128).pow(3) / 4,
        "clos" => n.pods.unwrap_or(4) as u128 * n.tors.unwrap_or(4) as u128 * n.hosts_per_tor.unwrap_or(16) as u128,
        _ => 0,
    };
    if planned_hosts > MAX_HOSTS {
        cx.err("network.topology", format!("a {} of {planned_hosts} hosts: at most {MAX_HOSTS} (check k, senders, pods, tors, hosts_per_tor)", n.topology));
        return None;
    }
    let topo = match n.topology.as_str() {
        "dumbbell" => Ok(Topology::dumbbell(n.senders.unwrap_or(2), n.receivers.unwrap_or(1), rate_u, delay)),
        "fat_tree" => Topology::fat_tree(n.k.unwrap_or(4), rate_u, delay),
        "clos" => {
            Topology::clos(n.pods.unwrap_or(4), n.leaves.unwrap_or(2), n.tors.unwrap_or(4), n.hosts_per_tor.unwrap_or(16), n.spines.unwrap_or(2), rate_u, delay)
        }
        "graph" => graph(cx, n, rate_u, delay),
        o => Err(format!("'{o}' is not a topology (expected dumbbell, fat_tree, clos or graph)")),
    };
    let topology = match topo {
        Ok(t) => t,
        Err(e) => {
            cx.err("network.topology", e);
            return None;
        }
    };
    // The routing tables are sized before they are computed (per ToR where every host hangs off
    // one switch, else per destination host).
    let (nodes, hosts) = (topology.nodes.len() as u64, topology.hosts.len() as u64);
    let bytes = nest_net::Routes::estimated_bytes(&topology);
    let routes = cx.memory("network.topology", bytes, format!("the routing tables of {nodes} nodes towards {hosts} hosts"));
    // Only a graph the user drew can leave a host cut off; the dumbbell, fat-tree and Clos
    // generators connect every host by construction (their counts are checked above). Computing
    // the routes just to prove it took `validate` 134 CPU-s on a k = 94 fat-tree (nest-fuzz).
    if routes && n.topology == "graph" {
        if let Err(e) = nest_net::Routes::compute(&topology) {
            cx.err("network.topology", e);
        }
    }
    let fabric = switch(cx, &n.switch, mtu as u64 + framing as u64);
    let tcp = tcp(cx, &n.tcp, mtu, framing);
    let goodput = rate * tcp.mss as f64 / (tcp.mss + tcp.header + tcp.framing) as f64;
    let mut qtcp = QtcpParams { bottleneck_bps: goodput, ..Default::default() };
    if let Some(g) = n.qtcp.gamma {
        if !(0.0..1.0).contains(&g) {
            cx.err("network.qtcp.gamma", format!("must be in [0, 1), got {g}"));
        }
        qtcp.gamma = g;
    }
    if let Some(b) = &n.qtcp.bottleneck {
        qtcp.bottleneck_bps = cx.rate("network.qtcp.bottleneck", b).unwrap_or(goodput);
    }
    qtcp.interference = n.qtcp.interference.unwrap_or(false);
    if let Some(s) = n.qtcp.sigma {
        if !(0.0..1.0).contains(&s) {
            cx.err("network.qtcp.sigma", format!("must be in [0, 1), got {s}"));
        }
        qtcp.sigma = s;
    }
    if let Some(x) = n.qtcp.slack.as_deref().and_then(|v| named(cx, "network.qtcp.slack", v, &Slack::ALL, Slack::name)) {
        qtcp.slack = x;
    }
    if let Some(e) = n.qtcp.epsilon {
        if !(0.0..1.0).contains(&e) {
            cx.err("network.qtcp.epsilon", format!("must be in [0, 1) (α is a fraction of marked packets), got {e}"));
        }
        qtcp.epsilon = e;
    }
    if let Some(x) = n.qtcp.recovery_target.as_deref().and_then(|v| named(cx, "network.qtcp.recovery_target", v, &RecoveryTarget::ALL, RecoveryTarget::name)) {
        qtcp.recovery_target = x;
    }
    let sample_ports = match n.sample_ports.as_deref() {
        None | Some("switches") => SamplePorts::Switches,
        Some("all") => SamplePorts::All,
        Some("none") => SamplePorts::None,
        Some(o) => {
            cx.err("network.sample_ports", format!("'{o}' is not one of switches, all, none"));
            SamplePorts::Switches
        }
    };
    let dcqcn = dcqcn(cx, &n.dcqcn);
    let flows = flows(cx, &sc.flows, &topology, run, classes);
    super::check_unique(cx, "flow", sc.flows.iter().map(|f| f.name.as_str()));
    Some(Box::new(NetworkPlan { topology, fabric, tcp, qtcp, dcqcn, flows, class_ratio: classes.iter().map(|c| c.ratio).collect(), sample_ports, mtu }))
}

fn graph(cx: &mut Ctx, n: &NetworkConfig, rate: u64, delay: SimTime) -> Result<Topology, String> {
    if n.nodes.is_empty() {
        return Err("a graph topology needs [[network.node]] entries".into());
    }
    let mut t = Topology::default();
    for (i, node) in n.nodes.iter().enumerate() {
        if t.node_by_name(&node.name).is_some() {
            cx.err(&format!("network.node[{i}].name"), format!("duplicate node name '{}'", node.name));
            continue;
        }
        match node.kind.as_str() {
            "host" => t.add_host(&node.name),
            "switch" => t.add_switch(&node.name),
            o => {
                cx.err(&format!("network.node[{i}].kind"), format!("'{o}' is not host or switch"));
                continue;
            }
        };
    }
    for (i, l) in n.links.iter().enumerate() {
        let key = format!("network.link[{i}]");
        let a = t.node_by_name(&l.a);
        let b = t.node_by_name(&l.b);
        for (end, name, id) in [("a", &l.a, a), ("b", &l.b, b)] {
            if id.is_none() {
                cx.err(&format!("{key}.{end}"), format!("no node named '{name}'"));
            }
        }
        let r = l.rate.as_ref().map_or(Some(rate as f64), |s| cx.rate(&format!("{key}.rate"), s)).unwrap_or(rate as f64);
        if r < MIN_LINK_BPS {
            cx.err(&format!("{key}.rate"), format!("must be at least 1 Mbps, got {r} b/s"));
        }
        let d = l.delay.as_ref().map_or(Some(delay), |s| cx.dur(&format!("{key}.delay"), s)).unwrap_or(delay);
        if let (Some(a), Some(b)) = (a, b) {
            if a == b {
                cx.err(&key, "a link needs two different nodes");
            } else {
                t.connect(a, b, r.round() as u64, d);
            }
        }
    }
    Ok(t)
}

fn switch(cx: &mut Ctx, s: &SwitchConfig, frame: u64) -> FabricParams {
    let mut p = FabricParams::default();
    if let Some(b) = &s.buffer {
        p.buffer = cx.size("network.switch.buffer", b).unwrap_or(p.buffer);
        // A buffer smaller than one full frame drops every full-size packet: retransmissions
        // never end (issue 63, S4), and a lossless switch would deadlock.
        if p.buffer < frame {
            cx.err("network.switch.buffer", format!("must hold at least one packet ({frame} B: the MTU and its framing), got {} B", p.buffer));
        }
    }
    if let Some(r) = &s.urgent_reserve {
        p.urgent_reserve = cx.size("network.switch.urgent_reserve", r).unwrap_or(0);
        if p.urgent_reserve > p.buffer {
            cx.err("network.switch.urgent_reserve", "must not exceed the buffer");
        }
    }
    p.marking = match s.ecn.as_deref().unwrap_or("step") {
        "none" => Marking::None,
        "step" => {
            let k = s.ecn_k.as_ref().map_or(Some(Threshold::Packets(65)), |v| threshold(cx, "network.switch.ecn_k", v));
            Marking::Step(k.unwrap_or(Threshold::Packets(65)))
        }
        "red" => {
            let mut get = |key: &str, v: &Option<toml::Value>| match v {
                Some(v) => threshold(cx, key, v),
                None => {
                    cx.err(key, "RED marking needs ecn_kmin, ecn_kmax and ecn_pmax");
                    None
                }
            };
            let kmin = get("network.switch.ecn_kmin", &s.ecn_kmin);
            let kmax = get("network.switch.ecn_kmax", &s.ecn_kmax);
            let pmax = s.ecn_pmax.unwrap_or(1.0);
            if !(0.0..=1.0).contains(&pmax) {
                cx.err("network.switch.ecn_pmax", format!("must be in [0, 1], got {pmax}"));
            }
            match (kmin, kmax) {
                (Some(lo), Some(hi)) => {
                    let same_unit = matches!((lo, hi), (Threshold::Packets(_), Threshold::Packets(_)) | (Threshold::Bytes(_), Threshold::Bytes(_)));
                    if !same_unit {
                        cx.err("network.switch.ecn_kmax", "ecn_kmin and ecn_kmax must both be packets or both sizes");
                    }
                    Marking::Red { kmin: lo, kmax: hi, pmax }
                }
                _ => Marking::None,
            }
        }
        o => {
            cx.err("network.switch.ecn", format!("'{o}' is not a marking (expected step, red or none)"));
            Marking::None
        }
    };
    if s.pfc.unwrap_or(false) {
        let xoff = s.pfc_xoff.as_ref().map_or(Some(96 * 1024), |v| cx.size("network.switch.pfc_xoff", v)).unwrap_or(96 * 1024);
        let xon = s.pfc_xon.as_ref().map_or(Some(xoff / 2), |v| cx.size("network.switch.pfc_xon", v)).unwrap_or(xoff / 2);
        if xon > xoff {
            cx.err("network.switch.pfc_xon", "must not exceed pfc_xoff");
        }
        p.pfc = Some(PfcParams { xoff, xon: xon.min(xoff) });
    } else if s.pfc_xoff.is_some() || s.pfc_xon.is_some() {
        cx.err("network.switch.pfc", "pfc_xoff/pfc_xon given but pfc is not enabled (pfc = true)");
    }
    p.control_priority = s.control_priority.unwrap_or(true);
    p.urgent_priority = s.urgent_priority.unwrap_or(true);
    p.nic_ecn = s.nic_ecn.unwrap_or(false);
    p
}

fn tcp(cx: &mut Ctx, c: &TcpConfig, mtu: u32, framing: u32) -> TcpParams {
    let mut t = TcpParams { mss: mtu.saturating_sub(IP_TCP_HEADER).max(1), header: IP_TCP_HEADER, framing, ..Default::default() };
    if let Some(g) = c.g {
        if !(g > 0.0 && g <= 1.0) {
            cx.err("network.tcp.g", format!("must be in (0, 1], got {g}"));
        }
        t.g = g;
    }
    if let Some(a) = c.alpha_init {
        if !(0.0..=1.0).contains(&a) {
            cx.err("network.tcp.alpha_init", format!("must be in [0, 1], got {a}"));
        }
        t.alpha_init = a;
    }
    for (key, v, dst) in
        [("init_cwnd", c.init_cwnd, &mut t.init_cwnd), ("min_cwnd", c.min_cwnd, &mut t.min_cwnd), ("delayed_ack", c.delayed_ack, &mut t.delayed_ack)]
    {
        if let Some(v) = v {
            if v == 0 || v > 1_000_000 {
                cx.err(&format!("network.tcp.{key}"), format!("must be 1..1000000, got {v}"));
            }
            *dst = v.max(1);
        }
    }
    if let Some(d) = &c.delayed_ack_timeout {
        t.delayed_ack_timeout = cx.dur("network.tcp.delayed_ack_timeout", d).unwrap_or(t.delayed_ack_timeout);
    }
    if let Some(d) = &c.min_rto {
        t.min_rto = cx.dur("network.tcp.min_rto", d).unwrap_or(t.min_rto);
    }
    if let Some(d) = &c.max_rto {
        t.max_rto = cx.dur("network.tcp.max_rto", d).unwrap_or(t.max_rto);
    }
    if t.max_rto < t.min_rto {
        cx.err("network.tcp.max_rto", "must be at least min_rto");
    }
    t
}

fn flows(cx: &mut Ctx, fl: &[FlowConfig], t: &Topology, run: &RunPlan, classes: &[ClassPlan]) -> Vec<FlowSpec> {
    let mut out = Vec::new();
    for (i, f) in fl.iter().enumerate() {
        let key = format!("flow[{i}]");
        let mut host = |end: &str, name: &str| {
            let h = t.host_by_name(name);
            if h.is_none() {
                let hint = if t.node_by_name(name).is_some() { " (that is a switch)" } else { "" };
                cx.err(&format!("{key}.{end}"), format!("no host named '{name}' in the topology{hint}"));
            }
            h
        };
        let src = host("src", &f.src);
        let dst = host("dst", &f.dst);
        if src.is_some() && src == dst {
            cx.err(&format!("{key}.dst"), "source and destination are the same host");
        }
        let class = classes.iter().position(|c| c.name == f.class);
        if class.is_none() {
            let names: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
            cx.err(&format!("{key}.class"), format!("no class named '{}' (classes: {})", f.class, names.join(", ")));
        }
        let cc = transport(cx, &format!("{key}.transport"), &f.transport);
        let start = f.start.as_ref().map_or(Some(SimTime::ZERO), |s| cx.dur(&format!("{key}.start"), s)).unwrap_or(SimTime::ZERO);
        let bytes = f.size.as_ref().and_then(|s| cx.size(&format!("{key}.size"), s));
        // A finite transfer stops only if told to; a long-lived flow stops at run.duration.
        let stop = match &f.stop {
            Some(s) => cx.dur(&format!("{key}.stop"), s),
            None if f.size.is_none() => run.duration,
            None => None,
        };
        if f.size.is_none() && stop.is_none() {
            cx.err(&format!("{key}.stop"), "a long-lived flow needs a stop time or run.duration");
        }
        if bytes == Some(0) {
            cx.err(&format!("{key}.size"), "must be at least 1 byte");
        }
        let rate_bps = f.rate.as_ref().and_then(|r| cx.rate(&format!("{key}.rate"), r));
        let deadline = f.deadline.as_ref().and_then(|d| cx.dur(&format!("{key}.deadline"), d));
        if let (Some(src), Some(dst), Some(class), Some(cc)) = (src, dst, class, cc) {
            let c = &classes[class];
            let target = match (cc.is_quality_aware(), c.latency_target) {
                (true, Some(l)) => Some(Target::Latency(l)),
                (true, None) => Some(Target::Ratio(c.ratio)),
                _ => None,
            };
            let prio = if c.priority.is_urgent() { PRIO_URGENT } else { PRIO_NORMAL };
            out.push(FlowSpec {
                name: f.name.clone(),
                src,
                dst,
                class: class as u8,
                prio,
                cc,
                start,
                stop,
                bytes,
                rate_bps,
                deadline,
                target,
                messages: false,
            });
        }
    }
    out
}

fn dcqcn(cx: &mut Ctx, c: &DcqcnConfig) -> DcqcnParams {
    let mut p = DcqcnParams::default();
    if let Some(g) = c.g {
        if !(g > 0.0 && g <= 1.0) {
            cx.err("network.dcqcn.g", format!("must be in (0, 1], got {g}"));
        }
        p.g = g;
    }
    let dur = |cx: &mut Ctx, key: &str, v: &Option<String>, dst: &mut SimTime| {
        if let Some(s) = v {
            match cx.dur(&format!("network.dcqcn.{key}"), s) {
                Some(t) if t.0 > 0 => *dst = t,
                Some(_) => cx.err(&format!("network.dcqcn.{key}"), "must be positive"),
                None => {}
            }
        }
    };
    dur(cx, "alpha_period", &c.alpha_period, &mut p.alpha_period);
    dur(cx, "rate_timer", &c.rate_timer, &mut p.rate_timer);
    dur(cx, "cnp_interval", &c.cnp_interval, &mut p.cnp_interval);
    dur(cx, "min_rto", &c.min_rto, &mut p.min_rto);
    if let Some(b) = &c.byte_counter {
        p.byte_counter = cx.size("network.dcqcn.byte_counter", b).unwrap_or(p.byte_counter);
    }
    if let Some(f) = c.fast_recovery_steps {
        p.fast_recovery_steps = f;
    }
    for (key, v, dst) in [("rate_ai", &c.rate_ai, &mut p.rate_ai), ("rate_hai", &c.rate_hai, &mut p.rate_hai), ("min_rate", &c.min_rate, &mut p.min_rate)] {
        if let Some(s) = v {
            *dst = cx.rate(&format!("network.dcqcn.{key}"), s).unwrap_or(*dst);
        }
    }
    if let Some(s) = &c.initial_rate {
        p.initial_rate = cx.rate("network.dcqcn.initial_rate", s);
    }
    p.clamp_target = c.clamp_target.unwrap_or(true);
    p.qp_per_message = c.qp_per_message.unwrap_or(false);
    p
}
