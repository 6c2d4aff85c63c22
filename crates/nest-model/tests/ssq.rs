//! SRC's separate submission queues in front of an SSD (SRC §III-A): with both queues backlogged
//! the write weight w moves throughput from reads to writes, the device's depth is shared by the
//! ratio, and nothing is lost.

mod common;
use common::{f, run};

fn scenario(arb: &str) -> String {
    format!(
        r#"schema = 1
[run]
seed = 2
duration = "200ms"
drain = true
[[host]]
name = "h0"
queue_depth = 256
[[device]]
name = "ssd"
kind = "ssd"
preset = "mlc"
geometry = {{ channels = 2, chips_per_channel = 2, dies_per_chip = 1, planes_per_die = 2, blocks_per_plane = 64, pages_per_block = 64, page_size = "4KiB" }}
cache = {{ mode = "off" }}
precondition = {{ occupancy = 0.5 }}
nvme = {{ {arb}, sq_depth = 128 }}
[device.host_interface]
queue_depth = 16
[[workload]]
name = "r"
host = "h0"
device = "ssd"
arrival = {{ kind = "burst", outstanding = 64 }}
size = {{ dist = "fixed", bytes = "16KiB" }}
read_fraction = 1.0
[[workload]]
name = "w"
host = "h0"
device = "ssd"
arrival = {{ kind = "burst", outstanding = 64 }}
size = {{ dist = "fixed", bytes = "16KiB" }}
read_fraction = 0.0
"#
    )
}

#[test]
fn the_write_weight_moves_throughput_from_reads_to_writes() {
    let mut ratio = Vec::new();
    for w in [1, 2, 4, 8] {
        let (s, sim) = run(&scenario(&format!("arbitration = \"ssq\", write_weight = {w}")));
        sim.check_conservation().unwrap();
        assert_eq!(s["devices"]["ssd"]["ssd"]["nvme_arbitration"], "ssq");
        assert_eq!(f(&s, "devices.ssd.ssd.ssq_write_weight"), w as f64);
        ratio.push(f(&s, "workloads.w.write.ios") / f(&s, "workloads.r.read.ios"));
    }
    for k in 1..ratio.len() {
        assert!(ratio[k] > ratio[k - 1] * 1.2, "writes per read must grow with w: {ratio:?}");
    }
    // The depth partition is what moves it: at w = 1 reads hold half the device's 16 slots and,
    // 20× faster than programs, take ~97 % of the completions; round robin over the host's SQs
    // lets slow writes fill the device instead.
    let (rr, _) = run(&scenario("arbitration = \"rr\""));
    let plain = f(&rr, "workloads.w.write.ios") / f(&rr, "workloads.r.read.ios");
    assert!(ratio[0] < plain, "w = 1: {} writes per read, rr: {plain}", ratio[0]);
}
