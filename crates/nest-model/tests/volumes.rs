//! Volumes: a request fans out to the devices of a striped or replicated volume and comes back
//! when every part has; bytes are conserved (every byte written reaches each replica, every byte
//! read comes from exactly one device).

mod common;
use common::{f, run};
use nest_config::resolve::volume::{Layout, VolumePlan};
use nest_config::{load_str, resolve};
use nest_model::host::volume::map_extent;
use std::path::PathBuf;

fn scenario(volume: &str, host_extra: &str, workload: &str) -> String {
    let mut s = String::from("schema = 1\n[[host]]\nname = \"h\"\n");
    s += host_extra;
    for d in 0..4 {
        s += &format!("[[device]]\nname = \"d{d}\"\nkind = \"ideal\"\nservers = 2\nread = {{ dist = \"fixed\", value = \"10us\" }}\nwrite = {{ dist = \"fixed\", value = \"20us\" }}\n");
    }
    s += volume;
    s += &format!("[[workload]]\nname = \"w\"\ndevice = \"v\"\nhost = \"h\"\nclass = \"high\"\n{workload}\n");
    s
}

#[test]
fn stripe_mapping_walks_the_devices_unit_by_unit() {
    let v = VolumePlan::of_devices("v", Layout::Stripe { unit: 65536 }, vec![7, 8, 9], 0);
    let mut out = Vec::new();
    // 200 KiB … 300 KiB: stripe 3 (device 7, row 1) from 8 KiB, then stripe 4 (device 8, row 1).
    map_extent(&v, false, 200 * 1024, 100 * 1024, 0, &mut out);
    assert_eq!(out, vec![(7, 65536 + 8192, 56 * 1024), (8, 65536, 44 * 1024)]);
    out.clear();
    let r = VolumePlan::of_devices("r", Layout::Replicate, vec![1, 2], 0);
    map_extent(&r, true, 4096, 4096, 0, &mut out);
    assert_eq!(out, vec![(1, 4096, 4096), (2, 4096, 4096)]);
    out.clear();
    map_extent(&r, false, 4096, 4096, 3, &mut out);
    assert_eq!(out, vec![(2, 4096, 4096)]);
}

#[test]
fn a_striped_read_fans_out_to_every_device_and_conserves_bytes() {
    let s = scenario(
        "[[volume]]\nname = \"v\"\nlayout = \"stripe\"\ndevices = [\"d0\", \"d1\", \"d2\", \"d3\"]\nstripe_unit = \"64KiB\"\n",
        "",
        "arrival = { kind = \"constant\", rate_iops = 2000 }\nsize = { dist = \"fixed\", bytes = \"256KiB\" }\nread_fraction = 1.0\naddress = { pattern = \"sequential\" }\nrange = \"64MiB\"\nmax_ios = 400",
    );
    let (v, sim) = run(&s);
    assert_eq!(v["conservation"], "ok");
    sim.check_conservation().unwrap();
    assert_eq!(v["volumes"]["v"]["layout"]["stripe_unit_bytes"], 65536);
    assert_eq!(v["volumes"]["v"]["devices"].as_array().unwrap().len(), 4);
    let app = f(&v, "classes.high.read.bytes");
    let dev: f64 = (0..4).map(|d| f(&v, &format!("devices.d{d}.read.bytes"))).sum();
    assert_eq!(app, 400.0 * 256.0 * 1024.0);
    assert_eq!(dev, app, "every byte read comes from exactly one device");
    for d in 0..4 {
        assert_eq!(f(&v, &format!("devices.d{d}.read.ios")), 400.0, "one 64 KiB part per device per request");
    }
    // The parts run in parallel: a request takes one device read, not four.
    assert!(f(&v, "classes.high.read.lat_us.max") < 15.0, "{}", v["classes"]["high"]["read"]["lat_us"]);
}

#[test]
fn a_replicated_volume_writes_every_replica_and_spreads_reads() {
    let s = scenario(
        "[[volume]]\nname = \"v\"\nlayout = \"replicate\"\ndevices = [\"d0\", \"d1\"]\n",
        "",
        "arrival = { kind = \"poisson\", rate_iops = 20000 }\nsize = { dist = \"uniform_blocks\", min = 1, max = 4 }\nread_fraction = 0.5\nrange = \"16MiB\"\nmax_ios = 4000",
    );
    let (v, _) = run(&s);
    assert_eq!(v["conservation"], "ok");
    let w = f(&v, "classes.high.write.bytes");
    assert_eq!(f(&v, "devices.d0.write.bytes"), w, "replica 0 got every byte written");
    assert_eq!(f(&v, "devices.d1.write.bytes"), w, "replica 1 got every byte written");
    let r = f(&v, "classes.high.read.bytes");
    let (r0, r1) = (f(&v, "devices.d0.read.ios"), f(&v, "devices.d1.read.ios"));
    assert_eq!(f(&v, "devices.d0.read.bytes") + f(&v, "devices.d1.read.bytes"), r);
    assert!((r0 - r1).abs() <= 1.0, "reads alternate between replicas: {r0} vs {r1}");
    // A write completes when its slower replica has: never faster than one device write.
    assert!(f(&v, "classes.high.write.lat_us.p50") >= 20.0);
    assert_eq!(f(&v, "devices.d2.all.ios"), 0.0);
}

