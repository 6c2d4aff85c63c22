//! The PLM window state machine: every transition, the count arithmetic, NDWin's bounds.

use super::*;
use nest_core::SimTime;

fn ms(x: u64) -> SimTime {
    SimTime::from_ms(x)
}

/// C_RD 100, C_WR 10 (of 16 KiB), T_DW 100 ms, NDWin 10–50 ms, at most 200 ms, 1 MiB buffer.
fn attrs() -> PlmAttrs {
    PlmAttrs {
        c_rd: 100,
        c_wr: 10,
        t_dw: ms(100),
        t_ndwh: ms(50),
        t_ndwl: ms(10),
        t_nd_max: ms(200),
        optimal_write_bytes: 16384,
        nv_buffer_bytes: 1 << 20,
        nd_delay_mean: SimTime::ZERO,
    }
}

#[test]
fn counts_are_4k_reads_and_optimal_size_writes() {
    let a = attrs();
    assert_eq!((a.read_counts(1), a.read_counts(4096), a.read_counts(4097), a.read_counts(128 << 10)), (1, 1, 2, 32));
    assert_eq!((a.write_counts(512), a.write_counts(16384), a.write_counts(16385)), (1, 1, 2));
    let mut w = PlmWindow::new(a, ms(0));
    assert_eq!(w.on_read(ms(1), 8192), None);
    assert_eq!(w.on_write(ms(1), 20000, 20000), None);
    let log = w.log_page(ms(30));
    assert_eq!((log.window, log.e_rd, log.e_wr, log.e_t, log.elapsed), (Window::Dt, 98, 8, ms(70), ms(30)));
    assert_eq!(w.buffered(), 20000);
    assert_eq!((w.stats.reads, w.stats.writes), ([1, 0], [1, 0]));
}

#[test]
fn a_spent_read_budget_forces_ndwin_and_later_io_is_an_overrun() {
    let mut w = PlmWindow::new(attrs(), ms(0));
    for _ in 0..24 {
        assert_eq!(w.on_read(ms(5), 16384), None); // 4 counts each
    }
    let t = w.on_read(ms(6), 16384).expect("the 100th count ends DTWin");
    assert_eq!(t, Transition { at: ms(6), to: Window::Nd, why: Reason::ReadBudget });
    assert_eq!(w.log_page(ms(6)).e_rd, 0);
    assert_eq!(w.on_read(ms(7), 4096), None);
    assert_eq!(w.stats.overruns, 1);
    assert_eq!(w.stats.forced(), 1);
}

#[test]
fn a_spent_write_budget_or_a_full_buffer_forces_ndwin() {
    let mut w = PlmWindow::new(attrs(), ms(0));
    for _ in 0..9 {
        assert_eq!(w.on_write(ms(1), 16384, 16384), None);
    }
    assert_eq!(w.on_write(ms(2), 16384, 16384).map(|t| t.why), Some(Reason::WriteBudget));
    let mut a = attrs();
    a.nv_buffer_bytes = 64 << 10;
    a.optimal_write_bytes = 4096;
    a.c_wr = 1000;
    let mut w = PlmWindow::new(a, ms(0));
    for _ in 0..3 {
        assert_eq!(w.on_write(ms(1), 16384, 16384), None);
    }
    assert_eq!(w.on_write(ms(1), 16384, 16384).map(|t| t.why), Some(Reason::BufferFull));
    // A full buffer is not the host's overrun.
    w.on_write(ms(2), 4096, 4096);
    assert_eq!(w.stats.overruns, 0);
    // Writes in NDWin go to flash, not to the buffer; the caller reports what it flushed.
    assert_eq!(w.buffered(), 64 << 10);
    w.flushed(16 << 10);
    assert_eq!(w.buffered(), 48 << 10);
}

#[test]
fn dtwin_ends_on_time_and_ndwin_waits_for_its_minimum_and_the_work() {
    let mut w = PlmWindow::new(attrs(), ms(0));
    assert_eq!(w.deadline(), ms(100));
    assert_eq!(w.poll(ms(99)), None);
    for _ in 0..10 {
        w.on_read(ms(50), 4096);
    }
    assert_eq!(w.poll(ms(100)), Some(Transition { at: ms(100), to: Window::Nd, why: Reason::Time }));
    // Reads leave no deferred work: a whole DTWin of them costs only T_NDWL.
    assert_eq!(w.log_page(ms(100)).nd_min_end, Some(ms(110)));
    // A DTWin that took a full buffer's writes needs T_NDWH.
    let mut w = PlmWindow::new(attrs(), ms(0));
    w.on_write(ms(5), 16384, 1 << 19);
    assert_eq!(w.on_write(ms(6), 16384, 1 << 19).map(|t| t.why), Some(Reason::BufferFull));
    assert_eq!(w.log_page(ms(6)).nd_min_end, Some(ms(56)));
    let mut w = PlmWindow::new(attrs(), ms(0));
    for _ in 0..9 {
        w.on_write(ms(1), 16384, 16384);
    }
    assert_eq!(w.poll(ms(100)).map(|t| t.why), Some(Reason::Time));
    // 9 of 10 writes: 10 + 0.9 × 40 ms.
    assert_eq!(w.log_page(ms(100)).nd_min_end, Some(ms(146)));
    assert_eq!(w.work_done(ms(110)), None, "the minimum has not passed");
    let mut w = PlmWindow::new(attrs(), ms(0));
    w.on_write(ms(1), 16384 * 10, 16384 * 10);
    assert_eq!(w.log_page(ms(1)).nd_min_end, Some(ms(51)), "C_WR spent: a full DTWin's writes");
    let mut w = PlmWindow::new(PlmAttrs { c_wr: 1000, ..attrs() }, ms(0));
    assert_eq!(w.poll(ms(100)).map(|t| t.why), Some(Reason::Time));
    assert_eq!(w.deadline(), ms(300), "until the work is done only the maximum is timed");
    assert_eq!(w.work_done(ms(105)), None, "the minimum has not passed");
    assert_eq!(w.deadline(), ms(110));
    assert_eq!(w.poll(ms(110)).map(|t| (t.to, t.why)), Some((Window::Dt, Reason::WorkDone)));
    let log = w.log_page(ms(110));
    assert_eq!((log.e_rd, log.e_wr, log.e_t), (100, 1000, ms(100)), "a new DTWin starts with the typical counts");
    assert_eq!((w.stats.dt_windows, w.stats.nd_windows, w.stats.nd_time), (1, 1, ms(10)));
}

