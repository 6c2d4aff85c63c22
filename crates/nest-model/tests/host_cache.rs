//! Host caches on the request path: hits served at the cost model's price, misses and cache
//! traffic at the device, the books balanced, bad cache settings rejected at their key.

mod common;
use common::{f, run};
use nest_config::{load_str, resolve};
use std::path::PathBuf;

fn scenario(cache: &str, workload: &str) -> String {
    format!(
        r#"
schema = 1
[[host]]
name = "h"
cache = {cache}
[[device]]
name = "d"
kind = "ideal"
servers = 4
read = {{ dist = "fixed", value = "10us" }}
write = {{ dist = "fixed", value = "20us" }}
[[workload]]
name = "w"
device = "d"
host = "h"
class = "high"
{workload}
"#
    )
}

const COSTS: &str = r#"costs = { lookup = "100ns", dm = "200ns", mdm = "50ns", copy = "1us" }"#;

#[test]
fn lru_serves_the_second_pass_from_memory_at_the_cost_models_price() {
    // 100 sequential 4 KiB reads cycling over 16 blocks, one every ms, into a 16-block LRU:
    // 16 compulsory misses (10 µs device + lookup + dm + copy), then 84 hits (lookup + copy).
    let s = scenario(
        &format!("{{ algorithm = \"lru\", blocks = 16, {COSTS} }}"),
        "arrival = { kind = \"constant\", rate_iops = 1000 }\nsize = { dist = \"fixed\", bytes = \"4KiB\" }\nread_fraction = 1.0\naddress = { pattern = \"sequential\" }\nrange = \"64KiB\"\nmax_ios = 100",
    );
    let (v, sim) = run(&s);
    let c = &v["hosts"]["h"]["cache"];
    assert_eq!(v["conservation"], "ok");
    assert_eq!(c["hits"], 84);
    assert_eq!(c["admitted"], 16);
    assert_eq!(c["full_hit_requests"], 84);
    assert_eq!(f(&v, "devices.d.all.ios"), 16.0, "only the misses reach the device");
    let want = (16.0 * 11.3 + 84.0 * 1.1) / 100.0;
    assert!((f(&v, "classes.high.read.lat_us.mean") - want).abs() < 1e-6, "mean {} vs {want}", f(&v, "classes.high.read.lat_us.mean"));
    assert!((f(&v, "classes.high.read.lat_us.max") - 11.3).abs() < 0.01);
    sim.check_conservation().unwrap();
}

#[test]
fn request_stages_stay_ordered_through_the_cache() {
    // Multi-block requests with partial hits: children per run of misses, background I/O.
    for algo in ["lru", "arc", "sarc", "fussy", "fussy-qos"] {
        let s = scenario(
            &format!("{{ algorithm = \"{algo}\", blocks = 64, write_miss = \"allocate\", warmup = 200 }}"),
            "arrival = { kind = \"poisson\", rate_iops = 50000 }\nsize = { dist = \"uniform_blocks\", min = 1, max = 8 }\nread_fraction = 0.6\naddress = { pattern = \"zipf\", theta = 0.9 }\nrange = \"2MiB\"\nmax_ios = 5000",
        );
        let l = load_str(&s, "t.toml", PathBuf::from("."), &[], None).unwrap();
        let mut sim = nest_model::Simulation::new(resolve(&l, &s).unwrap()).unwrap();
        sim.run().unwrap();
        sim.check_conservation().unwrap_or_else(|e| panic!("{algo}: {e}"));
        let cols = sim.drain_requests();
        assert_eq!(cols.len(), 5000, "{algo}: every request completed");
        for i in 0..cols.len() {
            let t = [cols.t_arrive_ps[i], cols.t_dispatch_ps[i], cols.t_dev_start_ps[i], cols.t_dev_done_ps[i], cols.t_complete_ps[i]];
            assert!(t.windows(2).all(|w| w[0] <= w[1]), "{algo} request {i}: stages out of order {t:?}");
            let blocks = (cols.offset[i] + cols.size[i] as u64 - 1) / 4096 - cols.offset[i] / 4096 + 1;
            assert!(cols.cache_hit_blocks[i] as u64 <= blocks);
        }
        let v = sim.summary();
        let c = &v["hosts"]["h"]["cache"];
        assert!(f(&v, "hosts.h.cache.hit_rate") > 0.05, "{algo}: a Zipf mix hits sometimes: {c}");
        // Every dirty block is written back on eviction or still held at the end.
        assert_eq!(c["writebacks"], c["background_writes"], "{algo}");
        assert_eq!(c["background_in_flight"], 0, "{algo}: drained");
    }
}

