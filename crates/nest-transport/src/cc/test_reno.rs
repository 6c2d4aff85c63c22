//! Test-only: ECN-Reno (RFC 3168's reaction: halve the window on a marked window, nothing
//! smoothed). It exists to show that a congestion control is this one file plus one line in
//! `congestion_controls!`, and that the window mechanism drives any algorithm through the two
//! hooks alone.

use super::hooks::{CongestionControl, Cx, Family};
use crate::sender::Sender;

pub struct TestReno;

impl CongestionControl for TestReno {
    const NAME: &'static str = "test_reno";
    const FAMILY: Family = Family::Window;

    fn on_interval(_: &mut Sender, _: &mut Cx) {}

    fn on_signal(_: &mut Sender, _: &Cx) -> f64 {
        0.5
    }
}

#[cfg(test)]
mod tests {
    use crate::harness::{run_until, Queue};
    use crate::*;
    use nest_core::SimTime;
    use nest_net::packet::PRIO_NORMAL;
    use nest_net::{Fabric, FabricParams, Topology};

    #[test]
    fn a_registered_test_algorithm_runs_through_the_window_mechanism() {
        assert_eq!(Cc::from_name("test_reno"), Some(Cc::TestReno));
        assert!(Cc::expected().ends_with("qrdma or test_reno"), "{}", Cc::expected());
        let specs: Vec<FlowSpec> = (0..2)
            .map(|i| FlowSpec { name: format!("r{i}"), src: i, dst: 2, class: 0, prio: PRIO_NORMAL, cc: Cc::TestReno, start: SimTime::ZERO,
                                stop: None, bytes: None, rate_bps: None, deadline: None, target: None, messages: false })
            .collect();
        let end = SimTime::from_ms(60);
        let topo = Topology::dumbbell(2, 1, 10_000_000_000, SimTime::from_us(10));
        let mut fabric = Fabric::new(topo, FabricParams::default(), 7).unwrap();
        let mut tp = Transports::new(TcpParams::default(), QtcpParams::default(), specs, vec![1.0]).unwrap();
        tp.set_measure_window(SimTime::from_ms(20), end);
        let mut q = Queue::default();
        tp.start(&fabric, &mut q);
        run_until(&mut fabric, &mut tp, &mut q, end);
        let total: f64 = (0..2).map(|f| tp.window_throughput_bps(f, end - SimTime::from_ms(20))).sum();
        assert!(total > 9.0e9, "two ECN-Reno flows fill the link: {total}");
        for f in &tp.flows {
            assert!(f.stats.cuts > 10, "marked windows were cut: {}", f.stats.cuts);
            // The mechanism no longer smooths α itself: ECN-Reno's hook leaves it where it began.
            assert_eq!(f.s.alpha, TcpParams::default().alpha_init);
        }
        fabric.check_conservation().unwrap();
    }
}
