//! Test-only: a kind that shows a coordinator kind is this one file plus one line in
//! `coordinator_kinds!`: its keys refuse what they do not know, and it resolves to an existing
//! plan (a fixed budget no host ever exhausts).

use super::{CoordinatorKind, Env, KindConfig};
use crate::ctx::Ctx;
use nest_core::SimTime;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdmitAllConfig {
    pub name: String,
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// How often the unlimited budget renews (default 1 ms).
    #[serde(default)]
    pub period: Option<String>,
}

impl KindConfig for AdmitAllConfig {
    fn name(&self) -> &str {
        &self.name
    }
    fn hosts(&self) -> Option<&[String]> {
        self.hosts.as_deref()
    }
    fn resolve(&self, cx: &mut Ctx, key: &str, _: &[usize], _: &Env) -> Option<CoordinatorKind> {
        let period = match &self.period {
            Some(p) => cx.dur(&format!("{key}.period"), p)?,
            None => SimTime::from_ms(1),
        };
        Some(CoordinatorKind::FixedBudget { period, ios: u64::MAX })
    }
}