#[test]
fn a_read_that_hits_a_prefetch_in_flight_waits_for_its_data() {
    // SARC prefetches ahead of a sequential 32 KiB read stream. The first request's own
    // blocks 2–7 are prefetched by its block 1 (the stream is detected there): hits in the
    // cache's books, but their data is still at the device, so the request waits for it.
    let s = scenario(
        "{ algorithm = \"sarc\", blocks = 256 }",
        "arrival = { kind = \"constant\", rate_iops = 10000 }\nsize = { dist = \"fixed\", bytes = \"32KiB\" }\nread_fraction = 1.0\naddress = { pattern = \"sequential\" }\nrange = \"64MiB\"\nmax_ios = 500",
    );
    let (v, mut sim) = run(&s);
    let c = &v["hosts"]["h"]["cache"];
    assert!(f(&v, "hosts.h.cache.delayed_hits") > 0.0, "{c}");
    let cols = sim.drain_requests();
    let first = (0..cols.len()).find(|&i| cols.seq[i] == 0).unwrap();
    assert_eq!(cols.cache_hit_blocks[first], 6, "blocks 2–7 hit their own prefetch");
    let lat = cols.t_complete_ps[first] - cols.t_arrive_ps[first];
    assert!(lat >= 10_000_000, "the first request finished in {lat} ps, before its prefetched data arrived");
    // Later requests find their blocks fetched long before: memory speed (8 × lookup + copy).
    let fastest = (0..cols.len()).map(|i| cols.t_complete_ps[i] - cols.t_arrive_ps[i]).min().unwrap();
    assert!(fastest < 10_000_000);
    assert!(f(&v, "devices.d.read.bytes") >= f(&v, "classes.high.read.bytes"), "all first-time data came from the device");
}

#[test]
fn bad_cache_settings_name_their_key() {
    let bad = [
        ("{ algorithm = \"lfu\", blocks = 16 }", "host[0].cache.algorithm"),
        ("{ algorithm = \"lru\" }", "host[0].cache"),
        ("{ algorithm = \"lru\", blocks = 16, size = \"1MiB\" }", "host[0].cache"),
        ("{ algorithm = \"lru\", blocks = 16, write_miss = \"later\" }", "host[0].cache.write_miss"),
        ("{ algorithm = \"fussy\", blocks = 16, hr_count = 0 }", "host[0].cache.hr_count"),
        ("{ algorithm = \"fussy-qos\", blocks = 4 }", "host[0].cache"),
        ("{ algorithm = \"lru\", blocks = 16, costs = { copy = \"fast\" } }", "host[0].cache.costs.copy"),
        ("{ algorithm = \"lru\", blocks = 16, colour = 1 }", "colour"),
    ];
    for (cache, key) in bad {
        let s = scenario(cache, "arrival = { kind = \"poisson\", rate_iops = 10 }");
        let e = load_str(&s, "t.toml", PathBuf::from("."), &[], None).and_then(|l| resolve(&l, &s)).err();
        let msg = e.map(|e| e.to_string()).unwrap_or_else(|| panic!("{cache} was accepted"));
        assert!(msg.contains(key) && msg.contains("t.toml"), "{cache}: {msg}");
    }
}
