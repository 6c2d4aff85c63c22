use super::*;
use nest_core::Priority;
use nest_nvme::BackgroundIo;

const SSD: DeviceId = DeviceId(0);
const FAST: DeviceId = DeviceId(1);

fn us(x: u64) -> SimTime {
    SimTime::from_us(x)
}

fn cfg() -> PlmLightConfig {
    PlmLightConfig {
        hosts: vec![HostId(0), HostId(1), HostId(2)],
        read_counts: 7,
        c_min: vec![0; 3],
        policy: Policy::FixedRatio(vec![4, 2, 1]),
        overflow: MinOverflow::Priority,
        zeta: 0.5,
        write_counts: 4,
        ssd: SSD,
        fast: FAST,
        t_dw: us(1000),
        t_ndwl: us(200),
        t_ndwh: us(2000),
        small_below: 0,
        fast_capacity: u64::MAX,
        flush_depth: 2,
        nd_writes_to_fast: false,
    }
}

fn cmd(host: u32, write: bool, bytes: u32) -> CmdInfo {
    CmdInfo { host: HostId(host), device: SSD, write, offset: 8192, bytes, class: Priority::High, class_id: host as u16 }
}

fn started(c: PlmLightConfig) -> (PlmLight, RouterOut) {
    let mut p = PlmLight::new(c);
    let mut out = RouterOut::default();
    p.start(SimTime::ZERO, &mut out);
    assert_eq!(out.wake, None, "nothing waits on the first DTWin's end yet");
    (p, out)
}

#[test]
fn the_dtwin_ends_on_time_releases_held_reads_and_an_idle_ndwin_lasts_t_ndwl() {
    let (mut p, mut out) = started(cfg());
    // Before any window has been measured every host is predicted C/k = 7/3 → 3 counts; 9 > 7,
    // so fixed ratio 4:2:1 gives host 2 one count: its second 4 KiB read is held for NDWin.
    assert_eq!(p.reads_dc.allocation(), &[4, 2, 1]);
    assert_eq!(p.route(us(1), &cmd(2, false, 4096), &mut out), Some(SSD));
    assert_eq!(p.route(us(3), &cmd(2, false, 4096), &mut out), None, "beyond host 2's read DCs: held");
    assert!(!out.release);
    assert_eq!(out.wake, Some(us(1000)), "a held read waits on the DTWin's end");
    assert_eq!(p.route(us(4), &cmd(9, false, 4096), &mut out), Some(SSD), "not one of its hosts");
    out = RouterOut::default();
    p.on_wake(us(1000), &mut out);
    assert_eq!(p.window(), Win::Nd);
    assert!(out.release, "the held read goes at NDWin");
    assert_eq!(out.wake, None, "nothing waits on this NDWin: it passes without events");
    assert_eq!(p.route(us(1001), &cmd(2, false, 4096), &mut out), Some(SSD), "in NDWin every read goes");
    // The next command finds the idle NDWin over at T_NDWL (1200 µs) and a DTWin open since.
    assert_eq!(p.route(us(1300), &cmd(9, false, 4096), &mut out), Some(SSD));
    assert_eq!(p.window(), Win::Dt);
    let r = p.report();
    let get = |k: &str| r.iter().find(|(n, _)| *n == k).unwrap().1;
    assert_eq!((get("dt_windows"), get("nd_windows"), get("nd_forced_by_write_dc")), (2.0, 1.0, 0.0));
    assert_eq!((get("reads_in_dc"), get("reads_held_for_nd"), get("reads_in_nd"), get("reads_other_hosts")), (1.0, 1.0, 1.0, 2.0));
    assert_eq!((get("dt_time_ms"), get("nd_time_ms")), (1.1, 0.2), "the open DTWin counts up to the last call");
    // The measured demand (host 2: 2 counts, the others none) enters the prediction with
    // ζ = 0.5: ⌈7/6⌉ = 2, 2, ⌈1 + 7/6⌉ = 3, which fit in 7.
    assert_eq!(p.reads_dc.allocation(), &[2, 2, 3]);
}

