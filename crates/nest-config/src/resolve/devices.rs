//! Resolution of `[[device]]`: the ideal device's service laws, and for `kind = "ssd"` and
//! `kind = "pm"` the preset, then field overrides, then the model's own validation, every
//! problem reported at its key.

use super::workload::time_dist;
use super::{Ctx, DeviceKindPlan, DevicePlan, IdealDevicePlan, NvmePlan, PmPlan, SsdPlan};
use crate::schema::*;
use nest_core::SimTime;
use nest_pm::PmParams;
use nest_ssd::params::{Allocation, CacheMode, Cell, Precondition, VictimPolicy};
use nest_ssd::presets;
use nest_ssd::switches::{
    ClassWrr, CmtGranularity, Destage, DramTiming, GcPrecedence, HotReset, MappingWrites, MergeRead, PageTypes, PcieFraming, ProgramTransfer, RgaSampling,
    WriteAdmission,
};
use nest_ssd::SsdParams;

/// The fastest ideal device accepted, b/s.
const MAX_DEVICE_BPS: f64 = 1e15;

/// Every `[[device]]` section, in order (a device with errors is left out; its errors are in `cx`).
pub(super) fn resolve_devices(cx: &mut Ctx, configs: &[DeviceConfig]) -> Vec<DevicePlan> {
    let mut devices = Vec::new();
    for (i, d) in configs.iter().enumerate() {
        let key = format!("device[{i}]");
        match d {
            DeviceConfig::Ideal(c) => {
                let servers = c.servers.unwrap_or(1);
                if servers == 0 || servers > 1_000_000 {
                    cx.err(&format!("{key}.servers"), format!("must be 1..1000000, got {servers}"));
                }
                let read = time_dist(cx, &format!("{key}.read"), &c.read);
                let write = time_dist(cx, &format!("{key}.write"), &c.write);
                let read_bps = c.read_bandwidth.as_ref().and_then(|b| cx.rate(&format!("{key}.read_bandwidth"), b));
                let write_bps = c.write_bandwidth.as_ref().and_then(|b| cx.rate(&format!("{key}.write_bandwidth"), b));
                let capacity = c.capacity.as_ref().map_or(Some(1u64 << 40), |s| cx.size(&format!("{key}.capacity"), s)).unwrap_or(1 << 40);
                if capacity < 4096 {
                    cx.err(&format!("{key}.capacity"), "must be at least 4 KiB");
                }
                let queue_depth = c.queue_depth.unwrap_or(u32::MAX);
                if queue_depth == 0 {
                    cx.err(&format!("{key}.queue_depth"), "must be at least 1");
                }
                for (bps, op) in [(&read_bps, "read"), (&write_bps, "write")] {
                    // Above 1 Pb/s a 512 B request takes under 5 ps: with a zero service time it is
                    // a closed loop that hardly lets time pass (issue 63, S9: 1e30 GB/s).
                    if bps.is_some_and(|b| b > MAX_DEVICE_BPS) {
                        cx.err(&format!("{key}.{op}_bandwidth"), format!("must be at most 1 Pbps, got {:.3e} b/s", bps.unwrap()));
                    }
                }
                for (d, op) in [(&read, "read"), (&write, "write")] {
                    // A mean service of a day or more is not a storage device; its tail could
                    // carry a time past the run's horizon (issue 63, S2).
                    if d.as_ref().is_some_and(|d| d.mean_ps() > 86_400e12) {
                        cx.err(
                            &format!("{key}.{op}"),
                            format!("a mean {op} time of a day or more is not a device's (got {:.3e} s)", d.as_ref().unwrap().mean_ps() / 1e12),
                        );
                    }
                }
                for (d, bps, op) in [(&read, &read_bps, "read"), (&write, &write_bps, "write")] {
                    if d.as_ref().is_some_and(|d| d.mean_ps() <= 0.0) && bps.is_none() {
                        cx.err(&format!("{key}.{op}"), format!("a {op} takes no time at all (mean 0) and no {op}_bandwidth bounds it: a closed loop on this device would never let time pass (give it a positive time)"));
                    }
                }
                if let (Some(read), Some(write)) = (read, write) {
                    devices.push(DevicePlan {
                        name: c.name.clone(),
                        capacity,
                        kind: DeviceKindPlan::Ideal(IdealDevicePlan {
                            servers: servers.max(1),
                            read,
                            write,
                            read_bps,
                            write_bps,
                            queue_depth: queue_depth.max(1),
                        }),
                    });
                }
            }
            DeviceConfig::Ssd(c) => {
                if let Some(plan) = ssd(cx, &key, c) {
                    devices.push(DevicePlan { name: c.name.clone(), capacity: plan.params.capacity(), kind: DeviceKindPlan::Ssd(Box::new(plan)) });
                }
            }
            DeviceConfig::Pm(c) => {
                if let Some(plan) = pm(cx, &key, c) {
                    devices.push(DevicePlan { name: c.name.clone(), capacity: plan.params.capacity, kind: DeviceKindPlan::Pm(plan) });
                }
            }
        }
    }
    devices
}

