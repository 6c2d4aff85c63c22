//! PLMLight end to end (thesis 3.6): three hosts over a dumbbell to one storage server with an
//! SSD without PLM and an Optane-class SSD. The coordinator allocates read DCs per DTWin, the
//! write-handling agent sends the writes beyond the device's write DC to the fast device and
//! flushes them to the SSD in NDWin; reads beyond their host's DCs wait for the NDWin.

mod common;
use common::{f, run};
use nest_config::{load_str, resolve};
use std::path::PathBuf;

fn scenario(coord: &str, size: &str) -> String {
    let mut s = String::from(
        r#"schema = 1
[run]
seed = 5
duration = "60ms"
drain = true
[network]
topology = "dumbbell"
senders = 3
receivers = 1
link_rate = "25Gbps"
link_delay = "1us"
[[device]]
name = "ssd"
kind = "ssd"
preset = "mlc"
server = "r0"
geometry = { channels = 2, chips_per_channel = 2, dies_per_chip = 1, planes_per_die = 2, blocks_per_plane = 64, pages_per_block = 64, page_size = "4KiB" }
precondition = { occupancy = 0.5 }
[[device]]
name = "optane"
kind = "ssd"
preset = "optane"
server = "r0"
"#,
    );
    s += coord;
    for (k, class) in ["high", "medium", "low"].iter().enumerate() {
        s += &format!(
            "[[host]]\nname = \"s{k}\"\n[[workload]]\nname = \"{class}\"\nhost = \"s{k}\"\ndevice = \"ssd\"\nclass = \"{class}\"\narrival = {{ kind = \"poisson\", rate_iops = 15000 }}\nsize = {size}\nread_fraction = 0.3\n"
        );
    }
    s
}

const PLMLIGHT: &str = r#"[[coordinator]]
name = "pl"
kind = "plmlight"
hosts = ["s0", "s1", "s2"]
device = "ssd"
fast = "optane"
counts = 12
write_counts = 25
t_ndwl = "500us"
"#;

