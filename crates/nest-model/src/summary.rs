//! `summary.json`: the deterministic result of a run (no wall-clock values: same scenario +
//! seed + binary ⇒ byte-identical file). Keys are sorted (serde_json's default map), floats
//! printed in their shortest exact form. Schema for users: docs/outputs.md.

use crate::device::{DeviceRt, SsdDevice};
use crate::host_cache::HostCacheRt;
use crate::sim::Simulation;
use crate::stats::{lat_json, r6};
use crate::stats::{Aggregates, OpAcc};
use crate::NEST_VERSION;
use nest_core::SimTime;
use serde_json::{json, Map, Value};

/// Objects are assembled by moving their parts in: `json!` serializes an interpolated `Value` into a copy, which for the entity
/// maps of a 10,000-drive run was a deep copy of the whole summary (a third of building it, most of it page faults).
fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn op_json(a: &OpAcc, seconds: f64) -> Value {
    let secs = seconds.max(1e-12);
    let mut v = object([
        ("ios", json!(a.ios)),
        ("bytes", json!(a.bytes)),
        ("iops", json!(r6(a.ios as f64 / secs))),
        ("bw_gbps", json!(r6(a.bytes as f64 * 8.0 / secs / 1e9))),
        ("bw_mib_s", json!(r6(a.bytes as f64 / secs / (1024.0 * 1024.0)))),
        ("carried_iops", json!(r6(a.carried_ios as f64 / secs))),
        ("carried_gbps", json!(r6(a.carried_bytes as f64 * 8.0 / secs / 1e9))),
        ("lat_us", lat_json(&a.latency)),
        ("host_wait_us", lat_json(&a.host_wait)),
        ("device_us", lat_json(&a.device_time)),
        ("device_queue_us", lat_json(&a.device_queue)),
        ("service_us", lat_json(&a.service)),
        ("decomposition_us", parts_json(a)),
    ]);
    if let Some(s) = decomposition_json(&a.ssd) {
        v["ssd_decomposition"] = s;
    }
    v
}

/// `{ios, mean_us {PART: µs}, p99_tail {from_us, ios, mean_us}}` of the SSD decomposition (docs/outputs.md); `None` without SSD requests.
fn decomposition_json(d: &crate::ssd_decomp::DevDecomp) -> Option<Value> {
    let parts = |ps: &[f64]| -> Value { Value::Object(nest_ssd::DEV_PARTS.iter().zip(ps).map(|(k, &v)| ((*k).to_string(), json!(r6(v / 1e6)))).collect()) };
    let (ios, mean) = d.mean()?;
    let mut out = object([("ios", json!(ios)), ("mean_us", parts(&mean))]);
    if let Some(t) = d.tail() {
        out["p99_tail"] = object([("from_us", json!(r6(t.from_ps as f64 / 1e6))), ("ios", json!(t.ios)), ("mean_us", parts(&t.mean_ps))]);
    }
    Some(out)
}

/// Mean of each latency part (µs); they add up to the mean latency.
fn parts_json(a: &OpAcc) -> Value {
    let mut m = Map::new();
    let n = a.ios.max(1) as f64;
    for (name, &sum) in crate::request::PARTS.iter().zip(&a.parts_ps) {
        m.insert((*name).into(), json!(r6(sum as f64 / n / 1e6)));
    }
    Value::Object(m)
}

fn rw_json(acc: &[OpAcc; 2], seconds: f64) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("read".into(), op_json(&acc[0], seconds));
    m.insert("write".into(), op_json(&acc[1], seconds));
    let mut all = acc[0].clone();
    all.merge(&acc[1]);
    m.insert("all".into(), op_json(&all, seconds));
    m
}

