//! Where requests' time inside their SSDs went (`nest_ssd::DEV_PARTS`): the mean of each part,
//! and — per device and per class — the mean over the slowest requests, so a user sees why the
//! tail was slow (issue 22).
//!
//! The tail is found without keeping requests: parts are summed per bucket of SSD time
//! (log-linear, 16 buckets per octave from 65 ns to 281 s, so a bucket spans 6.25 % of its
//! lower bound), and the tail is the slowest 1 % of requests: every bucket above the one
//! holding the 99th percentile, plus that bucket's share (at its mean) needed to make up 1 %.

use crate::request::Request;
use nest_ssd::DEV_PARTS;

pub const N: usize = DEV_PARTS.len();
const SUB: u32 = 16;
const LOW: u32 = 16; // 2^16 ps ≈ 65 ns: faster requests share the first bucket
const HIGH: u32 = 48; // 2^48 ps ≈ 281 s: slower ones share the last
#[cfg(test)]
const BUCKETS: usize = ((HIGH - LOW) * SUB) as usize;
/// A bucket's row: request count, then the sum of each part.
const ROW: usize = 1 + N;

/// Bucket of an SSD time of `v` ps.
#[inline]
fn bucket(v: u64) -> usize {
    let v = v.clamp(1 << LOW, (1 << HIGH) - 1);
    let o = 63 - v.leading_zeros();
    let sub = (v >> (o - 4)) as u32 & (SUB - 1);
    ((o - LOW) * SUB + sub) as usize
}

/// Lower bound (ps) of bucket `b` (0 for the first, which takes everything below it).
fn bucket_floor(b: usize) -> u64 {
    if b == 0 {
        return 0;
    }
    let (o, sub) = (b as u32 / SUB + LOW, b as u64 % SUB as u64);
    (SUB as u64 + sub) << (o - 4)
}

#[derive(Clone, Default)]
pub struct DevDecomp {
    ios: u64,
    sums: [u128; N],
    /// Whether to keep the per-bucket sums (per device and per class only: they cost ~90 KB).
    pub keep_tail: bool,
    tail: Vec<u128>,
}

impl DevDecomp {
    #[inline]
    pub fn add(&mut self, r: &Request) {
        let p = &r.dev_parts;
        let total: u64 = p.iter().sum();
        if total == 0 {
            return; // not served by an SSD
        }
        self.ios += 1;
        for (s, &x) in self.sums.iter_mut().zip(p) {
            *s += x as u128;
        }
        if self.keep_tail {
            // Rows up to the slowest bucket seen: a drive's requests fill ~160 of the 512
            // buckets' rows (a third of the 98 KB the whole table took per device and op).
            let b = bucket(total);
            if self.tail.len() < (b + 1) * ROW {
                self.tail.resize((b + 1) * ROW, 0);
            }
            let row = &mut self.tail[b * ROW..][..ROW];
            row[0] += 1;
            for (s, &x) in row[1..].iter_mut().zip(p) {
                *s += x as u128;
            }
        }
    }

    pub fn merge(&mut self, o: &DevDecomp) {
        self.ios += o.ios;
        for (a, b) in self.sums.iter_mut().zip(&o.sums) {
            *a += b;
        }
        if self.tail.len() < o.tail.len() {
            self.tail.resize(o.tail.len(), 0);
        }
        for (a, b) in self.tail.iter_mut().zip(&o.tail) {
            *a += b;
        }
    }

    /// Requests served by an SSD and the mean of each part (ps); `None` when there were none.
    pub fn mean(&self) -> Option<(u64, [f64; N])> {
        (self.ios > 0).then(|| (self.ios, self.sums.map(|s| s as f64 / self.ios as f64)))
    }