#[test]
fn the_write_dc_ends_the_dtwin_and_parked_writes_all_reach_the_ssd() {
    let (base, _) = run(&scenario("", r#"{ dist = "fixed", bytes = "4KiB" }"#));
    let (s, sim) = run(&scenario(PLMLIGHT, r#"{ dist = "fixed", bytes = "4KiB" }"#));
    sim.check_conservation().unwrap();
    assert_eq!(s["conservation"], "ok");
    let r = |k: &str| f(&s, &format!("coordinators.pl.report.{k}"));
    let writes: f64 = ["high", "medium", "low"].iter().map(|w| f(&s, &format!("workloads.{w}.write.ios"))).sum();
    let reads: f64 = ["high", "medium", "low"].iter().map(|w| f(&s, &format!("workloads.{w}.read.ios"))).sum();
    // Every write went to one place: the SSD within the write DC, or the SSD in NDWin. A 4 KiB
    // write spends one count, so the DC is spent exactly — which ends the DTWin — and no write is
    // ever beyond it: nothing is parked (SPEC §13.7's reading).
    assert_eq!(r("writes_to_ssd") + r("writes_to_fast_beyond_dc") + r("writes_to_ssd_ndwin"), writes);
    assert_eq!((r("writes_to_fast_beyond_dc"), r("bytes_to_fast")), (0.0, 0.0));
    assert!(r("writes_to_ssd_ndwin") > 0.2 * writes, "the DC (25 per 1 ms) is below the offered ~31 writes per ms");
    // The SSD received every write once, directly or flushed: as many as without PLMLight.
    // The SSD received every write once, directly or flushed: as many commands as without
    // PLMLight (the same arrivals), the fast device two per parked write.
    assert_eq!(f(&s, "devices.ssd.ssd.commands"), f(&base, "devices.ssd.ssd.commands"));
    assert_eq!(f(&s, "devices.optane.ssd.commands"), 0.0);
    // Reads: within the DCs, or in NDWin — those held for it among them (routed again there).
    assert!(r("reads_held_for_nd") > 0.0, "12 read DCs per window for ~13 reads per ms");
    assert_eq!(r("reads_in_dc") + r("reads_in_nd") + r("reads_other_hosts"), reads);
    assert!(r("reads_in_nd") >= r("reads_held_for_nd"));
    assert_eq!(r("reads_other_hosts"), 0.0);
    assert_eq!(f(&s, "nvmeof.targets.r0.held"), r("reads_held_for_nd"));
    assert_eq!(f(&s, "nvmeof.targets.r0.held_at_end"), 0.0);
    // Windows: DTWins of at most 1 ms, NDWins of at least 0.5 ms; most end on time or by the DC.
    let (dt, nd) = (r("dt_windows"), r("nd_windows"));
    assert!(dt >= nd && dt - nd <= 1.0 && nd > 20.0, "{dt} DTWins, {nd} NDWins");
    assert!(r("dt_time_ms") <= dt && r("nd_time_ms") >= 0.5 * nd, "{} ms in DTWin, {} in NDWin", r("dt_time_ms"), r("nd_time_ms"));
    assert!(r("nd_forced_by_write_dc") > 0.0);
    // With every NDWin write parked too (`nd_writes = "fast"`), most writes are acknowledged by
    // the Optane-class device: faster on average.
    let (all, _) = run(&scenario(&PLMLIGHT.replace("t_ndwl = \"500us\"", "t_ndwl = \"500us\"\nnd_writes = \"fast\""), r#"{ dist = "fixed", bytes = "4KiB" }"#));
    let a = |k: &str| f(&all, &format!("coordinators.pl.report.{k}"));
    assert_eq!(a("writes_to_ssd_ndwin"), 0.0);
    assert!(a("writes_to_fast_beyond_dc") > 0.2 * writes);
    assert_eq!(a("bytes_to_fast"), 4096.0 * a("writes_to_fast_beyond_dc"));
    assert_eq!((a("bytes_flushed"), a("bytes_parked_at_end")), (a("bytes_to_fast"), 0.0), "the run drained: every parked byte reached the SSD");
    assert_eq!(f(&all, "devices.optane.ssd.commands"), 2.0 * a("writes_to_fast_beyond_dc"));
    assert_eq!(f(&all, "devices.ssd.ssd.commands"), f(&base, "devices.ssd.ssd.commands"), "every write reaches the SSD once");
    let wlat = |v: &serde_json::Value| f(v, "classes.high.write.lat_us.mean");
    assert!(wlat(&all) < wlat(&base), "write mean {} µs with PLMLight vs {} µs without", wlat(&all), wlat(&base));
    // Per-host windows as PLMC measures them.
    for h in ["s0", "s1", "s2"] {
        let u = f(&s, &format!("coordinators.pl.per_host.{h}.utilization_p50"));
        assert!((0.0..=1.0).contains(&u));
    }
}

#[test]
fn small_writes_go_to_the_fast_device_whatever_the_write_dc() {
    let coord = PLMLIGHT.replace("t_ndwl = \"500us\"", "small_writes_below = \"64KiB\"");
    let (s, sim) = run(&scenario(&coord, r#"{ dist = "uniform_blocks", min = 1, max = 32 }"#));
    sim.check_conservation().unwrap();
    let r = |k: &str| f(&s, &format!("coordinators.pl.report.{k}"));
    assert!(r("writes_to_fast_small") > 0.0 && r("writes_to_ssd") > 0.0);
    // Writes of 4–60 KiB are 15 of the 32 sizes: about half of the writes.
    let share = r("writes_to_fast_small") / (r("writes_to_fast_small") + r("writes_to_fast_beyond_dc") + r("writes_to_ssd") + r("writes_to_ssd_ndwin"));
    assert!((0.35..0.6).contains(&share), "{share}");
    assert_eq!(r("bytes_parked_at_end"), 0.0);
}

#[test]
fn plmlight_scenarios_that_cannot_work_are_refused_with_the_key() {
    let err = |coord: &str| {
        let text = scenario(coord, r#"{ dist = "fixed", bytes = "4KiB" }"#);
        load_str(&text, "t.toml", PathBuf::from("."), &[], None).and_then(|l| resolve(&l, &text)).map(|_| ()).unwrap_err().to_string()
    };
    let e = err(&PLMLIGHT.replace("fast = \"optane\"", "fast = \"ssd\""));
    assert!(e.contains("coordinator[0].fast") && e.contains("another device"), "{e}");
    let e = err(&PLMLIGHT.replace("write_counts = 25\n", ""));
    assert!(e.contains("coordinator[0].write_counts"), "{e}");
    let e = err(&PLMLIGHT.replace("device = \"ssd\"", "device = \"nope\""));
    assert!(e.contains("no device named 'nope'"), "{e}");
    let e = err(&format!("{PLMLIGHT}overrun = \"send\"\n"));
    // A key of another kind is refused as the file is read, naming the key and its line.
    assert!(e.contains("t.toml:") && e.contains("coordinator[0].overrun") && e.contains("unknown field `overrun`"), "{e}");
    let e = err(&PLMLIGHT.replace("t_ndwl = \"500us\"", "t_ndwl = \"0us\""));
    assert!(e.contains("coordinator[0].t_ndwl") && e.contains("under 1 µs"), "{e}");
    // Picosecond windows would spin through an idle stretch window by window (issue 63).
    let e = err(&format!("{PLMLIGHT}t_dw = \"1ps\"\n"));
    assert!(e.contains("coordinator[0].t_dw") && e.contains("under 1 µs"), "{e}");
    let e = err(&format!("{PLMLIGHT}t_ndwh = \"100us\"\n"));
    assert!(e.contains("t_ndwh") && e.contains("at least t_ndwl"), "{e}");
    let e =
        err(&format!("{PLMLIGHT}[[coordinator]]\nname = \"pl2\"\nkind = \"plmlight\"\ndevice = \"ssd\"\nfast = \"optane\"\ncounts = 1\nwrite_counts = 1\n"));
    assert!(e.contains("one plmlight or src per server"), "{e}");
}

#[test]
fn the_agent_samples_its_windows_and_sampling_changes_no_result() {
    let text = scenario(PLMLIGHT, r#"{ dist = "fixed", bytes = "4KiB" }"#);
    let fine = text.replace("drain = true", "drain = true\ninterval = \"100us\"");
    let (a, _) = run(&text);
    let (b, sim) = run(&fine);
    // Everything but the count of sampling events (and what hashes it) is the same: the run
    // ends at its last event, not at a trailing sample.
    let model = |v: &serde_json::Value| {
        let mut v = v.clone();
        for k in ["config", "events", "fingerprint"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    assert_eq!(model(&a), model(&b), "100 µs sampling (which catches the idle windows up) changes nothing");
    let names = sim.series_names();
    for m in nest_qos::plmlight::SERIES {
        assert!(names.iter().any(|(e, n)| e == "router:r0" && n == m), "router:r0 {m} in {names:?}");
    }
}