/// A host cache's counters over the whole run (docs/outputs.md, "hosts.*.cache").
fn cache_json(rt: &HostCacheRt, classes: &[nest_config::resolve::ClassPlan]) -> Value {
    let c = &rt.cache.counters;
    let rate = |h: u64, n: u64| r6(h as f64 / n.max(1) as f64);
    let mut extra = Map::new();
    for (k, v) in rt.cache.extra() {
        extra.insert(k.into(), json!(r6(v)));
    }
    let mut per_class = Map::new();
    for (i, &(n, h)) in rt.per_class.iter().enumerate() {
        if n > 0 {
            per_class.insert(classes[i].name.clone(), json!({"block_accesses": n, "block_hits": h, "hit_rate": rate(h, n)}));
        }
    }
    json!({
        "algorithm": rt.cache.algorithm.name(),
        "capacity_blocks": rt.cache.capacity(),
        "blocks_held": rt.cache.len(),
        "dirty_blocks_at_end": rt.cache.dirty(),
        "block_accesses": c.accesses,
        "hits": c.hits,
        "hit_rate": rate(c.hits, c.accesses),
        "read_hit_rate": rate(c.read_hits, c.reads),
        "write_hit_rate": rate(c.write_hits, c.writes),
        "admitted": c.admitted,
        "tracked": c.tracked,
        "evictions": c.evictions,
        "writebacks": c.writebacks,
        "fetched": c.fetched,
        "requests": rt.requests,
        "delayed_hits": rt.delayed_hits,
        "full_hit_requests": rt.full_hits,
        "background_reads": rt.background_reads,
        "background_writes": rt.background_writes,
        "background_in_flight": rt.background.in_flight(),
        "costs_ns": {"lookup": rt.costs.lookup_ns, "dm": rt.costs.dm_ns, "mdm": rt.costs.mdm_ns, "copy": rt.costs.copy_ns},
        "algorithm_state": extra,
        "per_class": per_class,
    })
}

/// Device-internal statistics of an SSD (SPEC §6; MQSim reports most of these).
fn ssd_json(dev: &SsdDevice, end: SimTime) -> Value {
    let s = &dev.ssd;
    let f = &s.ftl.counters;
    let c = &s.counters;
    let (chips, chans) = s.utilisation(end);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let max = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
    let (erase_mean, erase_min, erase_max) = s.ftl.erase_spread();
    let cache = s.cache().map(|k| {
        let rh = k.read_hits as f64 / (k.read_hits + k.read_misses).max(1) as f64;
        let wh = k.write_hits as f64 / (k.write_hits + k.write_misses).max(1) as f64;
        json!({"mode": s.params.cache.mode.name(), "read_hit_rate": r6(rh), "write_hit_rate": r6(wh), "dirty_slots_at_end": k.dirty_slots(), "slots": k.slots})
    });
    let q = dev.ctrl.queued_by_level();
    let mut out = json!({
        "geometry": {
            "channels": s.params.geometry.channels, "chips_per_channel": s.params.geometry.chips_per_channel,
            "dies_per_chip": s.params.geometry.dies_per_chip, "planes_per_die": s.params.geometry.planes_per_die,
            "blocks_per_plane": s.params.geometry.blocks_per_plane, "pages_per_block": s.params.geometry.pages_per_block,
            "page_size": s.params.geometry.page_size, "capacity_bytes": s.capacity(),
        },
        "nvme_arbitration": match (dev.nvme.split, dev.nvme.wrr) { (Some(_), _) => "ssq", (None, true) => "wrr", (None, false) => "rr" },
        "device_qos": s.params.sched.device_qos,
        "commands": c.commands,
        "in_flight_at_end": s.in_flight(),
        "sq_waiting_at_end": q.iter().sum::<usize>(),
        "flash_reads": c.flash_reads,
        "user_page_programs": f.user_programs,
        "program_commands": c.program_commands,
        "multiplane_program_commands": c.multiplane_program_commands,
        "gc_page_programs": f.gc_programs,
        "write_amplification": r6(s.write_amplification()),
        "gc_jobs": f.gc_jobs,
        "wear_levelling_jobs": f.wl_jobs,
        "gc_moves": c.gc_moves,
        "gc_time_s": r6(c.gc_time_ps as f64 / 1e12),
        "erases": f.erases,
        "erase_commands": c.erase_commands,
        "erase_count": {"mean": r6(erase_mean), "min": erase_min, "max": erase_max},
        "mapping_reads": c.map_reads,
        "mapping_writes": c.map_writes,
        "cmt_hit_rate": s.cmt_hit_rate().map(r6),
        "rmw_reads": c.rmw_reads,
        "cache_write_stalls": c.write_stalls,
        "suspension": s.params.sched.suspend.kinds(),
        "program_suspends": c.program_suspends,
        "erase_suspends": c.erase_suspends,
        "cache": cache,
        "chip_utilization": {"mean": r6(mean(&chips)), "max": r6(max(&chips))},
        "channel_utilization": {"mean": r6(mean(&chans)), "max": r6(max(&chans))},
        "dram_utilization": r6(s.dram_utilisation(end)),
    });
    if let Some(m) = crate::model_summary::model_json(s) {
        out["model"] = m;
    }
    if let Some(p) = crate::plm_summary::plm_json(s, end) {
        out["plm"] = p;
    }
    if let Some(w) = dev.ctrl.write_weight() {
        out["ssq_write_weight"] = json!(w);
    }
    out
}

