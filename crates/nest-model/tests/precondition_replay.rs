//! `precondition.from_workloads`: the drive preconditioned with the pages its workloads will
//! draw, in their order, as MQSim's preconditioning draws them from its flows' own generators.

mod common;
use common::{f, run};

/// A 4 KiB random-read closed loop on a small compat drive preconditioned to half full, its
/// 16 KiB CMT warmed (`cmt_warm`) by MQSim's walk (`walk_seed`).
fn scenario(from_workloads: bool) -> String {
    format!(
        r#"
schema = 1
name = "replay"
[run]
seed = 3
[[host]]
name = "h0"
queue_depth = 64
[[device]]
name = "ssd0"
kind = "ssd"
preset = "mqsim-default"
compat = "mqsim"
geometry = {{ channels = 2, chips_per_channel = 1, dies_per_chip = 1, planes_per_die = 2, blocks_per_plane = 256, pages_per_block = 64, page_size = "4KiB" }}
ftl = {{ cmt = "16KiB" }}
precondition = {{ occupancy = 0.5, overwrites = 1.0, cmt_warm = 1.0, from_workloads = {from_workloads}, walk_seed = 321 }}
[[workload]]
read_fraction = 1.0
max_ios = 4000
size = {{ dist = "fixed", bytes = "4KiB" }}
arrival = {{ kind = "burst", outstanding = 8 }}
name = "w"
device = "ssd0"
"#
    )
}

/// The warm entries MQSim's walk picks among the run's own pages, its first ones brought last,
/// are the run's next addresses: the CMT hits more often than with random written pages
/// (0.090 against 0.051 here); the same scenario and seed give the same run.
#[test]
fn the_run_meets_the_warm_entries_it_was_preconditioned_with() {
    let (replayed, _) = run(&scenario(true));
    let (first_pages, _) = run(&scenario(false));
    let hits = |v| f(v, "devices.ssd0.ssd.cmt_hit_rate");
    assert_eq!(f(&replayed, "requests.completed"), 4000.0);
    assert!(hits(&replayed) > 1.5 * hits(&first_pages), "CMT hits {} replayed, {} over the first pages", hits(&replayed), hits(&first_pages));
    assert_eq!(run(&scenario(true)).0["fingerprint"], replayed["fingerprint"]);
}
