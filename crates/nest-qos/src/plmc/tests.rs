use super::*;

fn cfg(overrun: Overrun, policy: Policy) -> PlmcConfig {
    PlmcConfig {
        hosts: vec![HostId(2), HostId(0), HostId(1)],
        c: 100,
        c_min: vec![10, 10, 10],
        policy,
        overflow: MinOverflow::Priority,
        zeta: 0.5,
        hod: false,
        overrun,
    }
}

#[test]
fn the_first_window_shares_c_equally_then_follows_the_smoothed_demand() {
    let mut p = Plmc::new(cfg(Overrun::Send, Policy::StrictPriority));
    assert_eq!(p.read(HostId(2), 1), Some(true), "before the first window every read is DT");
    assert_eq!(p.read(HostId(7), 1), None, "not one of its hosts");
    p.window_start();
    // Equal shares of 100 are 33.3 → 34 each by rounding up: 102 > 100 → minimums + strict
    // priority: High 34, Medium 34, Low 32.
    assert_eq!(p.allocation(), &[34, 34, 32]);
    // High demands 60 in 4-count reads; Medium 8; Low nothing.
    for _ in 0..15 {
        p.read(HostId(2), 4);
    }
    p.read(HostId(0), 8);
    p.window_start();
    // Predictions: 0.5·60 + 0.5·33.3 = 46.7 → 47; 0.5·8 + 16.7 = 20.7 → 21; 16.7 → 17: 85 fits.
    assert_eq!(p.allocation(), &[47, 21, 17]);
    let r = p.host_report();
    let get = |h: usize, k: &str| r[h].1.iter().find(|(n, _)| *n == k).unwrap().1;
    // Window 1: High used 32 of 34 (8 reads of 4; the 9th did not fit), demand 60.
    assert_eq!(get(0, "utilization_p50"), 32.0 / 34.0);
    assert_eq!(get(0, "deficiency_p50"), 28.0 / 60.0);
    assert_eq!(get(0, "overruns"), 7.0);
    assert_eq!(get(1, "deficiency_p50"), 0.0);
    assert!(get(2, "deficiency_p50").is_nan(), "Low demanded nothing: no deficiency sample");
    assert_eq!(get(2, "utilization_p50"), 0.0, "Low used none of its 32");
}

#[test]
fn an_overrun_is_sent_anyway_or_asked_for_from_the_unallocated_counts() {
    let mut send = Plmc::new(PlmcConfig { c_min: vec![0, 0, 0], ..cfg(Overrun::Send, Policy::StrictPriority) });
    send.window_start();
    send.window_start(); // predictions now 16.7 → 17 each after an idle window: 51 allocated
    assert_eq!(send.allocation(), &[17, 17, 17]);
    assert_eq!(send.read(HostId(1), 17), Some(true));
    assert_eq!(send.read(HostId(1), 1), Some(true), "sent anyway");

    let mut ask = Plmc::new(PlmcConfig { c_min: vec![0, 0, 0], ..cfg(Overrun::Ask, Policy::StrictPriority) });
    ask.window_start();
    ask.window_start();
    // 49 counts are free this window.
    assert_eq!(ask.read(HostId(1), 17), Some(true));
    assert_eq!(ask.read(HostId(1), 40), Some(true), "granted from the 49 free");
    assert_eq!(ask.read(HostId(1), 10), Some(false), "9 free left: refused, served in NDWin");
    assert_eq!(ask.read(HostId(0), 9), Some(true), "Medium has its own 17");
    let r = ask.host_report();
    let low = &r[2].1;
    let get = |k: &str| low.iter().find(|(n, _)| *n == k).unwrap().1;
    assert_eq!((get("overruns"), get("granted"), get("refused")), (2.0, 1.0, 1.0));
    assert_eq!(get("allocated"), 32.0 + 17.0 + 40.0, "two windows' allocations and the grant");

    let mut nd = Plmc::new(PlmcConfig { c_min: vec![0, 0, 0], ..cfg(Overrun::Nd, Policy::StrictPriority) });
    nd.window_start();
    nd.window_start();
    assert_eq!(nd.read(HostId(1), 17), Some(true));
    assert_eq!(nd.read(HostId(1), 1), Some(false), "49 counts are free, but an nd host does not ask: NDWin");
    nd.window_start(); // closes the window: its deficiency is measured
    let r = nd.host_report();
    let get = |k: &str| r[2].1.iter().find(|(n, _)| *n == k).unwrap().1;
    assert_eq!((get("overruns"), get("granted"), get("refused")), (1.0, 0.0, 1.0));
    assert_eq!(get("deficiency_p90"), 1.0 / 18.0, "the uncovered count is a deficiency");
}

