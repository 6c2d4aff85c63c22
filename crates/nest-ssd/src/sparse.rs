//! A page table that costs nothing where it was never written.
//!
//! The FTL's logical-to-physical map has an entry per logical page — 128 M of them for a
//! 512 GiB drive — and a random workload reads entries all over it. In one zero-initialised
//! vector every first read of a 4 KiB stretch takes a page fault (the kernel maps its shared
//! zero page) and the first write a second one (copy on write): on the stock MQSim drive that
//! was ~0.8 faults per simulated I/O, a third of the run's CPU time. Here the entries live in
//! chunks allocated on first write; reading an unwritten chunk returns 0 without touching it.

/// Entries per chunk: 512 B of `u32`. Smaller than a memory page on purpose: a random workload
/// writes one entry in most chunks it creates, and eight chunks share a page, so the run touches
/// (and faults in) an eighth of the memory that page-sized chunks cost — on the stock drive
/// 0.26 → 0.18 CPU-s for 2 s of 4 KiB random I/O. (1 KiB: 0.19; 256 B: 0.19–0.20; 128 B: 0.20.)
const CHUNK: usize = 128;
/// Chunks per directory page: the directory is two-level too (4 KiB pages of chunk pointers,
/// created on first write), so an idle drive's map costs 8 B per 64 Ki entries instead of 8 B
/// per 128 (3.9 MB for the stock drive's map, per map, before any I/O — issue 24, item 4).
const DIR: usize = 512;

type Chunk = Box<[u32; CHUNK]>;
type DirPage = Box<[Option<Chunk>; DIR]>;

pub struct SparseTable {
    pages: Vec<Option<DirPage>>,
    len: usize,
}

impl SparseTable {
    /// `len` entries, all 0.
    pub fn new(len: usize) -> Self {
        SparseTable { pages: (0..len.div_ceil(CHUNK * DIR)).map(|_| None).collect(), len }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        assert!(i < self.len, "index {i} out of range ({})", self.len);
        let c = i / CHUNK;
        match &self.pages[c / DIR] {
            Some(page) => page[c % DIR].as_ref().map_or(0, |chunk| chunk[i % CHUNK]),
            None => 0,
        }
    }

    #[inline]
    pub fn set(&mut self, i: usize, v: u32) {
        assert!(i < self.len, "index {i} out of range ({})", self.len);
        let c = i / CHUNK;
        let page = self.pages[c / DIR].get_or_insert_with(|| Box::new([const { None }; DIR]));
        page[c % DIR].get_or_insert_with(|| Box::new([0; CHUNK]))[i % CHUNK] = v;
    }

    /// Asks for the line that says where entry `i`'s chunk is, without waiting for it: the
    /// first of a lookup's two dependent misses, started long before the lookup (`Ftl::warm`).
    #[inline]
    pub fn prefetch_slot(&self, i: usize) {
        if let Some(Some(page)) = self.pages.get(i / CHUNK / DIR) {
            nest_core::hint::prefetch(&page[i / CHUNK % DIR]);
        }
    }

    /// Asks for entry `i`'s line, without waiting for it: the second miss, once the chunk's
    /// pointer is in (after `prefetch_slot`); a chunk not created yet has nothing to fetch.
    #[inline]
    pub fn prefetch_entry(&self, i: usize) {
        let c = i / CHUNK;
        if let Some(Some(page)) = self.pages.get(c / DIR) {
            if let Some(chunk) = &page[c % DIR] {
                nest_core::hint::prefetch(&chunk[i % CHUNK]);
            }
        }
    }

    /// `(index, value)` of every non-zero entry, in index order (what the tests compare;
    /// the FTL's check reads `written` chunk by chunk).
    #[cfg(test)]
    pub fn nonzero(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.written().flat_map(|(first, c)| c.iter().enumerate().filter(|(_, &v)| v != 0).map(move |(j, &v)| (first + j, v)))
    }

