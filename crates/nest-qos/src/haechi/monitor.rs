//! The data node's Haechi QoS monitor (§II-E).
//!
//! - **Period start.** It makes C_G = Ω_t tokens (the capacity estimate) and admits the
//!   reservations that fit (§II-C's global bound Σ R_i ≤ T·C_G, SPEC §13.9): in the clients'
//!   order, a client whose reservation would take the sum above C_G is refused for the period —
//!   it gets no reservation tokens and competes for global ones like a client without a
//!   reservation; the period's record names it. It pushes each admitted R_i to its client (a
//!   two-sided message, which is also the period-start signal) and sets the pool to
//!   C_G − Σ admitted R_i.
//! - **Every check interval** (1 ms) it reads the pool (its CAS).
//!   - Once the pool has fallen below its initial value (a client ran out of reservation tokens),
//!     it asks every client to report.
//!   - From then on it converts unused reservation into global tokens: pool ←
//!     max{C_G·(T − t)/T − 𝓛, 0}, 𝓛 the sum of the clients' last-reported residual reservations.
//!     C_G is tokens per period here, so C_G·(T − t)/T is the capacity left in the period. A
//!     client that has not reported yet counts with its whole reservation.
//!   - Basic Haechi (`conversion = false`) never converts.
//! - **Period end.** Algorithm 1 turns the period's completed I/Os into the next estimate
//!   ([`super::CapacityEstimator`]), and its last step: a client that completed less than its
//!   admitted reservation in each of the last `alert_periods` periods is alerted that it may have
//!   over-estimated its reservation (the period's record names it; the caller sends the message).
//!   The monitor sees only completed I/Os, and only in a period the client reported in (a
//!   period without reports leaves the count as it was): it cannot tell a client that wanted
//!   less from one the node could not serve, and alerts both.

use super::estimator::{CapacityEstimator, Step};
use super::pool::GlobalPool;
use nest_core::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub struct MonitorConfig {
    /// R_i per client, I/Os per period.
    pub reservations: Vec<u64>,
    pub period: SimTime,
    /// Token conversion (Haechi); off: Basic Haechi.
    pub conversion: bool,
    /// Alg. 1's alert: after this many periods in a row below its reservation (0: never).
    pub alert_periods: u32,
}

/// What a check asks the caller to do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Check {
    Nothing,
    /// Signal every client to start reporting.
    StartReporting,
    /// The pool was set to this many tokens (conversion).
    Converted(u64),
}

/// One period as the monitor saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeriodRecord {
    pub start: SimTime,
    /// C_G: tokens made for the period (the estimate in force).
    pub capacity: u64,
    pub initial_pool: u64,
    /// When reporting was asked for (None: never in this period).
    pub reporting_from: Option<SimTime>,
    pub conversions: u64,
    /// U: I/Os the clients completed in it, and the branch Algorithm 1 took.
    pub completed: u64,
    pub step: Option<Step>,
    /// Clients whose reservation the period's capacity could not admit (in the clients' order).
    pub refused: Vec<u32>,
    /// Clients alerted at the period's end (under their reservation `alert_periods` in a row).
    pub alerted: Vec<u32>,
    /// Clients that broke the local condition R_i − N_i(t) ≤ (T − t)·C_L during the period (each
    /// once, in the order found): their reservation had become out of their own reach.
    pub local_breaks: Vec<u32>,
}

pub struct Monitor {
    cfg: MonitorConfig,
    pub estimator: CapacityEstimator,
    period_start: SimTime,
    capacity: u64,
    initial_pool: u64,
    reporting: bool,
    /// Per client: the reservation admitted this period (0: refused).
    granted: Vec<u64>,
    /// Per client: last reported residual reservation (None before its first report).
    residual: Vec<Option<u64>>,
    /// Per client: periods in a row it completed less than its admitted reservation.
    under: Vec<u32>,
    pub periods: Vec<PeriodRecord>,
}

impl Monitor {
    pub fn new(cfg: MonitorConfig, estimator: CapacityEstimator) -> Monitor {
        assert!(cfg.period > SimTime::ZERO, "T > 0 (checked at resolution)");
        let n = cfg.reservations.len();
        Monitor {
            cfg,
            estimator,
            period_start: SimTime::ZERO,
            capacity: 0,
            initial_pool: 0,
            reporting: false,
            residual: vec![None; n],
            granted: vec![0; n],
            under: vec![0; n],
            periods: Vec::new(),
        }
    }

    /// A new period at `now`: sets the pool and returns the reservation tokens to push to each
    /// client (in the configuration's order).
    pub fn period_start(&mut self, now: SimTime, pool: &mut GlobalPool) -> Vec<u64> {
        self.period_start = now;
        self.capacity = self.estimator.omega;
        // Admission: in the clients' order, while the reservations fit the period's capacity.
        let mut reserved = 0u64;
        let mut refused = Vec::new();
        for (i, (&r, g)) in self.cfg.reservations.iter().zip(self.granted.iter_mut()).enumerate() {
            *g = if reserved + r <= self.capacity { r } else { 0 };
            reserved += *g;
            if *g < r {
                refused.push(i as u32);
            }
        }
        self.initial_pool = self.capacity.saturating_sub(reserved);
        pool.set(self.initial_pool);
        self.reporting = false;
        self.residual.iter_mut().for_each(|r| *r = None);
        self.periods.push(PeriodRecord {
            start: now,
            capacity: self.capacity,
            initial_pool: self.initial_pool,
            reporting_from: None,
            conversions: 0,
            completed: 0,
            step: None,
            refused,
            alerted: Vec::new(),
            local_breaks: Vec::new(),
        });
        self.granted.clone()
    }

