//! MQSim's ONFI NV-DDR2 command phases (`onfi_command_phases`): how long a command and its
//! addresses hold the channel before the die starts, by operation and number of planes.
//!
//! MQSim builds these from its channel's timing defaults (`src/ssd/ONFI_Channel_NVDDR2.h:18-22`:
//! tCS 20, tWC 25, tWB 100, tRR 20, tADL 70, tCALS 15, tWPST 6, tWPSTH 15, tDBSY 500 ns), which no
//! ssdconfig.xml key sets (`ONFI_Channel_NVDDR2.cpp:16-36`). A multi-plane command repeats its
//! address cycles per plane with a tDBSY wait between them, so a two-plane read holds the
//! channel 940 ns where a one-plane read holds it 290 ns.

use super::txn::Kind;
use nest_core::SimTime;

const T_CS: u64 = 20;
const T_WC: u64 = 25;
const T_WB: u64 = 100;
const T_RR: u64 = 20;
const T_ADL: u64 = 70;
const T_CALS: u64 = 15;
const T_WPST: u64 = 6;
const T_WPSTH: u64 = 15;
const T_DBSY: u64 = 500;

/// The command phase of a batch of `planes` pages led by an operation of `kind`.
pub(super) fn command_phase(kind: Kind, planes: usize) -> SimTime {
    let more = planes.max(1) as u64 - 1;
    let ns = if kind == Kind::Erase {
        T_CS + (4 * T_WC + T_WB) * (more + 1) + T_DBSY * more
    } else if kind.is_program() {
        T_CS + (5 * T_WC + T_ADL + T_WPST + T_CALS + T_WB + T_DBSY) * more + 6 * T_WC + T_ADL + T_WPST + T_WPSTH + T_WB
    } else {
        T_CS + 6 * T_WC * (more + 1) + T_DBSY * more + T_WB + T_RR
    };
    SimTime::from_ns(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mqsims_command_times_for_one_to_four_planes() {
        let ns = |k, n| command_phase(k, n).0 / 1000;
        assert_eq!((1..=4).map(|n| ns(Kind::Read, n)).collect::<Vec<_>>(), vec![290, 940, 1590, 2240]);
        assert_eq!((1..=4).map(|n| ns(Kind::Write, n)).collect::<Vec<_>>(), vec![361, 1177, 1993, 2809]);
        assert_eq!((1..=4).map(|n| ns(Kind::Erase, n)).collect::<Vec<_>>(), vec![220, 920, 1620, 2320]);
    }
}
