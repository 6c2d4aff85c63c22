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
            match p.hot {
                // A stream (no overwrites): MQSim walks down from the highest written page.
                _ if p.overwrites == 0.0 => picked.extend((from..from + count).rev().take(entries as usize)),
                // MQSim takes a hot region above 30 % for uniform (`FTL.cpp:118-120`).
                Some((fraction, _)) if fraction <= 0.3 => {
                    let hot_pages = ((pages.get(k).copied().unwrap_or(0) as f64 * fraction) as u64).min(count);
                    let hot = ((fraction * entries as f64) as u64).min(hot_pages);
                    picked.extend(from..from + hot);
                    let rest = entries.saturating_sub(2 * hot);
                    select(&mut rng, from + hot_pages..from + count, rest, &mut picked);
                }
                _ => select(&mut rng, from..from + count, entries, &mut picked),
            }
            let lpas: Vec<u32> = picked.into_iter().map(|i| self.precondition_lpa(i, filled) as u32).collect();
            let cmt = self.cmt.as_mut().expect("checked above");
            lpas.into_iter().for_each(|lpa| cmt.insert(lpa, Update::None));
        }
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
    use crate::tests::Bench;
    use crate::tests_classes::slc_drive;

    /// The blind rounds' SLC drive 70 % full, its CMT warmed by `warm` (one share for all).
    fn warmed(hot: Option<(f64, f64)>, overwrites: f64, warm: Vec<f64>) -> Bench {
        let mut p = slc_drive();
        p.precondition = Some(Precondition { occupancy: 0.7, overwrites, dirty_cache: false, hot, cmt_warm: warm });
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
