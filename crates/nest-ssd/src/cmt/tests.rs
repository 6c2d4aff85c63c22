use super::*;

fn entry_cmt(capacity_entries: u64, writes: MappingWrites) -> Cmt {
    Cmt::new(10_000, 4096, capacity_entries * 8, 100, CmtGranularity::Entry, 8, writes, false, MergeRead::Page)
}

#[test]
fn page_mode_caches_a_translation_page_of_neighbours() {
    let mut c = Cmt::new(10_000, 4096, 2 * 4096, 100, CmtGranularity::TranslationPage, 8, MappingWrites::Flash, false, MergeRead::Page);
    assert!(matches!(c.lookup(5, Update::None), Lookup::Miss { tp: 0, fetch: true }));
    c.insert(5, Update::None);
    assert!(matches!(c.lookup(99, Update::None), Lookup::Hit), "same translation page");
    assert!(matches!(c.lookup(100, Update::None), Lookup::Miss { tp: 1, .. }));
}

#[test]
fn entry_mode_caches_single_entries_and_evicts_lru_entries() {
    let mut c = entry_cmt(2, MappingWrites::Flash);
    c.insert(5, Update::Program);
    assert!(matches!(c.lookup(6, Update::None), Lookup::Miss { tp: 0, fetch: true }), "a neighbour is not cached");
    c.insert(6, Update::None);
    c.insert(250, Update::None);
    // 5 was least recently used and dirty: its translation page (0) is to be written back.
    assert_eq!(c.write_backs, vec![0]);
    assert!(matches!(c.lookup(5, Update::None), Lookup::Miss { .. }));
    assert!(matches!(c.lookup(250, Update::None), Lookup::Hit));
}

#[test]
fn writing_a_page_back_cleans_its_other_cached_entries() {
    let mut c = entry_cmt(3, MappingWrites::Flash);
    c.insert(5, Update::Program);
    c.insert(7, Update::Program); // same translation page (0) as 5
    c.insert(250, Update::Program);
    c.insert(300, Update::None); // evicts dirty 5: page 0 written back, 7 with it
    assert_eq!(c.write_backs, vec![0]);
    c.insert(301, Update::None); // evicts 7: clean since page 0's write-back
    assert_eq!(c.write_backs, vec![0], "7 went to flash with page 0");
    c.insert(302, Update::None); // evicts dirty 250 (page 2)
    assert_eq!(c.write_backs, vec![0, 2]);
    // Dirtied again after the write-back: dirty once more.
    c.insert(9, Update::Program);
    c.insert(10, Update::None);
    c.lookup(10, Update::Program);
    c.insert(400, Update::None);
    c.insert(401, Update::None); // evicts 9 (page 0, dirty): page 0 again, which cleans 10
    c.insert(402, Update::None); // evicts 10: clean
    assert_eq!(c.write_backs, vec![0, 2, 0]);
}

#[test]
fn a_merge_read_moves_the_page_or_mqsims_clean_cached_sectors() {
    // 40 B per entry on flash: entry i of a page sits in sector i·40/512.
    let run = |m| {
        let mut c = Cmt::new(10_000, 4096, 3 * 8, 100, CmtGranularity::Entry, 8, MappingWrites::Flash, false, m);
        c.insert(50, Update::Program); // page 0, sector 3, dirty
        c.insert(1, Update::None); // sector 0
        c.insert(99, Update::None); // sector 7
        c.insert(300, Update::None); // evicts dirty 50: page 0's clean cached entries in 2 sectors
        c.insert(7, Update::Program); // evicts 1 (clean)
        c.lookup(99, Update::Program);
        c.insert(301, Update::None); // evicts 300 (clean)
        c.insert(302, Update::None); // evicts dirty 7: page 0's only cached entry (99) is dirty
        c.insert(303, Update::None); // evicts 99, clean since that write-back
        (c.write_backs, c.merge_bytes)
    };
    assert_eq!(run(MergeRead::CleanCachedSectors), (vec![0, 0], vec![1024, 0]));
    assert_eq!(run(MergeRead::Page), (vec![0, 0], vec![4096, 4096]));
}

#[test]
fn an_entry_evicted_by_another_streams_miss_is_written_back_in_that_streams_domain() {
    // Two domains of 5,000 LPAs, 100 entries per translation page; room for one entry.
    let run = |domains: Vec<u32>| {
        let mut c = entry_cmt(1, MappingWrites::Never);
        c.domains = domains;
        c.insert(5_250, Update::Program); // domain 1, offset 250: page 52
        c.insert(30, Update::None); // domain 0's miss evicts it
        c.insert(5_160, Update::Program); // domain 1 evicts domain 0's clean 30: nothing
        c.insert(5_999, Update::None); // domain 1 evicts its own dirty 5,160: page 51
        (c.write_backs.clone(), c.lookup(240, Update::None), c.lookup(5_260, Update::None))
    };
    let (wb, moved, own) = run(vec![0, 5_000]);
    assert_eq!(wb, vec![2, 51], "5,250 is filed at offset 250 of domain 0 (page 2); 5,160 in its own domain");
    assert!(matches!(moved, Lookup::Hit) && matches!(own, Lookup::Miss { tp: 52, .. }), "page 2 departed, page 52 did not");
    let (wb, _, own) = run(Vec::new());
    assert_eq!(wb, vec![52, 51], "one domain: each entry's own page");
    assert!(matches!(own, Lookup::Hit));
}

