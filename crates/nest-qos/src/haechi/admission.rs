//! Haechi's admission control (§II-C): a client is admitted when the capacity covers every
//! reservation — globally, Σ R_i ≤ T·C_G (C_G the node's capacity as a rate) — and locally, since
//! one client alone cannot drive the node: its residual reservation must stay within what it can
//! do in the time left, R_i − N_i(t) ≤ (T − t)·C_L (C_L a client's own saturation rate).

/// Whether reservations `r` (I/Os per period of `t_period_s`) fit the node's capacity `c_g`
/// (I/Os per second) and each client's own `c_l[i]` (I/Os per second: a two-sided client's is
/// lower, its I/O thread also posts the receive) from the period's start.
pub fn admits(r: &[u64], t_period_s: f64, c_g: f64, c_l: &[f64]) -> Result<(), String> {
    let total: u64 = r.iter().sum();
    if total as f64 > t_period_s * c_g {
        return Err(format!("the reservations sum to {total} I/Os per period, above T·C_G = {:.0}", t_period_s * c_g));
    }
    if let Some((i, (&ri, &cl))) = r.iter().zip(c_l).enumerate().find(|&(_, (&ri, &cl))| !residual_feasible(ri, 0, 0.0, t_period_s, cl)) {
        return Err(format!("client {i}'s reservation {ri} is above what one client does in a period, T·C_L = {:.0}", t_period_s * cl));
    }
    Ok(())
}

/// The local condition at time `t_s` into the period: R_i − N_i(t) ≤ (T − t)·C_L.
pub fn residual_feasible(r_i: u64, n_i: u64, t_s: f64, t_period_s: f64, c_l: f64) -> bool {
    r_i.saturating_sub(n_i) as f64 <= (t_period_s - t_s).max(0.0) * c_l
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_global_and_the_local_bounds() {
        // The paper's numbers: C_G 1570 K/s, C_L 400 K/s, T = 1 s.
        assert!(admits(&[157_000; 10], 1.0, 1_570_000.0, &[400_000.0; 10]).is_ok());
        let e = admits(&[158_000; 10], 1.0, 1_570_000.0, &[400_000.0; 10]).unwrap_err();
        assert!(e.contains("1580000") && e.contains("T·C_G"), "{e}");
        let e = admits(&[401_000, 100_000], 1.0, 1_570_000.0, &[400_000.0; 2]).unwrap_err();
        assert!(e.contains("client 0") && e.contains("T·C_L"), "{e}");
        // A two-sided client saturates at ~327 K/s: 350 K fits a one-sided client only.
        assert!(admits(&[350_000, 350_000], 1.0, 1_570_000.0, &[400_000.0, 400_000.0]).is_ok());
        let e = admits(&[350_000, 350_000], 1.0, 1_570_000.0, &[400_000.0, 327_000.0]).unwrap_err();
        assert!(e.contains("client 1") && e.contains("327000"), "{e}");
        // Half-way through the period a client may owe at most 200 K.
        assert!(residual_feasible(300_000, 100_000, 0.5, 1.0, 400_000.0));
        assert!(!residual_feasible(300_000, 99_999, 0.5, 1.0, 400_000.0));
        assert!(residual_feasible(5, 10, 1.0, 1.0, 400_000.0), "nothing owed");
    }
}
