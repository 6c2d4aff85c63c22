//! End to end: requests cross the fabric to devices in storage servers over NVMe-oF and come
//! back; every request's latency parts add up; messages, bytes and requests are conserved; the
//! class tag is honoured or ignored per layer.

mod common;
use common::{f, run};
use nest_model::request::PARTS;
use serde_json::Value;

/// Two client hosts (s0, s1) and one storage server (r0) on a 10 Gb/s dumbbell; the server
/// holds an ideal device and a PM device.
fn scenario(extra: &str, workloads: &str) -> String {
    format!(
        r#"schema = 1
[run]
duration = "20ms"
drain = true
[network]
topology = "dumbbell"
senders = 2
receivers = 1
link_rate = "10Gbps"
link_delay = "1us"
[[class]]
name = "pm"
priority = "urgent"
[[class]]
name = "hi"
priority = "high"
[[class]]
name = "lo"
priority = "low"
[[host]]
name = "s0"
[[host]]
name = "c1"
node = "s1"
[[device]]
name = "ssd"
kind = "ideal"
server = "r0"
servers = 4
read = {{ dist = "fixed", value = "20us" }}
write = {{ dist = "fixed", value = "30us" }}
[[device]]
name = "pmem"
kind = "pm"
server = "r0"
{extra}
{workloads}
"#
    )
}

const MIXED: &str = r#"
[[workload]]
name = "a"
host = "s0"
device = "ssd"
class = "hi"
arrival = { kind = "poisson", rate_iops = 40000 }
size = { dist = "uniform_blocks", min = 1, max = 16, block = "4KiB" }
read_fraction = 0.5
[[workload]]
name = "b"
host = "c1"
device = "ssd"
class = "lo"
arrival = { kind = "poisson", rate_iops = 20000 }
size = { dist = "fixed", bytes = "16KiB" }
read_fraction = 0.7
[[workload]]
name = "p"
host = "c1"
device = "pmem"
class = "pm"
arrival = { kind = "poisson", rate_iops = 50000 }
size = { dist = "fixed", bytes = "256B" }
read_fraction = 0.5
"#;

#[test]
fn remote_requests_cross_the_fabric_and_every_latency_part_adds_up() {
    let s = scenario("[nvmeof]\ntarget_overhead = \"1us\"\nresponse_overhead = \"500ns\"\nhost_overhead = \"2us\"", MIXED);
    let (v, mut sim) = run(&s);
    assert_eq!(v["conservation"], "ok", "{}", v["conservation"]);
    sim.check_conservation().unwrap();
    assert_eq!(v["finished"], "drained");
    assert_eq!(v["requests"]["in_flight"], 0);
    let issued = f(&v, "requests.issued");
    assert!(issued > 1500.0, "issued {issued}");
    assert_eq!(f(&v, "requests.completed"), issued);
    // Every command and byte went over and came back.
    let n = &v["nvmeof"];
    assert_eq!(f(n, "commands_sent"), issued);
    assert_eq!(f(n, "responses_received"), issued);
    assert_eq!(f(n, "write_bytes.sent"), f(n, "write_bytes.at_device"));
    assert_eq!(f(n, "read_bytes.at_device"), f(n, "read_bytes.at_host"));
    assert!(f(n, "write_bytes.sent") > 0.0 && f(n, "read_bytes.at_host") > 0.0);
    assert_eq!(n["connections"].as_array().unwrap().len(), 3, "s0→r0 hi, s1→r0 lo and pm");
    let wbytes = f(&v, "classes.hi.write.bytes") + f(&v, "classes.lo.write.bytes") + f(&v, "classes.pm.write.bytes");
    assert_eq!(wbytes, f(n, "write_bytes.at_device"), "every byte written reached the device");
    // No packet lost in the (lossless-by-default buffer) fabric and nothing left in it.
    assert_eq!(f(&v, "network.packets.dropped"), 0.0);
    assert_eq!(f(&v, "network.packets.in_network"), 0.0);

    // Per request: the stamps are in path order and the parts sum to the latency.
    let c = sim.drain_requests();
    assert_eq!(c.len() as f64, issued);
    let mut remote_parts = [0u64; 8];
    for i in 0..c.len() {
        let st = [
            c.t_arrive_ps[i],
            c.t_dispatch_ps[i],
            c.t_tgt_arrive_ps[i],
            c.t_sq_ps[i],
            c.t_dev_start_ps[i],
            c.t_dev_done_ps[i],
            c.t_resp_sent_ps[i],
            c.t_resp_arrive_ps[i],
            c.t_complete_ps[i],
        ];
        assert!(st.windows(2).all(|w| w[0] <= w[1]), "request {i}: stamps out of order {st:?}");
        let parts: Vec<u64> = st.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(parts.iter().sum::<u64>(), st[8] - st[0]);
        for (acc, p) in remote_parts.iter_mut().zip(&parts) {
            *acc += p;
        }
        // The configured software overheads are floors of their parts.
        assert!(parts[2] >= 1_000_000, "target request queue {} ps", parts[2]);
        assert!(parts[5] >= 500_000 && parts[7] >= 2_000_000);
        assert!(parts[1] > 0 && parts[6] > 0, "both network directions take time");
    }
    // Nothing waits at the hosts here (deep queues); every other part takes time.
    assert!(remote_parts[1..].iter().all(|&p| p > 0), "{PARTS:?} {remote_parts:?}");
    // Per class, the summary's mean parts add up to the mean latency.
    for class in ["hi", "lo", "pm"] {
        let all = &v["classes"][class]["all"];
        let sum: f64 = PARTS.iter().map(|p| f(all, &format!("decomposition_us.{p}"))).sum();
        let mean = f(all, "lat_us.mean");
        assert!((sum - mean).abs() <= 0.01 * mean.max(1.0), "{class}: parts {sum} vs mean {mean}");
    }
    // The PM device answers in under a microsecond; the network dominates the PM latency.
    let pm = &v["classes"]["pm"]["all"]["decomposition_us"];
    assert!(f(pm, "device") < 1.0, "pm device {}", f(pm, "device"));
    assert!(f(pm, "fwd_network") + f(pm, "back_network") > f(pm, "device"));
}

