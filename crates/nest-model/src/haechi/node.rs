//! A data node's side of a Haechi run (`run::HaechiRun`): its speed each period, its monitor's
//! checks (a CAS on the pool its NIC executes), Algorithm 1 at each period's end with its alerts,
//! the local condition, and the monitor's messages to the clients.

use super::events::{Ev, Wire};
use super::run::{HaechiRun, Op, OpKind, MONITOR_MESSAGE, POOL_EVERY};
use nest_qos::haechi::admission::residual_feasible;
use nest_qos::haechi::Check;
use nest_transport::verbs::{Served, Verb};

impl HaechiRun {
    /// The monitors' check interval: each node's CAS goes to its NIC (the check runs when it has
    /// executed), and the local condition is checked.
    pub(super) fn on_check(&mut self) {
        self.checks += 1;
        for j in 0..self.nodes.len() {
            // The monitor's pool check is a CAS its own NIC executes (§II-E), in line with
            // the clients' FAAs on the same word.
            let Served::Answer(t) = self.verbs.serve(self.now, j, Verb::CompareSwap) else { unreachable!("an atomic is the NIC's") };
            self.nodes[j].cas += 1;
            self.at(t, Ev::PoolCas(j as u32));
        }
        self.local_condition();
        self.at(self.now + self.check, Ev::Check);
    }

    /// Node `j`'s NIC executed the monitor's CAS: the check reads (and, converting, sets) the pool.
    pub(super) fn on_pool_cas(&mut self, j: usize) {
        let n = &mut self.nodes[j];
        let m = n.monitor.as_mut().expect("checks only with a monitor");
        let c = m.check(self.now, &mut n.pool);
        if self.checks.is_multiple_of(POOL_EVERY) {
            n.pool_series.push((self.now.as_secs_f64(), n.pool.value()));
        }
        if c == Check::StartReporting {
            for i in 0..self.clients.len() {
                if self.clients[i].managed() {
                    self.target_message(j, i, OpKind::StartReporting);
                }
            }
        }
    }

    /// Every monitor closes its period (Algorithm 1, the alerts, the clients' token counts) and
    /// opens the next.
    pub(super) fn on_period_end(&mut self) {
        let mut alerts = Vec::new();
        for (j, n) in self.nodes.iter_mut().enumerate() {
            let m = n.monitor.as_mut().expect("periods only with a monitor");
            m.period_end(&n.reported);
            alerts.extend(m.periods.last().map(|p| p.alerted.clone()).unwrap_or_default().into_iter().map(|i| (j, i as usize)));
            for (i, c) in self.clients.iter().enumerate() {
                if let Some(e) = &c.lanes[j].engine {
                    n.tokens[i].push(e.ledger.since(&n.last_ledgers[i]));
                    n.last_ledgers[i] = e.ledger.clone();
                }
            }
        }
        for (j, i) in alerts {
            self.target_message(j, i, OpKind::Alert);
        }
        self.monitor_period_start();
        self.at(self.now + self.period, Ev::PeriodEnd);
    }

    /// A period starts: each data node draws its speed for it (SPEC §13.9's period-to-period
    /// variability; none with `service_cv` 0). Lognormal with mean 1 and the stated coefficient
    /// of variation: a node's capacity per period has mean Ω and spread ≈ cv·Ω, never negative.
    pub(super) fn node_speeds(&mut self) {
        let cv = self.spec.service_cv;
        if cv == 0.0 {
            return;
        }
        let s2 = (1.0 + cv * cv).ln();
        for (j, n) in self.nodes.iter_mut().enumerate() {
            let speed = (s2.sqrt() * n.speed_rng.normal() - s2 / 2.0).exp();
            n.speeds.push(speed);
            self.verbs.set_speed(j, speed);
        }
    }

    /// Every node's monitor opens a period and pushes each managed client its reservation there.
    pub(super) fn monitor_period_start(&mut self) {
        for j in 0..self.nodes.len() {
            let n = &mut self.nodes[j];
            let tokens = n.monitor.as_mut().expect("a monitor").period_start(self.now, &mut n.pool);
            n.reported.iter_mut().for_each(|r| *r = 0);
            for (i, t) in tokens.into_iter().enumerate() {
                if self.clients[i].managed() {
                    self.target_message(j, i, OpKind::PeriodStart { tokens: t });
                }
            }
        }
    }

    /// Haechi's local condition (§II-C), checked at every monitor check: a client that still
    /// wants I/Os and whose residual reservation R_i − N_i(t) is above what it can do alone in
    /// the time left, (T − t)·C_L, can no longer meet it; its monitor records the break for the
    /// period. A client that wants no more has nothing to meet.
    fn local_condition(&mut self) {
        let t_period = self.period.as_secs_f64();
        for j in 0..self.nodes.len() {
            let Some(m) = self.nodes[j].monitor.as_ref() else { continue };
            let start = m.period_start_at();
            let elapsed = self.now.saturating_sub(start);
            if elapsed >= self.period {
                // The monitor's period is over, its next starts once the last reports are in.
                continue;
            }
            let t = elapsed.as_secs_f64();
            for i in 0..self.clients.len() {
                let c = &self.clients[i];
                if c.period_start.0 / self.period.0 > start.0 / self.period.0 {
                    // The client's demand has started over (k·T) while the monitor waits out its
                    // grace: its next period's condition is judged in that period.
                    continue;
                }
                let wants = self.wants_more(i) || !c.lanes[j].pending.is_empty();
                let Some(e) = &c.lanes[j].engine else { continue };
                let m = self.nodes[j].monitor.as_mut().expect("checked above");
                if wants && !residual_feasible(m.granted(i), e.completed_in_period(), t, t_period, c.c_l) {
                    m.local_break(i);
                }
            }
        }
    }

    /// A two-sided message from data node `j`'s monitor to client `c`.
    pub(super) fn target_message(&mut self, j: usize, c: usize, kind: OpKind) {
        let o =
            self.ops.alloc(Op { client: c as u32, node: j as u32, kind, verb: Verb::Write { bytes: MONITOR_MESSAGE }, submitted: self.now, posted: self.now });
        match self.wire {
            Wire::Verbs => {
                let at = self.verbs.target_send(self.now, j, MONITOR_MESSAGE);
                self.at(at, Ev::AtClient(o));
            }
            Wire::Fabric => {
                let t = self.verbs.target_signal(self.now, j);
                self.answer_at(t, o);
            }
        }
    }
}