#[test]
fn completed_reads_give_each_window_its_p90() {
    let mut p = Plmc::new(cfg(Overrun::Send, Policy::FixedRatio(vec![4, 2, 1])));
    let mut out = Outbox::default();
    p.window_start();
    for us in 1..=20 {
        let c = Completion { host: HostId(0), class: 1, write: false, bytes: 4096, latency: SimTime::from_us(us), dt: true };
        p.on_completion(SimTime::ZERO, &c, &mut out);
        p.on_completion(SimTime::ZERO, &Completion { write: true, latency: SimTime::from_ms(9), ..c }, &mut out);
    }
    p.window_start();
    let r = p.host_report();
    let med = &r[1].1;
    assert_eq!(med.iter().find(|(n, _)| *n == "p90_us_p50").unwrap().1, 18.0, "writes do not count");
    assert!(out.actions.is_empty());
}

#[test]
fn hod_allocates_the_exact_demand_it_is_given() {
    let mut p = Plmc::new(PlmcConfig { hod: true, ..cfg(Overrun::Send, Policy::StrictPriority) });
    p.set_exact_demand(&[50, 30, 10]);
    p.window_start();
    assert_eq!(p.allocation(), &[50, 30, 10], "90 of 100 fit: each gets its demand");
    p.set_exact_demand(&[80, 30, 20]);
    p.window_start();
    // 130 > 100: minimums 10 each, residue 70 → High +70 (to 80), nothing left for the others.
    assert_eq!(p.allocation(), &[80, 10, 10]);
}

/// Calls `f` with a fresh outbox and returns what it asked for.
fn acts(p: &mut Plmc, f: impl FnOnce(&mut Plmc, &mut Outbox)) -> Vec<Action> {
    let mut out = Outbox::default();
    f(p, &mut out);
    out.actions
}

fn deliver(p: &mut Plmc, m: Msg) -> Vec<Action> {
    acts(p, |p, out| p.on_message(SimTime::ZERO, &m, out))
}

fn msgs(a: Vec<Action>) -> Vec<Msg> {
    a.into_iter()
        .map(|a| match a {
            Action::Send(m) => m,
            a => panic!("{a:?} is not a message"),
        })
        .collect()
}

