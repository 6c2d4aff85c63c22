//! Where QTCP's window rule read literally (`on_mark`: Q only in the cut of a marked window)
//! settles: the fixed point of thesis eq. 4.5 (QTCP eq. 6) when the
//! flows sharing a bottleneck are marked in the same episodes — the regime of a DCTCP-style
//! step-marking switch, where every sender sees the queue cross K together and cuts once.
//!
//! Why it matters: it says what the rule *can* deliver, independent of any simulator. Per
//! marking cycle of length T, flow i grows by G_i = T/R_i packets (+1 per RTT, eq. 4.5's first
//! branch) and is cut once. A flow short of its target (Q ≥ 1) cuts like DCTCP, W·α/2 = G, so
//! every flow in deficit — and every unmanaged DCTCP flow — ends at the same, DCTCP share (for
//! equal RTTs and α): the rule cannot lift a class above them. A flow with slack (Q < 1) cuts
//! W·(1 − (1 − α/2)·Q) = G; to stay r times below a deficit flow it needs
//! Q ≈ (1 − r·α/2)/(1 − α/2), i.e. it sits *above* its target by about r·α/2. So the classes'
//! ratios compress as α grows, and with unequal RTTs the gains G_i ∝ 1/R_i and throughputs
//! W/R_i bias shares by 1/R_i², which a once-per-cycle Q cut cannot undo.
//!
//! The window's cycle mean is W̄ = W_peak − G/2 (linear growth), and Q is measured on the
//! carried throughput x = W̄/R, as the sender's smoothed Q is. Solving for the cycle length
//! that fills the bottleneck gives every flow's throughput.

/// One flow at the bottleneck.
#[derive(Clone, Debug, PartialEq)]
pub struct EqFlow {
    /// Round-trip time (seconds), queueing included.
    pub rtt_s: f64,
    /// The flow's DCTCP α at its cuts (0 < α ≤ 1).
    pub alpha: f64,
    /// QTCP's target (λ·share, bits/s); `None` for an unmanaged DCTCP flow.
    pub target_bps: Option<f64>,
    /// What the application offers (bits/s); `None` = backlogged.
    pub offered_bps: Option<f64>,
}

/// The fixed point: each flow's throughput and quality factor, and the marking cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedPoint {
    pub throughput_bps: Vec<f64>,
    /// target / throughput (1 for unmanaged flows).
    pub quality: Vec<f64>,
    /// The segment size (bits) times the marking cycle's length (seconds): the two appear only
    /// as this product. Infinite when no flow is congested.
    pub cycle_bit_seconds: f64,
}

/// Throughput (bits/s) of one flow whose gain per cycle is `u / R` bits (u = MSS·T).
fn throughput(u: f64, f: &EqFlow) -> f64 {
    let (r, a) = (f.rtt_s, f.alpha);
    let g = u / r;
    // In deficit: W_peak·α/2 = G, W̄ = W_peak − G/2.
    let deficit = g * (2.0 / a - 0.5) / r;
    let x = match f.target_bps {
        Some(t) if deficit > t => {
            // With slack: y·(1 − (1 − α/2)·t·R/(y − G/2)) = G for the peak window y, i.e.
            // y² − (3G/2 + (1 − α/2)·t·R)·y + G²/2 = 0 (the larger root: y > G/2).
            let b = 1.5 * g + (1.0 - a / 2.0) * t * r;
            let y = (b + (b * b - 2.0 * g * g).max(0.0).sqrt()) / 2.0;
            (y - g / 2.0) / r
        }
        _ => deficit,
    };
    match f.offered_bps {
        Some(o) => x.min(o),
        None => x,
    }
}

