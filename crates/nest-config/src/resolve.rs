//! Resolution: from the schema as written to the runtime plans the model builds a World from.
//! Every unit string is parsed, every name reference checked, every file opened — and every
//! problem collected, so `nestsim validate` lists them all at once.

use crate::error::ConfigErrors;
use crate::schema::*;
use crate::{Loaded, SCHEMA_VERSION};
use nest_core::time::{PS_PER_MS, PS_PER_NS, PS_PER_S, PS_PER_US};
use nest_core::SimTime;
use nest_workload::address::AddressPattern;
use nest_workload::arrival::ArrivalSpec;
use nest_workload::dist::{cumulative_weights, SizeDist, TimeDist};
use nest_workload::fio::parse_job_file;
use nest_workload::mmpp::{fit_mmpp2, Mmpp2, Moments4};
use nest_workload::synthetic::SyntheticSpec;
use nest_workload::trace::{TraceFormat, TraceOptions};
use std::path::Path;

/// The class levels are defined once, in nest-core (with each layer's mapping).
pub use nest_core::class::Priority;

pub use crate::ctx::expand_env;
pub(crate) use crate::ctx::Ctx;
pub use crate::plan::{ClassPlan, DeviceKindPlan, DevicePlan, HostPlan, IdealDevicePlan, NvmePlan, OutputPlan, PmPlan, RunPlan, SsdPlan, DEFAULT_IO_TIMEOUT};

pub use faults::{keep_alive_lost_at, FaultKind, FaultPlan};

/// A fully validated scenario.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub name: String,
    pub run: RunPlan,
    pub classes: Vec<ClassPlan>,
    pub devices: Vec<DevicePlan>,
    pub hosts: Vec<HostPlan>,
    pub volumes: Vec<volume::VolumePlan>,
    pub workloads: Vec<WorkloadPlan>,
    /// The fabric and its flows, when the scenario has a `[network]`.
    pub network: Option<Box<network::NetworkPlan>>,
    /// NVMe-oF connections and where hosts and devices sit, when some device is in a server.
    pub nvmeof: Option<e2e::NvmeofPlan>,
    /// How each layer treats the class tag (`[qos]`).
    pub tagging: e2e::Tagging,
    /// QoS coordinators (`[[coordinator]]`).
    pub coordinators: Vec<crate::coordinator::CoordinatorPlan>,
    /// Faults, in time order.
    pub faults: Vec<FaultPlan>,
    /// Haechi's clients and data nodes on the fabric (`[haechi]`).
    pub haechi: Option<haechi::HaechiPlan>,
    pub output: OutputPlan,
    /// Non-fatal notes (fio options not modelled, …).
    pub warnings: Vec<String>,
    /// The effective scenario (after overrides) as a TOML table, recorded in outputs.
    pub table: toml::Table,
}

/// The default drain limit: this many times the duration, and at least [`MIN_DRAIN_LIMIT`].
pub const DRAIN_LIMIT_FACTOR: u64 = 100;
pub const MIN_DRAIN_LIMIT: SimTime = SimTime(10 * 1_000_000_000_000);
/// …and at least this many of the longest host I/O timeout.
pub const IO_TIMEOUTS_IN_DRAIN: u64 = 10;

