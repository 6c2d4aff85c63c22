//! The mapping cache warmed by preconditioning (`precondition.cmt_warm`): MQSim's
//! preconditioning ends by bringing mapping entries of the pages it wrote into the CMT
//! (`src/ssd/FTL.cpp:636-740`, `Bring_to_CMT_for_preconditioning` in
//! `Address_Mapping_Unit_Page_Level.cpp:444-468`), so its runs start with a cache a drive in
//! steady state would hold rather than an empty one. A hot/cold workload's first reads then hit
//! where NeSt's missed: a preconditioned hot/cold run's CMT hit rate was 0.45 against MQSim's
//! 0.53 with the cache starting empty.

use super::Ssd;
use crate::cmt::Update;
use crate::params::Precondition;
use nest_core::bits::Bits;
use nest_core::rng::RngStream;

impl Ssd {
    /// Fills the CMT as MQSim's preconditioning does (see `Precondition::cmt_warm`): for each
    /// address domain (`streams`: its range of page numbers `i`, `precondition_lpa(i, filled)`
    /// the page), `share × capacity` entries — hot/cold, the first hot pages (at most
    /// `hot_fraction` of the entries) and then other pages, as many as the entries less twice
    /// the hot ones (MQSim counts the hot ones twice); uniform, random written pages; a stream,
    /// the highest written pages first.
    pub(super) fn warm_cmt(&mut self, p: &Precondition, streams: &[(u64, u64)], filled: &[(u64, u64)], seed: u64, index: u64) {
        let Some(capacity) = self.cmt.as_ref().map(|c| c.capacity() as f64) else { return };
        if p.cmt_warm.is_empty() {
            return;
        }
        let mut rng = RngStream::derive(seed, "ssd", index, "cmt_warm");
        let pages: Vec<u64> = match self.layout.domains.as_ref() {
            Some(d) => d.list().iter().map(|d| d.pages).collect(),
            None => vec![self.logical_pages as u64],
        };
        for (k, &(from, count)) in streams.iter().enumerate() {
            let share = p.cmt_warm.get(k).or(p.cmt_warm.last()).copied().unwrap_or(0.0);
            let entries = (share * capacity) as u64;
            let mut picked: Vec<u64> = Vec::new();
            let lpa_of = |i: u64| self.precondition_lpa(i, filled) as u32;
            let replayed = p.from_workloads && !p.replay.pages.is_empty();
            let lpas: Vec<u32> = match p.hot {
                // A stream (no overwrites): MQSim walks down from the highest written page.
                _ if p.overwrites == 0.0 => {
                    let mut all: Vec<u32> = (from..from + count).map(lpa_of).collect();
                    all.sort_unstable_by(|a, b| b.cmp(a));
                    all.truncate(entries as usize);
                    all
                }
                // MQSim takes a hot region above 30 % for uniform (`FTL.cpp:118-120`).
                Some((fraction, _)) if fraction <= 0.3 => {
                    // The hot region starts the domain.
                    let first = self.layout.domains.as_ref().map_or(0, |d| d.list()[k].first_lpa as u32);
                    let hot_pages = ((pages.get(k).copied().unwrap_or(0) as f64 * fraction) as u64).min(count);
                    let hot = ((fraction * entries as f64) as u64).min(hot_pages);
                    let rest = entries.saturating_sub(2 * hot);
                    let mut lpas: Vec<u32> = (first..first + hot as u32).collect();
                    if replayed {
                        // MQSim's other entries are its cold draws from the one past as many as
                        // the hot ones on: its run draws the same addresses, so where the run's
                        // request is cold it is that entry's page; where it is hot, the entry is
                        // a cold page the run does not touch (here a random written one).
                        // MQSim's list holds each page once.
                        let end = first as u64 + hot_pages;
                        let mut chosen = Bits::new(self.logical_pages as usize);
                        let mut take = |l: u32| chosen.insert(l as usize);
                        let cold_written = count.saturating_sub(hot_pages);
                        let window = || p.replay.touches.iter().skip(hot as usize).take(rest as usize);
                        // The run's cold pages first, so no stand-in takes one of them.
                        let touched: Vec<bool> = window().map(|&t| t as u64 >= end && take(t)).collect();
                        for (&t, &mine) in window().zip(&touched) {
                            if t as u64 >= end {
                                if mine {
                                    lpas.push(t);
                                }
                                continue;
                            }
                            // Tries bounded: a drive whose cold pages are all taken stops here.
                            for _ in 0..64 * (cold_written > 0) as u32 {
                                let l = lpa_of(from + rng.below(count));
                                if l as u64 >= end && take(l) {
                                    lpas.push(l);
                                    break;
                                }
                            }
                        }
                    } else {
                        select(&mut rng, from + hot_pages..from + count, rest, &mut picked);
                        lpas.extend(picked.iter().map(|&i| lpa_of(i)));
                    }
                    lpas
                }
                _ => match p.walk_seed.filter(|_| replayed) {
                    // MQSim's walk over the pages in the order drawn, with its own draws.
                    Some(walk_seed) => mqsim_walk(count, entries, walk_seed).into_iter().map(|i| lpa_of(from + i)).collect(),
                    None => {
                        select(&mut rng, from..from + count, entries, &mut picked);
                        picked.iter().map(|&i| lpa_of(i)).collect()
                    }
                },
            };
            let cmt = self.cmt.as_mut().expect("checked above");
            lpas.into_iter().for_each(|lpa| cmt.insert(lpa, Update::None));
        }
    }
}