#[test]
fn ndwin_length_scales_between_its_two_minimums_with_the_dtwin_used() {
    // Host asks for NDWin after 20 ms and 5 of 10 writes: the larger share (writes, 0.5) sets
    // the minimum at T_NDWL + 0.5 (T_NDWH − T_NDWL) = 30 ms.
    let mut w = PlmWindow::new(attrs(), ms(0));
    for _ in 0..5 {
        w.on_write(ms(1), 16384, 16384);
    }
    let t = w.host_request(ms(20), Window::Nd).unwrap();
    assert_eq!((t.to, t.why), (Window::Nd, Reason::Host));
    assert_eq!(w.log_page(ms(20)).nd_min_end, Some(ms(50)));
    // An idle DTWin ended at once still costs T_NDWL.
    let mut w = PlmWindow::new(attrs(), ms(0));
    w.host_request(ms(0), Window::Nd);
    assert_eq!(w.log_page(ms(0)).nd_min_end, Some(ms(10)));
    assert_eq!(w.stats.forced(), 0);
}

#[test]
fn the_host_asks_for_dtwin_and_gets_it_when_ndwin_may_end() {
    let mut w = PlmWindow::new(attrs(), ms(0));
    w.host_request(ms(0), Window::Nd); // minimum 10 ms
    assert_eq!(w.work_done(ms(2)), None);
    assert_eq!(w.host_request(ms(5), Window::Dt), None, "not before the minimum");
    assert_eq!(w.poll(ms(10)).map(|t| (t.to, t.why)), Some((Window::Dt, Reason::Host)));
    // Asking for the window the set is in changes nothing.
    assert_eq!(w.host_request(ms(11), Window::Dt), None);
}

#[test]
fn ndwin_ends_at_its_maximum_even_with_work_left() {
    let mut w = PlmWindow::new(attrs(), ms(0));
    w.poll(ms(100));
    assert_eq!(w.poll(ms(299)), None);
    assert_eq!(w.poll(ms(300)).map(|t| (t.to, t.why)), Some((Window::Dt, Reason::Time)));
    assert_eq!(w.stats.forced(), 2, "both transitions were the controller's");
}

#[test]
fn an_emergency_ends_dtwin_only() {
    let mut w = PlmWindow::new(attrs(), ms(0));
    assert_eq!(w.emergency(ms(3)).map(|t| t.why), Some(Reason::Emergency));
    assert_eq!(w.emergency(ms(4)), None);
    assert_eq!(w.stats.ended[Reason::Emergency as usize], 1);
    assert!(Reason::ALL.iter().enumerate().all(|(i, &r)| r as usize == i));
}

#[test]
fn bad_attributes_name_the_attribute() {
    let mut a = attrs();
    a.t_ndwl = ms(60);
    a.t_nd_max = ms(20);
    a.c_rd = 0;
    let keys: Vec<_> = a.validate().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["c_rd", "t_ndwl", "t_nd_max"]);
    assert!(attrs().validate().is_empty());
}

#[test]
fn a_host_driven_set_leaves_ndwin_only_when_asked() {
    let mut w = PlmWindow::new(attrs(), ms(0));
    w.set_host_driven(true);
    assert_eq!(w.host_request(ms(0), Window::Nd).map(|t| t.why), Some(Reason::Host));
    assert_eq!(w.work_done(ms(1)), None, "the minimum (10 ms after an empty DTWin) has not passed");
    assert_eq!(w.deadline(), SimTime::MAX, "nothing is timed until the host asks");
    assert_eq!(w.poll(ms(500)), None, "not even T_ND_MAX ends it");
    let t = w.host_request(ms(600), Window::Dt).expect("work done and minimum passed: at once");
    assert_eq!((t.at, t.to, t.why), (ms(600), Window::Dt, Reason::Host));
    // Asked while the work is still running: at T_ND_MAX at the latest.
    assert_eq!(w.poll(ms(700)).map(|t| t.why), Some(Reason::Time));
    assert_eq!(w.host_request(ms(710), Window::Dt), None, "still working");
    assert_eq!(w.deadline(), ms(700 + 200));
    assert_eq!(w.poll(ms(900)).map(|t| (t.to, t.why)), Some((Window::Dt, Reason::Time)));
}