/// Gb/s through the storage end (`RunStats::passed_device`) and the response side (the class's completions in the window).
fn passed_json(device: &[u64; 2], class: &[OpAcc; 2], secs: f64) -> Value {
    let gbps = |b: u64| if secs > 0.0 { b as f64 * 8.0 / secs / 1e9 } else { 0.0 };
    let point = |x: [u64; 2]| json!({"read": gbps(x[0]), "write": gbps(x[1]), "all": gbps(x[0] + x[1])});
    json!({"device": point(*device), "host": point([class[0].carried_bytes, class[1].carried_bytes])})
}

/// Fewer samples than this make a p99.9 an anecdote (it is the 1 worst of 1,000).
const P999_SAMPLES: u64 = 1000;
/// An open-loop workload whose completions during the window carry less than this share of what
/// it offers (and fewer than its arrivals' noise explains) is reported as overloaded.
const OVERLOAD_CARRIED: f64 = 0.9;
/// An SSD cache DRAM busier than this (with its flash much less busy) bounds the run.
const DRAM_BOUND: f64 = 0.8;

/// "12.3 Gb/s" / "45.6 Mb/s".
fn gbps(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{:.1} Gb/s", bps / 1e9)
    } else {
        format!("{:.1} Mb/s", bps / 1e6)
    }
}