/// The positions (in `0..n`) of the pages MQSim's warm-up brings into the CMT for a random
/// flow, in the order brought (`src/ssd/FTL.cpp:727-752`): its FTL's generator (seeded with the
/// drive's `Seed`) draws a walker in the list and a step up to `n / entries`; starting at the
/// list's front it steps, brings the page, and erases it from the list, and the step turns back
/// whenever the walker would pass either end of the shrunken list. The list is a `std::multimap`:
/// stepping past an end passes its header and goes on from the other end. So the run's first
/// pages, reached on the way back, are brought last — the most recently used — and outlive the
/// run's misses. Landing on the header (MQSim would read no page) ends the walk.
fn mqsim_walk(n: u64, entries: u64, seed: i32) -> Vec<u64> {
    if n < 2 || entries == 0 {
        return (0..n.min(entries)).collect();
    }
    let mut g = crate::mqsim_rng::MqsimRng::new(seed);
    let mut walker = g.uniform(0.0, (n as u32 - 2) as f64) as i64;
    let mut step = g.uniform_uint(0, (n / entries) as u32) as i64;
    let mut left = Fenwick::full(n as usize);
    let (mut size, mut at, mut out) = (n as i64, 0i64, Vec::with_capacity(entries as usize));
    while (out.len() as u64) < entries {
        // `size + 1` places: the pages left and the header after the last.
        at = (at + step).rem_euclid(size + 1);
        if at == size {
            break;
        }
        let i = left.take(at as usize);
        out.push(i as u64);
        size -= 1;
        if size == 0 {
            break;
        }
        if walker + step >= size - 1 || walker + step < 0 {
            step = -step;
        }
        walker += step;
    }
    out
}

/// Which of `0..n` are left, to find the k-th left in O(log n).
struct Fenwick {
    t: Vec<u32>,
}

impl Fenwick {
    fn full(n: usize) -> Self {
        let mut t = vec![0u32; n + 1];
        for i in 1..=n {
            t[i] += 1;
            let j = i + (i & i.wrapping_neg());
            if j <= n {
                t[j] += t[i];
            }
        }
        Fenwick { t }
    }

    /// Removes and returns the `k`-th (from 0) of those left.
    fn take(&mut self, mut k: usize) -> usize {
        let n = self.t.len() - 1;
        let (mut pos, mut bit) = (0, n.next_power_of_two());
        while bit > 0 {
            if pos + bit <= n && (self.t[pos + bit] as usize) <= k {
                pos += bit;
                k -= self.t[pos] as usize;
            }
            bit >>= 1;
        }
        let mut i = pos + 1;
        while i <= n {
            self.t[i] -= 1;
            i += i & i.wrapping_neg();
        }
        pos
    }
}