#[test]
fn with_a_cmt_per_domain_each_flow_caches_the_full_capacity_and_evicts_only_its_own() {
    // Two domains of 5,000 LPAs, room for two entries; in page mode two translation pages.
    for granularity in [CmtGranularity::Entry, CmtGranularity::TranslationPage] {
        let run = |per_domain: bool| {
            let mut c = Cmt::new(10_000, 4096, 2 * 4096, 100, granularity, 4096, MappingWrites::Flash, false, MergeRead::Page);
            c.set_domains(vec![0, 5_000], per_domain);
            for lpa in [10, 210, 5_010, 5_210] {
                c.insert(lpa, Update::Program);
            }
            c.insert(5_410, Update::None); // domain 1's third: evicts its own LRU (5,010)
            [10, 210, 5_010, 5_210, 5_410].map(|lpa| matches!(c.lookup(lpa, Update::None), Lookup::Hit))
        };
        assert_eq!(run(true), [true, true, false, true, true], "{granularity:?}: two per domain");
        assert_eq!(run(false), [false, false, false, true, true], "{granularity:?}: two in all");
    }
}

#[test]
fn a_never_written_back_page_makes_later_misses_free() {
    let mut c = entry_cmt(1, MappingWrites::Never);
    c.insert(5, Update::Program);
    c.insert(300, Update::None); // evicts dirty 5: translation page 0 departs
    assert_eq!(c.write_backs, vec![0], "the caller still merges (reads) it");
    assert!(matches!(c.lookup(42, Update::None), Lookup::Hit), "page 0 counts as in memory");
    assert_eq!((c.misses, c.free_misses), (1, 1));
    assert!(matches!(c.lookup(301, Update::None), Lookup::Miss { tp: 3, .. }), "page 3 never departed");
}

#[test]
fn a_misfiled_eviction_writes_back_the_newcomers_page_and_maps_it() {
    let mut c = Cmt::new(10_000, 4096, 8, 100, CmtGranularity::Entry, 8, MappingWrites::Never, true, MergeRead::Page);
    c.insert(5, Update::Program);
    c.insert(300, Update::Maps); // evicts dirty 5, filed under 300
    assert_eq!(c.write_backs, vec![3], "300's translation page, not 5's");
    c.insert(600, Update::Maps); // evicts 300, which arrived mapped (clean)
    assert_eq!(c.write_backs, vec![3], "nothing more to write back");
    c.insert(900, Update::None); // evicts 600: a read that mapped it, dirty
    assert_eq!(c.write_backs, vec![3, 9]);
    let mut plain = Cmt::new(10_000, 4096, 8, 100, CmtGranularity::Entry, 8, MappingWrites::Never, false, MergeRead::Page);
    plain.insert(5, Update::Program);
    plain.insert(300, Update::Maps);
    plain.insert(600, Update::None);
    assert_eq!(plain.write_backs, vec![0, 3], "each evicted entry's own page");
}

/// `writeback_refreshes_siblings`: MQSim's write-back reads each dirty cached entry of the page
/// through `Retrieve_ppa`, which makes it the most recently used. Two "requests" of three dirty
/// entries each (pages 0 and 2): evicting the first request's first entry writes page 0 back and,
/// with the switch, sends its two siblings to the front — so the next eviction is the second
/// request's first entry, a second write-back, where without the switch it is a clean sibling.
/// Checked with both merge-read sizes.
#[test]
fn a_write_back_makes_its_dirty_siblings_most_recently_used_as_mqsim_does() {
    for merge in [MergeRead::Page, MergeRead::CleanCachedSectors] {
        let run = |refresh: bool| {
            let mut c = Cmt::new(10_000, 4096, 6 * 8, 100, CmtGranularity::Entry, 8, MappingWrites::Flash, false, merge);
            if refresh {
                c.refresh_siblings_on_write_back();
            }
            for lpa in [10, 11, 75, 210, 211, 212] {
                c.insert(lpa, Update::Program);
            }
            let cached = |c: &Cmt| [10, 11, 75, 210, 211, 212].into_iter().filter(|&l| c.unit(l, 0).is_some()).collect::<Vec<u32>>();
            c.insert(500, Update::None); // evicts dirty 10: page 0 written back
            c.insert(501, Update::None); // refresh: evicts dirty 210; else clean 11
            let (wb, after) = (c.write_backs.clone(), cached(&c));
            // Refreshed in LPA order: 11 before 75, so 11 goes next.
            c.insert(502, Update::None);
            (wb, after, cached(&c))
        };
        assert_eq!(run(false), (vec![0], vec![75, 210, 211, 212], vec![210, 211, 212]), "{merge:?}: without the switch the page's siblings go first");
        assert_eq!(run(true), (vec![0, 2], vec![11, 75, 211, 212], vec![75, 211, 212]), "{merge:?}: with it the other request's entries go first");
    }
}
