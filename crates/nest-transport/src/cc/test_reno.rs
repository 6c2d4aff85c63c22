//! Test-only: ECN-Reno (RFC 3168's reaction: halve the window on a marked window, nothing
//! smoothed). It exists to show that a congestion control is this one file plus one line in
//! `congestion_controls!`, and that the window mechanism drives any algorithm through the two
//! hooks alone (the test is `tests.rs`'s
//! `a_registered_test_algorithm_runs_through_the_window_mechanism`).

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
