//! `fixed-budget`: every `period`, each of its hosts may admit `ios` requests through its
//! admission gate (nest-qos `fixed_budget.rs`).

use super::{Built, Env, KindConfig, KindPlan};
use crate::ctx::Ctx;
use crate::plan::DevicePlan;
use nest_core::{HostId, SimTime};
use nest_qos::FixedBudget;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedBudgetKeys {
    pub name: String,
    /// Hosts it coordinates (default: every host).
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// The budget period.
    pub period: Option<String>,
    /// Requests each host may admit per period.
    pub ios: Option<u64>,
}

impl KindConfig for FixedBudgetKeys {
    type Plan = FixedBudgetPlan;
    fn name(&self) -> &str {
        &self.name
    }
    fn hosts(&self) -> Option<&[String]> {
        self.hosts.as_deref()
    }
    fn resolve(&self, cx: &mut Ctx, key: &str, _: &[usize], _: &Env) -> Option<FixedBudgetPlan> {
        let c = self;
        let period = match &c.period {
            Some(p) => cx.dur(&format!("{key}.period"), p)?,
            None => {
                cx.err(&format!("{key}.period"), "fixed-budget needs a period (e.g. \"1ms\")");
                return None;
            }
        };
        // Periods shorter than 1 µs wake the coordinator a million times per simulated second for
        // nothing a host could use (issue 63, S8).
        if period < SimTime::from_us(1) {
            cx.err(&format!("{key}.period"), format!("must be at least 1us, got {period}"));
            return None;
        }
        let Some(ios) = c.ios else {
            cx.err(&format!("{key}.ios"), "fixed-budget needs ios: the requests each host may admit per period");
            return None;
        };
        // A budget of 0 admits nothing, ever: the run's requests can never drain (issue 63, S8).
        if ios == 0 {
            cx.err(&format!("{key}.ios"), "must be at least 1: a budget of 0 admits no request, so the run never drains");
            return None;
        }
        Some(FixedBudgetPlan { period, ios })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct FixedBudgetPlan {
    pub period: SimTime,
    pub ios: u64,
}

impl KindPlan for FixedBudgetPlan {
    fn kind(&self) -> &'static str {
        "fixed-budget"
    }
    fn params(&self, _: &[DevicePlan]) -> serde_json::Value {
        serde_json::json!({"period_us": self.period.as_us_f64(), "ios": self.ios})
    }
    fn build(&self, hosts: Vec<HostId>) -> Built {
        Built { gates: true, ..Built::bare(Box::new(FixedBudget::new(self.period, self.ios, hosts))) }
    }
}
