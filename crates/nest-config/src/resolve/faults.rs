//! `[[fault]]`s (docs/faults.md): what goes wrong when — a device failing or turning slow, an
//! SSD's GC storm, a fabric link or switch failing — resolved to time-ordered events, every key
//! checked and named when wrong.

use super::e2e::NvmeofPlan;
use super::network::NetworkPlan;
use super::{Ctx, DeviceKindPlan, DevicePlan};
use crate::coordinator::CoordinatorConfig;
use crate::schema::{FaultConfig, Scenario, WorkloadConfig};
use nest_core::SimTime;

/// A fault injected at a time in the run (`[[fault]]`, docs/faults.md).
/// When hosts find a server they lost contact with at `at` (stopped, or cut off by the fabric):
/// the first Keep Alive they send at or after `at` (one every KATO from the start) goes
/// unanswered, and KATO after it they take the server as lost.
pub fn keep_alive_lost_at(at: SimTime, kato: SimTime) -> SimTime {
    SimTime(at.0.div_ceil(kato.0).saturating_mul(kato.0)).saturating_add(kato)
}

#[derive(Debug, Clone, PartialEq)]
pub struct FaultPlan {
    pub at: SimTime,
    pub kind: FaultKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FaultKind {
    /// The device (index) stops answering: commands inside it and sent to it are never
    /// completed; hosts find out by their I/O timeout.
    DeviceFail { device: usize },
    /// The failed device (index) answers again, and its hosts reconnect to it at once.
    DeviceBack { device: usize },
    /// The SSD's (index) flash array runs `factor` times slower from then on (1: its own
    /// speed again, an `until`).
    DeviceSlow { device: usize, factor: f64 },
    /// The SSD's (index) GC storm starts (`on`) or ends.
    GcStorm { device: usize, on: bool },
    /// The network links of `ports` (both directions each: one link, or every link of a
    /// switch) go down (`up` false) or come back.
    Link { ports: Vec<u32>, up: bool, name: String, switch: bool },
    /// The routing protocol has converged on the links up now.
    Reroute,
    /// A storage server stops (`up` false: every device in it answers nothing — its NVMe-oF
    /// target is gone) or is back (its devices answer again, its hosts reconnect at once).
    Server { name: String, devices: Vec<usize>, up: bool },
    /// The server's hosts find it lost: a Keep Alive command went unanswered for KATO. They
    /// abort what they had sent it and take its devices as dead.
    KeepAliveLost { name: String, devices: Vec<usize> },
    /// The host (index) crashes with its applications: its workloads stop, and what they had in
    /// flight is lost.
    HostCrash { host: usize },
}

impl FaultKind {
    pub fn name(&self) -> &'static str {
        match self {
            FaultKind::DeviceFail { .. } => "device_fail",
            FaultKind::DeviceBack { .. } => "device_back",
            FaultKind::DeviceSlow { factor, .. } if *factor == 1.0 => "device_recovered",
            FaultKind::DeviceSlow { .. } => "device_slow",
            FaultKind::Link { up: false, switch: false, .. } => "link_down",
            FaultKind::Link { up: true, switch: false, .. } => "link_up",
            FaultKind::Link { up: false, switch: true, .. } => "switch_down",
            FaultKind::Link { up: true, switch: true, .. } => "switch_up",
            FaultKind::Reroute => "reroute",
            FaultKind::GcStorm { on: true, .. } => "gc_storm",
            FaultKind::GcStorm { on: false, .. } => "gc_storm_end",
            FaultKind::Server { up: false, .. } => "server_down",
            FaultKind::Server { up: true, .. } => "server_up",
            FaultKind::KeepAliveLost { .. } => "keep_alive_lost",
            FaultKind::HostCrash { .. } => "host_crash",
        }
    }

    /// The device it happens to, if a device's.
    pub fn device(&self) -> Option<usize> {
        match *self {
            FaultKind::DeviceFail { device } | FaultKind::DeviceBack { device } | FaultKind::DeviceSlow { device, .. } | FaultKind::GcStorm { device, .. } => {
                Some(device)
            }
            FaultKind::Link { .. } | FaultKind::Reroute | FaultKind::Server { .. } | FaultKind::KeepAliveLost { .. } | FaultKind::HostCrash { .. } => None,
        }
    }
}

