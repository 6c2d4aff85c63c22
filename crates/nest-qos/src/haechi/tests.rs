//! The protocol end to end, without the World: a millisecond-step harness in which the data node
//! serves at most `node_ms` I/Os per ms and a client at most `client_ms` (its NIC), round robin,
//! FAAs and reports take no time, and each client stops when its demand for the period is met.
//! Scaled to a tenth of the paper's node (157 K I/Os per 1 s period, 40 K per client; Ω_min 130 K).

use super::*;
use nest_core::SimTime;

struct Run {
    served: Vec<Vec<u64>>, // per period, per client
    engines: Vec<Engine>,
    pool: GlobalPool,
    monitor: Monitor,
}

fn run_with(cap: DeltaCap, reservations: &[u64], demand: &[u64], conversion: bool, periods: usize, node_ms: u64) -> Run {
    let client_ms = 40;
    let period = SimTime::from_ms(1000);
    let mut engines: Vec<Engine> = reservations.iter().map(|&r| Engine::new(EngineConfig { reservation: r, limit: None, period, batch: BATCH, cap })).collect();
    let mut monitor = Monitor::new(
        MonitorConfig { reservations: reservations.to_vec(), period, conversion, alert_periods: 0 },
        CapacityEstimator::new(157_000, 9_000.0, 500, 4),
    );
    let mut pool = GlobalPool::default();
    let mut served = Vec::new();
    for p in 0..periods {
        let start = SimTime::from_ms(1000 * p as u64);
        for (e, t) in engines.iter_mut().zip(monitor.period_start(start, &mut pool)) {
            e.period_start(start, t);
        }
        let mut done = vec![0u64; engines.len()];
        for ms in 0..1000u64 {
            let mut room = node_ms;
            let mut this_ms = vec![0u64; engines.len()];
            let mut active: Vec<bool> = vec![true; engines.len()];
            while room > 0 && active.iter().any(|&a| a) {
                for (i, e) in engines.iter_mut().enumerate() {
                    if !active[i] || room == 0 {
                        continue;
                    }
                    if done[i] >= demand[i] || this_ms[i] >= client_ms {
                        active[i] = false;
                        continue;
                    }
                    let mut issue = e.issue();
                    if issue == Issue::Fetch {
                        let (_, got) = pool.fetch_and_add(BATCH);
                        e.fetched(got);
                        issue = e.issue();
                    }
                    match issue {
                        Issue::Reservation | Issue::Global => {
                            e.completed();
                            done[i] += 1;
                            this_ms[i] += 1;
                            room -= 1;
                        }
                        _ => active[i] = false,
                    }
                }
            }
            let now = start + SimTime::from_ms(ms + 1);
            for (i, e) in engines.iter_mut().enumerate() {
                // Backlogged: it still wants I/Os this period.
                if let Some(r) = e.tick(now, done[i] < demand[i]) {
                    monitor.report(i, r.residual);
                }
            }
            if monitor.check(now, &mut pool) == Check::StartReporting {
                engines.iter_mut().for_each(|e| e.start_reporting());
            }
        }
        monitor.period_end(&done);
        served.push(done);
    }
    Run { served, engines, pool, monitor }
}

fn run(reservations: &[u64], demand: &[u64], conversion: bool, periods: usize, node_ms: u64) -> Run {
    run_with(DeltaCap::Pace, reservations, demand, conversion, periods, node_ms)
}

#[test]
fn with_uniform_reservations_every_client_meets_its_own_and_the_node_stays_busy() {
    // Exp 2A's uniform reservations at 90 % of the capacity, every client backlogged (burst).
    // (Its Zipf case does not hold in this harness: docs/haechi.md, "The δ cap".)
    let r = [14_130u64; 10];
    let run = run(&r, &[u64::MAX; 10], true, 3, 157);
    for (p, s) in run.served.iter().enumerate() {
        for (i, (&got, &want)) in s.iter().zip(&r).enumerate() {
            assert!(got >= want, "period {p}: client {i} did {got} of its reservation {want}");
        }
        let total: u64 = s.iter().sum();
        assert!(total as f64 >= 0.999 * 157_000.0, "period {p}: {total} I/Os, the node does 157 K");
    }
    assert!(run.engines.iter().all(|e| e.balanced()) && run.pool.balanced());
}

