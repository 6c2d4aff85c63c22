//! Test-only: strict priority over the four classes, urgent to low, no WRR. Shows that a die
//! policy is this file plus one line in `die_policies!`.

use super::DiePolicy;
use crate::params::SchedParams;

#[derive(Clone, Debug)]
pub(crate) struct TestStrict;

impl DiePolicy for TestStrict {
    const NAME: &'static str = "test-strict";

    fn new(_: &SchedParams) -> Self {
        TestStrict
    }

    fn class(&mut self, _kind: usize, has: impl Fn(usize) -> bool) -> Option<usize> {
        (0..crate::ssd::CLASSES).find(|&c| has(c))
    }
}