#[test]
fn writes_take_the_write_dc_first_come_first_served_and_the_one_that_does_not_fit_forces_ndwin() {
    let (mut p, mut out) = started(cfg());
    assert_eq!(p.route(us(1), &cmd(0, true, 4096), &mut out), Some(SSD));
    assert_eq!(p.route(us(2), &cmd(2, true, 8192), &mut out), Some(SSD), "any class spends the shared DC");
    assert_eq!(p.write_left(), 1);
    assert_eq!(p.route(us(3), &cmd(1, true, 8192), &mut out), Some(FAST), "2 counts do not fit in 1: to the fast device");
    assert_eq!(p.window(), Win::Nd, "and the write DC is exhausted");
    assert!(!out.release, "no read was held");
    // Its flush starts at once: read back from the fast device, then written to the SSD.
    let read_back = BackgroundIo { host: HostId(1), device: FAST, write: false, offset: 8192, bytes: 8192, class_id: 1, tag: 0 };
    assert_eq!(out.background, vec![read_back]);
    assert_eq!(out.wake, Some(us(203)), "T_NDWL after the NDWin started");
    out = RouterOut::default();
    p.on_wake(us(203), &mut out);
    assert_eq!(p.window(), Win::Nd, "T_NDWL passed but the flush is not done");
    assert_eq!(out.wake, Some(us(2003)), "the flush ends it, or T_NDWH");
    // A write in NDWin goes to the SSD: only the writes beyond the write DC are parked (SPEC §13.7).
    out = RouterOut::default();
    assert_eq!(p.route(us(300), &cmd(0, true, 4096), &mut out), Some(SSD));
    assert!(out.background.is_empty());
    assert_eq!(p.wha().parked_bytes, 8192);
    out = RouterOut::default();
    p.background_done(us(310), 0, &mut out);
    let to_ssd = BackgroundIo { device: SSD, write: true, ..read_back };
    assert_eq!(out.background, vec![to_ssd], "read back, the write goes to the SSD under the same tag");
    out = RouterOut::default();
    p.background_done(us(320), 0, &mut out);
    assert_eq!(p.window(), Win::Dt, "flushed and past T_NDWL: the next DTWin");
    assert_eq!(p.write_left(), 4, "a fresh write DC");
    assert_eq!((p.wha().parked_bytes, p.wha().to_fast_bytes, p.wha().flushed_bytes), (0, 8192, 8192));
    assert_eq!(p.wha().writes, [2, 0, 1, 0, 1]);
    p.wha().check().unwrap();
}

#[test]
fn an_ndwin_with_flushing_left_is_cut_at_t_ndwh_and_the_rest_waits_for_the_next_one() {
    // `nd_writes = "fast"`: the writes of the NDWin are parked too.
    let (mut p, mut out) = started(PlmLightConfig { flush_depth: 1, write_counts: 1, nd_writes_to_fast: true, ..cfg() });
    assert_eq!(p.route(us(1), &cmd(0, true, 4096), &mut out), Some(SSD));
    assert_eq!(p.window(), Win::Nd, "the write DC spent exactly: NDWin at once");
    for k in 0..3 {
        assert_eq!(p.route(us(2 + k), &cmd(1, true, 4096), &mut out), Some(FAST));
    }
    assert_eq!(out.background.len(), 1, "depth 1");
    out = RouterOut::default();
    p.on_wake(us(2001), &mut out);
    assert_eq!(p.window(), Win::Dt, "T_NDWH");
    // The flush in flight finishes, but no new one starts in DTWin.
    p.background_done(us(2002), 0, &mut out);
    p.background_done(us(2003), 0, &mut out);
    assert_eq!(out.background.len(), 1, "only the in-flight flush's SSD write");
    assert_eq!(p.wha().queued(), 2);
    p.wha().check().unwrap();
    let r = p.report();
    assert_eq!(r.iter().find(|(n, _)| *n == "nd_cut_at_t_ndwh").unwrap().1, 1.0);
    assert_eq!(r.iter().find(|(n, _)| *n == "nd_forced_by_write_dc").unwrap().1, 1.0);
}

#[test]
fn idle_windows_pass_without_wake_ups_and_are_caught_up_at_their_due_times() {
    let (mut p, mut out) = started(cfg());
    // 10.5 ms of silence: DTWin + NDWin pairs of 1 + 0.2 ms (T_NDWL) passed before the write.
    assert_eq!(p.route(us(10_500), &cmd(0, true, 4096), &mut out), Some(SSD));
    assert_eq!(out.wake, None);
    let r = p.report();
    let get = |k: &str| r.iter().find(|(n, _)| *n == k).unwrap().1;
    // 10.5 / 1.2 = 8.75: eight pairs, then 0.9 ms into the ninth DTWin.
    assert_eq!((get("dt_windows"), get("nd_windows")), (9.0, 8.0));
    assert_eq!((get("dt_time_ms"), get("nd_time_ms")), (8.9, 1.6));
    assert_eq!(p.write_left(), 3, "a fresh DC, minus the write");
}

#[test]
fn small_writes_go_to_the_fast_device_first_and_a_full_fast_device_sends_writes_to_the_ssd() {
    let (mut p, mut out) = started(PlmLightConfig { small_below: 64 << 10, fast_capacity: 100 << 10, ..cfg() });
    assert_eq!(p.route(us(1), &cmd(0, true, 60 << 10), &mut out), Some(FAST), "< 64 KiB: fast, whatever the DC");
    assert_eq!(p.write_left(), 4, "and it spends no write DC");
    assert_eq!(p.window(), Win::Dt, "nor ends the DTWin");
    assert_eq!(p.route(us(2), &cmd(0, true, 60 << 10), &mut out), Some(SSD), "the fast device would hold 120 KiB > 100 KiB");
    assert_eq!(p.route(us(3), &cmd(0, true, 64 << 10), &mut out), Some(SSD), "a write of 16 counts does not fit in 4 and the fast device is full");
    assert_eq!(p.window(), Win::Dt, "a write the agent cannot park goes to the SSD and forces nothing");
    let w = &p.wha().writes;
    assert_eq!(*w, [0, 1, 0, 2, 0]);
    assert_eq!(p.route(us(4), &cmd(0, true, 16 << 10), &mut out), Some(FAST), "small, and there is room again for 16 KiB");
    assert_eq!((p.window(), p.wha().parked_bytes), (Win::Dt, 76 << 10));
}
