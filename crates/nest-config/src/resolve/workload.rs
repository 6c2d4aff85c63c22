//! Resolution of `[[workload]]`: synthetic arrival processes and size/address laws, trace
//! replay, fio job files, MMPP fits, start/stop and on/off periods — into [`WorkloadPlan`]s.

/// Memory one request in flight takes, for the check before a run: ~230 B of request record,
/// twice that while the pool doubles, plus its host-queue entry.
const BYTES_PER_REQUEST: u64 = 512;

use super::*;
pub use crate::plan::workload::{SourcePlan, WorkloadPlan};
use nest_workload::mqsim_draws::MqsimFlow;

/// The largest trace `time_scale` (inter-arrival times multiplied by it).
pub const MAX_TIME_SCALE: f64 = 1e6;

pub(crate) fn time_dist(cx: &mut Ctx, key: &str, c: &TimeDistConfig) -> Option<TimeDist> {
    Some(match c {
        TimeDistConfig::Fixed { value } => TimeDist::Fixed(cx.dur(&format!("{key}.value"), value)?),
        TimeDistConfig::Exp { mean } => TimeDist::Exponential { mean_ps: cx.dur(&format!("{key}.mean"), mean)?.0 as f64 },
        TimeDistConfig::Uniform { min, max } => {
            let (lo, hi) = (cx.dur(&format!("{key}.min"), min)?, cx.dur(&format!("{key}.max"), max)?);
            if hi < lo {
                cx.err(&format!("{key}.max"), "max must not be below min");
                return None;
            }
            TimeDist::Uniform { lo, hi }
        }
        TimeDistConfig::Lognormal { mean, cv } => {
            if !(*cv > 0.0 && cv.is_finite()) {
                cx.err(&format!("{key}.cv"), format!("cv must be positive, got {cv}"));
                return None;
            }
            TimeDist::lognormal_from_mean_cv(cx.dur(&format!("{key}.mean"), mean)?.0 as f64, *cv)
        }
        TimeDistConfig::Empirical { values, weights } => {
            let vals: Vec<SimTime> = values.iter().enumerate().filter_map(|(i, v)| cx.dur(&format!("{key}.values[{i}]"), v)).collect();
            if vals.len() != values.len() {
                return None;
            }
            let cumulative = cumulative_weights(vals.len(), weights).map_err(|e| cx.err(&format!("{key}.weights"), e)).ok()?;
            TimeDist::Empirical { values: vals, cumulative }
        }
    })
}

/// A workload's slice of its device: where it starts (`range_start`, refused at or past the
/// capacity), the room after that, and its length (`range`, the room by default; the caller
/// checks it against its own lower bound).
fn slice(cx: &mut Ctx, key: &str, w: &WorkloadConfig, capacity: u64) -> (u64, u64, u64) {
    let start = w.range_start.as_ref().and_then(|r| cx.size(&format!("{key}.range_start"), r)).unwrap_or(0);
    if start >= capacity {
        cx.err(&format!("{key}.range_start"), format!("must be below the device capacity ({capacity} B)"));
    }
    let room = capacity.saturating_sub(start);
    let range = w.range.as_ref().and_then(|r| cx.size(&format!("{key}.range"), r)).unwrap_or(room);
    (start, room, range)
}