/// `[[fault]]`s, in time order. A device behind NVMe-oF may fail: its hosts time out on it and
/// abort what they sent (the storage server and its connections stay up).
pub(crate) fn faults(cx: &mut Ctx, sc: &Scenario, devices: &[DevicePlan], network: Option<&NetworkPlan>, nvmeof: Option<&NvmeofPlan>) -> Vec<FaultPlan> {
    let mut out = Vec::new();
    for (i, f) in sc.faults.iter().enumerate() {
        let key = |k: &str| format!("fault[{i}].{k}");
        let at = cx.dur(&key("at"), &f.at);
        let network_fault = f.kind == "link_down" || f.kind == "switch_down";
        for (v, k, who) in [
            (f.factor.is_some() && f.kind != "device_slow", "factor", "only device_slow takes factor"),
            (f.detect.is_some() && !network_fault, "detect", "only link_down and switch_down take detect"),
            (f.link.is_some() && f.kind != "link_down", "link", "only link_down takes link"),
            (f.switch.is_some() && f.kind != "switch_down", "switch", "only switch_down takes switch"),
            (f.device.is_some() && network_fault, "device", "a network fault takes link or switch, not device"),
            (f.server.is_some() && f.kind != "server_down", "server", "only server_down takes server"),
            (f.device.is_some() && f.kind == "server_down", "device", "server_down takes server: every device in it stops"),
            (f.host.is_some() && f.kind != "host_crash", "host", "only host_crash takes host"),
            (f.device.is_some() && f.kind == "host_crash", "device", "host_crash takes host"),
            (f.until.is_some() && f.kind == "host_crash", "until", "a crashed host does not come back within a run"),
        ] {
            if v {
                cx.err(&key(k), format!("not a key of {} ({who})", f.kind));
            }
        }
        if network_fault {
            link_fault(cx, i, f, at, network, &mut out);
            continue;
        }
        if f.kind == "server_down" {
            server_fault(cx, i, f, at, sc, devices, nvmeof, &mut out);
            continue;
        }
        if f.kind == "host_crash" {
            if let Some(p) = host_crash(cx, i, f, at, sc) {
                out.push(p);
            }
            continue;
        }
        let Some(name) = &f.device else {
            cx.err(&key("device"), format!("{} needs device: the device it happens to", f.kind));
            continue;
        };
        let Some(d) = devices.iter().position(|d| &d.name == name) else {
            let hint = crate::suggest::hint(name, devices.iter().map(|d| d.name.as_str()));
            cx.err(&key("device"), format!("no device named '{name}'{hint}"));
            continue;
        };
        match f.kind.as_str() {
            "gc_storm" => {
                if !matches!(devices[d].kind, DeviceKindPlan::Ssd(_)) {
                    cx.err(&key("device"), format!("'{name}' is not an SSD: a GC storm is an SSD's"));
                    continue;
                }
                let Some((at, until)) = window(cx, i, f, at) else { continue };
                out.push(FaultPlan { at, kind: FaultKind::GcStorm { device: d, on: true } });
                out.extend(until.map(|u| FaultPlan { at: u, kind: FaultKind::GcStorm { device: d, on: false } }));
            }
            "device_slow" => {
                if !matches!(devices[d].kind, DeviceKindPlan::Ssd(_)) {
                    cx.err(&key("device"), format!("'{}' is not an SSD: device_slow slows an SSD's flash array", name));
                    continue;
                }
                let factor = match f.factor {
                    Some(x) if x.is_finite() && x > 1.0 && x <= 1000.0 => x,
                    Some(x) => {
                        cx.err(&key("factor"), format!("{x}: expected a slowdown in (1, 1000]"));
                        continue;
                    }
                    None => {
                        cx.err(&key("factor"), "device_slow needs factor: how many times longer the flash operations take (e.g. 10)");
                        continue;
                    }
                };
                let Some((at, until)) = window(cx, i, f, at) else { continue };
                out.push(FaultPlan { at, kind: FaultKind::DeviceSlow { device: d, factor } });
                out.extend(until.map(|u| FaultPlan { at: u, kind: FaultKind::DeviceSlow { device: d, factor: 1.0 } }));
            }
            "device_fail" => {
                if !may_die(cx, i, "device", sc, name) {
                    continue;
                }
                let Some((at, until)) = window(cx, i, f, at) else { continue };
                out.push(FaultPlan { at, kind: FaultKind::DeviceFail { device: d } });
                out.extend(until.map(|u| FaultPlan { at: u, kind: FaultKind::DeviceBack { device: d } }));
            }
            other => cx.err(
                &key("kind"),
                crate::suggest::with_hint(&format!(
                    "unknown variant `{other}`, expected `device_fail`, `device_slow`, `gc_storm`, `link_down`, `switch_down`, `server_down` or `host_crash`"
                )),
            ),
        }
    }
    out.sort_by_key(|f| f.at);
    out
}