    /// The check interval's wake-up.
    pub fn check(&mut self, now: SimTime, pool: &mut GlobalPool) -> Check {
        if !self.reporting {
            if pool.value() < self.initial_pool as i64 {
                self.reporting = true;
                if let Some(p) = self.periods.last_mut() {
                    p.reporting_from = Some(now);
                }
                return Check::StartReporting;
            }
            return Check::Nothing;
        }
        if !self.cfg.conversion {
            return Check::Nothing;
        }
        let t = self.cfg.period.0 as u128;
        let elapsed = (now.0.saturating_sub(self.period_start.0) as u128).min(t);
        let left = (self.capacity as u128 * (t - elapsed) / t) as u64;
        let owed: u64 = self.residual.iter().zip(&self.granted).map(|(r, &ri)| r.unwrap_or(ri)).sum();
        let v = left.saturating_sub(owed);
        pool.set(v);
        if let Some(p) = self.periods.last_mut() {
            p.conversions += 1;
        }
        Check::Converted(v)
    }

    /// Client `i` reported its residual reservation.
    pub fn report(&mut self, i: usize, residual: u64) {
        self.residual[i] = Some(residual);
    }

    /// The period ends with the clients' completed I/Os: the next period's capacity estimate.
    /// The clients to alert are in the period's record (`alerted`).
    pub fn period_end(&mut self, completed: &[u64]) -> u64 {
        let u: u64 = completed.iter().sum();
        let (next, step) = self.estimator.next(u);
        let mut alerted = Vec::new();
        for (i, ((&done, &r), streak)) in completed.iter().zip(&self.granted).zip(self.under.iter_mut()).enumerate() {
            // Only a period the client reported in tells the monitor what it did.
            if self.residual[i].is_none() {
                continue;
            }
            *streak = if r > 0 && done < r { *streak + 1 } else { 0 };
            if self.cfg.alert_periods > 0 && *streak >= self.cfg.alert_periods {
                alerted.push(i as u32);
            }
        }
        if let Some(p) = self.periods.last_mut() {
            p.completed = u;
            p.step = Some(step);
            p.alerted = alerted;
        }
        next
    }

    /// The reservation admitted to client `i` this period (0: refused, or none).
    pub fn granted(&self, i: usize) -> u64 {
        self.granted[i]
    }

    /// Client `i` broke the local condition in the current period (recorded once).
    pub fn local_break(&mut self, i: usize) {
        if let Some(p) = self.periods.last_mut() {
            if !p.local_breaks.contains(&(i as u32)) {
                p.local_breaks.push(i as u32);
            }
        }
    }

    /// The start of the current period.
    pub fn period_start_at(&self) -> SimTime {
        self.period_start
    }