pub(crate) fn size_dist(cx: &mut Ctx, key: &str, c: &SizeConfig) -> Option<SizeDist> {
    Some(match c {
        SizeConfig::Fixed { bytes } => SizeDist::Fixed(cx.size32(&format!("{key}.bytes"), bytes)?),
        SizeConfig::Exp { mean, align, min, max } => {
            let mean_b = cx.size32(&format!("{key}.mean"), mean)? as f64;
            let align = match align {
                Some(a) => cx.size32(&format!("{key}.align"), a)?,
                None => 512,
            };
            let min = match min {
                Some(a) => cx.size32(&format!("{key}.min"), a)?,
                None => align,
            };
            let max = match max {
                Some(a) => cx.size32(&format!("{key}.max"), a)?,
                None => u32::MAX / 2,
            };
            if max < min {
                cx.err(&format!("{key}.max"), "max must not be below min");
                return None;
            }
            SizeDist::Exponential { mean: mean_b, align, min, max }
        }
        SizeConfig::UniformBlocks { min, max, block } => {
            let block = match block {
                Some(b) => cx.size32(&format!("{key}.block"), b)?,
                None => 4096,
            };
            if *min == 0 || max < min || (*max as u64) * block as u64 > u32::MAX as u64 {
                cx.err(&format!("{key}.min"), format!("need 1 ≤ min ≤ max and max × block ≤ 4 GiB (got {min}..{max} × {block})"));
                return None;
            }
            SizeDist::UniformBlocks { min_blocks: *min, max_blocks: *max, block }
        }
        SizeConfig::Empirical { values, weights } => {
            let vals: Vec<u32> = values.iter().enumerate().filter_map(|(i, v)| cx.size32(&format!("{key}.values[{i}]"), v)).collect();
            if vals.len() != values.len() {
                return None;
            }
            SizeDist::empirical(vals, weights).map_err(|e| cx.err(&format!("{key}.weights"), e)).ok()?
        }
    })
}

/// The highest arrival (or MMPP switching) rate accepted, per second: one event per nanosecond.
/// Beyond it a source only fills memory (issue 63, S6/S7): no device or link of the models serves
/// a billion requests a second, and an MMPP switching faster loops inside one event.
pub(crate) const MAX_RATE_PER_S: f64 = 1e9;

/// Refuses a rate above [`MAX_RATE_PER_S`], naming `key`.
fn bounded_rate(cx: &mut Ctx, key: &str, r: f64, what: &str) -> Option<f64> {
    if r > MAX_RATE_PER_S {
        cx.err(key, format!("{what} of {r:.3e} per second is above the {MAX_RATE_PER_S:.0e} per second NeSt accepts (one per ns)"));
        return None;
    }
    Some(r)
}

/// The most phase switches an MMPP may make per arrival on average in either phase.
const MAX_SWITCHES_PER_ARRIVAL: f64 = 1e6;

/// Refuses an MMPP that switches phase far more often than it emits: drawing one gap walks every
/// switch in between, inside one event (issue 63, S7: `switch = [1e15, 1e15]` never returned).
fn few_switches(cx: &mut Ctx, key: &str, m: &Mmpp2) -> Option<()> {
    let worst = (0..2).map(|i| m.switch[i] / m.lambda[i]).fold(0.0, f64::max);
    if worst > MAX_SWITCHES_PER_ARRIVAL {
        cx.err(
            key,
            format!("the MMPP switches phase {worst:.3e} times per arrival in one phase (at most {MAX_SWITCHES_PER_ARRIVAL:.0e}): such fast switching is a Poisson process at the mean rate"),
        );
        return None;
    }
    Some(())
}

