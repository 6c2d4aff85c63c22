//! Haechi runs (SPEC §10, issue 20): clients issuing one-sided RDMA reads to a memory-resident KV
//! data node, bare or behind Haechi's QoS engines and monitor. Alone, a run has its own queue
//! and the data node sits on an InfiniBand-like switch at message granularity
//! ([`nest_transport::verbs`]), which is what lets a 10-client node at 1.57 M I/Os per second
//! run faster than simulated time. In a World scenario with a `[network]` the same run's verbs
//! cross the packet fabric beside the storage traffic ([`world`]).

mod events;
pub mod keys;
mod node;
mod results;
pub mod run;
mod state;
pub use nest_config::haechi as spec;
pub mod world;

pub use run::HaechiRun;
pub use spec::{HaechiFile, HaechiSpec};

use crate::stats::{lat_json, r6};
use nest_qos::haechi::admission::admits;
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

/// Completed I/Os in each of the first `periods` periods (none counted: 0).
fn per_periods(pp: &[u64], periods: usize) -> Vec<u64> {
    (0..periods).map(|k| pp.get(k).copied().unwrap_or(0)).collect()
}

/// A client's own saturation rate C_L (I/Os per second): its I/O thread's time per verb, and for
/// a two-sided client the receive it posts too.
pub(crate) fn c_l(v: &nest_transport::verbs::Verbs, two_sided: bool) -> f64 {
    let extra = if two_sided { v.p.client_cpu_two_sided_extra.0 } else { 0 };
    1e12 / (v.p.client_cpu_per_verb.0 + extra) as f64
}

pub fn result(r: &HaechiRun) -> Value {
    let spec = r.spec();
    let periods_run = (r.now().0 / r.period().0) as usize;
    let mut total = vec![0u64; periods_run];
    let mut clients = Vec::new();
    for c in 0..r.clients() {
        let full = per_periods(r.per_period(c), periods_run);
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
        if let Some(l) = r.ledger(c) {
            o["alerts"] = r.alerts(c).into();
            o["tokens"] = ledger_json(&l);
            o["tokens_per_period"] = r.tokens_per_period(c).iter().map(ledger_json).collect::<Vec<_>>().into();
        }
        if r.nodes().len() > 1 {
            o["per_node"] = (0..r.nodes().len()).map(|j| per_periods(r.per_period_at(c, j), periods_run)).collect::<Vec<_>>().into();
        }
        clients.push(o);
    }
    let elapsed = r.now();
    let v = r.verbs();
    let nodes: Vec<Value> = r.nodes().iter().enumerate().map(|(j, n)| {
        let u = v.utilization(j, elapsed);
        let pool = &n.pool;
        let mut total = vec![0u64; periods_run];
        for c in 0..r.clients() {
            for (t, x) in total.iter_mut().zip(per_periods(r.per_period_at(c, j), periods_run)) {
                *t += x;
            }
        }
        let c_ls: Vec<f64> = spec.clients.iter().map(|s| c_l(v, s.two_sided)).collect();
        let admission = admits(&n.reservations, spec.period_s, spec.protocol.capacity as f64 / spec.period_s, &c_ls);
        json!({
            "share": r6(r.shares()[j]),
            "reservations": n.reservations,
            "admission": {"ok": admission.is_ok(), "error": admission.err()},
            "per_period_total": total,
            "periods": n.monitor.as_ref().map(|m| m.periods.iter().map(|p| json!({
                "start_s": r6(p.start.as_secs_f64()), "capacity": p.capacity, "initial_pool": p.initial_pool,
                "reporting_from_s": p.reporting_from.map(|t| r6(t.as_secs_f64())), "conversions": p.conversions,
                "completed_reported": p.completed, "step": p.step.map(|s| format!("{s:?}").to_lowercase()),
                "refused": p.refused, "alerted": p.alerted, "local_breaks": p.local_breaks,
            })).collect::<Vec<_>>()).unwrap_or_default(),
            "pool_series": n.pool_series.iter().map(|&(t, p)| json!([r6(t), p])).collect::<Vec<_>>(),
            // The node's speed in each period (service_cv > 0; empty: the nominal speed).
            "speed_per_period": n.speeds.iter().take(periods_run).map(|&s| r6(s)).collect::<Vec<_>>(),
            "pool": {"faas": pool.faas, "empty_faas": pool.empty_faas, "granted": pool.granted, "put_in": pool.put_in, "taken_out": pool.taken_out},
            // On the packet fabric the node's link is the network's port (its summary).
            "utilization": {"nic_send": r6(u[0]), "cpu": r6(u[1]), "link": if r.wire() == run::Wire::Verbs { json!(r6(u[2])) } else { Value::Null }, "busiest_client_cpu": r6(v.busiest_client_cpu(elapsed))},
            "two_sided_requests_at_cpu": v.targets[j].cpu_requests, "monitor_messages": v.targets[j].sends, "monitor_cas": n.cas,
        })
    }).collect();
    let conservation = r.conservation();
    let first = &nodes[0];
    json!({
        "qos": format!("{:?}", spec.qos).to_lowercase(),
        "wire": if r.wire() == run::Wire::Verbs { "verbs" } else { "fabric" },
        "period_s": spec.period_s, "warmup_s": spec.warmup_s, "duration_s": spec.duration_s, "service_cv": spec.service_cv,
        "clients": clients,
        "per_period_total": total,
        // The first data node's monitor, pool and resources (the only one, unless `nodes` > 1:
        // then every node's are under "nodes").
        "periods": first["periods"], "pool_series": first["pool_series"], "pool": first["pool"],
        "node": {"utilization": first["utilization"], "two_sided_requests_at_cpu": first["two_sided_requests_at_cpu"], "monitor_messages": first["monitor_messages"]},
        "nodes": nodes,
        "conservation": {
            "ok": conservation.is_ok(), "error": conservation.err(),
            "verbs_posted": v.posted, "verbs_answered": v.answered, "verbs_in_flight": v.in_flight(),
        },
        "events": r.events,
        "sim_time_s": r6(elapsed.as_secs_f64()),
    })
}
