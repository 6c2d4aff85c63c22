//! QTCP's discrete-time analytic model (QTCP §III eqs. 7–17; thesis eqs. 4.7–4.17), a solver
//! of its own that runs beside a simulation of the same setup. All quantities are in packets
//! and one step is one update slot (≈ one RTT). The order of evaluation is the paper's:
//! p(n) from B(n−1); C_i(n); Q_i(n); α_i(n); W_i(n) (eq. 12); R_i(n); q_i(n).

/// One class of the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelClass {
    /// Throughput control: the target ratio r_i (C_i = C·r_i/Σr).
    pub ratio: Option<f64>,
    /// Latency control: the target L_it in seconds.
    pub latency_target: Option<f64>,
    /// Baseline one-way delay d_i in seconds (propagation, processing, one transmission).
    pub base_delay: f64,
    /// Offered load in packets/s (eqs. 15–17 with evenly spaced arrivals); `None` = backlogged.
    pub offered_pps: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModelParams {
    /// Bottleneck capacity C in packets/s.
    pub capacity_pps: f64,
    /// Marking threshold K in packets.
    pub k: f64,
    /// α gain γ of eq. 11 (QTCP §III-C uses 0.02).
    pub gamma: f64,
    /// ε of eq. 12: the window grows only while α_i ≤ ε.
    pub epsilon: f64,
    /// Initial window W_i(0) in packets.
    pub w0: f64,
    pub slots: usize,
}

/// The trajectory: `[slot][class]`.
#[derive(Clone, Debug, Default)]
pub struct ModelTrace {
    /// Elapsed time at the end of each slot (seconds; slots last the mean R_i(n)).
    pub time: Vec<f64>,
    pub window: Vec<Vec<f64>>,
    pub quality: Vec<Vec<f64>>,
    pub alpha: Vec<Vec<f64>>,
    pub queue: Vec<Vec<f64>>,
    pub rtt: Vec<Vec<f64>>,
    /// Carried throughput W'_i(n)/R_i(n), packets/s.
    pub throughput: Vec<Vec<f64>>,
}

pub fn solve(p: &ModelParams, classes: &[ModelClass]) -> Result<ModelTrace, String> {
    let n = classes.len();
    if n == 0 {
        return Err("the model needs at least one class".into());
    }
    if p.capacity_pps <= 0.0 || p.k < 1.0 || !(0.0..=1.0).contains(&p.gamma) {
        return Err("model: capacity must be positive, K ≥ 1 and 0 ≤ γ ≤ 1".into());
    }
    for (i, c) in classes.iter().enumerate() {
        if c.ratio.is_none() == c.latency_target.is_none() {
            return Err(format!("model class {i}: give exactly one of ratio and latency_target"));
        }
    }
    let sum_r: f64 = classes.iter().filter_map(|c| c.ratio).sum();
    let mut w = vec![p.w0; n];
    let mut w_eff = vec![p.w0; n];
    let mut alpha = vec![0.0; n];
    let mut q = vec![0.0; n];
    let mut r: Vec<f64> = classes.iter().map(|c| 2.0 * c.base_delay).collect();
    let mut share: Vec<f64> = (0..n)
        .map(|i| match classes[i].ratio {
            Some(x) => p.capacity_pps * x / sum_r,
            None => p.w0 / r[i],
        })
        .collect();
    let mut backlog = vec![0.0; n];
    let mut out = ModelTrace::default();
    let mut t = 0.0;
    for _ in 0..p.slots {
        let b: f64 = q.iter().sum();
        let prob = if b >= p.k { 1.0 - (p.k - 1.0) / b } else { 0.0 };
        let prev_share = share.clone();
        let mut qual = vec![1.0; n];
        for i in 0..n {
            let c = &classes[i];
            // Eq. 9 and 10 (Q < 1 = slack).
            match (c.ratio, c.latency_target) {
                (Some(x), _) => {
                    share[i] = p.capacity_pps * x / sum_r;
                    qual[i] = share[i] * r[i] / w_eff[i].max(1e-9);
                }
                (None, Some(lt)) => {
                    share[i] = w_eff[i] / r[i];
                    qual[i] = (c.base_delay + q[i] / prev_share[i].max(1e-9)) / lt;
                }
                _ => unreachable!(),
            }
            // Eq. 11 and 12.
            alpha[i] += p.gamma * (prob - alpha[i]);
            w[i] = if alpha[i] <= p.epsilon {
                w[i] + 1.0
            } else if qual[i] > 1.0 {
                w[i] * (1.0 - alpha[i] / 2.0)
            } else {
                w[i] * (1.0 - alpha[i] / 2.0) * qual[i]
            };
            w[i] = w[i].max(1.0);
        }
        for i in 0..n {
            // Eq. 13, then eqs. 15–17 (packets produced during the last slot), then eq. 14.
            let rn = 2.0 * classes[i].base_delay + b / p.capacity_pps;
            w_eff[i] = match classes[i].offered_pps {
                Some(rate) => {
                    backlog[i] += rate * r[i];
                    let sent = w[i].min(backlog[i]);
                    backlog[i] -= sent;
                    sent
                }
                None => w[i],
            };
            r[i] = rn;
            q[i] = (q[i] + w_eff[i] - share[i] * r[i]).max(0.0);
        }
        t += r.iter().sum::<f64>() / n as f64;
        out.time.push(t);
        out.window.push(w_eff.clone());
        out.quality.push(qual);
        out.alpha.push(alpha.clone());
        out.queue.push(q.clone());
        out.rtt.push(r.clone());
        out.throughput.push((0..n).map(|i| w_eff[i] / r[i]).collect());
    }
    Ok(out)
}
