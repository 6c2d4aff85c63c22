//! Named drives. Each is a complete `SsdParams`; a scenario names one and overrides fields.
//!
//! | preset | what it is | source of the numbers |
//! |---|---|---|
//! | `mqsim-default` | MQSim's stock `ssdconfig.xml`: 8 ch × 4 chips × 2 dies × 2 planes, 2048 × 256 × 8 KiB, MLC 75 µs / 750 µs / 3.8 ms, 333 MT/s, 256 MiB write cache on a 100 MT/s DRAM, 2 MiB CMT, RGA GC, PCIe 4 × 1 GB/s | MQSim's stock file |
//! | `ssd-a`, `ssd-b`, `ssd-c` | SRC Table II: QD 128/512/512, write cache 256/256/512 MB, CMT 2/2/8 MB, page 16/16/8 KB, read 75/2/30 µs, write 300/100/200 µs; the rest as `mqsim-default` | SRC paper Table II |
//! | `consumer-nvme` | a 970 EVO Plus-like TLC drive: 40–90 µs local 4 KiB reads at low queue depth | thesis 5.6.1 |
//! | `optane` | a low-latency (3D XPoint-class) SSD: 10–20 µs reads and writes, no DRAM cache | SPEC §6 |
//! | `slc`, `mlc`, `tlc`, `qlc` | `mqsim-default` geometry with representative cell timings | typical datasheet values |

use crate::params::*;
use crate::switches::ModelSwitches;
use nest_core::SimTime;

pub const NAMES: [&str; 10] = ["mqsim-default", "ssd-a", "ssd-b", "ssd-c", "consumer-nvme", "optane", "slc", "mlc", "tlc", "qlc"];

fn us(v: u64) -> SimTime {
    SimTime::from_us(v)
}

fn uniform(read: SimTime, program: SimTime) -> ([SimTime; 4], [SimTime; 4]) {
    ([read; 4], [program; 4])
}

/// The FTL settings shared by the presets (MQSim's stock values; presets change a few).
fn stock_ftl() -> FtlParams {
    FtlParams {
        overprovisioning: 0.07,
        cmt_bytes: Some(2 << 20),
        allocation: Allocation::Static([0, 1, 2, 3]),
        victim: VictimPolicy::Rga,
        rga_d: 5,
        gc_soft: 0.05,
        gc_hard: 0.005,
        copyback: false,
        gc_preemptible: false,
        dynamic_wl: true,
        static_wl_threshold: Some(100),
    }
}

pub fn mqsim_default() -> SsdParams {
    let (read, program) = uniform(us(75), us(750));
    SsdParams {
        geometry: Geometry {
            channels: 8,
            chips_per_channel: 4,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 2048,
            pages_per_block: 256,
            page_size: 8192,
        },
        timing: FlashTiming {
            cell: Cell::Mlc,
            read,
            program,
            erase: SimTime::from_us(3800),
            command: SimTime::from_ns(200),
            channel_mts: 333,
            channel_width: 1,
        },
        ftl: stock_ftl(),
        cache: CacheParams {
            mode: CacheMode::Write,
            capacity: 256 << 20,
            dram_mts: 100,
            dram_burst: 1,
            t_rcd: SimTime::from_ns(13),
            t_cl: SimTime::from_ns(13),
            row_bytes: 8192,
            t_rp: SimTime::from_ns(13),
            flush_reserve: 0.125,
        },
        host: HostIfParams { pcie_lanes: 4, lane_bytes_per_s: 1e9, queue_depth: 512, command_overhead: SimTime::from_ns(500) },
        sched: SchedParams::default(),
        precondition: None,
        model: ModelSwitches::default(),
        nvm_sets: 1,
        nvm_sets_share_dies: false,
        plm: None,
    }
}

fn src(qd: u32, cache_mib: u64, cmt_mib: u64, page: u32, read: u64, write: u64) -> SsdParams {
    let mut p = mqsim_default();
    p.host.queue_depth = qd;
    p.cache.capacity = cache_mib << 20;
    p.ftl.cmt_bytes = Some(cmt_mib << 20);
    p.geometry.page_size = page;
    (p.timing.read, p.timing.program) = uniform(us(read), us(write));
    p
}

fn consumer_nvme() -> SsdParams {
    SsdParams {
        geometry: Geometry {
            channels: 8,
            chips_per_channel: 2,
            dies_per_chip: 2,
            planes_per_die: 4,
            blocks_per_plane: 1024,
            pages_per_block: 256,
            page_size: 16384,
        },
        timing: FlashTiming {
            cell: Cell::Tlc,
            read: [us(40), us(52), us(64), us(64)],
            program: [us(450), us(700), us(1100), us(1100)],
            erase: SimTime::from_us(3000),
            command: SimTime::from_ns(300),
            channel_mts: 800,
            channel_width: 1,
        },
        ftl: FtlParams { cmt_bytes: None, victim: VictimPolicy::Greedy, gc_hard: 0.01, ..stock_ftl() },
        cache: CacheParams {
            mode: CacheMode::Write,
            capacity: 256 << 20,
            dram_mts: 1866,
            dram_burst: 8,
            t_rcd: SimTime::from_ns(15),
            t_cl: SimTime::from_ns(15),
            row_bytes: 8192,
            t_rp: SimTime::from_ns(15),
            flush_reserve: 0.125,
        },
        host: HostIfParams { pcie_lanes: 4, lane_bytes_per_s: 0.985e9, queue_depth: 1024, command_overhead: SimTime::from_us(5) },
        sched: SchedParams::default(),
        precondition: None,
        model: ModelSwitches::default(),
        nvm_sets: 1,
        nvm_sets_share_dies: false,
        plm: None,
    }
}

