//! Conservation accounting: every request (or packet, or byte) a component accepts is either
//! completed, explicitly dropped (counted, only where a lossy mode allows it), or still in flight.
//!
//! Components keep one [`Conservation`] per thing they conserve and the run checks them at the
//! end against the in-flight count observed independently (queues, servers), so a leak shows up
//! as a failed check rather than a quietly wrong throughput.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conservation {
    pub issued: u64,
    pub completed: u64,
    pub dropped: u64,
}

impl Conservation {
    #[inline]
    pub fn issue(&mut self, n: u64) {
        self.issued += n;
    }
    #[inline]
    pub fn complete(&mut self, n: u64) {
        self.completed += n;
        debug_assert!(self.completed + self.dropped <= self.issued, "completed more than issued");
    }
    #[inline]
    pub fn drop_n(&mut self, n: u64) {
        self.dropped += n;
    }
    /// Issued minus completed minus dropped.
    pub fn in_flight(&self) -> u64 {
        self.issued.saturating_sub(self.completed + self.dropped)
    }
    /// Checks the books against an independently observed in-flight count.
    pub fn check(&self, what: &str, observed_in_flight: u64) -> Result<(), String> {
        if self.completed + self.dropped > self.issued {
            return Err(format!("{what}: completed {} + dropped {} exceeds issued {}", self.completed, self.dropped, self.issued));
        }
        if self.in_flight() != observed_in_flight {
            return Err(format!(
                "{what}: issued {} - completed {} - dropped {} = {} but {} are observed in flight",
                self.issued,
                self.completed,
                self.dropped,
                self.in_flight(),
                observed_in_flight
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_a_leak() {
        let mut c = Conservation::default();
        c.issue(10);
        c.complete(7);
        assert!(c.check("dev", 3).is_ok());
        assert!(c.check("dev", 2).unwrap_err().contains("observed"));
    }
}