/// A `link_down` fault (the link between two named nodes) or a `switch_down` fault (every link
/// of a named switch): down at `at`, up at `until`, and the routes change `detect` after each.
fn link_fault(cx: &mut Ctx, i: usize, f: &FaultConfig, at: Option<SimTime>, network: Option<&NetworkPlan>, out: &mut Vec<FaultPlan>) {
    let key = |k: &str| format!("fault[{i}].{k}");
    let Some(net) = network else {
        cx.err(&key("kind"), format!("{} needs a [network]", f.kind));
        return;
    };
    let t = &net.topology;
    let switch = f.kind == "switch_down";
    let (ports, name) = if switch {
        let Some(sw) = &f.switch else {
            cx.err(&key("switch"), "switch_down needs switch: the switch that fails (all its links)");
            return;
        };
        match t.node_by_name(sw) {
            Some(n) if t.is_switch(n) => (t.nodes[n as usize].ports.clone(), sw.clone()),
            Some(_) => {
                cx.err(&key("switch"), format!("'{sw}' is a host, not a switch"));
                return;
            }
            None => {
                cx.err(&key("switch"), format!("no switch named '{sw}'"));
                return;
            }
        }
    } else {
        let nodes = match f.link.as_deref() {
            Some([a, b]) => (a, b),
            _ => {
                cx.err(&key("link"), "link_down needs link = [\"NODE\", \"NODE\"]: the two hosts or switches the link joins");
                return;
            }
        };
        let Some(port) = t.port_between(nodes.0, nodes.1) else {
            let known = |n: &str| t.node_by_name(n).is_some();
            let why = match (known(nodes.0), known(nodes.1)) {
                (false, _) => format!("no node named '{}'", nodes.0),
                (_, false) => format!("no node named '{}'", nodes.1),
                _ => format!("no link joins '{}' and '{}'", nodes.0, nodes.1),
            };
            cx.err(&key("link"), why);
            return;
        };
        (vec![port], format!("{}-{}", nodes.0, nodes.1))
    };
    let detect = match &f.detect {
        Some(d) => cx.dur(&key("detect"), d),
        None => Some(SimTime::from_ms(1)),
    };
    let (Some((at, until)), Some(detect)) = (window(cx, i, f, at), detect) else { return };
    out.push(FaultPlan { at, kind: FaultKind::Link { ports: ports.clone(), up: false, name: name.clone(), switch } });
    out.push(FaultPlan { at: at + detect, kind: FaultKind::Reroute });
    if let Some(u) = until {
        out.push(FaultPlan { at: u, kind: FaultKind::Link { ports, up: true, name, switch } });
        out.push(FaultPlan { at: u + detect, kind: FaultKind::Reroute });
    }
}

/// A `host_crash` fault: the named `[[host]]` crashes at `at`. Hosts whose requests pass through
/// a cache, an NVM-set pool, an admission gate or a coordinator cannot crash yet (what those
/// hold of a lost request is not taken back), refused naming the key.
fn host_crash(cx: &mut Ctx, i: usize, f: &FaultConfig, at: Option<SimTime>, sc: &Scenario) -> Option<FaultPlan> {
    let key = |k: &str| format!("fault[{i}].{k}");
    let Some(name) = &f.host else {
        cx.err(&key("host"), "host_crash needs host: the [[host]] that crashes");
        return None;
    };
    let Some(h) = sc.hosts.iter().position(|x| &x.name == name) else {
        let hint = crate::suggest::hint(name, sc.hosts.iter().map(|x| x.name.as_str()));
        cx.err(&key("host"), format!("no [[host]] named '{name}'{hint}"));
        return None;
    };
    if let Some(why) = crash_refusal(sc, h) {
        cx.err(&key("host"), format!("'{name}' cannot crash yet: {why} (what it holds of a lost request is not modelled)"));
        return None;
    }
    Some(FaultPlan { at: at?, kind: FaultKind::HostCrash { host: h } })
}

/// Whether workload `w` runs on host `h` (named `name`; a workload without `host` runs on the
/// first).
fn runs_on(w: &WorkloadConfig, h: usize, name: &str) -> bool {
    w.host.as_deref().map_or(h == 0, |x| x == name)
}

/// Why host `h` cannot crash yet, if it cannot.
fn crash_refusal(sc: &Scenario, h: usize) -> Option<&'static str> {
    let name = &sc.hosts[h].name;
    if sc.hosts[h].cache.is_some() {
        Some("it has a host cache")
    } else if sc.workloads.iter().any(|w| runs_on(w, h, name) && sc.volumes.iter().any(|v| v.name == w.device && v.read.as_deref() == Some("dt-active"))) {
        Some("a workload of it runs on an NVM-set pool")
    } else if !sc.coordinators.is_empty() {
        Some("the scenario has coordinators")
    } else {
        None
    }
}

