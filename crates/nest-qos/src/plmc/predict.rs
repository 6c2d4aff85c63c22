//! PLMC's coordinator-directed prediction (CoD, PLMC eq. 1): an exponentially smoothed estimate
//! of each host's DT-count demand per window,
//! R^p_j(n+1) = ζ · R^m_j(n) + (1 − ζ) · R^p_j(n).
//! The sources give neither ζ nor the first window's estimate; NeSt starts every host at an equal
//! share of the set's counts (docs/plm.md).

#[derive(Clone, Debug)]
pub struct Smoothing {
    zeta: f64,
    estimate: Vec<f64>,
}

impl Smoothing {
    /// `zeta` in (0, 1]; `start` is every host's estimate for the first window.
    pub fn new(zeta: f64, hosts: usize, start: f64) -> Smoothing {
        debug_assert!(zeta > 0.0 && zeta <= 1.0);
        Smoothing { zeta, estimate: vec![start; hosts] }
    }

    /// Folds in the demands reported for window n; a host that did not report keeps its
    /// estimate.
    pub fn observe_reported(&mut self, reported: &[Option<u64>]) {
        for (e, m) in self.estimate.iter_mut().zip(reported) {
            if let Some(m) = *m {
                *e = self.zeta * m as f64 + (1.0 - self.zeta) * *e;
            }
        }
    }

    /// The estimates in whole counts (rounded up: a fraction of a request needs a count).
    pub fn predictions(&self, out: &mut Vec<u64>) {
        out.clear();
        out.extend(self.estimate.iter().map(|e| e.ceil() as u64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_moves_a_zeta_share_towards_each_measurement() {
        let mut s = Smoothing::new(0.5, 2, 100.0);
        let mut p = Vec::new();
        s.predictions(&mut p);
        assert_eq!(p, vec![100, 100]);
        s.observe_reported(&[Some(200), Some(0)]);
        s.predictions(&mut p);
        assert_eq!(p, vec![150, 50]);
        s.observe_reported(&[Some(150), Some(1)]);
        s.predictions(&mut p);
        assert_eq!(p, vec![150, 26], "25.5 rounds up");
        let mut s = Smoothing::new(1.0, 1, 7.0);
        s.observe_reported(&[Some(42)]);
        s.predictions(&mut p);
        assert_eq!(p, vec![42], "ζ = 1 predicts the last window");
        let mut s = Smoothing::new(0.5, 2, 10.0);
        s.observe_reported(&[None, Some(30)]);
        s.predictions(&mut p);
        assert_eq!(p, vec![10, 20], "a host that did not report keeps its estimate");
    }
}