impl Simulation {
    /// What a reader of the results must know: requests still in flight when the run stopped
    /// (their latencies are in no percentile: an overloaded or too short run looks better than
    /// it is), and p99.9s from too few samples.
    /// `offered`: what each workload offers over the window (as `summary` computed it);
    /// `devices`: the devices' part of the summary.
    fn result_warnings(&self, classes: &Map<String, Value>, devices: &Map<String, Value>, agg: &Aggregates, offered: &[Option<f64>], secs: f64) -> Vec<String> {
        let rv = &self.resolved;
        let mut out = Vec::new();
        // Open-loop workloads that the system does not carry: their backlog, and so their
        // latencies, grow with the run's length — the numbers describe this run, not a steady state.
        let mut short = Vec::new();
        for (w, plan) in rv.workloads.iter().enumerate() {
            let nest_config::resolve::SourcePlan::Synthetic(spec) = &plan.source else { continue };
            // A workload a fault cut short (its host crashed, requests failed) is short by what
            // the fault did, which `faults` reports: not an overload.
            if self.faults.as_ref().is_some_and(|f| f.crashed[self.workloads[w].host.ix()] || f.failed_by_workload[w] > 0) {
                continue;
            }
            let Some(offered) = offered[w] else { continue };
            let carried = (agg.per_workload[w][0].carried_bytes + agg.per_workload[w][1].carried_bytes) as f64 * 8.0 / secs.max(1e-12);
            // Short of the offered load by more than the arrivals' own (Poisson) noise allows.
            let size_bits = 8.0 * spec.mean_size();
            let expected_ios = offered * secs / size_bits.max(1.0);
            let short_ios = (offered - carried) * secs / size_bits.max(1.0);
            if offered > 0.0 && carried < OVERLOAD_CARRIED * offered && short_ios > 3.0 * expected_ios.sqrt() {
                short.push(format!("{} offers {} and carried {} ({:.0} %)", plan.name, gbps(offered), gbps(carried), 100.0 * carried / offered));
            }
        }
        if !short.is_empty() {
            out.push(format!(
                "overloaded: {} in the measurement window — the system does not carry these open-loop workloads, so their backlog and latencies grow with the run's length (compare runs of two lengths before reading their latencies as a steady state)",
                short.join("; ")
            ));
        }
        let issued: u64 = self.workloads.iter().map(|w| w.books.issued).sum();
        // Workloads that never issued a request (a start after the end, a trace with no record in
        // the run, a rate too low for its length): every figure of theirs is empty, which a reader
        // would otherwise take for a result (issue 63, S12).
        let silent: Vec<&str> = rv.workloads.iter().zip(&self.workloads).filter(|(_, w)| w.books.issued == 0).map(|(p, _)| p.name.as_str()).collect();
        if !silent.is_empty() {
            out.push(format!("no request issued by workload(s) {} during the run: their statistics are empty", silent.join(", ")));
        }
        let in_flight: u64 = self.workloads.iter().map(|w| w.books.in_flight()).sum();
        if issued > 0 && in_flight * 100 >= issued {
            let mut per_class = vec![(0u64, 0u64); rv.classes.len()];
            for (w, plan) in rv.workloads.iter().enumerate() {
                per_class[plan.class].0 += self.workloads[w].books.in_flight();
                per_class[plan.class].1 += self.workloads[w].books.issued;
            }
            let parts: Vec<String> = per_class
                .iter()
                .enumerate()
                .filter(|(_, &(f, _))| f > 0)
                .map(|(c, &(f, i))| format!("{} {:.0} %", rv.classes[c].name, 100.0 * f as f64 / i.max(1) as f64))
                .collect();
            out.push(format!(
                "{in_flight} of {issued} requests ({:.1} %) were still in flight when the run stopped at {:.6} s (per class: {}): their latencies are in no percentile, so the system is overloaded or the run too short for these numbers (run.drain = true runs them to completion)",
                100.0 * in_flight as f64 / issued as f64, self.now.as_secs_f64(), parts.join(", ")
            ));
        }
        // An SSD whose cache DRAM, not its flash, is the bottleneck (issue 62, finding 7): MQSim's
        // stock configuration has a 100 MT/s × 1 B DRAM, ~200 MB/s — slower than its flash.
        for (d, dev) in self.devices.iter().enumerate() {
            let DeviceRt::Ssd(s) = dev else { continue };
            // `get`: indexing a Map by a missing key would panic (a Value's index gives Null).
            let Some(figures) = devices.get(&rv.devices[d].name).map(|v| &v["ssd"]) else { continue };
            let dram = figures["dram_utilization"].as_f64().unwrap_or(0.0);
            let chip_mean = figures["chip_utilization"]["mean"].as_f64().unwrap_or(0.0);
            if dram >= DRAM_BOUND && chip_mean < 0.5 * dram {
                let k = &s.ssd.params.cache;
                out.push(format!(
                    "ssd {} is bound by its cache DRAM (busy {:.0} %, flash chips {:.0} %): the DRAM moves {:.0} MB/s ({} MT/s × {} B, double data rate), so requests queue for it, not for flash — the DRAM the device states (mqsim-default keeps MQSim's stock 100 MT/s × 1 B); a present-day drive's moves GB/s (preset consumer-nvme, or the device's cache.dram_rate and cache.dram_burst)",
                    rv.devices[d].name,
                    100.0 * dram,
                    100.0 * chip_mean,
                    k.dram_bytes_per_s() / 1e6,
                    k.dram_mts,
                    k.dram_burst
                ));
            }
        }
        if self.finished_label() == "drain_limit" {
            let d = rv.run.duration.unwrap_or_default() + rv.run.drain_limit.unwrap_or_default();
            out.push(format!(
                "the drain did not end: stopped at {:.6} s, run.drain_limit ({:.6} s) after the duration, with requests still in flight — the system does not clear its backlog (raise run.drain_limit, or lower the load)",
                d.as_secs_f64(),
                rv.run.drain_limit.unwrap_or_default().as_secs_f64()
            ));
        }
        let mut few = Vec::new();
        for (name, c) in classes {
            for op in ["read", "write"] {
                let n = c[op]["ios"].as_u64().unwrap_or(0);
                if n > 0 && n < P999_SAMPLES {
                    few.push(format!("{name} {op} ({n})"));
                }
            }
        }
        if !few.is_empty() {
            out.push(format!("p99.9 from fewer than {P999_SAMPLES} samples, not a stable estimate: {} (run longer, or read p99)", few.join(", ")));
        }
        out
    }