/// Whether device `name` may die in this scenario; if not, says why at `fault[i].KEY`.
fn may_die(cx: &mut Ctx, i: usize, key: &str, sc: &Scenario, name: &str) -> bool {
    let why = if sc.hosts.iter().any(|h| h.cache.is_some()) {
        Some(("kind", "faults with host caches are not modelled yet (a cache's own I/O to a dead device)".to_string()))
    } else if sc.volumes.iter().any(|v| v.read.as_deref() == Some("dt-active") && v.devices.iter().any(|d| d == name)) {
        Some((key, format!("'{name}' is a replica of an NVM-set pool (read = \"dt-active\"): a pool losing a replica is not modelled yet")))
    } else if sc
        .coordinators
        .iter()
        .any(|c| matches!(c, CoordinatorConfig::Plmlight(p) if p.device.as_deref() == Some(name) || p.fast.as_deref() == Some(name)))
    {
        // PLMLight's agent does I/O of its own at the server (flushes), which a dead device
        // would leave to no host's timeout.
        Some((key, format!("'{name}' is a PLMLight device: its agent's own I/O to a dead device is not modelled yet")))
    } else {
        None
    };
    match why {
        Some((k, why)) => {
            cx.err(&format!("fault[{i}].{k}"), why);
            false
        }
        None => true,
    }
}

/// A `server_down` fault: every device in the named storage server stops at `at` (back at
/// `until`), and — with keep-alive — its hosts find the server lost when the first Keep Alive
/// sent at or after `at` has gone unanswered for KATO (Keep Alive commands go out at multiples
/// of KATO).
#[allow(clippy::too_many_arguments)]
fn server_fault(
    cx: &mut Ctx,
    i: usize,
    f: &FaultConfig,
    at: Option<SimTime>,
    sc: &Scenario,
    devices: &[DevicePlan],
    nvmeof: Option<&NvmeofPlan>,
    out: &mut Vec<FaultPlan>,
) {
    let key = |k: &str| format!("fault[{i}].{k}");
    let Some(server) = &f.server else {
        cx.err(&key("server"), "server_down needs server: the storage server (a host that devices sit in) that stops");
        return;
    };
    let members: Vec<usize> =
        sc.devices.iter().filter(|d| d.server() == Some(server.as_str())).filter_map(|d| devices.iter().position(|p| p.name == d.name())).collect();
    if members.is_empty() {
        let servers = sc.devices.iter().filter_map(|d| d.server());
        let hint = crate::suggest::hint(server, servers);
        cx.err(&key("server"), format!("no device sits in a server named '{server}'{hint}"));
        return;
    }
    // A server that runs workloads of its own crashes with them (for the rest of the run, even
    // when its devices come back: a rebooted host would be a new run).
    let crashes = sc.hosts.iter().position(|x| &x.name == server).filter(|&h| sc.workloads.iter().any(|w| runs_on(w, h, server)));
    if let Some(why) = crashes.and_then(|h| crash_refusal(sc, h)) {
        cx.err(&key("server"), format!("'{server}' runs workloads of its own and cannot crash with them yet: {why}"));
        return;
    }
    if !members.iter().all(|&d| may_die(cx, i, "server", sc, &devices[d].name)) {
        return;
    }
    let Some((at, until)) = window(cx, i, f, at) else { return };
    let name = server.clone();
    out.push(FaultPlan { at, kind: FaultKind::Server { name: name.clone(), devices: members.clone(), up: false } });
    out.extend(crashes.map(|host| FaultPlan { at, kind: FaultKind::HostCrash { host } }));
    if let Some(kato) = nvmeof.and_then(|n| n.keep_alive) {
        let found = keep_alive_lost_at(at, kato);
        if until.is_none_or(|u| found < u) {
            out.push(FaultPlan { at: found, kind: FaultKind::KeepAliveLost { name: name.clone(), devices: members.clone() } });
        }
    }
    out.extend(until.map(|u| FaultPlan { at: u, kind: FaultKind::Server { name, devices: members, up: true } }));
}

/// A fault's time and, with `until`, when it ends — after it; `None` when either is wrong
/// (reported, naming the key).
fn window(cx: &mut Ctx, i: usize, f: &FaultConfig, at: Option<SimTime>) -> Option<(SimTime, Option<SimTime>)> {
    let key = format!("fault[{i}].until");
    let until = match &f.until {
        None => None,
        Some(u) => Some(cx.dur(&key, u)?),
    };
    let at = at?;
    if until.is_some_and(|u| u <= at) {
        cx.err(&key, "must be after `at`");
        return None;
    }
    Some((at, until))
}
