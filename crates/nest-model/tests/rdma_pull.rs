//! NVMe over RDMA as SPDK runs it (SPEC §13.8, `nvmeof.rs`): a write beyond the in-capsule size
//! arrives as a bare command and the target pulls its data with an RDMA READ posted on its queue
//! pair — behind the read data that queue pair is sending — so read data held back at a target
//! delay its writes too.

mod common;
use common::{f, run};

/// One client (s0) reading `reads` × 256 KiB outstanding and writing 4 × `write` outstanding to an
/// SSD in r0 over a 10 Gb/s link; `extra` goes into `[nvmeof]`.
fn scenario(transport: &str, reads: u32, write: &str, extra: &str) -> String {
    let read_load = if reads == 0 {
        String::new()
    } else {
        format!(
            "[[workload]]\nname = \"r\"\nhost = \"s0\"\ndevice = \"d\"\narrival = {{ kind = \"burst\", outstanding = {reads} }}\n\
             size = {{ dist = \"fixed\", bytes = \"256KiB\" }}\nread_fraction = 1.0\n"
        )
    };
    format!(
        "schema = 1\n[run]\nduration = \"20ms\"\n[network]\ntopology = \"dumbbell\"\nsenders = 1\nreceivers = 1\n\
         link_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[nvmeof]\ntransport = \"{transport}\"\n{extra}[[host]]\nname = \"s0\"\n\
         [[device]]\nname = \"d\"\nkind = \"ssd\"\npreset = \"ssd-a\"\nserver = \"r0\"\n{read_load}\
         [[workload]]\nname = \"w\"\nhost = \"s0\"\ndevice = \"d\"\narrival = {{ kind = \"burst\", outstanding = 4 }}\n\
         size = {{ dist = \"fixed\", bytes = \"{write}\" }}\nread_fraction = 0.0\n"
    )
}

#[test]
fn a_write_beyond_the_in_capsule_size_has_its_data_pulled() {
    let (s, sim) = run(&scenario("dcqcn", 0, "64KiB", ""));
    sim.check_conservation().unwrap();
    let writes = f(&s, "workloads.w.all.ios");
    assert!(writes > 30.0, "{writes} writes");
    let n = &s["nvmeof"];
    let (posted, answered, arrived) = (f(n, "rdma_reads.posted"), f(n, "rdma_reads.answered"), f(n, "rdma_reads.data_at_target"));
    assert!(posted >= writes && posted <= writes + 4.0, "one RDMA READ per write: {posted} for {writes} writes");
    assert!(answered <= posted && arrived <= answered && arrived >= writes, "{n}");
    assert_eq!(f(n, "write_bytes.sent"), f(n, "write_bytes.at_target") + (answered - arrived) * 65536.0, "{n}");
    // A write that fits the capsule is not pulled; NVMe/TCP never pulls.
    for text in [scenario("dcqcn", 0, "4KiB", ""), scenario("dctcp", 0, "64KiB", "")] {
        let (s, sim) = run(&text);
        sim.check_conservation().unwrap();
        assert_eq!(f(&s, "nvmeof.rdma_reads.posted"), 0.0);
        assert!(f(&s, "workloads.w.all.ios") > 30.0);
    }
}

#[test]
fn pulled_writes_wait_behind_the_read_data_on_the_targets_queue_pair() {
    // 32 reads of 256 KiB outstanding keep ~8 MiB of read data queued at the target's queue pair.
    let lat = |extra: &str| {
        let (s, sim) = run(&scenario("dcqcn", 32, "64KiB", extra));
        sim.check_conservation().unwrap();
        // Between the command's arrival at the target and its place in the SQ: the target's
        // request queue, and for a pulled write its RDMA READ's round trip.
        (f(&s, "workloads.w.all.decomposition_us.target_request_queue"), f(&s, "workloads.r.all.ios"))
    };
    let (pulled, reads_a) = lat("");
    let (in_capsule, reads_b) = lat("in_capsule_data = \"64KiB\"\n");
    assert!(reads_a > 50.0 && reads_b > 50.0, "the reads flow: {reads_a}, {reads_b}");
    // The wire alone: the READ request out and 64 KiB back at 10 Gb/s, ~55 µs.
    assert!(
        in_capsule < 5.0 && pulled > 500.0,
        "a pulled write waits behind the read data: {pulled:.0} µs at the target against {in_capsule:.0} µs in the capsule"
    );
}
