use super::*;
use crate::{load_str, resolve};
use std::path::PathBuf;

const BASE: &str = r#"
schema = 1
[run]
duration = "10ms"

[[device]]
name = "ssd0"
kind = "ideal"
servers = 4
read = { dist = "fixed", value = "80us" }
write = { dist = "fixed", value = "20us" }

[[workload]]
name = "a"
device = "ssd0"
arrival = { kind = "poisson", rate_iops = 10000 }
size = { dist = "fixed", bytes = "4KiB" }
read_fraction = 0.7
"#;

fn load(coordinator: &str) -> Result<crate::Resolved, String> {
    let text = format!("{BASE}\n[[coordinator]]\n{coordinator}");
    load_str(&text, "s.toml", PathBuf::from("."), &[], None).and_then(|l| resolve(&l, &text)).map_err(|e| e.to_string())
}

/// The issue's example: a plmc coordinator carrying other kinds' keys was accepted silently.
/// Each is now refused by name and line, all in one pass.
#[test]
fn keys_of_other_kinds_are_refused_by_name() {
    let e =
        load("name = \"p\"\nkind = \"plmc\"\npool = \"x\"\nios = 4\nperiod = \"1ms\"\nw_max = 3\nfast = \"nope\"\nflush_depth = 0\ntau = -7.0\n").unwrap_err();
    for (key, line) in [("ios", 24), ("period", 25), ("w_max", 26), ("fast", 27), ("flush_depth", 28), ("tau", 29)] {
        let want = format!("s.toml:{line}:1: coordinator[0].{key}: unknown field `{key}`");
        assert!(e.contains(&want), "{want} not in\n{e}");
    }
    // A misspelt key gets a suggestion from the kind's own keys only.
    let e = load("name = \"p\"\nkind = \"plmc\"\npool = \"x\"\npredicter = \"cod\"\n").unwrap_err();
    assert!(e.contains("coordinator[0].predicter") && e.contains("predictor"), "{e}");
    // An unknown kind lists the registered ones.
    let e = load("name = \"p\"\nkind = \"plmcc\"\n").unwrap_err();
    assert!(e.contains("unknown variant `plmcc`") && e.contains("`plmc`") && e.contains("`congestion-monitor`"), "{e}");
    // hosts belongs to the kinds that coordinate hosts.
    let e = load("name = \"m\"\nkind = \"congestion-monitor\"\nservers = [\"s\"]\nhosts = [\"h\"]\n").unwrap_err();
    assert!(e.contains("coordinator[0].hosts") && e.contains("unknown field `hosts`"), "{e}");
}

#[test]
fn a_registered_test_kind_resolves_and_refuses_what_it_does_not_know() {
    let r = load("name = \"all\"\nkind = \"test-admit-all\"\nperiod = \"2ms\"\n").unwrap();
    assert_eq!(r.coordinators.len(), 1);
    assert_eq!(r.coordinators[0].name, "all");
    let period = nest_core::SimTime::from_ms(2);
    assert_eq!(r.coordinators[0].kind, CoordinatorKind::TestAdmitAll(super::test_admit_all::AdmitAllPlan { period }));
    assert_eq!(r.coordinators[0].hosts, vec![0]);
    // The World's view: its kind name, its parameters, and a runtime coordinator of its own that
    // opens its hosts' gates every period.
    let plan = r.coordinators[0].kind.plan();
    assert_eq!(plan.kind(), "test-admit-all");
    assert_eq!(plan.params(&r.devices)["period_us"], 2000.0);
    let built = plan.build(vec![nest_core::HostId(0)]);
    assert!(built.gates && built.agent.is_none() && built.dt_pool.is_none() && built.links.is_none());
    let mut coord = built.coordinator;
    let mut out = nest_qos::Outbox::default();
    coord.start(nest_core::SimTime::ZERO, &mut out);
    coord.on_wake(period, 0, &mut out);
    let budgets = out.actions.iter().filter(|a| matches!(a, nest_qos::Action::SetBudget { ios: u64::MAX, .. })).count();
    assert_eq!(budgets, 2);
    assert!(out.actions.contains(&nest_qos::Action::WakeAt { at: period + period, token: 0 }));
    assert_eq!(coord.report(), vec![("renewals", 2.0)]);
    let e = load("name = \"all\"\nkind = \"test-admit-all\"\nios = 3\n").unwrap_err();
    assert!(e.contains("coordinator[0].ios") && e.contains("unknown field `ios`"), "{e}");
    // Its own checks still run at resolution.
    let e = load("name = \"all\"\nkind = \"test-admit-all\"\nperiod = \"soon\"\n").unwrap_err();
    assert!(e.contains("coordinator[0].period"), "{e}");
}
