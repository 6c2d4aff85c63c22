//! The simplest coordinator: every `period`, each of its hosts may admit `ios` requests. It
//! exercises the seam end to end (wake-ups, budgets, the admission gate) and is a useful
//! baseline in its own right — a static per-tenant I/O cap, as a cgroup io.max or a cloud
//! volume's provisioned IOPS would impose.

use crate::{Action, Completion, Coordinator, Outbox};
use nest_core::{HostId, SimTime};

pub struct FixedBudget {
    period: SimTime,
    ios: u64,
    hosts: Vec<HostId>,
    /// Periods started, and requests completed at its hosts (for the summary).
    pub periods: u64,
    pub completed: u64,
}

impl FixedBudget {
    /// `period` must be positive.
    pub fn new(period: SimTime, ios: u64, hosts: Vec<HostId>) -> FixedBudget {
        assert!(period > SimTime::ZERO, "a budget period must be positive");
        FixedBudget { period, ios, hosts, periods: 0, completed: 0 }
    }

    fn refill(&mut self, now: SimTime, out: &mut Outbox) {
        self.periods += 1;
        for &host in &self.hosts {
            out.push(Action::SetBudget { host, ios: self.ios });
        }
        out.push(Action::WakeAt { at: now + self.period, token: 0 });
    }
}

impl Coordinator for FixedBudget {
    fn start(&mut self, now: SimTime, out: &mut Outbox) {
        self.refill(now, out);
    }

    fn on_wake(&mut self, now: SimTime, _token: u32, out: &mut Outbox) {
        self.refill(now, out);
    }

    fn on_completion(&mut self, _now: SimTime, c: &Completion, _out: &mut Outbox) {
        if self.hosts.contains(&c.host) {
            self.completed += 1;
        }
    }

    fn measures_completions(&self) -> bool {
        true
    }

    fn report(&self) -> Vec<(&'static str, f64)> {
        vec![("periods", self.periods as f64), ("completed", self.completed as f64)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_period_each_host_gets_its_budget_and_the_next_wake_up() {
        let mut c = FixedBudget::new(SimTime::from_ms(1), 5, vec![HostId(0), HostId(2)]);
        let mut out = Outbox::default();
        c.start(SimTime::ZERO, &mut out);
        assert_eq!(
            out.actions,
            vec![
                Action::SetBudget { host: HostId(0), ios: 5 },
                Action::SetBudget { host: HostId(2), ios: 5 },
                Action::WakeAt { at: SimTime::from_ms(1), token: 0 },
            ]
        );
        out.actions.clear();
        c.on_wake(SimTime::from_ms(1), 0, &mut out);
        assert_eq!(out.actions.last(), Some(&Action::WakeAt { at: SimTime::from_ms(2), token: 0 }));
        assert_eq!(c.periods, 2);
        let done = Completion { host: HostId(1), class: 0, write: false, bytes: 4096, latency: SimTime::from_us(10), dt: true };
        c.on_completion(SimTime::from_ms(1), &done, &mut out);
        assert_eq!(c.completed, 0, "host 1 is not one of its hosts");
        c.on_completion(SimTime::from_ms(1), &Completion { host: HostId(2), ..done }, &mut out);
        assert_eq!(c.completed, 1);
    }
}
