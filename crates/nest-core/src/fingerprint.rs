//! A running 64-bit hash of the event trajectory (time and a small tag per event), after SST's
//! fingerprint tests: same scenario + seed + binary ⇒ same fingerprint, and any unintended
//! change of behaviour changes it.

#[derive(Clone, Copy, Debug)]
pub struct Fingerprint(u64);

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint(0xcbf2_9ce4_8422_2325)
    }
}

impl Fingerprint {
    #[inline]
    pub fn add(&mut self, x: u64) {
        // FNV-1a on 64-bit words, then a cheap avalanche step.
        self.0 ^= x;
        self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        self.0 ^= self.0 >> 29;
    }
    pub fn value(&self) -> u64 {
        self.0
    }
}
