//! `[[coordinator]]`: QoS coordinators (nest-qos) — schema and resolution of the section in one
//! place. Kinds so far: `fixed-budget` (every `period`, each of its hosts may admit `ios`
//! requests through its admission gate).

use crate::resolve::{Ctx, HostPlan};
use nest_core::SimTime;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoordinatorConfig {
    pub name: String,
    /// fixed-budget
    pub kind: String,
    /// fixed-budget: the budget period.
    pub period: Option<String>,
    /// fixed-budget: requests each host may admit per period.
    pub ios: Option<u64>,
    /// Hosts it coordinates (default: every host).
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CoordinatorKind {
    FixedBudget { period: SimTime, ios: u64 },
}

#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorPlan {
    pub name: String,
    pub kind: CoordinatorKind,
    /// Host indices.
    pub hosts: Vec<usize>,
}

pub(crate) fn resolve(cx: &mut Ctx, i: usize, c: &CoordinatorConfig, hosts: &[HostPlan]) -> Option<CoordinatorPlan> {
    let key = format!("coordinator[{i}]");
    let idx: Vec<usize> = match &c.hosts {
        None => (0..hosts.len()).collect(),
        Some(names) => {
            let mut idx = Vec::new();
            for (k, n) in names.iter().enumerate() {
                match hosts.iter().position(|h| &h.name == n) {
                    Some(h) if idx.contains(&h) => cx.err(&format!("{key}.hosts[{k}]"), format!("host '{n}' appears twice")),
                    Some(h) => idx.push(h),
                    None => cx.err(&format!("{key}.hosts[{k}]"), format!("no host named '{n}'")),
                }
            }
            if idx.is_empty() && names.is_empty() {
                cx.err(&format!("{key}.hosts"), "an empty list: the coordinator would coordinate nobody");
            }
            idx
        }
    };
    let kind = match c.kind.as_str() {
        "fixed-budget" => {
            let period = match &c.period {
                Some(p) => cx.dur(&format!("{key}.period"), p)?,
                None => {
                    cx.err(&format!("{key}.period"), "fixed-budget needs a period (e.g. \"1ms\")");
                    return None;
                }
            };
            if period == SimTime::ZERO {
                cx.err(&format!("{key}.period"), "must be positive");
                return None;
            }
            let Some(ios) = c.ios else {
                cx.err(&format!("{key}.ios"), "fixed-budget needs ios: the requests each host may admit per period");
                return None;
            };
            CoordinatorKind::FixedBudget { period, ios }
        }
        o => {
            cx.err(&format!("{key}.kind"), format!("'{o}': expected fixed-budget"));
            return None;
        }
    };
    Some(CoordinatorPlan { name: c.name.clone(), kind, hosts: idx })
}