    /// The slowest 1 % (kept per device and class): where its bucket starts (ps), how many
    /// requests, and the mean of each part (ps).
    pub fn tail(&self) -> Option<Tail> {
        if self.tail.is_empty() || self.ios == 0 {
            return None;
        }
        // Whole buckets from the top, then the share of the p99 bucket that makes up 1 %.
        let want = self.ios.div_ceil(100);
        let (mut sums, mut got, mut from) = ([0f64; N], 0u64, 0usize);
        for b in (0..self.tail.len() / ROW).rev() {
            let row = &self.tail[b * ROW..][..ROW];
            let n = row[0] as u64;
            if n == 0 {
                continue;
            }
            let take = n.min(want - got);
            for (a, &x) in sums.iter_mut().zip(&row[1..]) {
                *a += x as f64 * take as f64 / n as f64;
            }
            got += take;
            from = b;
            if got == want {
                break;
            }
        }
        Some(Tail { from_ps: bucket_floor(from), ios: got, mean_ps: sums.map(|s| s / got as f64) })
    }
}

/// The slowest 1 % of an entity's SSD requests ([`DevDecomp::tail`]).
pub struct Tail {
    pub from_ps: u64,
    pub ios: u64,
    pub mean_ps: [f64; N],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_log_linear_and_contain_their_values() {
        for v in [0u64, 1, 70_000, 65_536, 100_000, 1_000_000, 123_456_789, 1 << 40, (1 << 48) - 1] {
            let b = bucket(v);
            assert!(bucket_floor(b) <= v, "{v} in {b}");
            assert!(b + 1 >= BUCKETS || bucket_floor(b + 1) > v, "{v} below the next bucket");
            if b > 0 {
                // A bucket spans a sixteenth of its octave.
                assert!(v - bucket_floor(b) <= bucket_floor(b) / 16, "{v}");
            }
        }
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
        assert_eq!(bucket(0), 0);
    }

    /// A request an SSD served in `parts`.
    fn req(parts: [u64; N]) -> Request {
        use nest_core::{DeviceId, HostId, SimTime};
        Request { seq: 0, workload: 0, class: 0, host: HostId(0), device: DeviceId(0), served: DeviceId(0), op: nest_workload::Op::Read, size: 4096, offset: 0, kind: crate::request::Kind::App, parent: None, pending: 0, cache_ps: 0, hit_blocks: 0, dt: true, buffered: false, tag: 0, t_arrive: SimTime::ZERO, t_dispatch: SimTime::ZERO, t_tgt_arrive: SimTime::ZERO, t_sq: SimTime::ZERO, t_dev_start: SimTime::ZERO, t_dev_done: SimTime::ZERO, t_resp_sent: SimTime::ZERO, t_resp_arrive: SimTime::ZERO, t_complete: SimTime::ZERO, dev_parts: parts }
    }

    #[test]
    fn the_tail_is_the_slowest_percent_and_names_what_made_it_slow() {
        let mut d = DevDecomp { keep_tail: true, ..Default::default() };
        // 990 reads of 100 µs on the die; 10 of 100 µs on the die plus 900 µs behind GC.
        let us = 1_000_000u64;
        let mut fast = [0; N];
        fast[6] = 100 * us;
        let mut slow = fast;
        slow[5] = 900 * us;
        for i in 0..1000 {
            d.add(&req(if i % 100 == 7 { slow } else { fast }));
        }
        d.add(&req([0; N])); // not an SSD's: ignored
        let (n, mean) = d.mean().unwrap();
        assert_eq!(n, 1000);
        assert_eq!(mean[5], 9.0 * us as f64);
        let t = d.tail().unwrap();
        assert_eq!(t.ios, 10);
        assert_eq!((t.mean_ps[5], t.mean_ps[6]), (900.0 * us as f64, 100.0 * us as f64));
        assert!(t.from_ps > 900 * us && t.from_ps <= 1000 * us);
        // Without a separate slow group, the tail is made up from the p99 bucket at its mean.
        let mut e = DevDecomp { keep_tail: true, ..Default::default() };
        for _ in 0..1000 {
            e.add(&req(fast));
        }
        let t = e.tail().unwrap();
        assert_eq!((t.ios, t.mean_ps[6]), (10, 100.0 * us as f64));
        assert!(DevDecomp::default().mean().is_none());
    }
}
