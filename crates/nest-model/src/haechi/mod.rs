//! Haechi runs (SPEC §10, issue 20): clients issuing one-sided RDMA reads to a memory-resident KV
//! data node, bare or behind Haechi's QoS engines and monitor. A run of its own, not a World
//! scenario: the data node is not on the storage path's packet fabric but on an InfiniBand-like
//! fabric at message granularity ([`nest_transport::verbs`]), which is what lets a 10-client
//! node at 1.57 M I/Os per second run faster than simulated time.

pub mod run;
pub mod spec;

pub use run::HaechiRun;
pub use spec::{HaechiFile, HaechiSpec};

use crate::stats::{lat_json, r6};
use nest_qos::haechi::Ledger;
use serde_json::{json, Value};

/// Runs the spec (JSON text) and returns the result as JSON (docs/haechi.md, "Outputs").
pub fn run_json(spec: &str) -> Result<Value, String> {
    let spec = HaechiSpec::from_json(spec)?;
    let mut r = HaechiRun::new(spec)?;
    r.run();
    Ok(result(&r))
}

fn ledger_json(l: &Ledger) -> Value {
    json!({
        "reservation_pushed": l.reservation_pushed, "reservation_used": l.reservation_used,
        "reservation_returned": l.reservation_returned, "reservation_expired": l.reservation_expired,
        "global_received": l.global_received, "global_used": l.global_used, "global_expired": l.global_expired,
        "faas": l.faas, "throttled": l.throttled,
    })
}

pub fn result(r: &HaechiRun) -> Value {
    let spec = r.spec();
    let periods_run = (r.now().0 / r.period().0) as usize;
    let mut total = vec![0u64; periods_run];
    let mut clients = Vec::new();
    for c in 0..r.clients() {
        let pp = r.per_period(c);
        let full: Vec<u64> = (0..periods_run).map(|k| pp.get(k).copied().unwrap_or(0)).collect();
        for (t, v) in total.iter_mut().zip(&full) {
            *t += v;
        }
        let s = &spec.clients[c];
        let (submitted, completed, in_flight, waiting, abandoned) = r.counts(c);
        let mut o = json!({
            "name": r.client_name(c), "reservation": s.reservation, "limit": s.limit, "demand": s.demand,
            "pattern": format!("{:?}", s.pattern).to_lowercase(), "managed": s.managed, "two_sided": s.two_sided,
            "per_period": full, "latency_us": lat_json(r.latency(c).0), "latency_from_post_us": lat_json(r.latency(c).1),
            "submitted": submitted, "completed": completed, "in_flight": in_flight, "waiting": waiting, "abandoned": abandoned,
        });
        if let Some(e) = r.engine(c) {
            o["tokens"] = ledger_json(&e.ledger);
            o["tokens_per_period"] = r.tokens[c].iter().map(ledger_json).collect::<Vec<_>>().into();
        }
        clients.push(o);
    }
    let periods: Vec<Value> = r.monitor().map(|m| m.periods.iter().map(|p| json!({
        "start_s": r6(p.start.as_secs_f64()), "capacity": p.capacity, "initial_pool": p.initial_pool,
        "reporting_from_s": p.reporting_from.map(|t| r6(t.as_secs_f64())), "conversions": p.conversions,
        "completed_reported": p.completed, "step": p.step.map(|s| format!("{s:?}").to_lowercase()),
    })).collect()).unwrap_or_default();
    let elapsed = r.now();
    let u = r.verbs().utilization(elapsed);
    let v = r.verbs();
    let conservation = r.conservation();
    let pool = r.pool();
    json!({
        "qos": format!("{:?}", spec.qos).to_lowercase(),
        "period_s": spec.period_s, "warmup_s": spec.warmup_s, "duration_s": spec.duration_s,
        "clients": clients,
        "per_period_total": total,
        "periods": periods,
        "pool_series": r.pool_series.iter().map(|&(t, p)| json!([r6(t), p])).collect::<Vec<_>>(),
        "pool": {"faas": pool.faas, "empty_faas": pool.empty_faas, "granted": pool.granted, "put_in": pool.put_in, "taken_out": pool.taken_out},
        "node": {
            "utilization": {"nic_send": r6(u[0]), "cpu": r6(u[1]), "link": r6(u[2]), "busiest_client_cpu": r6(u[3])},
            "two_sided_requests_at_cpu": v.target_cpu_requests, "monitor_messages": v.target_sends,
        },
        "conservation": {
            "ok": conservation.is_ok(), "error": conservation.err(),
            "verbs_posted": v.posted, "verbs_answered": v.answered, "verbs_in_flight": v.in_flight(),
        },
        "events": r.events,
        "sim_time_s": r6(elapsed.as_secs_f64()),
    })
}
