//! `[[coordinator]]`: QoS coordinators (nest-qos). Each kind is one file holding its keys (a
//! serde struct that refuses keys it does not know), their resolution into a plan, and how the
//! World builds the runtime coordinator from that plan ([`KindPlan`]); it is registered by one
//! line in [`coordinator_kinds!`] below. Kinds so far:
//! `fixed-budget` (every `period`, each of its hosts may admit `ios` requests through its
//! admission gate), `congestion-monitor` (counts the congestion the sending channels of storage
//! `servers` meet: DCQCN rate cuts and raises, PFC pauses), `plmc` (allocates the DT counts of
//! an NVM-set `pool` among its hosts, docs/plm.md), `plmlight` (PLM emulated for an SSD without
//! it: read DCs per host, a write DC per device and the write-handling agent at its storage
//! server, docs/plm.md) and `src` (SRC's Algorithm 1 at a storage target, docs/src.md).

mod allocation;
pub mod congestion_monitor;
pub mod fixed_budget;
pub mod plmc;
pub mod plmlight;
pub mod runtime;
pub mod src;
#[cfg(test)]
mod test_admit_all;
#[cfg(test)]
mod tests;

pub use plmc::{OverrunPlan, PlmcLinks, PlmcPlan};
pub use plmlight::PlmLightPlan;
pub use runtime::{Built, KindPlan};
pub use src::SrcPlan;

use crate::ctx::Ctx;
use crate::plan::e2e::NvmeofPlan;
use crate::plan::network::NetworkPlan;
use crate::plan::volume::VolumePlan;
use crate::plan::workload::WorkloadPlan;
use crate::plan::{DevicePlan, HostPlan};

/// What a kind's resolver may read of the rest of the scenario.
pub(crate) struct Env<'a> {
    pub hosts: &'a [HostPlan],
    pub devices: &'a [DevicePlan],
    pub volumes: &'a [VolumePlan],
    pub workloads: &'a [WorkloadPlan],
    pub network: Option<&'a NetworkPlan>,
    pub nvmeof: Option<&'a NvmeofPlan>,
}

/// One coordinator kind's keys.
pub(crate) trait KindConfig {
    /// What the keys resolve to.
    type Plan: KindPlan;
    fn name(&self) -> &str;
    /// The hosts it coordinates, in priority order where the kind has one (`None`: every host).
    /// Kinds without a `hosts` key coordinate every host.
    fn hosts(&self) -> Option<&[String]> {
        None
    }
    /// Checks the keys against the scenario; `key` is `coordinator[i]` for error messages,
    /// `hosts` the host indices it coordinates.
    fn resolve(&self, cx: &mut Ctx, key: &str, hosts: &[usize], env: &Env) -> Option<Self::Plan>;
}

/// Registers the kinds: `Variant = module::Keys => module::Plan,` per line (doc comments, then
/// an optional `#[cfg(...)]`, may stand before it); the variant's name in kebab-case is the
/// `kind` value.
macro_rules! coordinator_kinds {
    ($($(#[doc = $doc:literal])* $(#[cfg($cfg:meta)])? $variant:ident = $keys:ty => $plan:ty,)*) => {
        /// A `[[coordinator]]` section: its `kind` picks the keys it takes.
        #[derive(Debug, Clone, serde::Deserialize)]
        #[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
        pub enum CoordinatorConfig {
            $($(#[doc = $doc])* $(#[cfg($cfg)])? $variant($keys),)*
        }

        /// What a `[[coordinator]]` section resolved to: its kind's plan.
        #[derive(Debug, Clone, PartialEq)]
        pub enum CoordinatorKind {
            $($(#[cfg($cfg)])? $variant($plan),)*
        }

        impl CoordinatorConfig {
            pub fn name(&self) -> &str {
                match self { $($(#[cfg($cfg)])? CoordinatorConfig::$variant(c) => c.name(),)* }
            }
            fn hosts(&self) -> Option<&[String]> {
                match self { $($(#[cfg($cfg)])? CoordinatorConfig::$variant(c) => c.hosts(),)* }
            }
            fn resolve_kind(&self, cx: &mut Ctx, key: &str, hosts: &[usize], env: &Env) -> Option<CoordinatorKind> {
                match self { $($(#[cfg($cfg)])? CoordinatorConfig::$variant(c) => c.resolve(cx, key, hosts, env).map(CoordinatorKind::$variant),)* }
            }
        }

        impl CoordinatorKind {
            /// The kind's plan, as the World sees every kind's.
            pub fn plan(&self) -> &dyn KindPlan {
                match self { $($(#[cfg($cfg)])? CoordinatorKind::$variant(p) => p,)* }
            }
        }
    };
}

coordinator_kinds! {
    FixedBudget = fixed_budget::FixedBudgetKeys => fixed_budget::FixedBudgetPlan,
    CongestionMonitor = congestion_monitor::CongestionMonitorKeys => congestion_monitor::CongestionMonitorPlan,
    Plmc = plmc::PlmcKeys => plmc::PlmcPlan,
    Plmlight = plmlight::PlmLightKeys => plmlight::PlmLightPlan,
    Src = src::SrcKeys => src::SrcPlan,
    /// Test-only: shows that a kind is one file plus this line.
    #[cfg(test)]
    TestAdmitAll = test_admit_all::AdmitAllKeys => test_admit_all::AdmitAllPlan,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorPlan {
    pub name: String,
    pub kind: CoordinatorKind,
    /// Host indices.
    pub hosts: Vec<usize>,
}

pub(crate) fn resolve(cx: &mut Ctx, i: usize, c: &CoordinatorConfig, env: &Env) -> Option<CoordinatorPlan> {
    let key = format!("coordinator[{i}]");
    let idx: Vec<usize> = match c.hosts() {
        None => (0..env.hosts.len()).collect(),
        Some(names) => {
            let mut idx = Vec::new();
            for (k, n) in names.iter().enumerate() {
                match env.hosts.iter().position(|h| &h.name == n) {
                    Some(h) if idx.contains(&h) => cx.err(&format!("{key}.hosts[{k}]"), format!("host '{n}' appears twice")),
                    Some(h) => idx.push(h),
                    None => {
                        let hint = crate::suggest::hint(n, env.hosts.iter().map(|h| h.name.as_str()));
                        cx.err(&format!("{key}.hosts[{k}]"), format!("no host named '{n}'{hint}"))
                    }
                }
            }
            if idx.is_empty() && names.is_empty() {
                cx.err(&format!("{key}.hosts"), "an empty list: the coordinator would coordinate nobody");
            }
            idx
        }
    };
    let kind = c.resolve_kind(cx, &key, &idx, env)?;
    Some(CoordinatorPlan { name: c.name().to_string(), kind, hosts: idx })
}