    pub fn reporting(&self) -> bool {
        self.reporting
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn monitor(conversion: bool) -> Monitor {
        let cfg = MonitorConfig { reservations: vec![300, 200, 100], period: SimTime::from_ms(1000), conversion, alert_periods: 2 };
        Monitor::new(cfg, CapacityEstimator::new(1000, 10.0, 50, 4))
    }

    #[test]
    fn a_period_pushes_reservations_and_puts_the_rest_of_the_capacity_in_the_pool() {
        let mut m = monitor(true);
        let mut pool = GlobalPool::default();
        assert_eq!(m.period_start(SimTime::ZERO, &mut pool), vec![300, 200, 100]);
        assert_eq!(pool.value(), 400, "C_G 1000 − ΣR 600");
        assert_eq!(m.check(SimTime::from_ms(1), &mut pool), Check::Nothing, "nobody took a global token yet");
        pool.fetch_and_add(100);
        assert_eq!(m.check(SimTime::from_ms(2), &mut pool), Check::StartReporting);
        assert!(m.reporting());
        assert_eq!(m.periods[0].reporting_from, Some(SimTime::from_ms(2)));
    }

    #[test]
    fn conversion_sets_the_pool_to_the_capacity_left_minus_the_residual_reservations() {
        let mut m = monitor(true);
        let mut pool = GlobalPool::default();
        m.period_start(SimTime::ZERO, &mut pool);
        pool.fetch_and_add(1000); // a client took the whole pool (400 granted), the word at −600
        assert_eq!(m.check(SimTime::from_ms(100), &mut pool), Check::StartReporting);
        // At 500 ms: 500 of C_G left; clients 0 and 1 report 50 and 0 left, client 2 has not
        // reported (its whole 100 counts): 500 − 150 = 350.
        m.report(0, 50);
        m.report(1, 0);
        assert_eq!(m.check(SimTime::from_ms(500), &mut pool), Check::Converted(350));
        assert_eq!(pool.value(), 350);
        // At 900 ms: 100 left, 150 owed: the pool is emptied (not below zero).
        assert_eq!(m.check(SimTime::from_ms(900), &mut pool), Check::Converted(0));
        assert_eq!(m.periods[0].conversions, 2);
        assert!(pool.balanced());
        // A new period forgets the reports.
        m.period_start(SimTime::from_ms(1000), &mut pool);
        pool.fetch_and_add(1);
        m.check(SimTime::from_ms(1001), &mut pool);
        assert_eq!(m.check(SimTime::from_ms(1500), &mut pool), Check::Converted(0), "500 left − 600 owed (nobody reported)");
    }

    #[test]
    fn a_period_whose_capacity_cannot_hold_every_reservation_refuses_the_ones_that_do_not_fit() {
        // C_G 500 against 300 + 200 + 100: clients 0 and 1 fit (500), client 2 is refused.
        let cfg = MonitorConfig { reservations: vec![300, 200, 100], period: SimTime::from_ms(1000), conversion: true, alert_periods: 0 };
        let mut m = Monitor::new(cfg, CapacityEstimator::new(500, 10.0, 50, 4));
        let mut pool = GlobalPool::default();
        assert_eq!(m.period_start(SimTime::ZERO, &mut pool), vec![300, 200, 0]);
        assert_eq!((pool.value(), m.periods[0].refused.clone()), (0, vec![2]));
        // The refused client owes nothing: conversion counts the admitted reservations only.
        pool.fetch_and_add(1);
        assert_eq!(m.check(SimTime::from_ms(1), &mut pool), Check::StartReporting);
        m.report(0, 0);
        m.report(1, 0);
        assert_eq!(m.check(SimTime::from_ms(500), &mut pool), Check::Converted(250), "250 left, nothing owed");
        // A client that does not fit is skipped; a later, smaller one still may.
        let cfg = MonitorConfig { reservations: vec![300, 300, 100], period: SimTime::from_ms(1000), conversion: true, alert_periods: 0 };
        let mut m = Monitor::new(cfg, CapacityEstimator::new(450, 10.0, 50, 4));
        assert_eq!(m.period_start(SimTime::ZERO, &mut pool), vec![300, 0, 100]);
        assert_eq!(m.periods[0].refused, vec![1]);
    }

    #[test]
    fn basic_haechi_asks_for_reports_but_never_converts() {
        let mut m = monitor(false);
        let mut pool = GlobalPool::default();
        m.period_start(SimTime::ZERO, &mut pool);
        pool.fetch_and_add(1000);
        assert_eq!(m.check(SimTime::from_ms(1), &mut pool), Check::StartReporting);
        m.report(0, 0);
        assert_eq!(m.check(SimTime::from_ms(500), &mut pool), Check::Nothing);
        assert_eq!(pool.value(), -600);
    }

    #[test]
    fn the_period_end_feeds_algorithm_1() {
        let mut m = monitor(true);
        let mut pool = GlobalPool::default();
        m.period_start(SimTime::ZERO, &mut pool);
        assert_eq!(m.period_end(&[500, 300, 200]), 1050, "every token used: +η");
        assert_eq!(m.period_start(SimTime::from_ms(1000), &mut pool), vec![300, 200, 100]);
        assert_eq!(pool.value(), 450, "the new estimate's tokens");
        assert_eq!(m.period_end(&[400, 300, 290]), 990, "Ω_min 970 ≤ 990 < 1050: the window's mean");
        assert_eq!((m.periods[1].completed, m.periods[1].step), (990, Some(Step::Averaged)));
    }

    #[test]
    fn a_client_under_its_reservation_alert_periods_in_a_row_is_alerted_and_a_local_break_is_recorded_once() {
        // monitor(): R = 300, 200, 100 and alert_periods 2.
        let mut m = monitor(true);
        let mut pool = GlobalPool::default();
        m.period_start(SimTime::ZERO, &mut pool);
        let report_all = |m: &mut Monitor| (0..3).for_each(|i| m.report(i, 0));
        report_all(&mut m);
        m.local_break(2);
        m.local_break(2);
        assert_eq!(m.periods[0].local_breaks, vec![2], "once per period");
        m.period_end(&[300, 150, 50]);
        assert!(m.periods[0].alerted.is_empty(), "one period under is not yet 'consistently'");
        m.period_start(SimTime::from_ms(1000), &mut pool);
        report_all(&mut m);
        m.period_end(&[200, 250, 50]);
        assert_eq!(m.periods[1].alerted, vec![2], "C3 under twice in a row; C2 met it in the second; C1 only once under");
        m.period_start(SimTime::from_ms(2000), &mut pool);
        m.period_end(&[0, 0, 0]);
        assert!(m.periods[2].alerted.is_empty(), "a period without reports says nothing");
        m.period_start(SimTime::from_ms(3000), &mut pool);
        report_all(&mut m);
        m.period_end(&[100, 250, 100]);
        assert_eq!(m.periods[3].alerted, vec![0], "C1 under in periods 1 and 3; C3 met it and its count starts over");
    }
}