    /// The created chunks, each with the index of its first entry, in index order. Chunks were
    /// allocated in the order they were first written, so on a random workload each one is a
    /// miss of its own: the lines of the chunk `AHEAD` on are asked for as each one is read
    /// (`Ftl::check` of the stock drive after 1 M requests: 57 → 37 ms).
    pub fn written(&self) -> impl Iterator<Item = (usize, &[u32])> + '_ {
        // Chunks this far ahead are asked for: reading one takes less than a miss.
        const AHEAD: usize = 8;
        let mut ahead = self.chunks().skip(AHEAD);
        let warm = |c: &Chunk| {
            for line in c.chunks(64 / std::mem::size_of::<u32>()) {
                nest_core::hint::prefetch(&line[0]);
            }
        };
        self.chunks().take(AHEAD).for_each(|(_, c)| warm(c));
        self.chunks().map(move |(k, c)| {
            if let Some((_, next)) = ahead.next() {
                warm(next);
            }
            (k * CHUNK, &c[..])
        })
    }

    /// The chunks created, with their numbers, in order.
    fn chunks(&self) -> impl Iterator<Item = (usize, &Chunk)> + '_ {
        self.pages
            .iter()
            .enumerate()
            .filter_map(|(p, page)| page.as_ref().map(|page| (p, page)))
            .flat_map(|(p, page)| page.iter().enumerate().filter_map(move |(j, c)| c.as_ref().map(|c| (p * DIR + j, c))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_zero_until_written_and_lists_what_was_written() {
        let mut t = SparseTable::new(3000);
        assert_eq!(t.len(), 3000);
        assert_eq!(t.get(2999), 0);
        t.set(5, 7);
        t.set(2048, 9);
        t.set(2999, 1);
        t.set(5, 8);
        assert_eq!((t.get(5), t.get(2048), t.get(2999), t.get(6)), (8, 9, 1, 0));
        assert_eq!(t.nonzero().collect::<Vec<_>>(), vec![(5, 8), (2048, 9), (2999, 1)]);
        // Only the chunks written to exist.
        let written: std::collections::BTreeSet<usize> = [5, 2048, 2999].iter().map(|i| i / CHUNK).collect();
        assert_eq!(t.chunks().count(), written.len());
        assert!(written.len() < t.len() / CHUNK);
    }

    /// Across directory pages: entries far apart create their own pages only.
    #[test]
    fn a_large_table_creates_directory_pages_only_where_written() {
        let n = 10 * CHUNK * DIR + 3;
        let mut t = SparseTable::new(n);
        assert_eq!(t.pages.iter().filter(|p| p.is_some()).count(), 0);
        for (i, v) in [(0, 1), (n - 1, 2), (CHUNK * DIR, 3), (CHUNK * DIR - 1, 4)] {
            t.set(i, v);
        }
        assert_eq!(t.pages.iter().filter(|p| p.is_some()).count(), 3);
        assert_eq!(t.nonzero().collect::<Vec<_>>(), vec![(0, 1), (CHUNK * DIR - 1, 4), (CHUNK * DIR, 3), (n - 1, 2)]);
        assert_eq!(t.get(n - 2), 0);
    }

    /// The hints read nothing into the table and accept any index (a waiting transaction's
    /// LPA may be `NONE`); the scan with its look ahead lists every chunk, in order, also past
    /// the look-ahead distance and across directory pages.
    #[test]
    fn hints_change_nothing_and_the_scan_lists_every_chunk_in_order() {
        let n = 3 * CHUNK * DIR;
        let mut t = SparseTable::new(n);
        let idx: Vec<usize> = (0..40).map(|k| (k * 7919 * CHUNK + 3) % n).collect();
        for (k, &i) in idx.iter().enumerate() {
            t.set(i, k as u32 + 1);
        }
        for i in [0, 5, n - 1, n, u32::MAX as usize, usize::MAX] {
            t.prefetch_slot(i);
            t.prefetch_entry(i);
        }
        let mut want: Vec<(usize, u32)> = idx.iter().enumerate().map(|(k, &i)| (i, k as u32 + 1)).collect();
        want.sort();
        assert_eq!(t.nonzero().collect::<Vec<_>>(), want);
        let firsts: Vec<usize> = t
            .written()
            .map(|(f, c)| {
                assert_eq!(c.len(), CHUNK);
                f
            })
            .collect();
        let mut chunks: Vec<usize> = idx.iter().map(|i| i / CHUNK * CHUNK).collect();
        chunks.sort();
        chunks.dedup();
        assert!(chunks.len() > 8, "more chunks than the look ahead");
        assert_eq!(firsts, chunks);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn an_index_past_the_end_panics_like_a_vector() {
        SparseTable::new(1024).get(1024);
    }
}