#[test]
fn a_host_on_the_server_reaches_its_devices_locally() {
    let s = scenario(
        "",
        r#"
[[host]]
name = "r0"
[[workload]]
name = "local"
host = "r0"
device = "ssd"
class = "hi"
arrival = { kind = "constant", rate_iops = 10000 }
size = { dist = "fixed", bytes = "4KiB" }
read_fraction = 1.0
"#,
    );
    let (v, sim) = run(&s);
    sim.check_conservation().unwrap();
    assert!(v.get("nvmeof").is_none() || v["nvmeof"]["connections"].as_array().unwrap().is_empty());
    let d = &v["classes"]["hi"]["read"]["decomposition_us"];
    assert_eq!(f(d, "fwd_network"), 0.0);
    assert_eq!(f(d, "back_network"), 0.0);
    assert!((f(d, "device") - 20.0).abs() < 1e-6);
}

#[test]
fn e2e_runs_are_deterministic() {
    let s = scenario("[nvmeof]\ntransport = \"qtcp\"", MIXED);
    let (a, _) = run(&s);
    let (b, _) = run(&s);
    assert_eq!(a["fingerprint"], b["fingerprint"]);
    assert_eq!(a.to_string(), b.to_string());
}

#[test]
fn in_network_priority_shields_urgent_pm_requests_from_storage_bursts() {
    // Both clients write large blocks hard enough to queue at the server's link; PM requests
    // from s1 are urgent. With the network layer ignoring the tag they queue behind the data.
    let heavy = r#"
[[workload]]
name = "w0"
host = "s0"
device = "ssd"
class = "lo"
arrival = { kind = "poisson", rate_iops = 20000 }
size = { dist = "fixed", bytes = "64KiB" }
read_fraction = 0.0
[[workload]]
name = "w1"
host = "c1"
device = "ssd"
class = "hi"
arrival = { kind = "poisson", rate_iops = 20000 }
size = { dist = "fixed", bytes = "64KiB" }
read_fraction = 0.0
[[workload]]
name = "p"
host = "c1"
device = "pmem"
class = "pm"
arrival = { kind = "poisson", rate_iops = 20000 }
size = { dist = "fixed", bytes = "256B" }
read_fraction = 0.5
"#;
    let (with, _) = run(&scenario("", heavy));
    let (without, _) = run(&scenario("[qos]\nnetwork = \"ignore\"\nhost = \"ignore\"", heavy));
    for v in [&with, &without] {
        assert_eq!(v["conservation"], "ok");
    }
    let p99 = |v: &Value| f(v, "classes.pm.all.lat_us.p99");
    assert!(p99(&with) * 2.0 < p99(&without), "urgent p99 {} µs with priority vs {} µs without", p99(&with), p99(&without));
}