fn weights(cx: &mut Ctx, key: &str, w: &Option<Vec<u32>>, default: [u32; 3]) -> [u32; 3] {
    match w {
        None => default,
        Some(v) if v.len() == 3 && v.iter().all(|x| *x >= 1 && *x <= 1024) => [v[0], v[1], v[2]],
        Some(v) => {
            cx.err(key, format!("expected three weights 1..1024 for High, Medium, Low, got {v:?}"));
            default
        }
    }
}

pub(super) fn nvme_plan(cx: &mut Ctx, key: &str, c: &Option<NvmeConfig>) -> NvmePlan {
    let c = c.clone().unwrap_or_default();
    let (wrr, split) = match c.arbitration.as_deref() {
        None | Some("wrr") => (true, None),
        Some("rr") => (false, None),
        Some("ssq") => {
            let w = c.write_weight.unwrap_or(1);
            if !(1..=1024).contains(&w) {
                cx.err(&format!("{key}.write_weight"), format!("expected an integer 1..1024, got {w}"));
            }
            if c.weights.is_some() || c.burst.is_some() {
                cx.err(&format!("{key}.weights"), "ssq arbitrates between a read and a write SQ by write_weight: weights and burst are wrr's");
            }
            (false, Some(w.clamp(1, 1024)))
        }
        Some(o) => {
            cx.err(&format!("{key}.arbitration"), format!("'{o}' is not an arbitration (expected rr, wrr or ssq)"));
            (true, None)
        }
    };
    if split.is_none() && c.write_weight.is_some() {
        cx.err(&format!("{key}.write_weight"), "only arbitration = \"ssq\" has a write weight");
    }
    let burst = c.burst.unwrap_or(1);
    if burst == 0 || burst > 128 {
        cx.err(&format!("{key}.burst"), format!("expected 1..128, got {burst}"));
    }
    let sq_depth = c.sq_depth.unwrap_or(1024);
    if sq_depth == 0 || sq_depth > 65536 {
        cx.err(&format!("{key}.sq_depth"), format!("expected 1..65536, got {sq_depth}"));
    }
    NvmePlan { wrr, weights: weights(cx, &format!("{key}.weights"), &c.weights, [3, 2, 1]), burst: burst.clamp(1, 128), sq_depth: sq_depth.max(1), split }
}

fn times(cx: &mut Ctx, key: &str, v: &OneOrMany, into: &mut [SimTime; 4]) {
    match v {
        OneOrMany::One(s) => {
            if let Some(t) = cx.dur(key, s) {
                *into = [t; 4];
            }
        }
        OneOrMany::Many(list) => {
            if list.is_empty() || list.len() > 4 {
                cx.err(key, "expected one latency per page type (1 to 4 values: LSB, CSB, MSB, …)");
                return;
            }
            for (i, s) in list.iter().enumerate() {
                if let Some(t) = cx.dur(&format!("{key}[{i}]"), s) {
                    into[i] = t;
                }
            }
            let last = into[list.len() - 1];
            for slot in into.iter_mut().skip(list.len()) {
                *slot = last;
            }
        }
    }
}

