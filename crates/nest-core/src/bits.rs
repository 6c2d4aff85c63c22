//! A set of the numbers below a bound, one bit each: which pages were drawn or chosen, without
//! hashing.

pub struct Bits(Vec<u64>);

impl Bits {
    /// The empty set of numbers below `n`.
    pub fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }

    pub fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    /// Adds `i`; whether it was not there yet.
    pub fn insert(&mut self, i: usize) -> bool {
        let (w, b) = (&mut self.0[i / 64], 1u64 << (i % 64));
        let new = *w & b == 0;
        *w |= b;
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_was_inserted_and_says_when_it_is_new() {
        let mut s = Bits::new(130);
        assert!(s.insert(0) && s.insert(64) && s.insert(129));
        assert!(!s.insert(64), "already there");
        assert!(s.contains(0) && s.contains(64) && s.contains(129) && !s.contains(63) && !s.contains(128));
    }
}