fn optane() -> SsdParams {
    let (read, program) = uniform(us(5), us(8));
    SsdParams {
        geometry: Geometry {
            channels: 7,
            chips_per_channel: 4,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 1024,
            pages_per_block: 64,
            page_size: 4096,
        },
        timing: FlashTiming { cell: Cell::Slc, read, program, erase: us(1), command: SimTime::from_ns(100), channel_mts: 1200, channel_width: 1 },
        ftl: FtlParams {
            overprovisioning: 0.2,
            cmt_bytes: None,
            victim: VictimPolicy::Greedy,
            gc_hard: 0.01,
            copyback: true,
            static_wl_threshold: None,
            ..stock_ftl()
        },
        cache: CacheParams {
            mode: CacheMode::Off,
            capacity: 0,
            dram_mts: 1866,
            dram_burst: 8,
            t_rcd: SimTime::from_ns(15),
            t_cl: SimTime::from_ns(15),
            row_bytes: 8192,
            t_rp: SimTime::from_ns(15),
            flush_reserve: 0.125,
        },
        host: HostIfParams { pcie_lanes: 4, lane_bytes_per_s: 0.985e9, queue_depth: 1024, command_overhead: SimTime::from_us(3) },
        sched: SchedParams::default(),
        precondition: None,
        model: ModelSwitches::default(),
        nvm_sets: 1,
        nvm_sets_share_dies: false,
        plm: None,
    }
}

fn cell(c: Cell, read: [u64; 4], program: [u64; 4], erase_us: u64) -> SsdParams {
    let mut p = mqsim_default();
    p.timing.cell = c;
    p.timing.read = read.map(us);
    p.timing.program = program.map(us);
    p.timing.erase = us(erase_us);
    p
}

/// The preset named `name`, or `None`.
pub fn preset(name: &str) -> Option<SsdParams> {
    Some(match name {
        "mqsim-default" => mqsim_default(),
        "ssd-a" => src(128, 256, 2, 16384, 75, 300),
        "ssd-b" => src(512, 256, 2, 16384, 2, 100),
        "ssd-c" => src(512, 512, 8, 8192, 30, 200),
        "consumer-nvme" => consumer_nvme(),
        "optane" => optane(),
        "slc" => cell(Cell::Slc, [25; 4], [200; 4], 1500),
        "mlc" => cell(Cell::Mlc, [50, 75, 75, 75], [500, 1300, 1300, 1300], 3000),
        "tlc" => cell(Cell::Tlc, [60, 75, 95, 95], [700, 1500, 2800, 2800], 4000),
        "qlc" => cell(Cell::Qlc, [85, 100, 120, 140], [1000, 2500, 4000, 6000], 6000),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid() {
        for n in NAMES {
            let p = preset(n).unwrap();
            assert!(p.validate().is_empty(), "{n}: {:?}", p.validate());
        }
        assert!(preset("nope").is_none());
    }

    #[test]
    fn a_geometry_whose_page_count_overflows_is_refused_not_a_panic() {
        // nest-fuzz: a die or plane count of 2^31 overflowed the page count inside validate.
        for (key, set) in [("geometry.dies_per_chip", 0usize), ("geometry.planes_per_die", 1)] {
            let mut p = preset(NAMES[0]).unwrap();
            let g = &mut p.geometry;
            if set == 0 {
                g.dies_per_chip = 1 << 31
            } else {
                g.planes_per_die = 1 << 31
            }
            let errs = p.validate();
            assert!(errs.iter().any(|(k, _)| k == key), "{errs:?}");
            assert!(errs.iter().any(|(k, _)| k == "geometry"), "the page count is refused too: {errs:?}");
        }
    }

    /// MQSim's row formula as written (`DramTiming::MqsimRows`), on its stock DRAM (100 MT/s × 1
    /// B, 8 KiB rows, tRCD = tCL = tRP = 13 ns): a page as the linear formula, above a row half
    /// the rows and the remainder divided — the figures docs/mqsim.md quotes.
    #[test]
    fn mqsims_dram_row_formula_is_reproduced_bug_and_all() {
        use crate::switches::DramTiming::{Linear, MqsimRows};
        let c = mqsim_default().cache;
        assert_eq!(c.access_time_by(4096, MqsimRows), SimTime::from_ns(26 + 20_480));
        assert_eq!(c.access_time_by(4096, Linear), SimTime::from_ns(26 + 20_480));
        assert_eq!(c.access_time_by(12_288, MqsimRows), SimTime::from_ns(26 + 409));
        assert_eq!(c.access_time_by(131_072, MqsimRows), SimTime::from_ns(8 * (26 + 40_960 + 13) + 26));
        assert_eq!(c.access_time_by(131_072, Linear), SimTime::from_ns(26 + 655_360));
    }

    #[test]
    fn mqsim_default_matches_the_stock_file() {
        let p = mqsim_default();
        assert_eq!(p.geometry.pages(), 8 * 4 * 2 * 2 * 2048 * 256);
        // 333 MT/s × 1 B: a 4 KiB page crosses the channel in ≈ 12.3 µs.
        let t = p.timing.channel_time(4096).as_us_f64();
        assert!((t - 12.3).abs() < 0.1, "{t}");
        // 100 MT/s × 1 B DRAM: 4 KiB ≈ 20.5 µs.
        let d = p.cache.access_time(4096).as_us_f64();
        assert!((d - 20.5).abs() < 0.1, "{d}");
    }
}
