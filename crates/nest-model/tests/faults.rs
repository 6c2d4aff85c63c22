//! Faults as scenario events (docs/faults.md): a device that stops answering, hosts that time
//! out on it, replicated volumes that keep serving reads, and books that account for every
//! request (issued = completed + failed + in flight).

mod common;
use common::{build, f, refused, run};

const DEVICES: &str = r#"
[[device]]
name = "d0"
kind = "ideal"
servers = 4
read = { dist = "fixed", value = "50us" }
write = { dist = "fixed", value = "20us" }
[[device]]
name = "d1"
kind = "ideal"
servers = 4
read = { dist = "fixed", value = "50us" }
write = { dist = "fixed", value = "20us" }
"#;

fn scenario(target: &str, extra: &str) -> String {
    format!(
        "schema = 1\n[run]\nseed = 3\nduration = \"40ms\"\n[[host]]\nname = \"h\"\nqueue_depth = 64\nio_timeout = \"2ms\"\n{DEVICES}\n\
         [[volume]]\nname = \"mirror\"\nlayout = \"replicate\"\ndevices = [\"d0\", \"d1\"]\n\
         [[workload]]\nname = \"w\"\nhost = \"h\"\ndevice = \"{target}\"\narrival = {{ kind = \"poisson\", rate_iops = 20000 }}\nread_fraction = 0.7\n\
         [[fault]]\nkind = \"device_fail\"\ndevice = \"d0\"\nat = \"10ms\"\n{extra}"
    )
}

fn books_balance(s: &serde_json::Value) {
    let r = &s["requests"];
    assert_eq!(f(r, "issued"), f(r, "completed") + f(r, "failed") + f(r, "in_flight"), "{r}");
    let w = &s["workloads"]["w"];
    assert_eq!(f(w, "issued"), f(w, "completed") + f(w, "failed") + f(w, "in_flight"), "{w}");
    assert_eq!(s["conservation"], "ok");
}

#[test]
fn a_dead_device_fails_the_requests_sent_to_it_after_its_hosts_timeout() {
    let (s, sim) = run(&scenario("d0", ""));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let fl = &s["faults"];
    assert_eq!(fl["happened"][0]["device"], "d0");
    assert_eq!(fl["dead_devices"], serde_json::json!(["d0"]));
    // ~20 k IOPS for the 30 ms after the fault: ~600 requests fail; none is retried (no replica).
    assert!(f(fl, "failed") > 400.0 && f(fl, "failed") < 800.0, "{fl}");
    assert_eq!(f(fl, "retried_reads"), 0.0);
    assert_eq!(f(fl, "failed"), f(&s, "workloads.w.failed"));
    // Only the I/Os the host sent before it knew waited the 2 ms timeout; later ones failed at once.
    assert!(f(fl, "timeouts") >= f(fl, "failed") && f(fl, "timeouts") < f(fl, "failed") + 1.0, "every failure is one timeout event");
    // Before the fault everything completed; the latency statistics hold only completed I/Os.
    assert!(f(&s, "requests.completed") > 150.0);
    assert!(f(&s, "workloads.w.all.lat_us.max") < 1000.0, "failed requests are not in the latency statistics");
}

#[test]
fn a_replicated_volume_keeps_serving_through_a_device_failure() {
    let (s, sim) = run(&scenario("mirror", ""));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let fl = &s["faults"];
    assert_eq!(f(fl, "failed"), 0.0, "no request fails: {fl}");
    // Reads in flight at d0 when it died were retried on d1; writes went on degraded (d1 alone).
    assert!(f(fl, "retried_reads") >= 1.0 && f(fl, "degraded_writes") >= 1.0, "{fl}");
    // Those retried reads waited for the 2 ms timeout: the tail shows it, the median does not.
    let lat = &s["workloads"]["w"]["read"]["lat_us"];
    assert!(f(lat, "max") >= 2000.0 && f(lat, "p50") < 200.0, "{lat}");
    // After the hosts knew, reads went to d1 only: d0 served nothing more than its share before.
    assert!(f(&s, "devices.d1.read.ios") > 1.5 * f(&s, "devices.d0.read.ios"), "{}", s["devices"]);
    // The same run without the fault has no `faults` section and the same issued count.
    let plain = scenario("mirror", "").split("[[fault]]").next().unwrap().to_string();
    let (p, _) = run(&plain);
    assert!(p.get("faults").is_none() && p["requests"].get("failed").is_none());
    assert_eq!(f(&p, "requests.issued"), f(&s, "requests.issued"), "the arrivals are the same");
}

#[test]
fn an_ssd_that_dies_mid_run_discards_what_it_was_doing_and_the_books_still_balance() {
    let text = "schema = 1\n[run]\nseed = 1\nduration = \"30ms\"\n[[host]]\nname = \"h\"\nio_timeout = \"1ms\"\n\
                [[device]]\nname = \"d0\"\nkind = \"ssd\"\npreset = \"mqsim-default\"\n\
                [[workload]]\nname = \"w\"\nhost = \"h\"\ndevice = \"d0\"\narrival = { kind = \"burst\", outstanding = 32 }\nread_fraction = 0.7\n\
                [[fault]]\nkind = \"device_fail\"\ndevice = \"d0\"\nat = \"5ms\"\n";
    let (s, sim) = run(text);
    sim.check_conservation().unwrap();
    books_balance(&s);
    // The 32 commands inside the drive at 5 ms time out; then the closed loop keeps failing
    // at once until the run ends.
    assert!(f(&s, "faults.failed") > 32.0, "{}", s["faults"]);
    assert!(f(&s, "requests.completed") > 100.0);
}

#[test]
fn fault_configuration_errors_name_their_key() {
    let err = |extra: &str, replace: (&str, &str)| {
        let t = scenario("d0", extra).replace(replace.0, replace.1);
        refused(&t)
    };
    let e = err("", ("device = \"d0\"\nat", "device = \"dO\"\nat"));
    assert!(e.contains("fault[0].device") && e.contains("no device named 'dO'; did you mean `d0`?"), "{e}");
    let e = err("", ("kind = \"device_fail\"", "kind = \"device_fial\""));
    assert!(e.contains("fault[0].kind") && e.contains("did you mean `device_fail`?"), "{e}");
    let e = err("", ("at = \"10ms\"", "at = \"soon\""));
    assert!(e.contains("fault[0].at"), "{e}");
    let e = err("", ("io_timeout = \"2ms\"", "io_timeout = \"10ns\""));
    assert!(e.contains("host[0].io_timeout") && e.contains("at least 1us"), "{e}");
}

/// An SSD read at random, 4 KiB, Poisson 5 k IOPS for 60 ms; `fault` is appended.
fn ssd_scenario(fault: &str) -> String {
    format!(
        "schema = 1\n[run]\nseed = 3\nduration = \"60ms\"\n[output]\nrequests = true\n[[host]]\nname = \"h\"\n\
         [[device]]\nname = \"s\"\nkind = \"ssd\"\npreset = \"consumer-nvme\"\n\
         [[workload]]\nname = \"w\"\nhost = \"h\"\ndevice = \"s\"\narrival = {{ kind = \"poisson\", rate_iops = 5000 }}\nread_fraction = 1.0\n{fault}"
    )
}