    /// How the run ended: every request done ("drained"), or stopped with requests in flight at
    /// the drain limit or at `run.max_time`.
    fn finished_label(&self) -> &'static str {
        if !self.hit_time_limit {
            return "drained";
        }
        let rv = &self.resolved;
        match (rv.run.duration, rv.run.drain_limit) {
            (Some(d), Some(l)) if rv.run.drain && d + l < rv.run.max_time => "drain_limit",
            _ => "time_limit",
        }
    }

    /// Builds the summary (call after the run has finished).
    pub fn summary(&mut self) -> Value {
        let end = self.now;
        for dev in self.devices.iter_mut() {
            if let DeviceRt::Ssd(s) = dev {
                // Idle PLM sets' windows, as they are at the end (this schedules nothing).
                s.ssd.plm_sync(end, &mut s.out);
            }
        }
        let secs = self.stats.window_seconds(end);
        let agg = self.stats.aggregate();
        let rv = &self.resolved;
        let used_classes: Vec<bool> = (0..rv.classes.len()).map(|c| rv.workloads.iter().any(|w| w.class == c)).collect();
        // What each open-loop synthetic workload offers over the window (None: closed loop, a
        // trace, or a fio job without a rate), and per class the sum when all of its have one.
        let (from, to) = self.measured_window();
        let to = to.unwrap_or(end);
        let offered: Vec<Option<f64>> = rv
            .workloads
            .iter()
            .map(|plan| match &plan.source {
                nest_config::resolve::SourcePlan::Synthetic(spec) => spec.offered_bps(from, to),
                _ => None,
            })
            .collect();
        let mut classes = Map::new();
        for (c, plan) in rv.classes.iter().enumerate() {
            if used_classes[c] {
                let mut m = rw_json(&agg.per_class[c], secs);
                m.insert("priority".into(), json!(plan.priority.name()));
                m.insert("passed_gbps".into(), passed_json(&self.stats.passed_device[c], &agg.per_class[c], secs));
                let of_class: Option<f64> = rv.workloads.iter().zip(&offered).filter(|(w, _)| w.class == c).map(|(_, o)| *o).sum();
                m.insert("offered_gbps".into(), json!(of_class.map(|b| r6(b / 1e9))));
                classes.insert(plan.name.clone(), Value::Object(m));
            }
        }
        let mut workloads = Map::new();
        let mut late_warnings: Vec<String> = Vec::new();
        for (w, plan) in rv.workloads.iter().enumerate() {
            let mut m = rw_json(&agg.per_workload[w], secs);
            m.insert("offered_gbps".into(), json!(offered[w].map(|b| r6(b / 1e9))));
            m.insert("class".into(), json!(rv.classes[plan.class].name));
            m.insert("host".into(), json!(rv.hosts[plan.host].name));
            m.insert("device".into(), json!(rv.devices[plan.device].name));
            let wl = &self.workloads[w];
            m.insert("issued".into(), json!(wl.books.issued));
            m.insert("completed".into(), json!(wl.books.completed));
            m.insert("in_flight".into(), json!(wl.books.in_flight()));
            if let Some(ts) = wl.trace_stats() {
                if ts.late > 0 {
                    let window = match &plan.source {
                        nest_config::resolve::SourcePlan::Trace { opts, .. } => opts.reorder_window,
                        _ => 0,
                    };
                    late_warnings.push(format!(
                        "workload '{}': {} of {} trace records ({:.1} %) came later than the reorder window ({window} records) could fix and were replayed at the window's time: the trace is not in time order (raise trace.reorder_window, or sort it)",
                        plan.name, ts.late, ts.records, 100.0 * ts.late as f64 / ts.records.max(1) as f64
                    ));
                }
                m.insert(
                    "trace".into(),
                    json!({
                        "records": ts.records, "lines": ts.lines, "headers": ts.headers, "not_io": ts.not_io,
                        "other_ops": ts.other_ops, "zero_size": ts.zero_size, "invalid": ts.invalid,
                        "filtered_device": ts.filtered_device, "late": ts.late, "rebased_clocks": ts.rebased_clocks,
                    }),
                );
            }
            workloads.insert(plan.name.clone(), Value::Object(m));
        }
        let mut devices = Map::new();
        for (d, dev) in self.devices.iter_mut().enumerate() {
            let mut m = rw_json(&agg.per_device[d], secs);
            match dev {
                DeviceRt::Ideal(dev) => {
                    let (util, qlen) = dev.utilisation(end);
                    m.insert("kind".into(), json!("ideal"));
                    m.insert("servers".into(), json!(dev.servers()));
                    m.insert("utilization".into(), json!(r6(util)));
                    m.insert("mean_queue_len".into(), json!(r6(qlen)));
                }
                DeviceRt::Pm(dev) => {
                    m.insert("kind".into(), json!("pm"));
                    m.insert("units".into(), json!(dev.pm.params.units));
                    m.insert("utilization".into(), json!(r6(dev.pm.utilisation(end))));
                    m.insert("media_bytes".into(), json!(dev.pm.bytes_moved));
                }
                DeviceRt::Ssd(dev) => {
                    m.insert("kind".into(), json!("ssd"));
                    m.insert("ssd".into(), ssd_json(dev, end));
                }
            }
            devices.insert(dev.name().to_string(), Value::Object(m));
        }
        let mut hosts = Map::new();
        for (i, h) in self.hosts.iter().enumerate() {
            let mut m = rw_json(&agg.per_host[i], secs);
            m.insert("issued".into(), json!(h.books.issued));
            m.insert("completed".into(), json!(h.books.completed));
            m.insert("in_flight".into(), json!(h.books.in_flight()));
            if let Some(c) = &self.caches[i] {
                m.insert("cache".into(), cache_json(c, &rv.classes));
            }
            hosts.insert(h.name.clone(), Value::Object(m));
        }
        let mut volumes = Map::new();
        for v in &self.volumes {
            let p = &v.plan;
            let layout = match p.layout {
                nest_config::resolve::volume::Layout::Single => json!("single"),
                nest_config::resolve::volume::Layout::Replicate => json!("replicate"),
                nest_config::resolve::volume::Layout::Stripe { unit } => json!({"stripe_unit_bytes": unit}),
            };
            let devs: Vec<&str> = p.devices.iter().map(|&d| rv.devices[d].name.as_str()).collect();
            let mut e = json!({"layout": layout, "devices": devs, "capacity_bytes": p.capacity});
            if p.sets.iter().any(|&s| s > 0) {
                e["nvm_sets"] = json!(p.sets);
            }
            volumes.insert(p.name.clone(), e);
        }
        let issued: u64 = self.workloads.iter().map(|w| w.books.issued).sum();
        let classes_plan = rv.classes.clone();
        let network = self.net.as_mut().map(|n| n.summary(end, secs, &classes_plan));
        let rv = &self.resolved;
        let mut out = json!({
            "nest_version": NEST_VERSION,
            "scenario": rv.name,
            "seed": rv.run.seed,
            "sim_time_s": r6(end.as_secs_f64()),
            "events": self.events,
            "fingerprint": format!("{:016x}", self.fingerprint.value()),
            "finished": self.finished_label(),
            // The bounds a run stops at whatever is in flight (run.max_time, run.drain_limit).
            "limits": {
                "max_time_s": r6(rv.run.max_time.as_secs_f64()),
                "drain_limit_s": rv.run.drain_limit.map(|l| r6(l.as_secs_f64())),
            },
            "window": {
                "start_s": r6(self.stats.window_start.as_secs_f64()),
                "end_s": r6(self.stats.window_end.map_or(end, |e| e.min(end)).as_secs_f64()),
                "seconds": r6(secs),
            },
            "requests": {
                "issued": issued,
                "completed": self.stats.completed,
                "in_flight": self.workloads.iter().map(|w| w.in_flight as u64).sum::<u64>(),
                "measured": self.stats.measured,
            },
            "conservation": match self.check_conservation() { Ok(()) => json!("ok"), Err(e) => json!(e) },
            "volumes": volumes,
            "warnings": rv.warnings.iter().cloned().chain(late_warnings).chain(self.result_warnings(&classes, &devices, &agg, &offered, secs)).collect::<Vec<_>>(),
            "config": serde_json::to_value(&rv.table).unwrap_or(Value::Null),
        });
        // Moved in, not interpolated above (see `object`).
        for (key, map) in [("classes", classes), ("workloads", workloads), ("devices", devices), ("hosts", hosts)] {
            out[key] = Value::Object(map);
        }
        if let Some(n) = network {
            out["network"] = n;
        }
        if let Some(pools) = self.pools_summary() {
            out["pools"] = pools;
        }
        if let Some(a) = self.aggregate.as_deref() {
            out["aggregate"] = a.summary();
        }
        if let Some((coords, gates)) = self.qos_summary() {
            out["coordinators"] = coords;
            for (h, g) in gates {
                out["hosts"][&h]["admission"] = g;
            }
        }
        if let (Some(rt), Some(net)) = (self.nvmeof.as_deref(), self.net.as_deref()) {
            out["nvmeof"] = nvmeof_json(rt, net, &rv.classes);
        }
        if let Some(h) = self.haechi.as_deref_mut() {
            // The run's periods end with the World's run (or its duration, if that came first).
            h.run.settle(end.min(h.run.end()));
            out["haechi"] = crate::haechi::result(&h.run);
        }
        if let Some(f) = self.faults_json() {
            // Failed requests leave their workloads' books as completions do: said apart here, so
            // issued = completed + failed + in flight.
            out["requests"]["failed"] = f["failed"].clone();
            for (w, n) in f["failed_by_workload"].as_object().into_iter().flatten() {
                let done = out["workloads"][w]["completed"].as_u64().unwrap_or(0);
                out["workloads"][w]["completed"] = json!(done - n.as_u64().unwrap_or(0));
                out["workloads"][w]["failed"] = n.clone();
            }
            // Requests of a crashed host in flight when it crashed are lost:
            // issued = completed + failed + lost + in flight.
            if f["lost"].as_u64().is_some_and(|n| n > 0) {
                out["requests"]["lost"] = f["lost"].clone();
                for (w, n) in f["lost_by_workload"].as_object().into_iter().flatten() {
                    out["workloads"][w]["lost"] = n.clone();
                }
            }
            out["faults"] = f;
        }
        out
    }
}