/// The split of a bottleneck carrying `capacity_bps` among `flows` at the rule's fixed point.
pub fn qtcp_fixed_point(capacity_bps: f64, flows: &[EqFlow]) -> Result<FixedPoint, String> {
    if flows.is_empty() {
        return Err("the fixed point needs at least one flow".into());
    }
    if !positive(capacity_bps) {
        return Err(format!("capacity must be positive, not {capacity_bps}"));
    }
    for (i, f) in flows.iter().enumerate() {
        if !(positive(f.rtt_s) && positive(f.alpha) && f.alpha <= 1.0) {
            return Err(format!("flow {i}: need RTT > 0 and 0 < α ≤ 1 (got {} s, {})", f.rtt_s, f.alpha));
        }
        if f.target_bps.is_some_and(|t| !positive(t)) || f.offered_bps.is_some_and(|o| !(positive(o) || o == 0.0)) {
            return Err(format!("flow {i}: target and offered load must be positive"));
        }
    }
    let total = |u: f64| flows.iter().map(|f| throughput(u, f)).sum::<f64>();
    let offered: Option<f64> = flows.iter().map(|f| f.offered_bps).sum();
    if offered.is_some_and(|o| o <= capacity_bps) {
        // Every flow is application-limited: no congestion, each carries what it offers.
        let x: Vec<f64> = flows.iter().map(|f| f.offered_bps.unwrap_or(0.0)).collect();
        let quality = quality(flows, &x);
        return Ok(FixedPoint { throughput_bps: x, quality, cycle_bit_seconds: f64::INFINITY });
    }
    // Each throughput grows with u: bisect for the u that fills the bottleneck.
    let (mut lo, mut hi) = (0.0, 1e-12);
    while total(hi) < capacity_bps {
        hi *= 2.0;
        if !hi.is_finite() {
            return Err("no fixed point: the flows cannot fill the bottleneck".into());
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if total(mid) < capacity_bps {
            lo = mid
        } else {
            hi = mid
        }
    }
    let x: Vec<f64> = flows.iter().map(|f| throughput(hi, f)).collect();
    let quality = quality(flows, &x);
    Ok(FixedPoint { throughput_bps: x, quality, cycle_bit_seconds: hi })
}

/// A finite number above zero (NaN is not).
fn positive(x: f64) -> bool {
    x > 0.0 && x.is_finite()
}

fn quality(flows: &[EqFlow], x: &[f64]) -> Vec<f64> {
    flows.iter().zip(x).map(|(f, &x)| f.target_bps.map_or(1.0, |t| t / x.max(f64::MIN_POSITIVE))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(rtt_us: f64, alpha: f64, target: Option<f64>) -> EqFlow {
        EqFlow { rtt_s: rtt_us * 1e-6, alpha, target_bps: target, offered_bps: None }
    }

    #[test]
    fn equal_dctcp_flows_share_equally() {
        let fp = qtcp_fixed_point(9e9, &[q(100.0, 0.1, None), q(100.0, 0.1, None), q(100.0, 0.1, None)]).unwrap();
        for x in &fp.throughput_bps {
            assert!((x - 3e9).abs() < 1e3, "{x}");
        }
    }

    #[test]
    fn ratios_compress_as_alpha_grows_and_reach_the_targets_as_it_vanishes() {
        let c = 9.6e9;
        let ratio = |alpha: f64| {
            let fl: Vec<EqFlow> = [1.0, 2.0, 3.0].iter().map(|r| q(100.0, alpha, Some(c * r / 6.0))).collect();
            let x = qtcp_fixed_point(c, &fl).unwrap().throughput_bps;
            (x[1] / x[0], x[2] / x[0])
        };
        let (m_small, h_small) = ratio(0.005);
        assert!((m_small - 2.0).abs() < 0.05 && (h_small - 3.0).abs() < 0.1, "{m_small} {h_small}");
        let (m_big, h_big) = ratio(0.15);
        assert!(h_big < 2.7 && m_big < 1.9, "compressed at α = 0.15: 1 : {m_big} : {h_big}");
        assert!(ratio(0.3).1 < h_big, "more compressed at α = 0.3");
    }

    #[test]
    fn a_deficit_class_gets_no_more_than_an_unmanaged_dctcp_flow() {
        // λ = 7 of 9.6 Gb/s: the high class's target (3.5) is above the DCTCP share it can
        // reach, so it and the DCTCP flow end equal.
        let c = 9.6e9;
        let lam = 7e9;
        let fl = vec![q(100.0, 0.16, Some(lam / 6.0)), q(100.0, 0.16, Some(lam / 3.0)), q(100.0, 0.16, Some(lam / 2.0)), q(100.0, 0.16, None)];
        let fp = qtcp_fixed_point(c, &fl).unwrap();
        let x = &fp.throughput_bps;
        assert!((x[2] - x[3]).abs() < 1e3, "{x:?}");
        assert!(fp.quality[2] > 1.0 && fp.quality[0] < 1.0 && fp.quality[1] < 1.0, "{:?}", fp.quality);
        assert!(((x.iter().sum::<f64>()) - c).abs() < 1e3);
    }

    #[test]
    fn a_longer_rtt_loses_by_its_square_when_in_deficit() {
        let fp = qtcp_fixed_point(8e9, &[q(100.0, 0.1, None), q(200.0, 0.1, None)]).unwrap();
        let x = &fp.throughput_bps;
        assert!((x[0] / x[1] - 4.0).abs() < 1e-6, "{x:?}");
    }

    #[test]
    fn application_limited_flows_carry_what_they_offer() {
        let mut a = q(100.0, 0.1, Some(5e9));
        a.offered_bps = Some(1e9);
        let mut b = q(100.0, 0.1, None);
        b.offered_bps = Some(2e9);
        let fp = qtcp_fixed_point(10e9, &[a.clone(), b]).unwrap();
        assert_eq!(fp.throughput_bps, vec![1e9, 2e9]);
        // A limited flow keeps its load; the other fills the rest.
        let fp = qtcp_fixed_point(10e9, &[a, q(100.0, 0.1, None)]).unwrap();
        assert!((fp.throughput_bps[0] - 1e9).abs() < 1.0 && (fp.throughput_bps[1] - 9e9).abs() < 1e3, "{:?}", fp.throughput_bps);
    }

    /// The sender's own rule (`cc::quality::update_quality`, `cc::quality::signal_cut`), driven through synchronized
    /// marking cycles without a fabric: +1 segment per RTT, and one cut per flow whenever the
    /// flows' rates fill the bottleneck. Its cycle means land on the fixed point — the
    /// implementation is eq. 4.5 and the fixed point is where eq. 4.5 goes.
    fn run_rule(rtt_us: &[f64], alpha: f64, ratios: &[Option<f64>], c: f64) -> (Vec<f64>, Vec<f64>) {
        use crate::params::{QtcpParams, Target, TcpParams};
        use crate::{cc, Transports};
        use crate::{Cc, FlowSpec};
        use nest_core::SimTime;
        let specs: Vec<FlowSpec> = ratios
            .iter()
            .enumerate()
            .map(|(i, r)| FlowSpec {
                name: format!("f{i}"),
                src: i as u32,
                dst: 99,
                class: i as u8,
                prio: nest_net::packet::PRIO_NORMAL,
                cc: if r.is_some() { Cc::Qtcp } else { Cc::Dctcp },
                start: SimTime::ZERO,
                stop: None,
                bytes: None,
                rate_bps: None,
                deadline: None,
                target: r.map(Target::Ratio),
                messages: false,
            })
            .collect();
        let class_ratio: Vec<f64> = ratios.iter().map(|r| r.unwrap_or(1.0)).collect();
        let sum_r: f64 = ratios.iter().flatten().sum();
        // The fixed point is on_mark's: Q acts only in the cut of a marked window.
        let qp = QtcpParams { gamma: 0.0, bottleneck_bps: c, slack: crate::Slack::OnMark, ..Default::default() };
        let mut tp = Transports::new(TcpParams::default(), qp.clone(), specs, class_ratio).unwrap();
        let mss = tp.tcp.mss as f64;
        let rtt: Vec<f64> = rtt_us.iter().map(|r| r * 1e-6).collect();
        let dt = rtt.iter().cloned().fold(f64::MAX, f64::min) / 200.0;
        let n = ratios.len();
        for f in tp.flows.iter_mut() {
            f.s.win.cwnd = 10.0 * mss;
            f.s.alpha = alpha;
        }
        let (mut carried, mut t, mut last_cut) = (vec![0.0; n], 0.0, 0.0);
        let (mut sums, mut span) = (vec![0.0; n], 0.0);
        let mut lambda = c;
        let cycles = 2000;
        for cycle in 0..cycles {
            loop {
                let rate: f64 = (0..n).map(|i| tp.flows[i].s.win.cwnd * 8.0 / rtt[i]).sum();
                if rate >= c {
                    break;
                }
                for i in 0..n {
                    let f = &mut tp.flows[i];
                    carried[i] += f.s.win.cwnd / rtt[i] * dt;
                    f.s.win.cwnd += mss * dt / rtt[i];
                }
                t += dt;
            }
            let now = SimTime::from_secs_f64(t).unwrap();
            for i in 0..n {
                let f = &mut tp.flows[i];
                f.s.win_acked = carried[i] as u64;
                f.s.win_start = SimTime::from_secs_f64(last_cut).unwrap();
                if let Some(r) = ratios[i] {
                    let facts = cc::Facts {
                        index: i as u32,
                        class: f.spec.class,
                        target: f.spec.target,
                        bytes: None,
                        start: SimTime::ZERO,
                        deadline: None,
                        total: f.total,
                    };
                    cc::quality::update_quality(&mut f.s, &facts, now, &qp, r / sum_r, &mut lambda, 0.0);
                }
                if cycle >= cycles / 2 {
                    sums[i] += carried[i] * 8.0;
                }
                // A DCTCP flow's Q stays 1: its cut is DCTCP's.
                f.s.win.cwnd *= cc::quality::signal_cut(cc::dctcp::cut(f.s.alpha), f.s.quality.q, qp.slack);
                carried[i] = 0.0;
            }
            if cycle >= cycles / 2 {
                span += t - last_cut;
            }
            last_cut = t;
        }
        let x: Vec<f64> = sums.iter().map(|s| s / span).collect();
        let total: f64 = x.iter().sum();
        let fl: Vec<EqFlow> = (0..n).map(|i| EqFlow { rtt_s: rtt[i], alpha, target_bps: ratios[i].map(|r| c * r / sum_r), offered_bps: None }).collect();
        (x, qtcp_fixed_point(total, &fl).unwrap().throughput_bps)
    }

    #[test]
    fn the_senders_rule_settles_at_the_fixed_point() {
        for (rtts, alpha, ratios) in [
            (vec![100.0, 100.0, 100.0], 0.15, vec![Some(1.0), Some(2.0), Some(3.0)]),
            (vec![100.0, 100.0, 100.0], 0.03, vec![Some(1.0), Some(2.0), Some(3.0)]),
            (vec![100.0, 100.0, 100.0, 100.0], 0.15, vec![Some(1.0), Some(2.0), Some(3.0), None]),
            (vec![300.0, 300.0, 900.0], 0.05, vec![Some(1.0), Some(2.0), Some(3.0)]),
        ] {
            let (sim, fp) = run_rule(&rtts, alpha, &ratios, 9.6e9);
            for (s, p) in sim.iter().zip(&fp) {
                assert!((s - p).abs() <= 0.03 * p, "RTTs {rtts:?} α {alpha}: rule {sim:?} vs fixed point {fp:?}");
            }
        }
    }

    #[test]
    fn bad_inputs_are_refused() {
        assert!(qtcp_fixed_point(1e9, &[]).is_err());
        assert!(qtcp_fixed_point(0.0, &[q(100.0, 0.1, None)]).is_err());
        assert!(qtcp_fixed_point(1e9, &[q(100.0, 0.0, None)]).is_err());
        assert!(qtcp_fixed_point(1e9, &[q(0.0, 0.1, None)]).is_err());
    }
}