pub(super) fn ssd(cx: &mut Ctx, key: &str, c: &SsdDeviceConfig) -> Option<SsdPlan> {
    let preset_name = c.preset.as_deref().unwrap_or("mqsim-default");
    let Some(mut p) = presets::preset(preset_name) else {
        cx.err(&format!("{key}.preset"), format!("no SSD preset '{preset_name}' (presets: {})", presets::NAMES.join(", ")));
        return None;
    };
    if let Some(g) = &c.geometry {
        let gp = &mut p.geometry;
        for (v, slot) in [
            (g.channels, &mut gp.channels),
            (g.chips_per_channel, &mut gp.chips_per_channel),
            (g.dies_per_chip, &mut gp.dies_per_chip),
            (g.planes_per_die, &mut gp.planes_per_die),
            (g.blocks_per_plane, &mut gp.blocks_per_plane),
            (g.pages_per_block, &mut gp.pages_per_block),
        ] {
            if let Some(v) = v {
                *slot = v;
            }
        }
        if let Some(s) = &g.page_size {
            if let Some(b) = cx.size32(&format!("{key}.geometry.page_size"), s) {
                gp.page_size = b;
            }
        }
    }
    if let Some(f) = &c.flash {
        let t = &mut p.timing;
        if let Some(s) = &f.cell {
            match Cell::from_name(s) {
                Some(cell) => t.cell = cell,
                None => cx.err(&format!("{key}.flash.cell"), format!("'{s}' is not a cell type (expected slc, mlc, tlc or qlc)")),
            }
        }
        if let Some(v) = &f.read {
            times(cx, &format!("{key}.flash.read"), v, &mut t.read);
        }
        if let Some(v) = &f.program {
            times(cx, &format!("{key}.flash.program"), v, &mut t.program);
        }
        if let Some(s) = &f.erase {
            t.erase = cx.dur(&format!("{key}.flash.erase"), s).unwrap_or(t.erase);
        }
        if let Some(s) = &f.command {
            t.command = cx.dur(&format!("{key}.flash.command"), s).unwrap_or(t.command);
        }
        t.channel_mts = f.channel_rate.unwrap_or(t.channel_mts);
        t.channel_width = f.channel_width.unwrap_or(t.channel_width);
    }
    if let Some(f) = &c.ftl {
        let ftl = &mut p.ftl;
        ftl.overprovisioning = f.overprovisioning.unwrap_or(ftl.overprovisioning);
        if let Some(s) = &f.cmt {
            ftl.cmt_bytes = if s == "all" { None } else { cx.size(&format!("{key}.ftl.cmt"), s).or(ftl.cmt_bytes) };
        }
        if let Some(s) = &f.allocation {
            match Allocation::parse(s) {
                Some(a) => ftl.allocation = a,
                None => cx.err(
                    &format!("{key}.ftl.allocation"),
                    format!("'{s}' is not an allocation scheme (expected an order of the letters C, W, D, P such as CWDP, or dynamic)"),
                ),
            }
        }
        if let Some(s) = &f.gc_policy {
            match VictimPolicy::from_name(s) {
                Some(v) => ftl.victim = v,
                None => cx.err(&format!("{key}.ftl.gc_policy"), format!("'{s}' is not a GC victim policy (expected greedy, random, rga or fifo)")),
            }
        }
        ftl.rga_d = f.rga_d.unwrap_or(ftl.rga_d);
        ftl.gc_soft = f.gc_soft.unwrap_or(ftl.gc_soft);
        ftl.gc_hard = f.gc_hard.unwrap_or(ftl.gc_hard);
        ftl.copyback = f.copyback.unwrap_or(ftl.copyback);
        ftl.gc_preemptible = f.gc_preemptible.unwrap_or(ftl.gc_preemptible);
        ftl.dynamic_wl = f.dynamic_wear_levelling.unwrap_or(ftl.dynamic_wl);
        if let Some(th) = f.static_wear_levelling {
            ftl.static_wl_threshold = (th > 0).then_some(th);
        }
    }
    if let Some(k) = &c.cache {
        let cp = &mut p.cache;
        if let Some(s) = &k.mode {
            match CacheMode::from_name(s) {
                Some(m) => cp.mode = m,
                None => cx.err(&format!("{key}.cache.mode"), format!("'{s}' is not a cache mode (expected off, write, read or write_read)")),
            }
        }
        if let Some(s) = &k.capacity {
            cp.capacity = cx.size(&format!("{key}.cache.capacity"), s).unwrap_or(cp.capacity);
        }
        cp.dram_mts = k.dram_rate.unwrap_or(cp.dram_mts);
        cp.dram_burst = k.dram_burst.unwrap_or(cp.dram_burst);
        if let Some(s) = &k.t_rcd {
            cp.t_rcd = cx.dur(&format!("{key}.cache.t_rcd"), s).unwrap_or(cp.t_rcd);
        }
        if let Some(s) = &k.t_cl {
            cp.t_cl = cx.dur(&format!("{key}.cache.t_cl"), s).unwrap_or(cp.t_cl);
        }
        if let Some(s) = &k.t_rp {
            cp.t_rp = cx.dur(&format!("{key}.cache.t_rp"), s).unwrap_or(cp.t_rp);
        }
        if let Some(s) = &k.dram_row {
            cp.row_bytes = cx.size32(&format!("{key}.cache.dram_row"), s).unwrap_or(cp.row_bytes);
        }
        cp.flush_reserve = k.flush_reserve.unwrap_or(cp.flush_reserve);
    }
    if let Some(h) = &c.host_interface {
        let hp = &mut p.host;
        hp.pcie_lanes = h.pcie_lanes.unwrap_or(hp.pcie_lanes);
        if let Some(s) = &h.lane_bandwidth {
            hp.lane_bytes_per_s = cx.rate(&format!("{key}.host_interface.lane_bandwidth"), s).map_or(hp.lane_bytes_per_s, |b| b / 8.0);
        }
        hp.queue_depth = h.queue_depth.unwrap_or(hp.queue_depth);
        if let Some(s) = &h.command_overhead {
            hp.command_overhead = cx.dur(&format!("{key}.host_interface.command_overhead"), s).unwrap_or(hp.command_overhead);
        }
    }
    if let Some(s) = &c.scheduler {
        p.sched.device_qos = s.device_qos.unwrap_or(p.sched.device_qos);
        p.sched.weights = weights(cx, &format!("{key}.scheduler.weights"), &s.weights, p.sched.weights);
        let sp = &mut p.sched.suspend;
        if let Some(k) = &s.suspend {
            if !sp.set_kinds(k) {
                cx.err(&format!("{key}.scheduler.suspend"), format!("'{k}' is not a suspension mode (expected off, program, erase or program_erase)"));
            }
        }
        for (v, slot, k) in [
            (&s.suspend_program_latency, &mut sp.program_latency, "suspend_program_latency"),
            (&s.suspend_erase_latency, &mut sp.erase_latency, "suspend_erase_latency"),
            (&s.suspend_program_min_remaining, &mut sp.program_min_remaining, "suspend_program_min_remaining"),
            (&s.suspend_erase_min_remaining_read, &mut sp.erase_min_remaining_read, "suspend_erase_min_remaining_read"),
            (&s.suspend_erase_min_remaining_write, &mut sp.erase_min_remaining_write, "suspend_erase_min_remaining_write"),
        ] {
            if let Some(t) = v {
                *slot = cx.dur(&format!("{key}.scheduler.{k}"), t).unwrap_or(*slot);
            }
        }
        sp.max_per_op = s.suspend_max_per_operation.unwrap_or(sp.max_per_op);
    }
    if let Some(pc) = &c.precondition {
        p.precondition = Some(Precondition {
            occupancy: pc.occupancy.unwrap_or(0.9),
            overwrites: pc.overwrites.unwrap_or(1.0),
            dirty_cache: pc.dirty_cache.unwrap_or(false),
            hot: match (pc.hot_fraction, pc.hot_share) {
                (Some(f), Some(s)) => Some((f, s)),
                (None, None) => None,
                _ => {
                    cx.err(&format!("{key}.precondition"), "expected hot_fraction and hot_share together");
                    None
                }
            },
            cmt_warm: cmt_warm(cx, key, pc.cmt_warm.as_ref()),
            from_workloads: pc.from_workloads.unwrap_or(false),
            replay: Default::default(),
            walk_seed: pc.walk_seed,
        });
    }
    model_switches(cx, key, c, &mut p);
    super::plm::nvm_sets_and_plm(cx, key, c, &mut p);
    let nvme = nvme_plan(cx, &format!("{key}.nvme"), &c.nvme);
    let problems = p.validate();
    let section = |k: &str| match k.split('.').next().unwrap_or("") {
        "timing" => k.replacen("timing.", "flash.", 1),
        "host" => k.replacen("host.", "host_interface.", 1),
        _ => k.to_string(),
    };
    let ok = problems.is_empty();
    for (k, m) in problems {
        cx.err(&format!("{key}.{}", section(&k)), m);
    }
    let ok = ok && {
        let g = &p.geometry;
        let what = format!(
            "the drive's FTL, cache and mapping tables ({} physical pages, {} cache slots{})",
            g.planes() as u64 * g.blocks_per_plane as u64 * g.pages_per_block as u64,
            p.cache_slots(),
            if p.precondition.is_some() { ", preconditioned" } else { "" }
        );
        let need = p.memory_bytes_at_start();
        let part = if p.cache_slots() as u64 * 64 > need { "cache" } else { "geometry" };
        cx.memory(&format!("{key}.{part}"), need, what)
    };
    ok.then_some(SsdPlan { params: p, nvme })
}