#[test]
fn a_host_cache_in_front_of_a_striped_volume() {
    let s = scenario(
        "[[volume]]\nname = \"v\"\nlayout = \"stripe\"\ndevices = [\"d0\", \"d1\", \"d2\"]\nstripe_unit = \"8KiB\"\n",
        "cache = { algorithm = \"fussy\", blocks = 128, write_miss = \"allocate\", warmup = 100 }\n",
        "arrival = { kind = \"poisson\", rate_iops = 20000 }\nsize = { dist = \"uniform_blocks\", min = 1, max = 6 }\nread_fraction = 0.6\naddress = { pattern = \"zipf\", theta = 1.0 }\nrange = \"4MiB\"\nmax_ios = 5000",
    );
    let (v, sim) = run(&s);
    assert_eq!(v["conservation"], "ok");
    sim.check_conservation().unwrap();
    let c = &v["hosts"]["h"]["cache"];
    assert!(f(&v, "hosts.h.cache.hit_rate") > 0.1, "{c}");
    for d in 0..3 {
        assert!(f(&v, &format!("devices.d{d}.all.ios")) > 100.0, "misses and write-backs reach every stripe member");
    }
    assert_eq!(v["requests"]["completed"], 5000);
}

#[test]
fn bad_volumes_name_their_key() {
    let bad = [
        ("[[volume]]\nname = \"v\"\nlayout = \"stripe\"\ndevices = [\"d0\", \"d9\"]\n", "volume[0].devices[1]"),
        ("[[volume]]\nname = \"v\"\nlayout = \"single\"\ndevices = [\"d0\", \"d1\"]\n", "volume[0].devices"),
        ("[[volume]]\nname = \"v\"\nlayout = \"stripe\"\ndevices = [\"d0\", \"d1\"]\nstripe_unit = \"6KiB\"\n", "volume[0].stripe_unit"),
        ("[[volume]]\nname = \"v\"\nlayout = \"mirror\"\ndevices = [\"d0\"]\n", "volume[0].layout"),
        ("[[volume]]\nname = \"v\"\nlayout = \"replicate\"\ndevices = [\"d0\", \"d0\"]\n", "volume[0].devices[1]"),
        ("[[volume]]\nname = \"d1\"\nlayout = \"single\"\ndevices = [\"d0\"]\n", "volume[0].name"),
    ];
    for (vol, key) in bad {
        let s = scenario(vol, "", "arrival = { kind = \"poisson\", rate_iops = 10 }");
        let e = load_str(&s, "t.toml", PathBuf::from("."), &[], None).and_then(|l| resolve(&l, &s)).err();
        let msg = e.map(|e| e.to_string()).unwrap_or_else(|| panic!("{vol} was accepted"));
        assert!(msg.contains(key), "{vol}: {msg}");
    }
}

#[test]
fn an_admission_gate_holds_split_requests_before_they_reach_cache_or_volume() {
    // A host cache in front of a striped volume, capped at 2 requests per ms: held requests
    // are application requests (already `Split`), so the books must still balance mid-run.
    let mut s = scenario(
        "[[volume]]\nname = \"v\"\nlayout = \"stripe\"\ndevices = [\"d0\", \"d1\", \"d2\"]\nstripe_unit = \"8KiB\"\n",
        "cache = { algorithm = \"lru\", blocks = 64 }\n",
        "arrival = { kind = \"poisson\", rate_iops = 20000 }\nsize = { dist = \"uniform_blocks\", min = 1, max = 6 }\nread_fraction = 0.6\nrange = \"4MiB\"\nmax_ios = 300",
    );
    s += "[[coordinator]]\nname = \"cap\"\nkind = \"fixed-budget\"\nperiod = \"1ms\"\nios = 2\n";
    let l = load_str(&s, "t.toml", PathBuf::from("."), &[], None).unwrap();
    let mut sim = nest_model::Simulation::new(resolve(&l, &s).unwrap()).unwrap();
    let mut checked = 0;
    while sim.step(100).unwrap() == nest_model::StepState::Running {
        sim.check_conservation().unwrap();
        checked += 1;
    }
    assert!(checked > 3, "checked mid-run {checked} times");
    let v = sim.summary();
    assert_eq!(v["conservation"], "ok");
    assert_eq!(v["requests"]["completed"], 300);
    let adm = &v["hosts"]["h"]["admission"];
    assert_eq!(f(adm, "admitted"), 300.0);
    assert!(f(adm, "max_held") > 100.0, "the 20 k/s arrivals queue behind a 2 k/s cap: {adm}");
    // 300 requests at 2 per ms take ≥ 149 ms whatever the arrivals.
    assert!(f(&v, "sim_time_s") >= 0.149);
}