fn run_plan(cx: &mut Ctx, r: &RunConfig) -> RunPlan {
    let duration = r.duration.as_ref().and_then(|d| cx.dur("run.duration", d));
    if duration == Some(SimTime::ZERO) {
        cx.err("run.duration", "must be positive: a run of 0 s simulates nothing");
    }
    let frac_or_dur = |cx: &mut Ctx, key: &str, v: &Option<String>| -> SimTime {
        match v {
            None => SimTime::ZERO,
            Some(s) if s.trim_end().ends_with('%') => {
                let p: Option<f64> = s.trim().trim_end_matches('%').trim().parse().ok().filter(|p: &f64| (0.0..100.0).contains(p));
                match (p, duration) {
                    (Some(p), Some(d)) => SimTime((d.0 as f64 * p / 100.0) as u64),
                    (None, _) => {
                        cx.err(key, format!("'{s}' must be a percentage in [0, 100)"));
                        SimTime::ZERO
                    }
                    (_, None) => {
                        cx.err(key, "a percentage needs run.duration");
                        SimTime::ZERO
                    }
                }
            }
            Some(s) => cx.dur(key, s).unwrap_or(SimTime::ZERO),
        }
    };
    let warmup = frac_or_dur(cx, "run.warmup", &r.warmup);
    let wrapup = frac_or_dur(cx, "run.wrapup", &r.wrapup);
    let interval = match &r.interval {
        Some(s) => cx.dur("run.interval", s).unwrap_or(SimTime::from_ms(1)),
        None => SimTime::from_ms(1),
    };
    if interval.0 == 0 {
        cx.err("run.interval", "must be positive");
    }
    // Every series gets a sample per interval: bound their number (a 1 ps interval was a hang).
    const MAX_SAMPLES: u64 = 10_000_000;
    match duration {
        Some(d) if interval.0 > 0 && d.0 / interval.0 > MAX_SAMPLES => {
            cx.err("run.interval", format!("{} samples per series over the duration; at most {MAX_SAMPLES} (use a longer interval)", d.0 / interval.0));
        }
        None if interval.0 > 0 && interval < SimTime::from_us(1) => {
            cx.err("run.interval", "below 1 µs with no run.duration to bound the number of samples");
        }
        _ => {}
    }
    let max_time = match &r.max_time {
        Some(s) => cx.dur("run.max_time", s).unwrap_or(SimTime::from_ms(10_000)),
        // A run ends when its sources are exhausted and the path drains (synthetic workloads
        // must have an end; traces end with their last record) — or at the horizon: beyond ~100
        // days a time plus a service time could overflow the picosecond clock (issue 63, S2: an
        // 80 h mean service drained into a wrapped clock once idle time cost nothing).
        None => HORIZON,
    };
    if max_time == SimTime::ZERO {
        cx.err("run.max_time", "must be positive");
    }
    if max_time > HORIZON {
        cx.err("run.max_time", format!("must be at most 100 days (the clock counts picoseconds in 64 bits), got {max_time}"));
    }
    if let Some(d) = duration {
        if warmup.0 + wrapup.0 >= d.0 && (warmup.0 > 0 || wrapup.0 > 0) {
            cx.err("run.warmup", "warmup + wrapup must be shorter than the duration");
        }
    }
    let drain = r.drain.unwrap_or(true);
    let drain_limit = match (drain, duration, r.drain_limit.as_deref()) {
        (_, _, Some("none")) => None,
        (true, Some(_), Some(s)) => match cx.dur("run.drain_limit", s) {
            Some(l) if l == SimTime::ZERO => {
                cx.err("run.drain_limit", "must be positive (or \"none\")");
                None
            }
            l => l,
        },
        // A drain that never ends (an absurd service time, a livelock) stops at a bound stated
        // in the summary: long enough for any backlog a run at up to 100 × its capacity leaves.
        (true, Some(d), None) => Some(SimTime(d.0.saturating_mul(DRAIN_LIMIT_FACTOR)).max(MIN_DRAIN_LIMIT)),
        (_, _, Some(_)) => {
            cx.err("run.drain_limit", "only with run.drain = true and a run.duration (the drain follows the duration)");
            None
        }
        _ => None,
    };
    RunPlan { seed: r.seed.unwrap_or(1), duration, warmup, wrapup, interval: SimTime(interval.0.max(1)), drain, max_time, drain_limit }
}

/// Validates a loaded scenario; `text` is the original file text (for line numbers).
/// The latest simulated time a run reaches: 100 days, half of what a 64-bit picosecond clock holds,
/// so that any time plus a service or timer still fits.
pub const HORIZON: SimTime = SimTime(100 * 86_400 * 1_000_000_000_000);