#[test]
fn token_conversion_hands_under_used_reservations_to_clients_that_want_more() {
    // Uniform reservations at 90 %; clients 0 and 1 want only a third of theirs.
    let r = [14_130u64; 10];
    let mut demand = [u64::MAX; 10];
    demand[0] = 4_700;
    demand[1] = 4_700;
    let haechi = run(&r, &demand, true, 2, 157);
    let basic = run(&r, &demand, false, 2, 157);
    let (h, b) = (&haechi.served[1], &basic.served[1]);
    assert!(h[2..].iter().zip(&r[2..]).all(|(&got, &want)| got > want), "the others exceed their reservations: {h:?}");
    let (th, tb): (u64, u64) = (h.iter().sum(), b.iter().sum());
    // Basic Haechi: the pool holds 10 % of C; the 2 × 9.4 K unused reservation is lost.
    assert!(tb < 157_000 - 15_000, "Basic Haechi idles the unused reservation: {tb}");
    assert!(th as f64 >= 0.99 * 157_000.0 && th > tb, "conversion keeps the node busy: {th} vs {tb}");
    assert_eq!(basic.monitor.periods[1].conversions, 0);
    assert!(haechi.monitor.periods[1].conversions > 0);
    for run in [&haechi, &basic] {
        assert!(run.engines.iter().all(|e| e.balanced()) && run.pool.balanced());
        assert!(run.engines[0].ledger.reservation_returned > 0, "client 0 gave back what it did not use");
    }
}

#[test]
fn the_estimate_follows_a_capacity_drop_within_a_few_periods() {
    // The node does only 140 K per period (background traffic): the estimate, 157 K at first,
    // falls to the average of what was completed.
    let r = [12_000u64; 10];
    let run = run(&r, &[u64::MAX; 10], true, 4, 140);
    let caps: Vec<u64> = run.monitor.periods.iter().map(|p| p.capacity).collect();
    assert_eq!(caps[0], 157_000);
    assert!(caps[1] <= 140_500 && caps[3] <= 140_500, "{caps:?}");
}

#[test]
fn under_zipf_reservations_the_printed_delta_cap_costs_the_largest_reservation_its_claim() {
    // Exp 2A's Zipf(0.6) reservations over 5 groups of 2 at 90 % of the capacity (C1 23.6 K),
    // every client backlogged. The node serves backlogged clients equally (15.7 K each), so C1 is
    // behind the pace R_1/T from the start. With the cap as printed (Pace) it loses the excess
    // every δ and the conversion hands it to the clients with small reservations: C1 ends with an
    // equal share. Sparing backlogged clients (Idle) keeps C1's claim in 𝓛 and gives it more — but
    // not its reservation, in this harness: it fell too far behind while every client had tokens
    // (docs/haechi.md: the paper's claim needs more than either reading).
    let r = [23_600, 23_600, 15_570, 15_570, 12_210, 12_210, 10_270, 10_270, 8_990, 8_990];
    let pace = run(&r, &[u64::MAX; 10], true, 2, 157);
    let idle = run_with(DeltaCap::Idle, &r, &[u64::MAX; 10], true, 2, 157);
    let (p, i) = (pace.served[1][0], idle.served[1][0]);
    assert!(p < 17_000 && i > p + 2_000 && i < r[0], "C1: {p} (Pace), {i} (Idle) of {}", r[0]);
    assert!(pace.engines[0].ledger.reservation_returned > 5_000 && idle.engines[0].ledger.reservation_returned == 0);
    let total = |run: &Run| run.served[1].iter().sum::<u64>();
    assert!(total(&pace) as f64 >= 0.999 * 157_000.0, "Pace is work-conserving: {}", total(&pace));
    // Idle keeps the pool small: late in the period only C1 and C2 hold tokens, and two clients
    // (40 K each at most) cannot keep the node busy.
    assert!(total(&idle) < total(&pace) && total(&idle) as f64 > 0.9 * 157_000.0, "{}", total(&idle));
    for run in [&pace, &idle] {
        assert!(run.engines.iter().all(|e| e.balanced()) && run.pool.balanced());
    }
}
