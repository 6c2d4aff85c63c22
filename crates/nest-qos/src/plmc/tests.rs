use super::*;

fn cfg(overrun: Overrun, policy: Policy) -> PlmcConfig {
    PlmcConfig { hosts: vec![HostId(2), HostId(0), HostId(1)], c: 100, c_min: vec![10, 10, 10], policy, overflow: MinOverflow::Priority, zeta: 0.5, hod: false, overrun }
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
    p.on_dt_window(SimTime::ZERO, &mut out);
    for us in 1..=20 {
        let c = Completion { host: HostId(0), class: 1, write: false, bytes: 4096, latency: SimTime::from_us(us) };
        p.on_completion(SimTime::ZERO, &c, &mut out);
        p.on_completion(SimTime::ZERO, &Completion { write: true, latency: SimTime::from_ms(9), ..c }, &mut out);
    }
    p.on_dt_window(SimTime::from_ms(100), &mut out);
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
