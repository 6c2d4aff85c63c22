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
    assert!(e.contains("coordinator[0].period") && e.contains("must be at least 1us"), "{e}");
    // An unknown kind is refused as the file is read, with the kinds there are.
    let bad = two_tenants("[[coordinator]]\nname = \"c\"\nkind = \"tokens\"\n", "");
    let e = load_str(&bad, "t.toml", ".".into(), &[], None).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("coordinator[0].kind") && e.contains("unknown variant `tokens`") && e.contains("`fixed-budget`"), "{e}");
}

/// One client (s0) reading 64 KiB blocks over DCQCN from three storage servers at more than its
/// 10 Gb/s link carries: the read data converges on the client's switch port, which marks (RED),
/// so CNPs reach the servers' sending channels.
fn read_incast(coord: &str) -> String {
    common::dcqcn_incast(
        |r| {
            format!("[[device]]\nname = \"d{r}\"\nkind = \"ideal\"\nserver = \"{r}\"\nservers = 16\nread = {{ dist = \"fixed\", value = \"10us\" }}\nwrite = {{ dist = \"fixed\", value = \"10us\" }}\n")
                + &format!("[[workload]]\nname = \"w{r}\"\nhost = \"s0\"\ndevice = \"d{r}\"\nclass = \"high\"\narrival = {{ kind = \"poisson\", bandwidth = \"6Gbps\" }}\nsize = {{ dist = \"fixed\", bytes = \"64KiB\" }}\nread_fraction = 1.0\n")
        },
        coord,
    )
}

#[test]
fn a_congestion_monitor_sees_cnp_driven_rate_cuts_at_the_targets_sending_channels() {
    let coord = "[[coordinator]]\nname = \"mon\"\nkind = \"congestion-monitor\"\nservers = [\"r0\", \"r1\"]\n";
    let (s, sim) = run(&read_incast(coord));
    sim.check_conservation().unwrap();
    let r = &s["coordinators"]["mon"]["report"];
    assert_eq!(f(r, "watched_channels"), 2.0, "one connection (s0, class high) per watched server");
    // Every CNP the two servers' back channels received is one reported rate cut.
    let flows = s["network"]["flows"].as_object().unwrap();
    let back_cnps: f64 = flows.values().filter(|fl| fl["src"] == "r0" || fl["src"] == "r1").filter(|fl| fl["dst"] == "s0").map(|fl| f(fl, "cnps")).sum();
    let r2_cnps: f64 = flows.values().filter(|fl| fl["src"] == "r2").map(|fl| f(fl, "cnps")).sum();
    assert!(back_cnps > 10.0 && r2_cnps > 0.0, "the incast marks: {back_cnps} CNPs at r0/r1, {r2_cnps} at r2");
    assert_eq!(f(r, "rate_cuts"), back_cnps, "r2's channel is not watched");
    assert!(f(r, "rate_raises") > 0.0);
    let min = f(r, "min_rate_gbps");
    assert!(min > 0.0 && min < 10.0, "a cut leaves the rate below line rate: {min}");
    assert!(f(r, "busiest_ms_signals") >= 1.0);
    // Watching changes nothing in the run itself.
    let (plain, _) = run(&read_incast(""));
    assert_eq!(plain["fingerprint"], s["fingerprint"]);
    assert_eq!(plain["classes"], s["classes"]);
}

#[test]
fn a_congestion_monitor_names_a_server_that_is_not_one() {
    use nest_config::{load_str, resolve};
    let bad = read_incast("[[coordinator]]\nname = \"mon\"\nkind = \"congestion-monitor\"\nservers = [\"s0\", \"x9\"]\n");
    let l = load_str(&bad, "t.toml", ".".into(), &[], None).unwrap();
    let e = resolve(&l, &bad).unwrap_err().to_string();
    assert!(e.contains("coordinator[0].servers[0]") && e.contains("'s0' holds no device"), "{e}");
    assert!(e.contains("coordinator[0].servers[1]") && e.contains("no network host named 'x9'"), "{e}");
}