pub fn resolve(loaded: &Loaded, text: &str) -> Result<Resolved, ConfigErrors> {
    let sc = &loaded.scenario;
    let mut cx = Ctx::new(&loaded.file, text, &loaded.base_dir, loaded.memory_limit).with_overrides(&loaded.overrides);
    if sc.schema != SCHEMA_VERSION {
        cx.err("schema", format!("schema version {} is not supported by this build (expected {SCHEMA_VERSION})", sc.schema));
    }
    let mut run = run_plan(&mut cx, &sc.run);

    let classes: Vec<ClassPlan> = if sc.classes.is_empty() {
        ["urgent", "high", "medium", "low", "best_effort"]
            .iter()
            .map(|n| {
                let priority = Priority::from_name(n).expect("known");
                ClassPlan { name: n.to_string(), priority, ratio: priority.default_ratio(), latency_target: None }
            })
            .collect()
    } else {
        sc.classes
            .iter()
            .enumerate()
            .filter_map(|(i, c)| match Priority::from_name(&c.priority) {
                Some(p) => {
                    let ratio = c.ratio.unwrap_or(p.default_ratio());
                    if !(ratio.is_finite() && ratio > 0.0) {
                        cx.err(&format!("class[{i}].ratio"), format!("must be a positive number, got {ratio}"));
                    }
                    let latency_target = c.latency_target.as_ref().and_then(|l| cx.dur(&format!("class[{i}].latency_target"), l));
                    Some(ClassPlan { name: c.name.clone(), priority: p, ratio, latency_target })
                }
                None => {
                    cx.err(&format!("class[{i}].priority"), format!("'{}' is not a priority (expected urgent, high, medium, low or best_effort)", c.priority));
                    None
                }
            })
            .collect()
    };
    check_unique(&mut cx, "class", classes.iter().map(|c| c.name.as_str()));

    let devices = devices::resolve_devices(&mut cx, &sc.devices);
    check_unique(&mut cx, "device", sc.devices.iter().map(|d| d.name()));

    let hosts: Vec<HostPlan> = if sc.hosts.is_empty() {
        vec![HostPlan { name: "host0".into(), queue_depth: 1024, cache: None, io_timeout: DEFAULT_IO_TIMEOUT }]
    } else {
        sc.hosts
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let qd = h.queue_depth.unwrap_or(1024);
                if qd == 0 {
                    cx.err(&format!("host[{i}].queue_depth"), "must be at least 1");
                }
                let cache = h.cache.as_ref().and_then(|c| cache::resolve_cache(&mut cx, &format!("host[{i}].cache"), c));
                let key = format!("host[{i}].io_timeout");
                let io_timeout = match h.io_timeout.as_deref().map(|t| (t, cx.dur(&key, t))) {
                    None => DEFAULT_IO_TIMEOUT,
                    Some((_, None)) => DEFAULT_IO_TIMEOUT,
                    Some((t, Some(d))) if d < SimTime::from_us(1) => {
                        cx.err(&key, format!("'{t}': expected at least 1us (a shorter timeout would fail healthy I/O)"));
                        DEFAULT_IO_TIMEOUT
                    }
                    Some((_, Some(d))) => d,
                };
                HostPlan { name: h.name.clone(), queue_depth: qd.max(1), cache, io_timeout }
            })
            .collect()
    };
    check_unique(&mut cx, "host", hosts.iter().map(|h| h.name.as_str()));
    // The default drain limit leaves room for a host's I/O timeouts and their retries (Linux
    // retries a timed-out command up to 5 times): a drain a stuck request ends is not cut short.
    if sc.run.drain_limit.is_none() {
        let longest = hosts.iter().map(|h| h.io_timeout).max().unwrap_or(DEFAULT_IO_TIMEOUT);
        run.drain_limit = run.drain_limit.map(|l| l.max(SimTime(longest.0.saturating_mul(IO_TIMEOUTS_IN_DRAIN))));
    }
    let volumes: Vec<volume::VolumePlan> = sc.volumes.iter().enumerate().filter_map(|(i, v)| volume::resolve_volume(&mut cx, i, v, &devices)).collect();
    check_unique(&mut cx, "volume", sc.volumes.iter().map(|v| v.name.as_str()));
    for (i, v) in sc.volumes.iter().enumerate() {
        if devices.iter().any(|d| d.name == v.name) {
            cx.err(&format!("volume[{i}].name"), format!("'{}' is also a device's name: a workload's `device` could mean either", v.name));
        }
    }

    let mut workloads = Vec::new();
    if sc.workloads.is_empty() && sc.flows.is_empty() && sc.haechi.is_none() {
        cx.err("workload", "the scenario has no [[workload]], no [[flow]] and no [haechi]: nothing would run");
    }
    if sc.devices.is_empty() && !sc.workloads.is_empty() {
        cx.err("device", "the scenario has no [[device]]");
    }
    let by_name = workload::ByName::new(&sc.devices, &hosts);
    for (i, w) in sc.workloads.iter().enumerate() {
        resolve_workload(&mut cx, i, w, &run, &classes, &devices, &sc.devices, &volumes, &by_name, &mut workloads);
    }
    check_unique(&mut cx, "workload", workloads.iter().map(|w: &WorkloadPlan| w.name.as_str()));

    let tagging = e2e::tagging(&mut cx, &sc.qos, &classes);
    let mut network = network::network(&mut cx, sc, &run, &classes);
    let nvmeof = e2e::nvmeof(&mut cx, sc, &hosts, &devices, &volumes, &workloads, &classes, &tagging, network.as_deref_mut());

    let haechi = sc.haechi.as_ref().and_then(|h| haechi::resolve(&mut cx, h, &run, &classes, &tagging, network.as_deref_mut()));

    let env = crate::coordinator::Env {
        hosts: &hosts,
        devices: &devices,
        volumes: &volumes,
        workloads: &workloads,
        network: network.as_deref(),
        nvmeof: nvmeof.as_ref(),
    };
    let coordinators: Vec<_> = sc.coordinators.iter().enumerate().filter_map(|(i, c)| crate::coordinator::resolve(&mut cx, i, c, &env)).collect();
    check_unique(&mut cx, "coordinator", sc.coordinators.iter().map(|c| c.name()));
    // One agent per storage server (PLMLight's write-handling agent, SRC's monitor): it is the
    // server's routing hook.
    let mut agents: Vec<(u32, &str)> = Vec::new();
    for c in &coordinators {
        let Some((server, server_name)) = c.kind.plan().agent_server() else { continue };
        if let Some((_, other)) = agents.iter().find(|(s, _)| *s == server) {
            let i = sc.coordinators.iter().position(|x| x.name() == c.name).unwrap_or(0);
            cx.err(
                &format!("coordinator[{i}].device"),
                format!("storage server '{server_name}' already has coordinator '{other}''s agent at its routing hook: one plmlight or src per server"),
            );
        }
        agents.push((server, c.name.as_str()));
    }

    let faults = faults::faults(&mut cx, sc, &devices, network.as_deref(), nvmeof.as_ref());

    let output = OutputPlan {
        requests: sc.output.requests.unwrap_or(true),
        timeseries: sc.output.timeseries.unwrap_or(true),
        timeseries_rows: match sc.output.timeseries_rows.as_deref() {
            None | Some("interval") => nest_core::stats::series::Rows::Interval,
            Some("change") => nest_core::stats::series::Rows::Change,
            Some(other) => {
                cx.err(
                    "output.timeseries_rows",
                    format!(
                        "'{other}' is not a row policy: expected \"interval\" (a row per interval) or \"change\" (a sampled state's row only where it changed)"
                    ),
                );
                nest_core::stats::series::Rows::Interval
            }
        },
        fio_json: sc.output.fio_json.unwrap_or(false),
    };
    cx.check_memory_total();
    if !cx.errors.is_empty() {
        return Err(ConfigErrors(cx.errors));
    }
    Ok(Resolved {
        name: sc.name.clone().unwrap_or_else(|| Path::new(&loaded.file).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()),
        run,
        classes,
        devices,
        hosts,
        volumes,
        workloads,
        network,
        nvmeof,
        tagging,
        coordinators,
        faults,
        haechi,
        output,
        warnings: cx.warnings,
        table: loaded.table.clone(),
    })
}

/// A set, not a list: scanning the names seen so far made 10,000 drives' set-up quadratic
/// (5·10⁷ string comparisons, issue 24).
fn check_unique<'a>(cx: &mut Ctx, what: &str, names: impl Iterator<Item = &'a str>) {
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for (i, n) in names.enumerate() {
        if n.is_empty() {
            cx.err(&format!("{what}[{i}].name"), "names must not be empty");
        } else if !seen.insert(n) {
            cx.err(&format!("{what}[{i}].name"), format!("duplicate {what} name '{n}'"));
        }
    }
}

pub mod cache;
mod devices;
mod plm;
pub mod workload;
use workload::resolve_workload;
pub use workload::{SourcePlan, WorkloadPlan};
pub mod e2e;
pub mod faults;
pub mod haechi;
pub mod network;
#[cfg(test)]
mod tests;
pub mod volume;