pub(super) fn arrival(cx: &mut Ctx, key: &str, c: &ArrivalConfig, mean_size: f64) -> Option<ArrivalSpec> {
    let rate_of = |cx: &mut Ctx, r: &Option<f64>, bw: &Option<String>| -> Option<f64> {
        match (r, bw) {
            (Some(r), None) if *r > 0.0 && r.is_finite() => bounded_rate(cx, &format!("{key}.rate_iops"), *r, "an arrival rate"),
            (Some(r), None) => {
                cx.err(&format!("{key}.rate_iops"), format!("must be positive, got {r}"));
                None
            }
            (None, Some(b)) => {
                let k = format!("{key}.bandwidth");
                let r = cx.rate(&k, b)? / 8.0 / mean_size;
                bounded_rate(cx, &k, r, "the arrival rate this bandwidth gives")
            }
            _ => {
                cx.err(key, "give exactly one of rate_iops or bandwidth");
                None
            }
        }
    };
    Some(match c {
        ArrivalConfig::Poisson { rate_iops, bandwidth } => ArrivalSpec::Poisson { rate: rate_of(cx, rate_iops, bandwidth)? },
        ArrivalConfig::Constant { rate_iops, bandwidth } => ArrivalSpec::Constant { rate: rate_of(cx, rate_iops, bandwidth)? },
        ArrivalConfig::Burst { outstanding } => {
            if *outstanding == 0 {
                cx.err(&format!("{key}.outstanding"), "must be at least 1");
                return None;
            }
            // Each outstanding request is live from the start: its record in the run's request
            // pool (which grows by doubling), its place in a host queue, its statistics.
            let k = format!("{key}.outstanding");
            if !cx.memory(&k, *outstanding as u64 * BYTES_PER_REQUEST, format!("{outstanding} requests outstanding")) {
                return None;
            }
            ArrivalSpec::Burst { outstanding: *outstanding }
        }
        ArrivalConfig::Mmpp { rates, switch } => {
            if rates.iter().chain(switch).any(|x| !(x.is_finite() && *x > 0.0)) {
                cx.err(key, "MMPP rates and switch rates must all be positive");
                return None;
            }
            for (k, xs) in [("rates", rates), ("switch", switch)] {
                let top = xs.iter().cloned().fold(0.0, f64::max);
                bounded_rate(cx, &format!("{key}.{k}"), top, "a rate")?;
            }
            let m = Mmpp2 { lambda: *rates, switch: *switch };
            few_switches(cx, &format!("{key}.switch"), &m)?;
            ArrivalSpec::Mmpp(m)
        }
        ArrivalConfig::MmppFit { mean_gap, scv, skewness, lag1 } => {
            let m = cx.dur(&format!("{key}.mean_gap"), mean_gap)?.as_secs_f64();
            match fit_mmpp2(&Moments4 { mean: m, scv: *scv, skewness: *skewness, lag1: *lag1 }) {
                Ok(fit) => {
                    if fit.residual > 0.01 {
                        cx.warnings.push(format!(
                            "{key}: MMPP(2) cannot match these statistics exactly; fitted SCV {:.3}, skewness {:.3}, lag-1 {:.3}",
                            fit.achieved.scv, fit.achieved.skewness, fit.achieved.lag1
                        ));
                    }
                    let top = fit.mmpp.lambda.iter().chain(&fit.mmpp.switch).cloned().fold(0.0, f64::max);
                    bounded_rate(cx, &format!("{key}.mean_gap"), top, "the fitted MMPP's fastest rate")?;
                    few_switches(cx, key, &fit.mmpp)?;
                    ArrivalSpec::Mmpp(fit.mmpp)
                }
                Err(e) => {
                    cx.err(key, e);
                    return None;
                }
            }
        }
    })
}

pub(super) fn time_unit(cx: &mut Ctx, key: &str, s: &str) -> Option<u64> {
    Some(match s {
        "ps" => 1,
        "ns" => PS_PER_NS,
        "us" => PS_PER_US,
        "ms" => PS_PER_MS,
        "s" => PS_PER_S,
        other => {
            cx.err(key, format!("'{other}' is not a time unit (expected ps, ns, us, ms or s)"));
            return None;
        }
    })
}

/// Device and host indices by name, built once per scenario: finding each workload's device by
/// scanning every device made a run of 10,000 drives and as many workloads quadratic to set up
/// (issue 24). The first of two equal names wins, as a scan would find it (duplicates are
/// reported by `check_unique`).
pub(super) struct ByName<'a> {
    devices: std::collections::HashMap<&'a str, usize>,
    hosts: std::collections::HashMap<&'a str, usize>,
}

