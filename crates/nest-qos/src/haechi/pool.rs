//! The global token pool: a signed 64-bit word at the data node. Clients take tokens with a
//! remote Fetch-and-Add of −B, which returns the value before the add and may drive the word to
//! zero or below (a client then gets min(B, max(0, returned)) tokens — what was really there);
//! the monitor reads it (its CAS) and sets it (period start, token conversion).
//!
//! Its ledger: tokens put in (the initial value and every raise by a set) = tokens granted to
//! clients + tokens taken out (every lowering by a set) + what is left (the value, if positive).

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalPool {
    value: i64,
    /// Tokens put in: each set's raise over the tokens there were (a negative word holds none).
    pub put_in: u64,
    /// Tokens a set removed (the conversion lowered the pool).
    pub taken_out: u64,
    /// Tokens clients received from FAAs.
    pub granted: u64,
    /// FAAs executed, and those that found no token.
    pub faas: u64,
    pub empty_faas: u64,
}

impl GlobalPool {
    pub fn value(&self) -> i64 {
        self.value
    }

    /// Tokens there are (a word at or below zero holds none).
    pub fn tokens(&self) -> u64 {
        self.value.max(0) as u64
    }

    /// The monitor writes `v` (period start, conversion).
    pub fn set(&mut self, v: u64) {
        let had = self.tokens();
        if v >= had {
            self.put_in += v - had;
        } else {
            self.taken_out += had - v;
        }
        self.value = v as i64;
    }

    /// A client's FAA of −`batch`: the value it returns, and the tokens the client gets from it.
    pub fn fetch_and_add(&mut self, batch: u64) -> (i64, u64) {
        let old = self.value;
        self.value = old.saturating_sub(batch as i64);
        let got = (old.max(0) as u64).min(batch);
        self.faas += 1;
        if got == 0 {
            self.empty_faas += 1;
        }
        self.granted += got;
        (old, got)
    }

    /// put in = granted + taken out + left.
    pub fn balanced(&self) -> bool {
        self.put_in == self.granted + self.taken_out + self.tokens()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faa_may_overdraw_the_word_but_grants_only_what_was_there() {
        let mut p = GlobalPool::default();
        p.set(2500);
        assert_eq!(p.fetch_and_add(1000), (2500, 1000));
        assert_eq!(p.fetch_and_add(1000), (1500, 1000));
        assert_eq!(p.fetch_and_add(1000), (500, 500), "half a batch was there");
        assert_eq!(p.value(), -500);
        assert_eq!(p.fetch_and_add(1000), (-500, 0), "a negative pool grants nothing");
        assert_eq!((p.value(), p.tokens(), p.faas, p.empty_faas), (-1500, 0, 4, 1));
        assert!(p.balanced());
        // Conversion raises it from below zero: the tokens put in count from zero.
        p.set(700);
        assert_eq!((p.put_in, p.granted), (3200, 2500));
        p.set(200);
        assert_eq!(p.taken_out, 500);
        assert!(p.balanced());
    }
}
