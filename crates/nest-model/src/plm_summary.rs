//! The `plm` block of an SSD in `summary.json`: per NVM set with Predictable Latency Mode, its
//! attributes, its windows (how many, how long, why they ended, host I/O in each), the NV
//! buffer, where the GC ran, and device latency by the window a command arrived in
//! (docs/outputs.md).

use crate::stats::{lat_json, r6};
use nest_core::stats::LatencyHistogram;
use nest_core::SimTime;
use nest_ssd::plm::{Reason, Window};
use nest_ssd::Ssd;
use serde_json::{json, Map, Value};

fn ms(t: SimTime) -> Value {
    json!(r6(t.0 as f64 / 1e9))
}

/// A count attribute; "no limit" is null.
fn count(c: u64) -> Value {
    if c == u64::MAX {
        Value::Null
    } else {
        json!(c)
    }
}

/// The run's latency fields, with the count.
fn lat(h: &LatencyHistogram) -> Value {
    let mut v = lat_json(h);
    v["ios"] = json!(h.count());
    v
}

/// `None` when no set of the drive has PLM.
pub fn plm_json(s: &Ssd, end: SimTime) -> Option<Value> {
    let sets: Vec<Value> = (0..s.nvm_sets()).filter_map(|i| {
        let (w, r) = s.plm_window(i)?;
        let a = &w.attrs;
        let st = &w.stats;
        let log = w.log_page(end);
        let window = |n: u64, total: SimTime, longest: SimTime, k: usize| {
            json!({"count": n, "total_ms": ms(total), "mean_ms": ms(SimTime(total.0 / n.max(1))), "longest_ms": ms(longest), "reads": st.reads[k], "writes": st.writes[k]})
        };
        let ended: Map<String, Value> = Reason::ALL.iter().map(|r| (r.name().to_string(), json!(st.ended[*r as usize]))).collect();
        Some(json!({
            "set": i,
            "attributes": {
                "c_rd": count(a.c_rd), "c_wr": count(a.c_wr), "t_dw_ms": ms(a.t_dw), "t_ndwh_ms": ms(a.t_ndwh), "t_ndwl_ms": ms(a.t_ndwl),
                "t_nd_max_ms": ms(a.t_nd_max), "optimal_write_bytes": a.optimal_write_bytes, "nv_buffer_bytes": a.nv_buffer_bytes, "nd_delay_mean_us": r6(a.nd_delay_mean.0 as f64 / 1e6),
            },
            "window_at_end": if log.window == Window::Dt { "dt" } else { "nd" },
            "dtwin": window(st.dt_windows, st.dt_time, st.dt_longest, 0),
            "ndwin": window(st.nd_windows, st.nd_time, st.nd_longest, 1),
            "ended": ended,
            "forced": st.forced(),
            "overruns": st.overruns,
            "nv_buffer": {"pages_in": r.nv_pages, "pages_flushed": r.nv_flushed, "pending_at_end": s.nv_pending(i), "peak_bytes": r.nv_peak_bytes},
            "gc_die_s": {"dtwin": r6(r.gc_ps[0] as f64 / 1e12), "ndwin": r6(r.gc_ps[1] as f64 / 1e12)},
            "programs_in_dtwin": r.programs_in_dt,
            "held_in_dtwin": r.held,
            "nd_delay": {"commands": r.nd_delays, "mean_us": r6(r.nd_delay_ps as f64 / r.nd_delays.max(1) as f64 / 1e6)},
            "device_latency_us": {
                "read": {"dtwin": lat(&r.latency[0][0]), "ndwin": lat(&r.latency[0][1])},
                "write": {"dtwin": lat(&r.latency[1][0]), "ndwin": lat(&r.latency[1][1])},
            },
        }))
    }).collect();
    let layout = if s.nvm_sets_share_dies() { "shared-dies" } else { "channels" };
    (!sets.is_empty()).then(|| json!({"nvm_sets": s.nvm_sets(), "layout": layout, "sets": sets}))
}
