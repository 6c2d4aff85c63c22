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
    /// Whether to keep the per-bucket sums (per device and per class only).
    pub keep_tail: bool,
    /// Per bucket, its row's place in `rows` plus one (0: no request in it yet); created with
    /// the first row.
    slot: Vec<u16>,
    /// The rows of the buckets seen, in the order first seen. Rows kept densely up to the
    /// slowest bucket were ~30 KB per device and op, written for a drive's first request: 600 MB
    /// over 10,000 drives that served a few requests each (issue 24). Now 1 KB of slots plus
    /// 192 bytes per bucket used.
    rows: Vec<[u128; ROW]>,
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
            let row = self.row(bucket(total));
            row[0] += 1;
            for (s, &x) in row[1..].iter_mut().zip(p) {
                *s += x as u128;
            }
        }
    }

    /// Bucket `b`'s row, created (zero) if it has none yet.
    #[inline]
    fn row(&mut self, b: usize) -> &mut [u128; ROW] {
        if self.slot.is_empty() {
            self.slot = vec![0; BUCKETS];
        }
        if self.slot[b] == 0 {
            self.rows.push([0; ROW]);
            self.slot[b] = self.rows.len() as u16;
        }
        &mut self.rows[self.slot[b] as usize - 1]
    }

    /// Bucket `b`'s row, if any request fell in it.
    fn row_of(&self, b: usize) -> Option<&[u128; ROW]> {
        match self.slot.get(b) {
            Some(&i) if i > 0 => Some(&self.rows[i as usize - 1]),
            _ => None,
        }
    }

    pub fn merge(&mut self, o: &DevDecomp) {
        self.ios += o.ios;
        for (a, b) in self.sums.iter_mut().zip(&o.sums) {
            *a += b;
        }
        for b in 0..o.slot.len() {
            if let Some(from) = o.row_of(b) {
                for (a, x) in self.row(b).iter_mut().zip(from) {
                    *a += x;
                }
            }
        }
    }

    /// Requests served by an SSD and the mean of each part (ps); `None` when there were none.
    pub fn mean(&self) -> Option<(u64, [f64; N])> {
        (self.ios > 0).then(|| (self.ios, self.sums.map(|s| s as f64 / self.ios as f64)))
    }

    /// The slowest 1 % (kept per device and class): where its bucket starts (ps), how many
    /// requests, and the mean of each part (ps).
    pub fn tail(&self) -> Option<Tail> {
        if self.rows.is_empty() || self.ios == 0 {
            return None;
        }
        // Whole buckets from the top, then the share of the p99 bucket that makes up 1 %.
        let want = self.ios.div_ceil(100);
        let (mut sums, mut got, mut from) = ([0f64; N], 0u64, 0usize);
        for b in (0..BUCKETS).rev() {
            let Some(row) = self.row_of(b) else { continue };
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
        Request {
            seq: 0,
            workload: 0,
            class: 0,
            host: HostId(0),
            device: DeviceId(0),
            served: DeviceId(0),
            op: nest_workload::Op::Read,
            size: 4096,
            offset: 0,
            kind: crate::request::Kind::App,
            parent: None,
            pending: 0,
            cache_ps: 0,
            hit_blocks: 0,
            dt: true,
            buffered: false,
            tag: 0,
            t_arrive: SimTime::ZERO,
            t_dispatch: SimTime::ZERO,
            t_tgt_arrive: SimTime::ZERO,
            t_sq: SimTime::ZERO,
            t_dev_start: SimTime::ZERO,
            t_dev_done: SimTime::ZERO,
            t_resp_sent: SimTime::ZERO,
            t_resp_arrive: SimTime::ZERO,
            t_complete: SimTime::ZERO,
            dev_parts: parts,
        }
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

    #[test]
    fn merged_parts_give_the_whole_tail_and_rows_exist_only_for_buckets_used() {
        let us = 1_000_000u64;
        let mk = || DevDecomp { keep_tail: true, ..Default::default() };
        let (mut whole, mut a, mut b) = (mk(), mk(), mk());
        for i in 0..3000u64 {
            let mut p = [0; N];
            p[6] = (50 + i % 7 * 40) * us;
            p[3] = if i % 150 == 0 { 2000 * us } else { 0 };
            whole.add(&req(p));
            if i % 3 == 0 {
                a.add(&req(p))
            } else {
                b.add(&req(p))
            }
        }
        let mut m = DevDecomp::default();
        m.merge(&a);
        m.merge(&b);
        let (t, u) = (whole.tail().unwrap(), m.tail().unwrap());
        assert_eq!((t.from_ps, t.ios, t.mean_ps), (u.from_ps, u.ios, u.mean_ps));
        assert_eq!(whole.mean(), m.mean());
        // Seven service times, each alone and behind the slow part: at most 14 rows, where rows
        // kept up to the slowest bucket would be ~190.
        assert!(whole.rows.len() <= 14, "{} rows", whole.rows.len());
        assert!(bucket(2290 * us) > 180);
    }
}