pub(super) fn pm(cx: &mut Ctx, key: &str, c: &PmDeviceConfig) -> Option<PmPlan> {
    let mut p = PmParams::default();
    if let Some(s) = &c.capacity {
        p.capacity = cx.size(&format!("{key}.capacity"), s).unwrap_or(p.capacity);
    }
    for (v, slot, k) in [(&c.read, &mut p.read, "read"), (&c.write, &mut p.write, "write"), (&c.jitter, &mut p.jitter, "jitter")] {
        if let Some(s) = v {
            *slot = cx.dur(&format!("{key}.{k}"), s).unwrap_or(*slot);
        }
    }
    if let Some(s) = &c.read_bandwidth {
        p.read_bw = cx.rate(&format!("{key}.read_bandwidth"), s).map_or(p.read_bw, |b| b / 8.0);
    }
    if let Some(s) = &c.write_bandwidth {
        p.write_bw = cx.rate(&format!("{key}.write_bandwidth"), s).map_or(p.write_bw, |b| b / 8.0);
    }
    if let Some(s) = &c.line {
        p.line = cx.size32(&format!("{key}.line"), s).unwrap_or(p.line);
    }
    p.units = c.units.unwrap_or(p.units);
    p.queue_depth = c.queue_depth.unwrap_or(p.queue_depth);
    let problems = p.validate();
    let ok = problems.is_empty();
    for (k, m) in problems {
        cx.err(&format!("{key}.{k}"), m);
    }
    ok.then_some(PmPlan { params: p })
}

