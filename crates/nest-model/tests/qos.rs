//! The QoS seam end to end: a coordinator's budgets enforced at the hosts' admission gates.

mod common;
use common::{f, run};

/// Two hosts each offering 40 k reads/s (Poisson) to an ideal device; `coord` is appended.
fn two_tenants(coord: &str, extra: &str) -> String {
    let mut s = String::from(
        r#"
schema = 1
[run]
duration = "50ms"
warmup = "0%"
wrapup = "0%"
drain = true
[[host]]
name = "h0"
[[host]]
name = "h1"
[[device]]
name = "d"
kind = "ideal"
servers = 64
read = { dist = "fixed", value = "20us" }
write = { dist = "fixed", value = "20us" }
"#,
    );
    for (h, c) in [("h0", "high"), ("h1", "low")] {
        s += &format!("[[workload]]\nname = \"{h}\"\nhost = \"{h}\"\ndevice = \"d\"\nclass = \"{c}\"\narrival = {{ kind = \"poisson\", rate_iops = 40000 }}\nsize = {{ dist = \"fixed\", bytes = \"4KiB\" }}\nread_fraction = 1.0\n{extra}");
    }
    s + coord
}

#[test]
fn a_fixed_budget_caps_its_host_at_the_admission_gate_and_leaves_others_alone() {
    let coord = "[[coordinator]]\nname = \"cap\"\nkind = \"fixed-budget\"\nperiod = \"1ms\"\nios = 10\nhosts = [\"h0\"]\n";
    let (s, sim) = run(&two_tenants(coord, ""));
    sim.check_conservation().unwrap();
    assert_eq!(s["conservation"], "ok");
    // ~2,000 arrivals at h0 in 50 ms, but 50 periods × 10 admitted at most, plus the drain.
    let adm = &s["hosts"]["h0"]["admission"];
    let offered = f(adm, "offered");
    assert!((1800.0..2200.0).contains(&offered), "offered {offered}");
    // Admitted: 10 per period while the run lasts; the held rest drains after 50 ms.
    assert_eq!(f(adm, "admitted"), offered, "drained: everything offered got through");
    assert_eq!(f(adm, "held_now"), 0.0);
    let periods_to_drain = (offered / 10.0).ceil();
    assert!(f(adm, "budgets") >= periods_to_drain, "{} budgets for {offered} requests", f(adm, "budgets"));
    assert!(f(adm, "mean_wait_us") > 1000.0, "queued behind the cap: {} µs", f(adm, "mean_wait_us"));
    // The capped host's throughput is its budget: 10 per ms = 10 k IOPS, over its whole span.
    let h0_ios = f(&s, "workloads.h0.completed");
    let span_s = f(&s, "sim_time_s");
    assert!((h0_ios / span_s - 10_000.0).abs() < 300.0, "h0 {} IOPS over {span_s} s", h0_ios / span_s);
    // h1 has no gate: no admission section, and no wait at the host.
    assert!(s["hosts"]["h1"].get("admission").is_none());
    assert!(f(&s, "classes.low.read.host_wait_us.mean") < 1.0);
    assert_eq!(s["coordinators"]["cap"]["kind"], "fixed-budget");
    assert_eq!(s["coordinators"]["cap"]["hosts"][0], "h0");
}

#[test]
fn a_budget_above_demand_changes_nothing_but_the_books() {
    let coord = "[[coordinator]]\nname = \"loose\"\nkind = \"fixed-budget\"\nperiod = \"1ms\"\nios = 1000\n";
    let (gated, _) = run(&two_tenants(coord, ""));
    let (free, _) = run(&two_tenants("", ""));
    for c in ["high", "low"] {
        assert_eq!(gated["classes"][c], free["classes"][c], "class {c}");
    }
    assert_eq!(f(&gated["hosts"]["h1"]["admission"], "waited"), 0.0);
    assert!(free.get("coordinators").is_none(), "a run without coordinators reports none");
}

#[test]
fn coordinator_sections_are_checked() {
    use nest_config::{load_str, resolve};
    let bad = two_tenants("[[coordinator]]\nname = \"c\"\nkind = \"fixed-budget\"\nperiod = \"0ms\"\nhosts = [\"h9\"]\n", "");
    let l = load_str(&bad, "t.toml", ".".into(), &[], None).unwrap();
    let e = resolve(&l, &bad).unwrap_err().to_string();
    assert!(e.contains("coordinator[0].hosts[0]") && e.contains("no host named 'h9'"), "{e}");
    assert!(e.contains("coordinator[0].period") && e.contains("must be positive"), "{e}");
    let bad = two_tenants("[[coordinator]]\nname = \"c\"\nkind = \"tokens\"\n", "");
    let l = load_str(&bad, "t.toml", ".".into(), &[], None).unwrap();
    let e = resolve(&l, &bad).unwrap_err().to_string();
    assert!(e.contains("coordinator[0].kind") && e.contains("expected fixed-budget"), "{e}");
}