#[test]
fn with_messages_in_flight_hosts_wait_for_their_counts_and_reports_drive_the_allocation() {
    let mut p = Plmc::new(PlmcConfig { c_min: vec![0, 0, 0], ..cfg(Overrun::Nd, Policy::StrictPriority) });
    let (high, med, _low) = (HostId(2), HostId(0), HostId(1));
    // Window 1 is allocated at once: equal shares 34 + 34 + 32.
    let allocs = msgs(acts(&mut p, |p, out| p.on_dt_window(SimTime::ZERO, out)));
    assert_eq!(allocs.iter().map(|m| m.body).collect::<Vec<_>>(), [34, 34, 32].map(|counts| MsgBody::Alloc { window: 1, counts }));
    let rd = |p: &mut Plmc, h: HostId, counts: u64| {
        let mut out = Outbox::default();
        let d = p.dt_read(SimTime::ZERO, h, counts, 9, &mut out).unwrap();
        assert!(out.actions.is_empty());
        d
    };
    assert_eq!(rd(&mut p, high, 50), DtRead::Dt, "no allocation has reached High yet: every read is DT");
    for m in allocs {
        assert!(deliver(&mut p, m).is_empty());
    }
    assert_eq!(rd(&mut p, high, 30), DtRead::Dt);
    assert_eq!(rd(&mut p, high, 30), DtRead::Nd, "4 of 34 left");
    // Window 2: PLMC asks for reports and allocates nothing yet.
    let closes = msgs(acts(&mut p, |p, out| p.on_dt_window(SimTime::ZERO, out)));
    assert_eq!(closes.len(), 3);
    assert!(closes.iter().all(|m| m.to_host && m.body == MsgBody::Close { window: 2 }));
    assert_eq!(rd(&mut p, med, 1), DtRead::Dt, "Medium has not heard of window 2: it spends window 1's counts");
    let mut reports = Vec::new();
    for m in closes {
        reports.extend(msgs(deliver(&mut p, m)));
    }
    assert_eq!(rd(&mut p, high, 1), DtRead::Nd, "closed, not yet allocated: no counts");
    // High demanded 60 in window 1 (the 50 before its allocation are in no window), Medium 1.
    assert_eq!(reports.iter().map(|m| m.body).collect::<Vec<_>>(), [60, 1, 0].map(|demand| MsgBody::Report { window: 2, demand }));
    assert!(deliver(&mut p, reports[0]).is_empty() && deliver(&mut p, reports[1]).is_empty(), "waits for every report");
    let allocs = msgs(deliver(&mut p, reports[2]));
    // 0.5·60 + 0.5·33.3 = 46.7 → 47; 0.5·1 + 16.7 = 17.2 → 18; 16.7 → 17.
    assert_eq!(allocs.iter().map(|m| m.body).collect::<Vec<_>>(), [47, 18, 17].map(|counts| MsgBody::Alloc { window: 2, counts }));
    for m in allocs {
        deliver(&mut p, m);
    }
    let get = |p: &Plmc, j: usize, k: &str| p.host_report()[j].1.iter().find(|(n, _)| *n == k).unwrap().1;
    assert_eq!(get(&p, 0, "deficiency_p50"), 30.0 / 60.0, "High's window 1: 30 of 60 covered");
    // Window 3's reports are not all in when window 4 starts: window 3 is never allocated, and
    // only High's report moves the prediction.
    let closes = msgs(acts(&mut p, |p, out| p.on_dt_window(SimTime::ZERO, out)));
    let high_report = msgs(deliver(&mut p, closes[0]))[0];
    assert!(deliver(&mut p, high_report).is_empty());
    let late = msgs(deliver(&mut p, closes[1]))[0];
    let closes = msgs(acts(&mut p, |p, out| p.on_dt_window(SimTime::ZERO, out)));
    assert!(deliver(&mut p, late).is_empty(), "a report for a window PLMC gave up on is ignored");
    assert_eq!(p.report(), vec![("windows", 4.0), ("unallocated_windows", 1.0)]);
    let mut reports = Vec::new();
    for m in closes {
        reports.extend(msgs(deliver(&mut p, m)));
    }
    let mut allocs = Vec::new();
    for m in reports {
        allocs.extend(msgs(deliver(&mut p, m)));
    }
    // High: 46.7 → 0.5·1 (its read in window 2's gap, reported in window 3) + 23.3 = 23.8 →
    // 0.5·0 + 11.9 → 12; Medium 17.2 (unreported in window 3) → 0.5·0 + 8.6 → 9; Low 16.7 → 8.3 → 9.
    assert_eq!(allocs.iter().map(|m| m.body).collect::<Vec<_>>(), [12, 9, 9].map(|counts| MsgBody::Alloc { window: 4, counts }));
}

#[test]
fn an_ask_is_a_round_trip_that_places_the_held_read() {
    let mut p = Plmc::new(PlmcConfig { c_min: vec![0, 0, 0], ..cfg(Overrun::Ask, Policy::StrictPriority) });
    p.window_start(); // 34 + 34 + 32: none free
    let mut out = Outbox::default();
    assert_eq!(p.dt_read(SimTime::ZERO, HostId(1), 40, 7, &mut out), Some(DtRead::Asked));
    let ask = msgs(out.actions)[0];
    assert_eq!((ask.to_host, ask.body), (false, MsgBody::Ask { req: 7, counts: 40 }));
    let grant = msgs(deliver(&mut p, ask))[0];
    assert_eq!(grant.body, MsgBody::Grant { req: 7, window: 1, counts: 40, granted: false });
    assert_eq!(deliver(&mut p, grant), vec![Action::Place { req: 7, dt: false }]);
    // Window 2: predictions 17, 17 and (Low demanded 40) 37 — 29 free.
    p.window_start();
    let mut out = Outbox::default();
    assert_eq!(p.dt_read(SimTime::ZERO, HostId(0), 20, 8, &mut out), Some(DtRead::Asked));
    let grant = msgs(deliver(&mut p, msgs(out.actions)[0]))[0];
    assert_eq!(grant.body, MsgBody::Grant { req: 8, window: 2, counts: 20, granted: true });
    assert_eq!(deliver(&mut p, grant), vec![Action::Place { req: 8, dt: true }]);
    assert_eq!(p.left().collect::<Vec<_>>(), [17, 17, 37], "Medium's 20 granted on top of its 17 and spent");
}