/// `k` of the numbers in `range`, each as likely, in rising order (Knuth's selection sampling:
/// no memory beyond the picks).
fn select(rng: &mut RngStream, range: std::ops::Range<u64>, k: u64, into: &mut Vec<u64>) {
    let n = range.end.saturating_sub(range.start);
    let mut want = k.min(n);
    for (seen, i) in range.enumerate() {
        if want == 0 {
            break;
        }
        if rng.below(n - seen as u64) < want {
            into.push(i);
            want -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmt::Lookup;
    use crate::params::Replay;
    use crate::tests::Bench;
    use crate::tests_classes::slc_drive;

    /// The blind rounds' SLC drive 70 % full, its CMT warmed by `warm` (one share for all).
    fn warmed(hot: Option<(f64, f64)>, overwrites: f64, warm: Vec<f64>) -> Bench {
        let mut p = slc_drive();
        p.precondition = Some(Precondition { hot, cmt_warm: warm, ..Precondition::new(0.7, overwrites) });
        Bench::new(p)
    }

    fn cached(b: &mut Bench, lpa: u32) -> bool {
        matches!(b.ssd.cmt.as_mut().unwrap().lookup(lpa, Update::None), Lookup::Hit)
    }

    /// Hot/cold (a tenth of the space hot): the lowest tenth of the entries are the first hot
    /// pages, then as many other pages as the entries less twice those — MQSim's count — from
    /// past the hot region; uniform: as many random written pages as the cache holds; a stream:
    /// the highest written pages. Without `cmt_warm` the cache starts empty.
    #[test]
    fn preconditioning_warms_the_cmt_as_mqsims_does() {
        let hot = Some((0.1, 0.9));
        assert_eq!(warmed(hot, 1.0, Vec::new()).ssd.cmt.as_ref().unwrap().cached_units(), 0);
        let mut b = warmed(hot, 1.0, vec![1.0]);
        let (c, units) = (b.ssd.cmt.as_ref().unwrap().capacity() as u64, b.ssd.cmt.as_ref().unwrap().cached_units() as u64);
        let h = c / 10;
        assert_eq!(units, h + (c - 2 * h), "hot entries and MQSim's count of the others");
        assert!(cached(&mut b, 0) && cached(&mut b, h as u32 - 1) && !cached(&mut b, h as u32), "the first {h} hot pages");
        let hot_end = (b.ssd.logical_pages as f64 * 0.1) as u32;
        assert!((h as u32..hot_end).step_by(97).all(|l| !cached(&mut b, l)), "no other hot page");
        let written = (b.ssd.logical_pages as f64 * 0.7) as u32;
        let others = (hot_end..written).step_by(7).filter(|&l| cached(&mut b, l)).count() as f64;
        let expect = (c - 2 * h) as f64 / (written - hot_end) as f64 * ((written - hot_end) / 7) as f64;
        assert!((others / expect - 1.0).abs() < 0.05, "{others} of the sampled cold pages cached, {expect:.0} expected");
        assert!(!cached(&mut b, written + 10), "an unwritten page");

        let b = warmed(None, 1.0, vec![0.5]);
        assert_eq!(b.ssd.cmt.as_ref().unwrap().cached_units() as u64, c / 2, "half the cache");
        let mut b = warmed(None, 0.0, vec![1.0]);
        assert!(cached(&mut b, written - 1) && cached(&mut b, written - c as u32) && !cached(&mut b, written - c as u32 - 1), "a stream's top pages");
    }

    /// With the workloads' pages (`from_workloads`), a hot/cold flow's other entries are the cold
    /// pages its requests touch from the one past the hot entries on, as MQSim's cold draws line
    /// up with its run's; where the request was hot, some other written cold page.
    #[test]
    fn replayed_hot_cold_warm_entries_are_the_runs_cold_touches() {
        let mut p = slc_drive();
        let logical = p.logical_pages() as u32;
        let (hot_end, written) = (logical / 10, logical * 7 / 10);
        // Every tenth request cold (a page of its own, past the hot region), the rest hot.
        let touches: Vec<u32> = (0..400_000u32).map(|k| if k % 10 == 0 { hot_end + 3 * (k / 10) } else { k % 1000 }).collect();
        let replay = Replay { pages: (0..written).collect(), touches: touches.clone() };
        p.precondition = Some(Precondition { hot: Some((0.1, 0.9)), cmt_warm: vec![1.0], from_workloads: true, replay, ..Precondition::new(0.7, 1.0) });
        let mut b = Bench::new(p);
        let c = b.ssd.cmt.as_ref().unwrap().capacity() as usize;
        let (h, rest) = (c / 10, c - 2 * (c / 10));
        let cold_touched = |from: usize, to: usize| touches[from..to].iter().copied().filter(|&t| t >= hot_end).collect::<Vec<u32>>();
        let later = cold_touched(h, h + rest);
        assert!(later.len() > 1_000 && later.iter().all(|&t| cached(&mut b, t)), "the cold pages touched from the {h}th on");
        let before = cold_touched(0, h);
        // Those are cached only as the other cold pages stand in for the hot requests are: at
        // random, as densely as those are drawn among the written cold pages.
        let stray = before.iter().filter(|&&t| cached(&mut b, t)).count() as f64 / before.len() as f64;
        let density = (rest - later.len()) as f64 / (written - hot_end) as f64;
        assert!((stray - density).abs() < 0.03, "{stray:.3} of the cold pages touched before are cached, {density:.3} of the others");
        assert_eq!(b.ssd.cmt.as_ref().unwrap().cached_units(), h + rest, "one entry each, other cold pages where the request was hot");
    }

    /// MQSim's walk on the run it was instrumented in (975,174 pages preconditioned, 149,796
    /// entries, `Seed` 321: walker 600,938, step 6): every 7th page from the 7th on, back from
    /// the turn near the end of the shrunken list, on past the front to the top — so of the
    /// run's first 60,000 pages 17,143 are brought, and the ones brought on the way back (every
    /// 7th, hit at every 7th query of MQSim's run) last.
    #[test]
    fn the_warm_walk_goes_as_mqsims_did() {
        let out = mqsim_walk(975_174, 149_796, 321);
        assert_eq!(out.len(), 149_796);
        assert_eq!(out[..5], [6, 13, 20, 27, 34]);
        assert_eq!(out[53_461..53_466], [374_233, 374_240, 374_234, 374_227, 374_220]);
        assert_eq!(out[out.len() - 3..], [717_967, 717_961, 717_955]);
        assert_eq!(out.iter().filter(|&&i| i < 60_000).count(), 17_143);
        let mut seen = out.clone();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), out.len(), "each page once");
    }

    /// Warm entries save the reads that would have fetched them: hot/cold reads after a warmed
    /// preconditioning do fewer mapping reads.
    #[test]
    fn warm_entries_spare_mapping_reads() {
        let run = |warm: Vec<f64>| {
            let mut b = warmed(Some((0.1, 0.9)), 1.0, warm);
            let hot = (b.ssd.cmt.as_ref().unwrap().capacity() / 10) as u64;
            let mut rng = RngStream::from_seed(3);
            let (mut issued, n) = (0, 3_000);
            let mut top_up = |b: &mut Bench| {
                while issued < n && issued - b.lat.len() < 16 {
                    b.submit(false, rng.below(hot) * 4096, 4096, 1);
                    issued += 1;
                }
            };
            top_up(&mut b);
            b.run(top_up);
            assert_eq!(b.lat.len(), n);
            b.ssd.counters.map_reads
        };
        let (cold, warm) = (run(Vec::new()), run(vec![1.0]));
        assert!(cold > 1_000 && warm == 0, "mapping reads: {cold} from an empty cache, {warm} from a warmed one");
    }

    #[test]
    fn selection_sampling_picks_k_distinct_numbers_of_the_range_in_order() {
        let mut rng = RngStream::from_seed(7);
        let mut got = Vec::new();
        select(&mut rng, 100..1100, 250, &mut got);
        assert_eq!(got.len(), 250);
        assert!(got.windows(2).all(|w| w[0] < w[1]) && got[0] >= 100 && *got.last().unwrap() < 1100);
        // Spread over the range, not its start: about a quarter of each half.
        let low = got.iter().filter(|&&i| i < 600).count();
        assert!((100..150).contains(&low), "{low} of 250 in the lower half");
        let mut all = Vec::new();
        select(&mut rng, 0..10, 20, &mut all);
        assert_eq!(all, (0..10).collect::<Vec<_>>(), "asking for more than there are takes them all");
    }
}