/// `compat` (a whole set of MQSim's choices, after the geometry is known), then `model` keys.
fn model_switches(cx: &mut Ctx, key: &str, c: &SsdDeviceConfig, p: &mut SsdParams) {
    match c.compat.as_deref() {
        None => {}
        Some("mqsim") => {
            p.model = p.mqsim_switches();
            // MQSim never triggers suspension (MODEL-NOTES), whatever its configuration says.
            p.sched.suspend.set_kinds("off");
        }
        Some(other) => cx.err(&format!("{key}.compat"), format!("'{other}' is not a compatibility mode (expected mqsim)")),
    }
    let Some(m) = &c.model else { return };
    let k = |f: &str| format!("{key}.model.{f}");
    let sw = &mut p.model;
    // The keys that set their switch as given; the others are checked or converted below.
    macro_rules! given { ($($f:ident),* $(,)?) => { $( if let Some(v) = m.$f.clone() { sw.$f = v; } )* }; }
    given! {
        die_interleave, command_waits_for_channel, multiplane_same_page, data_out_per_page, mapping_out_first, multiplane_across_classes, unwritten_read_maps,
        evicted_entry_misfiled, cmt_entry_bytes, map_entry_bytes, gc_floor_blocks, pages_at_dispatch, gc_jobs_per_plane, gc_reads_first, cmt_per_domain,
        open_frontiers, gc_user_partners, gc_erases_last, map_page_offsets, channel_whole_ns, schedule_after_submit, onfi_command_phases, gc_multiplane,
        sqe_over_pcie, mapping_domains, gc_lock_loses_writebacks, walk_idle_channels,
        precondition_closes_frontiers, mean_field_layout, stream_frontiers, segment_skews, gc_at_block_takes,
        gc_moves_enter_cmt, static_wl_block_ids, gc_read_partners, gc_lock_hangs_reads, map_read_partners, gc_thresholds_truncated,
        gc_waits_for_user_reads, writeback_refreshes_siblings
    }
    if m.gc_seed.is_some() {
        sw.gc_seed = m.gc_seed;
    }
    if let Some(n) = m.writeback_limit_pages {
        sw.writeback_limit_pages = (n > 0).then_some(n);
    }
    if let Some(doms) = &m.domains {
        let g = &p.geometry;
        let all = |l: &Option<Vec<u32>>, n: u32| l.clone().unwrap_or_else(|| (0..n).collect());
        sw.domains = doms
            .iter()
            .map(|d| nest_ssd::domains::DomainResources {
                start: d.start,
                ids: [all(&d.channels, g.channels), all(&d.chips, g.chips_per_channel), all(&d.dies, g.dies_per_chip), all(&d.planes, g.planes_per_die)],
            })
            .collect();
    }
    choice(cx, &k("hot_reset"), &m.hot_reset, "a hot-window reset", &HotReset::ALL, HotReset::name, &mut sw.hot_reset);
    choice(cx, &k("class_wrr"), &m.class_wrr, "a class round-robin", &ClassWrr::ALL, ClassWrr::name, &mut sw.class_wrr);
    if let Some(s) = &m.hot_window {
        sw.hot_window = cx.dur(&k("hot_window"), s).unwrap_or(sw.hot_window);
    }
    choice(cx, &k("program_transfer"), &m.program_transfer, "a program transfer", &ProgramTransfer::ALL, ProgramTransfer::name, &mut sw.program_transfer);
    choice(cx, &k("cmt_granularity"), &m.cmt_granularity, "a CMT granularity", &CmtGranularity::ALL, CmtGranularity::name, &mut sw.cmt_granularity);
    choice(cx, &k("mapping_writes"), &m.mapping_writes, "a mapping-write policy", &MappingWrites::ALL, MappingWrites::name, &mut sw.mapping_writes);
    choice(cx, &k("merge_read"), &m.merge_read, "a merge-read size", &MergeRead::ALL, MergeRead::name, &mut sw.merge_read);
    choice(cx, &k("destage"), &m.destage, "a destage policy", &Destage::ALL, Destage::name, &mut sw.destage);
    choice(cx, &k("gc_precedence"), &m.gc_precedence, "a GC precedence", &GcPrecedence::ALL, GcPrecedence::name, &mut sw.gc_precedence);
    choice(cx, &k("dram_timing"), &m.dram_timing, "a DRAM timing", &DramTiming::ALL, DramTiming::name, &mut sw.dram_timing);
    choice(cx, &k("write_admission"), &m.write_admission, "a write admission", &WriteAdmission::ALL, WriteAdmission::name, &mut sw.write_admission);
    choice(cx, &k("pcie_framing"), &m.pcie_framing, "a PCIe framing", &PcieFraming::ALL, PcieFraming::name, &mut sw.pcie_framing);
    choice(cx, &k("rga_sampling"), &m.rga_sampling, "an RGA sampling", &RgaSampling::ALL, RgaSampling::name, &mut sw.rga_sampling);
    choice(cx, &k("page_types"), &m.page_types, "a page-type map", &PageTypes::ALL, PageTypes::name, &mut sw.page_types);
}

/// Sets `slot` to the option `name`d by `value`, or reports the key with the names expected.
fn choice<T: Copy>(cx: &mut Ctx, key: &str, value: &Option<String>, what: &str, options: &[T], name: fn(T) -> &'static str, slot: &mut T) {
    let Some(v) = value else { return };
    match options.iter().find(|&&x| name(x) == v) {
        Some(&x) => *slot = x,
        None => {
            let names: Vec<&str> = options.iter().map(|&x| name(x)).collect();
            cx.err(key, format!("'{v}' is not {what} (expected {})", names.join(" or ")));
        }
    }
}

/// `precondition.cmt_warm`: shares of the mapping cache, each in [0, 1] (empty: none).
fn cmt_warm(cx: &mut Ctx, key: &str, v: Option<&Shares>) -> Vec<f64> {
    let shares = match v {
        None => return Vec::new(),
        Some(Shares::One(x)) => vec![*x],
        Some(Shares::Many(xs)) => xs.clone(),
    };
    if let Some(bad) = shares.iter().find(|x| !(0.0..=1.0).contains(*x)) {
        cx.err(&format!("{key}.precondition.cmt_warm"), format!("expected shares of the mapping cache between 0 and 1, got {bad}"));
        return Vec::new();
    }
    shares
}