impl<'a> ByName<'a> {
    pub(super) fn new(dev_cfg: &'a [DeviceConfig], hosts: &'a [HostPlan]) -> Self {
        fn index<'a>(names: impl Iterator<Item = &'a str>) -> std::collections::HashMap<&'a str, usize> {
            let mut m = std::collections::HashMap::new();
            for (i, n) in names.enumerate() {
                m.entry(n).or_insert(i);
            }
            m
        }
        ByName { devices: index(dev_cfg.iter().map(|d| d.name())), hosts: index(hosts.iter().map(|h| h.name.as_str())) }
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn resolve_workload(
    cx: &mut Ctx,
    i: usize,
    w: &WorkloadConfig,
    run: &RunPlan,
    classes: &[ClassPlan],
    devices: &[DevicePlan],
    dev_cfg: &[DeviceConfig],
    volumes: &[volume::VolumePlan],
    by_name: &ByName,
    out: &mut Vec<WorkloadPlan>,
) {
    let key = format!("workload[{i}]");
    let volume = volumes.iter().position(|v| v.name == w.device);
    let device = match volume {
        Some(v) => Some(volumes[v].devices[0]),
        None => by_name.devices.get(w.device.as_str()).copied(),
    };
    if device.is_none() {
        let names: Vec<&str> = dev_cfg.iter().map(|d| d.name()).chain(volumes.iter().map(|v| v.name.as_str())).collect();
        let hint = crate::suggest::hint(&w.device, names.iter().copied());
        cx.err(&format!("{key}.device"), format!("no device or volume named '{}' (devices and volumes: {}){hint}", w.device, names.join(", ")));
    }
    let host = match &w.host {
        None => Some(0),
        Some(h) => {
            let p = by_name.hosts.get(h.as_str()).copied();
            if p.is_none() {
                // Sorted: a tie between equally close names must not depend on the map's order.
                let mut names: Vec<&str> = by_name.hosts.keys().copied().collect();
                names.sort_unstable();
                let hint = crate::suggest::hint(h, names);
                cx.err(&format!("{key}.host"), format!("no host named '{h}'{hint}"));
            }
            p
        }
    };
    let class_name = w
        .class
        .clone()
        .unwrap_or_else(|| classes.iter().find(|c| c.priority == Priority::BestEffort).or(classes.last()).map(|c| c.name.clone()).unwrap_or_default());
    let class = classes.iter().position(|c| c.name == class_name);
    if class.is_none() {
        let names: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
        let hint = crate::suggest::hint(&class_name, names.iter().copied());
        cx.err(&format!("{key}.class"), format!("no class named '{class_name}' (classes: {}){hint}", names.join(", ")));
    }
    let capacity = match volume {
        Some(v) => volumes[v].capacity,
        None => device.and_then(|d| devices.get(d)).map_or(1u64 << 40, |d| d.capacity),
    };
    let kinds = [w.arrival.is_some(), w.trace.is_some(), w.fio.is_some()];
    if kinds.iter().filter(|k| **k).count() != 1 {
        cx.err(&key, "give exactly one of: arrival (synthetic), trace, or fio");
        return;
    }
    // A trace or fio job brings its own arrivals, sizes, mix and addresses: the synthetic keys
    // would be silently ignored, so they are refused.
    if w.arrival.is_none() {
        let source = if w.trace.is_some() { "trace" } else { "fio job" };
        let synthetic = [
            (w.size.is_some(), "size"),
            (w.read_size.is_some(), "read_size"),
            (w.write_size.is_some(), "write_size"),
            (w.read_fraction.is_some(), "read_fraction"),
            (w.address.is_some(), "address"),
            // A trace may keep to a slice of the device (`range_start`, `range`); a fio job
            // sets its own (`offset`, `size`).
            (w.range.is_some() && w.fio.is_some(), "range"),
            (w.range_start.is_some() && w.fio.is_some(), "range_start"),
            (w.align.is_some(), "align"),
            (w.on_off.is_some(), "on_off"),
            (w.max_ios.is_some(), "max_ios"),
        ];
        for (given, k) in synthetic {
            if given {
                cx.err(&format!("{key}.{k}"), format!("a synthetic workload's key: a {source} workload takes its requests from the {source} (remove it)"));
            }
        }
    }
    // Broken references were reported above; keep checking the rest, but build no plan.
    let refs_ok = device.is_some() && host.is_some() && class.is_some();
    let (device, host, class) = (device.unwrap_or(0), host.unwrap_or(0), class.unwrap_or(0));
    let start = w.start.as_ref().and_then(|s| cx.dur(&format!("{key}.start"), s)).unwrap_or(SimTime::ZERO);
    let stop = w.stop.as_ref().and_then(|s| cx.dur(&format!("{key}.stop"), s));
    if let Some(trace) = &w.trace {
        let tk = format!("{key}.trace");
        let format = TraceFormat::from_name(&trace.format).map_err(|e| cx.err(&format!("{tk}.format"), e)).ok();
        let path = cx.path(&format!("{tk}.path"), &trace.path);
        let time_scale = trace.time_scale.unwrap_or(1.0);
        if !(time_scale > 0.0 && time_scale.is_finite()) {
            cx.err(&format!("{tk}.time_scale"), format!("must be positive, got {time_scale}"));
        } else if time_scale > MAX_TIME_SCALE {
            // One second of trace would span 11.6 simulated days; a run lasts ~213 days at most,
            // so a larger scale is a typo (found by the mutation test: the replay failed mid-run
            // naming the trace, not this key).
            cx.err(&format!("{tk}.time_scale"), format!("at most {MAX_TIME_SCALE:e} (one second of trace becomes 11.6 simulated days), got {time_scale:e}"));
        }
        let unit = trace.time_unit.as_ref().and_then(|u| time_unit(cx, &format!("{tk}.time_unit"), u));
        let shift = trace.offset_shift.as_ref().and_then(|s| cx.size(&format!("{tk}.offset_shift"), s)).unwrap_or(0);
        let wrap_at = trace.wrap_at.as_ref().and_then(|s| cx.size(&format!("{tk}.wrap_at"), s));
        if wrap_at == Some(0) {
            cx.err(&format!("{tk}.wrap_at"), "the offset past which offsets are taken modulo it: at least 1 B, got 0");
        }
        let repeat = trace.repeat.unwrap_or(1);
        if repeat == 0 {
            cx.err(&format!("{tk}.repeat"), "the times the trace is replayed: at least 1, got 0");
        }
        // Its slice of the device: the whole of it unless `range_start` or `range` is given.
        let (base, room, span) = slice(cx, &key, w, capacity);
        if span == 0 || span > room {
            cx.err(&format!("{key}.range"), format!("must be between 1 B and the space after range_start ({room} B)"));
        }
        let opts = TraceOptions {
            time_scale,
            time_unit_ps: unit,
            offset_shift: shift,
            wrap_at: wrap_at.filter(|&m| m > 0),
            range: if trace.wrap.unwrap_or(true) { Some(span) } else { None },
            base,
            align: 512,
            device: trace.trace_device,
            reorder_window: trace.reorder_window.unwrap_or(65_536).clamp(1, 1 << 24),
            skip_invalid: trace.skip_invalid.unwrap_or(false),
            max_records: trace.max_records,
            start,
            stop,
            repeat: repeat.max(1),
        };
        if let (Some(format), Some(path), true) = (format, path, refs_ok) {
            out.push(WorkloadPlan { name: w.name.clone(), host, device, volume, class, source: SourcePlan::Trace { path, format, opts } });
        }
        return;
    }
    if let Some(fio) = &w.fio {
        let fk = format!("{key}.fio");
        let Some(path) = cx.path(&format!("{fk}.path"), &fio.path) else { return };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => return cx.err(&format!("{fk}.path"), format!("cannot read '{}': {e}", path.display())),
        };
        let jobs = match parse_job_file(&text, &path.display().to_string()) {
            Ok(j) => j,
            Err(e) => return cx.err(&fk, e.to_string()),
        };
        let selected: Vec<_> = jobs.into_iter().filter(|j| fio.job.as_ref().is_none_or(|n| &j.name == n)).collect();
        if selected.is_empty() {
            return cx.err(&format!("{fk}.job"), format!("no job named '{}' in {}", fio.job.clone().unwrap_or_default(), path.display()));
        }
        let single = selected.len() == 1 && selected[0].numjobs == 1;
        let outstanding: u64 = selected.iter().map(|j| j.iodepth as u64 * j.numjobs as u64).sum();
        if !cx.memory(&fk, outstanding * BYTES_PER_REQUEST, format!("{outstanding} requests outstanding (iodepth × numjobs)")) {
            return;
        }
        for job in selected {
            for (opt, line) in &job.ignored {
                cx.warnings.push(format!("{}:{line}: fio option '{opt}' is not modelled and was ignored", path.display()));
            }
            for clone in 0..job.numjobs {
                let mut spec = job.spec.clone();
                spec.start += start;
                // The earliest end wins: the job's runtime, the workload's stop, the run's duration
                // (a job's `runtime` once outlived `run.duration`: issue 63, S5).
                spec.stop = [spec.stop.map(|a| a + start), stop, run.duration].into_iter().flatten().min();
                spec.range_bytes = spec.range_bytes.min(capacity);
                if spec.range_bytes < spec.align.max(1) as u64 {
                    // Found by the fio fuzz test: `size=3` left the address generator nothing to pick.
                    return cx.err(
                        &fk,
                        format!("{}: job '{}': size {} B is smaller than the block alignment {} B", path.display(), job.name, spec.range_bytes, spec.align),
                    );
                }
                let name = if single {
                    w.name.clone()
                } else if job.numjobs == 1 {
                    format!("{}.{}", w.name, job.name)
                } else {
                    format!("{}.{}.{clone}", w.name, job.name)
                };
                if refs_ok {
                    out.push(WorkloadPlan { name, host, device, volume, class, source: SourcePlan::Synthetic(spec) });
                }
            }
        }
        return;
    }
    // Synthetic.
    let read_fraction = w.read_fraction.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&read_fraction) {
        cx.err(&format!("{key}.read_fraction"), format!("must be between 0 and 1, got {read_fraction}"));
    }
    let base = match &w.size {
        Some(s) => size_dist(cx, &format!("{key}.size"), s),
        None => Some(SizeDist::Fixed(4096)),
    };
    let read_size = match &w.read_size {
        Some(s) => size_dist(cx, &format!("{key}.read_size"), s),
        None => base.clone(),
    };
    let write_size = match &w.write_size {
        Some(s) => size_dist(cx, &format!("{key}.write_size"), s),
        None => base,
    };
    let (Some(read_size), Some(write_size)) = (read_size, write_size) else { return };
    let mean_size = read_fraction * read_size.mean() + (1.0 - read_fraction) * write_size.mean();
    let arrival_spec = arrival(cx, &format!("{key}.arrival"), w.arrival.as_ref().expect("checked above"), mean_size.max(1.0));
    let address = match &w.address {
        None | Some(AddressConfig::Uniform) => AddressPattern::Uniform,
        Some(AddressConfig::Sequential { random_start }) => AddressPattern::Sequential { random_start: *random_start },
        Some(AddressConfig::Zipf { theta }) => {
            if !(*theta > 0.0 && theta.is_finite()) {
                cx.err(&format!("{key}.address.theta"), format!("must be positive, got {theta}"));
            }
            AddressPattern::Zipf(*theta)
        }
        Some(AddressConfig::Hotcold { hot_fraction, hot_share }) => {
            if !(*hot_fraction > 0.0 && *hot_fraction < 1.0) {
                cx.err(&format!("{key}.address.hot_fraction"), format!("must be between 0 and 1 (exclusive), got {hot_fraction}"));
            }
            if !(0.0..=1.0).contains(hot_share) {
                cx.err(&format!("{key}.address.hot_share"), format!("must be between 0 and 1, got {hot_share}"));
            }
            AddressPattern::HotCold { hot_fraction: *hot_fraction, hot_share: *hot_share }
        }
    };
    let (range_start, room, range) = slice(cx, &key, w, capacity);
    let align = w.align.as_ref().and_then(|a| cx.size32(&format!("{key}.align"), a)).unwrap_or(4096);
    if range < align as u64 || range > room {
        cx.err(&format!("{key}.range"), format!("must be between the alignment ({align} B) and the space after range_start ({room} B)"));
    }
    // A request must fit in the range it is placed in (one larger ran off the device's end).
    for (part, d) in [("read_size", &read_size), ("write_size", &write_size)] {
        if d.max() as u64 > range {
            let k = if w.size.is_some() { "size" } else { part };
            cx.err(
                &format!("{key}.{k}"),
                format!(
                    "requests of up to {} B do not fit in the workload's range of {range} B (the device's capacity after range_start, or `range`)",
                    d.max()
                ),
            );
            break;
        }
    }
    let on_off = match &w.on_off {
        None => None,
        Some(o) => match (cx.dur(&format!("{key}.on_off.on"), &o.on), cx.dur(&format!("{key}.on_off.off"), &o.off)) {
            (Some(on), Some(off)) if on.0 > 0 => Some((on, off)),
            (Some(_), Some(_)) => {
                cx.err(&format!("{key}.on_off.on"), "the on period must be positive");
                None
            }
            _ => None,
        },
    };
    let stop = stop.or(run.duration);
    if stop.is_none() && w.max_ios.is_none() {
        cx.err(&key, "a synthetic workload needs an end: set run.duration, or this workload's stop or max_ios");
    }
    let mqsim = w.mqsim_draws.as_ref().and_then(|m| mqsim_flow(cx, &format!("{key}.mqsim_draws"), m, &address, range_start, capacity));
    let (Some(arrival_spec), true) = (arrival_spec, refs_ok) else { return };
    out.push(WorkloadPlan {
        name: w.name.clone(),
        host,
        device,
        volume,
        class,
        source: SourcePlan::Synthetic(SyntheticSpec {
            arrival: arrival_spec,
            read_fraction,
            read_size,
            write_size,
            address,
            range_bytes: range,
            range_start,
            align,
            start,
            stop,
            on_off,
            max_ios: w.max_ios,
            mqsim,
        }),
    });
}