/// Mean device time (µs) of the reads that started at the device in [t0, t1) ms.
fn device_us(c: &nest_model::request::RequestColumns, t0: u64, t1: u64) -> f64 {
    let v: Vec<f64> = (0..c.seq.len())
        .filter(|&i| (t0 * 1_000_000_000..t1 * 1_000_000_000).contains(&c.t_dev_start_ps[i]))
        .map(|i| (c.t_dev_done_ps[i] - c.t_dev_start_ps[i]) as f64 / 1e6)
        .collect();
    assert!(v.len() > 20, "{} reads in [{t0}, {t1}) ms", v.len());
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn a_fail_slow_ssd_serves_its_reads_slower_until_it_recovers() {
    let slow = "[[fault]]\nkind = \"device_slow\"\ndevice = \"s\"\nat = \"20ms\"\nfactor = 10\nuntil = \"40ms\"\n";
    let (s, mut sim) = run(&ssd_scenario(slow));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let h = &s["faults"]["happened"];
    assert_eq!((h[0]["kind"].as_str(), h[0]["at_s"].as_f64()), (Some("device_slow"), Some(0.02)), "{h}");
    assert_eq!((h[1]["kind"].as_str(), h[1]["at_s"].as_f64()), (Some("device_recovered"), Some(0.04)), "{h}");
    assert_eq!(f(&s, "faults.failed"), 0.0, "a slow drive fails nothing");
    let c = sim.drain_requests();
    let (before, during, after) = (device_us(&c, 5, 20), device_us(&c, 22, 38), device_us(&c, 45, 60));
    // tR dominates a 4 KiB read: ×10 on the array is well over ×5 on the device time.
    assert!(during > 5.0 * before, "before {before:.1} µs, during {during:.1} µs");
    assert!((after - before).abs() < 0.2 * before, "before {before:.1} µs, after {after:.1} µs");
}

#[test]
fn device_slow_is_checked() {
    let err = |fault: &str| {
        let text = ssd_scenario(fault);
        refused(&text)
    };
    let e = err("[[fault]]\nkind = \"device_slow\"\ndevice = \"s\"\nat = \"20ms\"\n");
    assert!(e.contains("fault[0].factor") && e.contains("needs factor"), "{e}");
    let e = err("[[fault]]\nkind = \"device_slow\"\ndevice = \"s\"\nat = \"20ms\"\nfactor = 0.5\nuntil = \"10ms\"\n");
    assert!(e.contains("fault[0].factor") && e.contains("(1, 1000]"), "{e}");
    let e = err("[[fault]]\nkind = \"device_slow\"\ndevice = \"s\"\nat = \"20ms\"\nfactor = 4\nuntil = \"10ms\"\n");
    assert!(e.contains("fault[0].until") && e.contains("after"), "{e}");
    let e = err("[[fault]]\nkind = \"device_fail\"\ndevice = \"s\"\nat = \"20ms\"\nfactor = 4\n");
    assert!(e.contains("fault[0].factor") && e.contains("only device_slow"), "{e}");
    let text = scenario("d0", "").replace("kind = \"device_fail\"", "kind = \"device_slow\"\nfactor = 3");
    let e = refused(&text);
    assert!(e.contains("fault[0].device") && e.contains("not an SSD"), "{e}");
}

/// One client (s0) on a 10 Gb/s DCTCP dumbbell with `d0` in storage server r0 and `d1` in r1;
/// the workload reads and writes `target` (a device or the `mirror` over both); d0 dies at 10 ms.
fn remote_scenario(target: &str) -> String {
    format!(
        "schema = 1\n[run]\nseed = 3\nduration = \"40ms\"\n[network]\ntopology = \"dumbbell\"\nsenders = 1\nreceivers = 2\n\
         link_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[[host]]\nname = \"s0\"\nqueue_depth = 64\nio_timeout = \"2ms\"\n\
         [[device]]\nname = \"d0\"\nkind = \"ssd\"\npreset = \"consumer-nvme\"\nserver = \"r0\"\n\
         [[device]]\nname = \"d1\"\nkind = \"ssd\"\npreset = \"consumer-nvme\"\nserver = \"r1\"\n\
         [[volume]]\nname = \"mirror\"\nlayout = \"replicate\"\ndevices = [\"d0\", \"d1\"]\n\
         [[workload]]\nname = \"w\"\nhost = \"s0\"\ndevice = \"{target}\"\narrival = {{ kind = \"poisson\", rate_iops = 20000 }}\nread_fraction = 0.7\n\
         [[fault]]\nkind = \"device_fail\"\ndevice = \"d0\"\nat = \"10ms\"\n"
    )
}

#[test]
fn a_device_behind_nvmeof_fails_and_its_host_aborts_what_it_sent() {
    let (s, sim) = run(&remote_scenario("d0"));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let fl = &s["faults"];
    // ~20 k IOPS for the 30 ms after the fault: ~600 requests fail, each after a timeout or, once
    // the host knows, at its driver without being sent.
    assert!(f(fl, "failed") > 400.0 && f(fl, "failed") < 800.0, "{fl}");
    let nv = &s["nvmeof"];
    assert!(f(nv, "timed_out") >= 1.0 && f(nv, "timed_out") < 60.0, "only what was sent before the host knew is aborted: {nv}");
    assert_eq!(f(nv, "in_flight"), 0.0, "aborted commands are not in flight: {nv}");
    assert_eq!(f(fl, "timeouts"), f(fl, "failed"), "every failure is one timeout event (a real one or the driver's fast path)");
}

#[test]
fn a_mirror_across_storage_servers_serves_on_through_a_device_failure() {
    let (s, sim) = run(&remote_scenario("mirror"));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let fl = &s["faults"];
    assert_eq!(f(fl, "failed"), 0.0, "{fl}");
    assert!(f(fl, "retried_reads") >= 1.0 && f(fl, "degraded_writes") >= 1.0, "{fl}");
    // The host's credits to d0 came back with each abort: the mirror keeps reading at its rate.
    assert!(f(&s, "requests.completed") > 0.95 * f(&s, "requests.issued") - 70.0, "{}", s["requests"]);
}

/// A k = 4 fat-tree: clients h0, h1 (pod 0, under e0_0) read 64 KiB from ideal devices in h14 and
/// h15 (pod 3) over DCTCP; `fault` is appended. Arrivals stop at 30 ms and the run drains.
fn fabric_scenario(fault: &str) -> String {
    let mut s = String::from(
        "schema = 1\n[run]\nseed = 2\nduration = \"30ms\"\ndrain = true\n[network]\ntopology = \"fat_tree\"\nk = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n",
    );
    for h in ["h0", "h1"] {
        s += &format!("[[host]]\nname = \"{h}\"\n");
    }
    for d in ["h14", "h15"] {
        s += &format!("[[device]]\nname = \"d{d}\"\nkind = \"ideal\"\nserver = \"{d}\"\nservers = 8\nread = {{ dist = \"fixed\", value = \"20us\" }}\nwrite = {{ dist = \"fixed\", value = \"20us\" }}\n");
        for h in ["h0", "h1"] {
            s += &format!("[[workload]]\nname = \"{h}_{d}\"\nhost = \"{h}\"\ndevice = \"d{d}\"\narrival = {{ kind = \"poisson\", rate_iops = 3000 }}\nsize = {{ dist = \"fixed\", bytes = \"64KiB\" }}\nread_fraction = 1.0\n");
        }
    }
    s + fault
}

#[test]
fn a_failed_link_loses_packets_until_the_routes_go_around_it_and_every_request_completes() {
    let fault = "[[fault]]\nkind = \"link_down\"\nlink = [\"e0_0\", \"a0_0\"]\nat = \"5ms\"\ndetect = \"1ms\"\nuntil = \"15ms\"\n";
    let (s, sim) = run(&fabric_scenario(fault));
    sim.check_conservation().unwrap();
    let r = &s["requests"];
    assert_eq!(f(r, "issued"), f(r, "completed") + f(r, "failed") + f(r, "in_flight"), "{r}");
    assert_eq!(s["conservation"], "ok");
    let kinds: Vec<&str> = s["faults"]["happened"].as_array().unwrap().iter().map(|h| h["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["link_down", "reroute", "link_up", "reroute"]);
    assert_eq!(s["faults"]["happened"][0]["link"], "e0_0-a0_0");
    assert_eq!(s["faults"]["happened"][1]["at_s"].as_f64(), Some(0.006));
    let p = &s["network"]["packets"];
    assert!(f(p, "link_drops") > 0.0, "{p}");
    assert_eq!(f(p, "unroutable"), 0.0, "the other aggregation switch still reaches pod 3");
    assert_eq!(f(p, "dropped"), f(p, "link_drops"), "nothing else is lost: {p}");
    // The transports recover every loss: each request completes, none fails.
    assert_eq!(f(&s, "requests.failed"), 0.0);
    assert_eq!(f(&s, "requests.in_flight"), 0.0);
    assert!(f(&s, "requests.completed") > 300.0);
    // The same run without the fault loses nothing, and its slowest read is much faster: the
    // fault's losses cost retransmissions.
    let (plain, _) = run(&fabric_scenario(""));
    assert_eq!(f(&plain, "network.packets.dropped"), 0.0);
    assert!(plain["network"]["packets"].get("link_drops").is_none());
    let slowest =
        |s: &serde_json::Value| ["h0_h14", "h0_h15", "h1_h14", "h1_h15"].iter().map(|w| f(s, &format!("workloads.{w}.all.lat_us.max"))).fold(0.0, f64::max);
    assert!(slowest(&s) > 2.0 * slowest(&plain), "slowest read {:.0} µs with the fault, {:.0} µs without", slowest(&s), slowest(&plain));
}

#[test]
fn link_faults_are_checked() {
    let err = |fault: &str| {
        let text = fabric_scenario(fault);
        refused(&text)
    };
    let e = err("[[fault]]\nkind = \"link_down\"\nlink = [\"e0_0\", \"c0\"]\nat = \"5ms\"\n");
    assert!(e.contains("fault[0].link") && e.contains("no link joins 'e0_0' and 'c0'"), "{e}");
    let e = err("[[fault]]\nkind = \"link_down\"\nlink = [\"e0_0\", \"x\"]\nat = \"5ms\"\ndevice = \"dh14\"\n");
    assert!(e.contains("no node named 'x'") && e.contains("fault[0].device") && e.contains("takes link or switch, not device"), "{e}");
    let e = err("[[fault]]\nkind = \"link_down\"\nat = \"5ms\"\nuntil = \"2ms\"\n");
    assert!(e.contains("fault[0].link") && e.contains("link = ["), "{e}");
    let e = err("[[fault]]\nkind = \"link_down\"\nlink = [\"e0_0\", \"a0_0\"]\nat = \"5ms\"\nuntil = \"2ms\"\n");
    assert!(e.contains("fault[0].until") && e.contains("after"), "{e}");
    let e = err("[[fault]]\nkind = \"device_fail\"\nat = \"5ms\"\ndetect = \"1ms\"\n");
    assert!(e.contains("fault[0].device") && e.contains("needs device") && e.contains("fault[0].detect"), "{e}");
}

#[test]
fn a_failed_switch_takes_all_its_links_and_the_routes_go_around_it() {
    let fault = "[[fault]]\nkind = \"switch_down\"\nswitch = \"a0_0\"\nat = \"5ms\"\nuntil = \"15ms\"\n";
    let (s, sim) = run(&fabric_scenario(fault));
    sim.check_conservation().unwrap();
    let kinds: Vec<&str> = s["faults"]["happened"].as_array().unwrap().iter().map(|h| h["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["switch_down", "reroute", "switch_up", "reroute"]);
    assert_eq!(s["faults"]["happened"][0]["switch"], "a0_0");
    assert_eq!(s["faults"]["happened"][1]["at_s"].as_f64(), Some(0.006), "detect defaults to 1 ms");
    let p = &s["network"]["packets"];
    assert!(f(p, "link_drops") > 0.0 && f(p, "unroutable") == 0.0, "{p}");
    assert_eq!((f(&s, "requests.failed"), f(&s, "requests.in_flight")), (0.0, 0.0));
    assert_eq!(f(&s, "requests.completed"), f(&s, "requests.issued"));
    let err = |fault: &str| {
        let text = fabric_scenario(fault);
        refused(&text)
    };
    let e = err("[[fault]]\nkind = \"switch_down\"\nswitch = \"h0\"\nat = \"5ms\"\nlink = [\"a\", \"b\"]\n");
    assert!(e.contains("fault[0].switch") && e.contains("a host, not a switch") && e.contains("only link_down takes link"), "{e}");
    let e = err("[[fault]]\nkind = \"switch_down\"\nat = \"5ms\"\n");
    assert!(e.contains("fault[0].switch") && e.contains("needs switch"), "{e}");
    let e = err("[[fault]]\nkind = \"switch_down\"\nswitch = \"zz\"\nat = \"5ms\"\n");
    assert!(e.contains("no switch named 'zz'"), "{e}");
}

/// A small preconditioned SSD (half full, a third of it overwritten: stale pages, free blocks
/// to spare, so no GC of its own) read at random, 4 KiB, Poisson 5 k IOPS for 60 ms.
fn storm_scenario(fault: &str) -> String {
    format!(
        "schema = 1\n[run]\nseed = 3\nduration = \"60ms\"\n[output]\nrequests = true\n[[host]]\nname = \"h\"\n\
         [[device]]\nname = \"s\"\nkind = \"ssd\"\npreset = \"mqsim-default\"\ngeometry = {{ blocks_per_plane = 64, pages_per_block = 64 }}\n\
         precondition = {{ occupancy = 0.5, overwrites = 0.3 }}\n\
         [[workload]]\nname = \"w\"\nhost = \"h\"\ndevice = \"s\"\narrival = {{ kind = \"poisson\", rate_iops = 5000 }}\nread_fraction = 1.0\n{fault}"
    )
}

#[test]
fn a_gc_storm_collects_while_it_lasts_and_slows_the_reads() {
    let (calm, mut sim) = run(&storm_scenario(""));
    assert_eq!(f(&calm, "devices.s.ssd.gc_jobs"), 0.0, "no GC of its own: {}", calm["devices"]["s"]["ssd"]);
    let c = sim.drain_requests();
    let (calm_before, quiet) = (device_us(&c, 5, 20), device_us(&c, 20, 40));
    let storm = "[[fault]]\nkind = \"gc_storm\"\ndevice = \"s\"\nat = \"20ms\"\nuntil = \"40ms\"\n";
    let (s, mut sim) = run(&storm_scenario(storm));
    sim.check_conservation().unwrap();
    let kinds: Vec<&str> = s["faults"]["happened"].as_array().unwrap().iter().map(|h| h["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["gc_storm", "gc_storm_end"]);
    let ssd = &s["devices"]["s"]["ssd"];
    assert!(f(ssd, "gc_jobs") > 10.0 && f(ssd, "gc_moves") > 0.0 && f(ssd, "erases") > 0.0, "{ssd}");
    let c = sim.drain_requests();
    let (before, during) = (device_us(&c, 5, 20), device_us(&c, 20, 40));
    assert_eq!(before, calm_before, "the same run until the storm");
    assert!(during > 1.5 * quiet, "reads wait behind the storm's moves and erases: {during:.1} µs against {quiet:.1}");
    assert_eq!(f(&s, "faults.failed"), 0.0);
}

#[test]
fn a_failed_device_that_comes_back_serves_again_and_only_the_outage_fails() {
    // d0 alone, dead from 10 to 25 ms; the host's timeout is 2 ms.
    let (s, sim) = run(&(scenario("d0", "").replace("at = \"10ms\"\n", "at = \"10ms\"\nuntil = \"25ms\"\n")));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let kinds: Vec<&str> = s["faults"]["happened"].as_array().unwrap().iter().map(|h| h["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["device_fail", "device_back"]);
    assert_eq!(s["faults"]["dead_devices"], serde_json::json!([]), "alive at the end");
    // ~20 k IOPS for the 15 ms outage: ~300 fail (those caught in it, and those sent while
    // the host took it as dead); the ~300 sent after it complete.
    let failed = f(&s, "faults.failed");
    assert!(failed > 200.0 && failed < 400.0, "{}", s["faults"]);
    let (always, _) = run(&scenario("d0", ""));
    assert!(f(&s, "requests.completed") > f(&always, "requests.completed") + 200.0, "requests after the outage complete");
    let e = {
        let text = scenario("d0", "").replace("at = \"10ms\"\n", "at = \"10ms\"\nuntil = \"5ms\"\n");
        refused(&text)
    };
    assert!(e.contains("fault[0].until") && e.contains("after"), "{e}");
}

/// The remote mirror with storage server r0 stopping at 10 ms (`server_down`) and the hosts'
/// Keep Alive Timeout `kato` ("0s": none).
fn server_scenario(kato: &str) -> String {
    remote_scenario("mirror")
        .replace("[[fault]]\nkind = \"device_fail\"\ndevice = \"d0\"\nat = \"10ms\"\n", "[[fault]]\nkind = \"server_down\"\nserver = \"r0\"\nat = \"10ms\"\n")
        .replace("[[host]]", &format!("[output]\nrequests = true\n[nvmeof]\nkeep_alive = \"{kato}\"\n[[host]]"))
}

/// The slowest completed read that arrived in [t0, t1) ms, in µs.
fn slowest_read_us(c: &nest_model::request::RequestColumns, t0: u64, t1: u64) -> f64 {
    (0..c.seq.len())
        .filter(|&i| c.op[i] == 0 && (t0 * 1_000_000_000..t1 * 1_000_000_000).contains(&c.t_arrive_ps[i]))
        .map(|i| (c.t_complete_ps[i] - c.t_arrive_ps[i]) as f64 / 1e6)
        .fold(0.0, f64::max)
}

#[test]
fn a_storage_server_that_stops_is_found_by_keep_alive_before_any_io_times_out() {
    // io_timeout 2 ms; KATO 0.5 ms: the Keep Alive sent at 10 ms goes unanswered until 10.5 ms.
    let (s, mut sim) = run(&server_scenario("0.5ms"));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let h = &s["faults"]["happened"];
    assert_eq!((h[0]["kind"].as_str(), h[0]["server"].as_str(), h[0]["at_s"].as_f64()), (Some("server_down"), Some("r0"), Some(0.01)), "{h}");
    assert_eq!((h[1]["kind"].as_str(), h[1]["at_s"].as_f64()), (Some("keep_alive_lost"), Some(0.0105)), "{h}");
    assert_eq!(s["faults"]["dead_devices"], serde_json::json!(["d0"]));
    assert_eq!(f(&s, "faults.failed"), 0.0, "the mirror's other server takes everything");
    assert!(f(&s, "faults.retried_reads") >= 1.0 && f(&s, "nvmeof.in_flight") == 0.0, "{}", s["faults"]);
    let ka = slowest_read_us(&sim.drain_requests(), 9, 12);
    // Without keep-alive the hosts wait for the I/O timeout.
    let (s0, mut sim0) = run(&server_scenario("0s"));
    books_balance(&s0);
    assert!(s0["faults"]["happened"].as_array().unwrap().iter().all(|e| e["kind"] != "keep_alive_lost"));
    let no_ka = slowest_read_us(&sim0.drain_requests(), 9, 12);
    assert!(ka < 1_000.0, "a read caught in the failure waits for the keep-alive (≤ 1 ms), not the 2 ms timeout: {ka:.0} µs");
    assert!(no_ka > 2_000.0, "without keep-alive it waits the I/O timeout: {no_ka:.0} µs");
    // A server back before the keep-alive would have found it: no keep_alive_lost.
    let back = server_scenario("5ms").replace("at = \"10ms\"\n", "at = \"10ms\"\nuntil = \"12ms\"\n");
    let (sb, _) = run(&back);
    books_balance(&sb);
    let kinds: Vec<&str> = sb["faults"]["happened"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["server_down", "server_up"]);
    assert_eq!(sb["faults"]["dead_devices"], serde_json::json!([]));
}

#[test]
fn server_faults_are_checked() {
    let err = |fault: &str| {
        let text = remote_scenario("mirror").replace("[[fault]]\nkind = \"device_fail\"\ndevice = \"d0\"\nat = \"10ms\"\n", fault);
        refused(&text)
    };
    assert!(err("[[fault]]\nkind = \"server_down\"\nat = \"1ms\"\n").contains("fault[0].server"));
    let e = err("[[fault]]\nkind = \"server_down\"\nserver = \"r9\"\nat = \"1ms\"\n");
    assert!(e.contains("fault[0].server") && e.contains("r9"), "{e}");
    assert!(err("[[fault]]\nkind = \"server_down\"\nserver = \"s0\"\nat = \"1ms\"\n").contains("no device sits"));
    assert!(err("[[fault]]\nkind = \"server_down\"\nserver = \"r0\"\ndevice = \"d0\"\nat = \"1ms\"\n").contains("fault[0].device"));
    assert!(err("[[fault]]\nkind = \"device_fail\"\nserver = \"r0\"\ndevice = \"d0\"\nat = \"1ms\"\n").contains("fault[0].server"));
    let kato = remote_scenario("mirror").replace("[[host]]", "[nvmeof]\nkeep_alive = \"soon\"\n[[host]]");
    assert!(refused(&kato).contains("nvmeof.keep_alive"));
}

#[test]
fn hosts_reconnect_to_a_device_that_came_back_at_their_next_attempt() {
    // d0 (in server r0) dies at 10 ms and answers again at 20 ms; the host loses it at its first
    // I/O timeout (~12 ms) and tries to reconnect every 15 ms from then: at ~27 ms it succeeds.
    let text = |delay: &str| {
        remote_scenario("mirror")
            .replace("at = \"10ms\"\n", "at = \"10ms\"\nuntil = \"20ms\"\n")
            .replace("[[host]]", &format!("[nvmeof]\nreconnect_delay = \"{delay}\"\n[[host]]"))
    };
    let reads_on_d0 = |s: &serde_json::Value| f(s, "devices.d0.read.ios");
    let (s, sim) = run(&text("15ms"));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let h = s["faults"]["happened"].as_array().unwrap();
    let at = |k: &str| h.iter().find(|e| e["kind"] == k).map(|e| e["at_s"].as_f64().unwrap() * 1e3);
    assert_eq!(at("device_back"), Some(20.0), "{h:?}");
    let back = at("reconnect").expect("a reconnect");
    assert!(back > 26.0 && back < 28.0, "the first attempt after 20 ms, 15 ms after the loss at ~12 ms: {back} ms");
    assert_eq!(s["faults"]["dead_devices"], serde_json::json!([]));
    // Reads go back to d0 only from the reconnect: ~7 ms fewer of its ~7 k reads/s than with no
    // delay, and ~13 ms more than with Linux's 10 s (never, in this run).
    let (at_once, _) = run(&text("0s"));
    let (never, _) = run(&text("10s"));
    books_balance(&at_once);
    assert!(at_once["faults"]["happened"].as_array().unwrap().iter().all(|e| e["kind"] != "reconnect"));
    assert!(never["faults"]["happened"].as_array().unwrap().iter().all(|e| e["kind"] != "reconnect"));
    let (n_once, n_15, n_never) = (reads_on_d0(&at_once), reads_on_d0(&s), reads_on_d0(&never));
    assert!(n_once - n_15 > 25.0 && n_15 - n_never > 50.0, "reads on d0: at once {n_once}, 15 ms {n_15}, never {n_never}");
}

#[test]
fn a_device_back_is_used_again_though_failures_the_driver_made_are_still_due() {
    // d0 alone, dead from 10 to 20 ms, hosts reconnecting at once. The driver fails I/O to it
    // every 10 µs after the host lost it; those due just after 20 ms used to take it as dead
    // again, for good: every request to the end failed.
    for delay in ["0s", "1ms"] {
        let text = remote_scenario("d0")
            .replace("at = \"10ms\"\n", "at = \"10ms\"\nuntil = \"20ms\"\n")
            .replace("[[host]]", &format!("[nvmeof]\nreconnect_delay = \"{delay}\"\n[[host]]"));
        let (s, sim) = run(&text);
        sim.check_conservation().unwrap();
        books_balance(&s);
        let w = &s["workloads"]["w"];
        // ~20 k IOPS: ~200 before 10 ms, ~200 lost to the outage, ~400 after it.
        assert!(f(w, "completed") > 500.0 && f(w, "failed") < 300.0, "reconnect {delay}: {w}");
    }
}

#[test]
fn hosts_remove_a_lost_controller_when_their_reconnect_attempts_run_out() {
    // d0 dies at 10 ms; the host loses it at ~12 ms and tries every 5 ms: at ~17, ~22, ~27 ms.
    // A ctrl_loss_tmo of 8 ms allows ⌈8/5⌉ = 2 attempts, so the one at ~22 ms is the last.
    let text = |until: &str, tmo: Option<&str>| {
        let tmo = tmo.map(|t| format!("ctrl_loss_tmo = \"{t}\"\n")).unwrap_or_default();
        remote_scenario("mirror")
            .replace("at = \"10ms\"\n", &format!("at = \"10ms\"\nuntil = \"{until}\"\n"))
            .replace("[[host]]", &format!("[nvmeof]\nreconnect_delay = \"5ms\"\n{tmo}[[host]]"))
    };
    let events = |s: &serde_json::Value| -> Vec<(String, f64)> {
        s["faults"]["happened"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["device"] == "d0")
            .map(|e| (e["kind"].as_str().unwrap().to_string(), e["at_s"].as_f64().unwrap() * 1e3))
            .collect()
    };
    let kind_at = |s: &serde_json::Value, k: &str| events(s).iter().find(|e| e.0 == k).map(|e| e.1);
    // Back at 20 ms: the last attempt (~22 ms) finds it.
    let (s, _) = run(&text("20ms", Some("8ms")));
    let at = kind_at(&s, "reconnect").expect("a reconnect");
    assert!(at > 21.0 && at < 23.0, "{:?}", events(&s));
    assert_eq!(kind_at(&s, "controller_removed"), None);
    // Back at 24 ms: the last attempt fails, the controller is removed and d0 never used again.
    let (removed, sim) = run(&text("24ms", Some("8ms")));
    sim.check_conservation().unwrap();
    books_balance(&removed);
    let gone = kind_at(&removed, "controller_removed").expect("removed");
    assert!(gone > 21.0 && gone < 23.0, "{:?}", events(&removed));
    assert_eq!(kind_at(&removed, "reconnect"), None, "{:?}", events(&removed));
    assert_eq!(removed["faults"]["removed_controllers"], serde_json::json!(["d0"]));
    // Never back in the run: the summary says when the hosts gave up on it all the same.
    let (never, _) = run(&text("100ms", Some("8ms")));
    let gone = kind_at(&never, "controller_removed").expect("removed");
    assert!(gone > 21.0 && gone < 23.0, "{:?}", events(&never));
    // Linux's default (600 s) and "forever" keep trying: the attempt at ~27 ms succeeds.
    let (default, _) = run(&text("24ms", None));
    let (forever, _) = run(&text("24ms", Some("forever")));
    for s in [&default, &forever] {
        assert_eq!(s["faults"]["removed_controllers"], serde_json::json!([]));
        let at = kind_at(s, "reconnect").expect("a reconnect");
        assert!(at > 26.0 && at < 28.0, "{:?}", events(s));
    }
    let reads = |s: &serde_json::Value| f(s, "devices.d0.read.ios");
    assert!(reads(&forever) - reads(&removed) > 50.0, "d0 reads: kept trying {}, removed {}", reads(&forever), reads(&removed));
    // "0s": the loss itself removes the controller.
    let (at_once, _) = run(&text("20ms", Some("0s")));
    let lost = kind_at(&at_once, "controller_removed").expect("removed at the loss");
    assert!(lost > 11.0 && lost < 13.0, "{:?}", events(&at_once));
    let e = refused(&text("20ms", Some("soon")));
    assert!(e.contains("nvmeof.ctrl_loss_tmo") && e.contains("forever"), "{e}");
}

/// Two clients, s0 and s1, each reading and writing its own drive in storage servers r0 / r1
/// over a 10 Gb/s DCTCP dumbbell at 20 k IOPS; `fault` appended. Arrivals stop at 30 ms and the
/// run drains.
fn two_clients(fault: &str) -> String {
    let mut s = String::from(
        "schema = 1\n[run]\nseed = 4\nduration = \"30ms\"\ndrain = true\n[network]\ntopology = \"dumbbell\"\nsenders = 2\nreceivers = 2\n\
         link_rate = \"10Gbps\"\nlink_delay = \"1us\"\n",
    );
    for (i, h) in ["s0", "s1"].iter().enumerate() {
        s += &format!(
            "[[host]]\nname = \"{h}\"\nqueue_depth = 64\n[[device]]\nname = \"d{i}\"\nkind = \"ssd\"\npreset = \"consumer-nvme\"\nserver = \"r{i}\"\n\
             [[workload]]\nname = \"w{i}\"\nhost = \"{h}\"\ndevice = \"d{i}\"\narrival = {{ kind = \"poisson\", rate_iops = 20000 }}\nread_fraction = 0.7\n"
        );
    }
    s + fault
}

#[test]
fn a_host_that_crashes_loses_what_it_had_in_flight_and_the_others_go_on() {
    let crash = "[[fault]]\nkind = \"host_crash\"\nhost = \"s0\"\nat = \"10ms\"\n";
    let (s, sim) = run(&two_clients(crash));
    sim.check_conservation().unwrap();
    let r = &s["requests"];
    assert_eq!(f(r, "issued"), f(r, "completed") + f(r, "failed") + f(r, "lost") + f(r, "in_flight"), "{r}");
    assert_eq!(f(r, "in_flight"), 0.0, "drained: the crashed host's requests still out ended without it");
    let (w0, w1) = (&s["workloads"]["w0"], &s["workloads"]["w1"]);
    assert!(f(w0, "issued") > 150.0 && f(w0, "issued") < 250.0, "s0 issued for 10 ms at 20 k IOPS only: {w0}");
    assert!(f(w0, "lost") >= 1.0 && f(w0, "lost") < 64.0, "what s0 had in flight at the crash is lost: {w0}");
    assert_eq!(f(w0, "issued"), f(w0, "completed") + f(w0, "lost"), "{w0}");
    assert_eq!(s["faults"]["crashed_hosts"], serde_json::json!(["s0"]));
    assert_eq!(s["faults"]["happened"][0]["host"], "s0");
    assert_eq!(f(&s, "faults.timeouts"), 0.0, "a crash times nothing out; no device is taken as dead");
    assert_eq!(s["faults"]["dead_devices"], serde_json::json!([]));
    // s1 does not notice: the same requests as without the crash, the same latency.
    let (base, _) = run(&two_clients(""));
    let b1 = &base["workloads"]["w1"];
    assert_eq!(f(w1, "completed"), f(b1, "completed"), "{w1} vs {b1}");
    let (m, mb) = (f(w1, "read.lat_us.mean"), f(b1, "read.lat_us.mean"));
    assert!((m / mb - 1.0).abs() < 0.05, "s1's reads {m:.1} µs against {mb:.1} µs without the crash");
    assert_eq!(base["conservation"], "ok");
}

/// Clients s0 and s1 keep 32 requests each on a mirror of d0 (server r0) and d1 (r1), with
/// only 8 device parts out at a time, so parts wait at the hosts; `fault` appended.
fn two_clients_on_a_mirror(fault: &str) -> String {
    let mut s = String::from(
        "schema = 1\n[run]\nseed = 5\nduration = \"30ms\"\ndrain = true\n[network]\ntopology = \"dumbbell\"\nsenders = 2\nreceivers = 2\n\
         link_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
         [[device]]\nname = \"d0\"\nkind = \"ssd\"\npreset = \"consumer-nvme\"\nserver = \"r0\"\n\
         [[device]]\nname = \"d1\"\nkind = \"ssd\"\npreset = \"consumer-nvme\"\nserver = \"r1\"\n\
         [[volume]]\nname = \"mirror\"\nlayout = \"replicate\"\ndevices = [\"d0\", \"d1\"]\n",
    );
    for (i, h) in ["s0", "s1"].iter().enumerate() {
        s += &format!(
            "[[host]]\nname = \"{h}\"\nqueue_depth = 8\n[[workload]]\nname = \"w{i}\"\nhost = \"{h}\"\ndevice = \"mirror\"\n\
             arrival = {{ kind = \"burst\", outstanding = 32 }}\nread_fraction = 0.7\n"
        );
    }
    s + fault
}

#[test]
fn a_host_that_crashes_with_volume_parts_waiting_and_out_loses_its_requests_cleanly() {
    let text = two_clients_on_a_mirror("[[fault]]\nkind = \"host_crash\"\nhost = \"s0\"\nat = \"10ms\"\n");
    let mut sim = build(&text);
    // Just after the crash: parts of s0's requests still at the devices, the books balance.
    while sim.now() < nest_core::SimTime::from_us(10_050) {
        sim.step(1_000).unwrap();
        sim.check_conservation().unwrap();
    }
    let (s, sim) = run(&text);
    sim.check_conservation().unwrap();
    assert_eq!(s["conservation"], "ok");
    let r = &s["requests"];
    assert_eq!(f(r, "issued"), f(r, "completed") + f(r, "failed") + f(r, "lost") + f(r, "in_flight"), "{r}");
    assert_eq!(f(r, "in_flight"), 0.0, "drained: the parts still out ended without their host");
    let w0 = &s["workloads"]["w0"];
    assert_eq!(f(w0, "lost"), 32.0, "a closed loop of 32 loses all 32 at the crash: {w0}");
    assert_eq!(f(w0, "issued"), f(w0, "completed") + f(w0, "lost"), "{w0}");
    assert_eq!(f(&s, "faults.timeouts"), 0.0);
    // d0 dies just before: s0's parts hanging there time out after the crash and are not
    // retried (nobody is left to), s1's are.
    let both = two_clients_on_a_mirror(
        "[[fault]]\nkind = \"device_fail\"\ndevice = \"d0\"\nat = \"9ms\"\n\
                                        [[fault]]\nkind = \"host_crash\"\nhost = \"s0\"\nat = \"10ms\"\n",
    )
    .replace("queue_depth = 8\n", "queue_depth = 8\nio_timeout = \"2ms\"\n");
    let (sb, simb) = run(&both);
    simb.check_conservation().unwrap();
    assert_eq!(f(&sb, "workloads.w0.lost"), 32.0);
    assert_eq!(f(&sb, "requests.in_flight"), 0.0);
    assert!(f(&sb, "faults.retried_reads") >= 1.0, "{}", sb["faults"]);
    // s1 goes on, with the mirror to itself from 10 ms: more done than beside s0 all along.
    let (base, _) = run(&two_clients_on_a_mirror(""));
    let (w1, b1) = (&s["workloads"]["w1"], &base["workloads"]["w1"]);
    assert!(f(w1, "completed") > f(b1, "completed"), "{w1} vs {b1}");
}

#[test]
fn a_storage_server_that_runs_workloads_goes_down_with_them() {
    // r0 holds d0 and keeps 8 requests on it; s0 reads and writes d0 over NVMe-oF.
    let text = |until: &str| {
        format!(
            "schema = 1\n[run]\nseed = 3\nduration = \"40ms\"\n[network]\ntopology = \"dumbbell\"\nsenders = 1\nreceivers = 2\n\
             link_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[nvmeof]\nkeep_alive = \"1ms\"\nreconnect_delay = \"0s\"\n\
             [[host]]\nname = \"s0\"\nio_timeout = \"2ms\"\n[[host]]\nname = \"r0\"\nio_timeout = \"2ms\"\n\
             [[device]]\nname = \"d0\"\nkind = \"ssd\"\npreset = \"consumer-nvme\"\nserver = \"r0\"\n\
             [[workload]]\nname = \"w\"\nhost = \"s0\"\ndevice = \"d0\"\narrival = {{ kind = \"poisson\", rate_iops = 20000 }}\nread_fraction = 0.7\n\
             [[workload]]\nname = \"local\"\nhost = \"r0\"\ndevice = \"d0\"\narrival = {{ kind = \"burst\", outstanding = 8 }}\nread_fraction = 0.7\n\
             [[fault]]\nkind = \"server_down\"\nserver = \"r0\"\nat = \"10ms\"\n{until}"
        )
    };
    let (s, sim) = run(&text(""));
    sim.check_conservation().unwrap();
    assert_eq!(s["conservation"], "ok");
    let kinds: Vec<&str> = s["faults"]["happened"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["server_down", "host_crash", "keep_alive_lost"], "{}", s["faults"]);
    let r = &s["requests"];
    assert_eq!(f(r, "issued"), f(r, "completed") + f(r, "failed") + f(r, "lost") + f(r, "in_flight"), "{r}");
    assert_eq!(s["faults"]["crashed_hosts"], serde_json::json!(["r0"]));
    let (local, w) = (&s["workloads"]["local"], &s["workloads"]["w"]);
    assert_eq!(f(local, "lost"), 8.0, "r0's own closed loop of 8 is lost at 10 ms, not failed: {local}");
    assert_eq!(f(local, "issued"), f(local, "completed") + 8.0, "{local}");
    assert!(f(w, "failed") > 300.0, "s0's I/O to d0 fails from 10 ms: {w}");
    // Back at 20 ms: s0 uses d0 again, r0's applications stay gone.
    let (b, _) = run(&text("until = \"20ms\"\n"));
    assert_eq!(f(&b, "workloads.local.issued"), f(local, "issued"));
    assert!(f(&b, "workloads.w.failed") < f(w, "failed") - 100.0, "{}", b["workloads"]["w"]);
}

#[test]
fn host_crash_is_checked() {
    let err = |fault: &str| {
        let text = two_clients(fault);
        refused(&text)
    };
    assert!(err("[[fault]]\nkind = \"host_crash\"\nat = \"1ms\"\n").contains("fault[0].host"));
    let e = err("[[fault]]\nkind = \"host_crash\"\nhost = \"s9\"\nat = \"1ms\"\n");
    assert!(e.contains("fault[0].host") && e.contains("s9"), "{e}");
    assert!(err("[[fault]]\nkind = \"host_crash\"\nhost = \"s0\"\nat = \"1ms\"\nuntil = \"2ms\"\n").contains("fault[0].until"));
    assert!(err("[[fault]]\nkind = \"device_fail\"\ndevice = \"d0\"\nhost = \"s0\"\nat = \"1ms\"\n").contains("fault[0].host"));
}

/// One client (s0) on a 10 Gb/s DCTCP dumbbell with `d0` in storage server r0 and `d1` in r1,
/// 2 ms I/O timeout, reconnect attempts every 1 ms; the workload reads and writes `target` at
/// 20 k IOPS for 30 ms and the run drains; `fault` is appended.
fn link_scenario(target: &str, fault: &str) -> String {
    format!(
        "schema = 1\n[run]\nseed = 5\nduration = \"30ms\"\ndrain = true\n[network]\ntopology = \"dumbbell\"\nsenders = 1\nreceivers = 2\n\
         link_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[nvmeof]\nreconnect_delay = \"1ms\"\n[[host]]\nname = \"s0\"\nqueue_depth = 64\nio_timeout = \"2ms\"\n\
         [[device]]\nname = \"d0\"\nkind = \"ssd\"\npreset = \"consumer-nvme\"\nserver = \"r0\"\n\
         [[device]]\nname = \"d1\"\nkind = \"ssd\"\npreset = \"consumer-nvme\"\nserver = \"r1\"\n\
         [[volume]]\nname = \"mirror\"\nlayout = \"replicate\"\ndevices = [\"d0\", \"d1\"]\n\
         [[workload]]\nname = \"w\"\nhost = \"s0\"\ndevice = \"{target}\"\narrival = {{ kind = \"poisson\", rate_iops = 20000 }}\nread_fraction = 0.7\n{fault}"
    )
}

/// Runs `text` under an event budget: a run that cannot end fails the test instead of hanging it.
fn run_bounded(text: &str) -> (serde_json::Value, nest_model::Simulation) {
    let mut sim = build(text);
    let state = sim.step(5_000_000).unwrap();
    assert!(matches!(state, nest_model::StepState::Finished), "the run did not end within 5 M events (at {:?})", sim.now());
    (sim.summary(), sim)
}

const R0_LINK_DIES: &str = "[[fault]]\nkind = \"link_down\"\nlink = [\"r0\", \"sw0\"]\nat = \"10ms\"\ndetect = \"100us\"\n";

#[test]
fn a_request_stuck_behind_a_link_that_failed_for_good_times_out_with_its_connection() {
    // r0's only link dies at 10 ms for good. What s0 had sent to d0, or d0 had answered, is
    // stuck behind it: before connections were timed, their transports retransmitted for ever
    // and the run never drained (swarm seeds 439, 662, ...).
    let (s, sim) = run_bounded(&link_scenario("d0", R0_LINK_DIES));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let fl = &s["faults"];
    let h = fl["happened"].as_array().unwrap();
    let lost: Vec<f64> = h.iter().filter(|e| e["kind"] == "connection_lost").map(|e| e["at_s"].as_f64().unwrap() * 1e3).collect();
    // The oldest stuck command was sent just before 10 ms: its 2 ms run out just before 12 ms.
    assert_eq!(lost.len(), 1, "{h:?}");
    assert!(lost[0] > 11.0 && lost[0] <= 12.0, "lost at {} ms", lost[0]);
    let lost_entry = h.iter().find(|e| e["kind"] == "connection_lost").unwrap();
    assert_eq!((lost_entry["host"].as_str(), lost_entry["server"].as_str()), (Some("s0"), Some("r0")));
    // r0 has no other link: no reconnect succeeds, so every later I/O fails at the driver.
    assert!(h.iter().all(|e| e["kind"] != "reconnect"), "{h:?}");
    assert_eq!(f(fl, "connections_lost"), 1.0);
    assert!(f(fl, "aborted_with_connection") >= 1.0, "{fl}");
    let dropped = f(fl, "dropped_with_connection.commands") + f(fl, "dropped_with_connection.responses");
    assert!(dropped >= 1.0, "the torn-down channels held what the link stranded: {fl}");
    // ~20 k IOPS for the 20 ms after the failure: ~400 requests fail; none is left in flight.
    assert!(f(fl, "failed") > 300.0 && f(fl, "failed") < 500.0, "{fl}");
    assert_eq!(f(&s, "requests.in_flight"), 0.0);
    assert_eq!(f(&s, "nvmeof.in_flight"), 0.0, "{}", s["nvmeof"]);
    // The run drains soon after its arrivals stop, not at a retransmission timer minutes later.
    assert!(f(&s, "sim_time_s") < 0.031, "ended at {} s", s["sim_time_s"]);
    assert_eq!(s["finished"], "drained");
}

#[test]
fn a_mirror_serves_on_when_a_link_to_one_replica_fails_for_good() {
    let (s, sim) = run_bounded(&link_scenario("mirror", R0_LINK_DIES));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let fl = &s["faults"];
    // Reads stuck behind the link are retried on d1 when the connection goes; writes complete
    // on d1 alone.
    assert_eq!(f(fl, "failed"), 0.0, "{fl}");
    assert!(f(fl, "retried_reads") >= 1.0 && f(fl, "degraded_writes") >= 1.0, "{fl}");
    assert_eq!(f(&s, "requests.completed"), f(&s, "requests.issued"));
}

#[test]
fn a_link_back_lets_the_host_reconnect_at_its_next_attempt() {
    // The link is back at 15 ms and the routes see it 100 µs later; s0 lost the connection at
    // ~12 ms and tries every 1 ms from then: it reconnects at its first attempt after 15.1 ms.
    let fault = R0_LINK_DIES.to_string() + "until = \"15ms\"\n";
    let (s, sim) = run_bounded(&link_scenario("d0", &fault));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let h = s["faults"]["happened"].as_array().unwrap();
    let at = |k: &str| h.iter().find(|e| e["kind"] == k).map(|e| e["at_s"].as_f64().unwrap() * 1e3);
    let (lost, back) = (at("connection_lost").expect("lost"), at("reconnect").expect("reconnected"));
    assert!(back > 15.1 && back <= 16.2 && ((back - lost) - (back - lost).round()).abs() < 1e-6, "lost {lost} ms, back {back} ms: {h:?}");
    // Served again from then: ~20 k IOPS over the last ~14 ms complete.
    let (never, _) = run_bounded(&link_scenario("d0", R0_LINK_DIES));
    assert!(f(&s, "workloads.w.completed") > f(&never, "workloads.w.completed") + 200.0, "{} vs {}", s["workloads"]["w"], never["workloads"]["w"]);
}

#[test]
fn idle_connection_timers_do_not_stretch_a_drained_run() {
    // Every command over the fabric is timed in a run with faults (Linux's 30 s io_timeout
    // here); a timer whose commands all completed stays in the event queue. A fault on a device
    // nobody uses must change nothing: same requests, same end, not 30 s later.
    let base = link_scenario("d0", "").replace("io_timeout = \"2ms\"\n", "");
    let (plain, _) = run_bounded(&base);
    let (mut faulty, _) = run_bounded(&(base + "[[fault]]\nkind = \"device_slow\"\ndevice = \"d1\"\nat = \"5ms\"\nfactor = 3\n"));
    assert_eq!(faulty["workloads"]["w"].as_object_mut().unwrap().remove("failed"), Some(serde_json::json!(0)));
    assert_eq!(plain["sim_time_s"], faulty["sim_time_s"]);
    assert!(f(&plain, "sim_time_s") < 0.031, "{}", plain["sim_time_s"]);
    assert_eq!(plain["workloads"]["w"], faulty["workloads"]["w"]);
    assert_eq!(faulty["finished"], "drained");
}

#[test]
fn fault_events_after_a_drained_run_do_not_happen() {
    // Arrivals stop at 30 ms and the run drains; d1 (unused) fails at 20 ms and would come back
    // at 90 ms. Once the last request is done nothing can change, so the run ends there: the
    // return is not reached (nor listed), and the clock does not run on to 90 ms.
    let fault = "[[fault]]\nkind = \"device_fail\"\ndevice = \"d1\"\nat = \"20ms\"\nuntil = \"90ms\"\n";
    let (s, sim) = run_bounded(&link_scenario("d0", fault));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let kinds: Vec<&str> = s["faults"]["happened"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["device_fail"], "{}", s["faults"]);
    assert!(f(&s, "sim_time_s") < 0.031, "ended at {} s", s["sim_time_s"]);
    assert_eq!(s["finished"], "drained");
    // A fault due while requests are still out happens as before.
    let (early, _) = run_bounded(&link_scenario("d0", &fault.replace("90ms", "25ms")));
    let kinds: Vec<&str> = early["faults"]["happened"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["device_fail", "device_back"]);
}

#[test]
fn keep_alive_finds_a_server_the_fabric_cut_off_before_any_io_times_out() {
    // KATO 1 ms, I/O timeout 20 ms: r0's only link dies at 10 ms for good. The Keep Alive sent at
    // 10 ms goes unanswered, and at 11 ms s0 tears its connection to r0 down — long before the
    // first stuck command's 20 ms run out.
    let text = |fault: &str| {
        link_scenario("d0", fault).replace("[nvmeof]\n", "[nvmeof]\nkeep_alive = \"1ms\"\n").replace("io_timeout = \"2ms\"", "io_timeout = \"20ms\"")
    };
    let (s, sim) = run_bounded(&text(R0_LINK_DIES));
    sim.check_conservation().unwrap();
    books_balance(&s);
    let h = s["faults"]["happened"].as_array().unwrap();
    let lost: Vec<(&str, f64)> =
        h.iter().filter(|e| e["kind"].as_str().unwrap().ends_with("_lost")).map(|e| (e["kind"].as_str().unwrap(), e["at_s"].as_f64().unwrap() * 1e3)).collect();
    assert_eq!(lost, [("keep_alive_lost", 11.0)], "{h:?}");
    let e = h.iter().find(|e| e["kind"] == "keep_alive_lost").unwrap();
    assert_eq!((e["host"].as_str(), e["server"].as_str()), (Some("s0"), Some("r0")));
    assert!(f(&s, "faults.failed") > 300.0, "{}", s["faults"]);
    // The slowest read completed never waited for the 20 ms timeout.
    assert!(f(&s, "workloads.w.all.lat_us.max") < 2000.0, "{}", s["workloads"]["w"]["all"]["lat_us"]);
    // Back at 10.5 ms (routes at 10.6): the Keep Alive due at 11 ms finds the path again.
    let (back, _) = run_bounded(&text(&(R0_LINK_DIES.to_string() + "until = \"10.5ms\"\n")));
    books_balance(&back);
    assert!(back["faults"]["happened"].as_array().unwrap().iter().all(|e| !e["kind"].as_str().unwrap().ends_with("_lost")), "{}", back["faults"]);
    assert_eq!(f(&back, "faults.failed"), 0.0);
    // Without keep-alive the I/O timeout finds it, 20 ms after the first stuck command.
    let (none, _) = run_bounded(&text(R0_LINK_DIES).replace("keep_alive = \"1ms\"", "keep_alive = \"0s\""));
    let kinds: Vec<&str> = none["faults"]["happened"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["link_down", "reroute", "connection_lost"]);
}
