//! Test-only: a kind that shows a coordinator kind is this one file plus one line in
//! `coordinator_kinds!`: its keys refuse what they do not know, it resolves to a plan of its
//! own, and that plan builds a runtime coordinator of its own (every `period`, each host's gate
//! opens wide: an unlimited budget, counted in its report).

use super::{Built, Env, KindConfig, KindPlan};
use crate::ctx::Ctx;
use crate::plan::DevicePlan;
use nest_core::{HostId, SimTime};
use nest_qos::{Action, Coordinator, Outbox};
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdmitAllKeys {
    pub name: String,
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// How often the unlimited budget renews (default 1 ms).
    #[serde(default)]
    pub period: Option<String>,
}

impl KindConfig for AdmitAllKeys {
    type Plan = AdmitAllPlan;
    fn name(&self) -> &str {
        &self.name
    }
    fn hosts(&self) -> Option<&[String]> {
        self.hosts.as_deref()
    }
    fn resolve(&self, cx: &mut Ctx, key: &str, _: &[usize], _: &Env) -> Option<AdmitAllPlan> {
        let period = match &self.period {
            Some(p) => cx.dur(&format!("{key}.period"), p)?,
            None => SimTime::from_ms(1),
        };
        Some(AdmitAllPlan { period })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct AdmitAllPlan {
    pub period: SimTime,
}

impl KindPlan for AdmitAllPlan {
    fn kind(&self) -> &'static str {
        "test-admit-all"
    }
    fn params(&self, _: &[DevicePlan]) -> serde_json::Value {
        serde_json::json!({"period_us": self.period.as_us_f64()})
    }
    fn build(&self, hosts: Vec<HostId>) -> Built {
        Built { gates: true, ..Built::bare(Box::new(AdmitAll { period: self.period, hosts, renewals: 0 })) }
    }
}

/// Opens its hosts' gates wide every period.
pub struct AdmitAll {
    period: SimTime,
    hosts: Vec<HostId>,
    pub renewals: u64,
}

impl AdmitAll {
    fn renew(&mut self, now: SimTime, out: &mut Outbox) {
        for &host in &self.hosts {
            out.push(Action::SetBudget { host, ios: u64::MAX });
        }
        self.renewals += 1;
        out.push(Action::WakeAt { at: now + self.period, token: 0 });
    }
}

impl Coordinator for AdmitAll {
    fn start(&mut self, now: SimTime, out: &mut Outbox) {
        self.renew(now, out);
    }
    fn on_wake(&mut self, now: SimTime, _: u32, out: &mut Outbox) {
        self.renew(now, out);
    }
    fn report(&self) -> Vec<(&'static str, f64)> {
        vec![("renewals", self.renewals as f64)]
    }
}