/// `mqsim_draws`, checked: its sectors, from `range_start`, fit on the device but for MQSim's
/// rounding (its drive holds a few more logical pages than NeSt's: it rounds each plane's share
/// in sectors, NeSt in pages; a request drawn past the workload's range is moved back into it).
fn mqsim_flow(cx: &mut Ctx, key: &str, m: &MqsimDrawsConfig, address: &AddressPattern, range_start: u64, capacity: u64) -> Option<MqsimFlow> {
    if matches!(address, AddressPattern::Zipf(_)) {
        cx.err(key, "MQSim draws uniform, hot/cold or streaming addresses, not Zipf");
        return None;
    }
    if m.first_sector > m.last_sector || m.size_sectors == 0 {
        cx.err(key, format!("needs first_sector ≤ last_sector and size_sectors ≥ 1 (got {}, {}, {})", m.first_sector, m.last_sector, m.size_sectors));
        return None;
    }
    let end = range_start + (m.last_sector - m.first_sector + 1) * 512;
    if end > capacity + capacity / 1000 {
        cx.err(key, format!("sectors {}..={} from range_start end at byte {end}, past the device ({capacity} B)", m.first_sector, m.last_sector));
        return None;
    }
    Some(MqsimFlow {
        seed: m.seed,
        first_sector: m.first_sector,
        last_sector: m.last_sector,
        logical_pages: m.logical_pages,
        size_sectors: m.size_sectors,
        size_sd: m.size_sd,
        align_sectors: m.align_sectors.unwrap_or(1).max(1),
        gap_ns: m.gap_ns,
    })
}