/// The NVMe-oF layer: its connections, each target's queues, and the message and byte books.
fn nvmeof_json(rt: &crate::nvmeof::NvmeofRt, net: &crate::net::NetRt, classes: &[nest_config::resolve::ClassPlan]) -> Value {
    let topo = &net.fabric.topo;
    let mut targets = Map::new();
    for (i, (t, &node)) in rt.targets.iter().zip(&rt.target_node).enumerate() {
        let mut v = json!({
            "commands": t.commands,
            "max_request_queue": t.requests.max_len,
            "max_response_queue": t.responses.max_len,
            "request_queue_at_end": t.requests.queue.len(),
            "response_queue_at_end": t.responses.queue.len(),
            "redirected": t.redirected,
            "held": t.holds,
            "held_at_end": t.held(),
            "background": {"started": t.background.issued, "in_flight": t.background.in_flight()},
        });
        if let Some(b) = rt.buffers.get(i) {
            v["buffer"] = json!({"capacity": b.capacity, "peak": b.peak, "held_at_end": b.used, "stalls": b.stalls, "waiting_at_end": rt.buffer_wait[i].len()});
        }
        targets.insert(topo.host_name(node).to_string(), v);
    }
    let conns: Vec<Value> = rt
        .plan
        .conns
        .iter()
        .map(|c| {
            let f = &net.tp.flows[c.fwd as usize];
            json!({
                "forward": f.spec.name,
                "back": net.tp.flows[c.back as usize].spec.name,
                "class": classes[c.class].name,
                "transport": f.spec.cc.name(),
            })
        })
        .collect();
    let b = &rt.books;
    let p = &rt.plan;
    json!({
        "connections": conns,
        "targets": targets,
        "commands_sent": b.commands_sent,
        "commands_received": b.commands_received,
        "responses_sent": b.responses_sent,
        "responses_received": b.responses_received,
        "in_flight": rt.in_flight(),
        "timed_out": rt.books.timed_out,
        "write_bytes": {"sent": b.write_bytes_sent, "at_target": b.write_bytes_at_target, "at_device": b.write_bytes_at_device},
        "read_bytes": {"at_device": b.read_bytes_at_device, "at_host": b.read_bytes_at_host},
        "rdma_reads": {"posted": b.pulls_sent, "answered": b.data_sent, "data_at_target": b.data_received},
        "params": {
            "command_capsule": p.command_capsule, "completion_capsule": p.completion_capsule, "data_header": p.data_header,
            "in_capsule_data": p.in_capsule_data, "queue_depth": p.queue_depth, "target_buffer": p.target_buffer,
            "target_overhead_us": r6(p.target_overhead.as_us_f64()), "response_overhead_us": r6(p.response_overhead.as_us_f64()),
            "host_overhead_us": r6(p.host_overhead.as_us_f64()),
        },
    })
}
