//! The unit tests of the leaf-density reading.

use super::*;
use rand::SeedableRng;

const BLCKSZ: usize = 8192;

/// A page image with the given header fields and B-tree special space.
fn page(lower: u16, upper: u16, prev: u32, next: u32, level: u32, flags: u16) -> Vec<u8> {
    let mut p = vec![0u8; BLCKSZ];
    let special = (BLCKSZ - 16) as u16;
    p[12..14].copy_from_slice(&lower.to_ne_bytes());
    p[14..16].copy_from_slice(&upper.to_ne_bytes());
    p[16..18].copy_from_slice(&special.to_ne_bytes());
    let s = special as usize;
    p[s..s + 4].copy_from_slice(&prev.to_ne_bytes());
    p[s + 4..s + 8].copy_from_slice(&next.to_ne_bytes());
    p[s + 8..s + 12].copy_from_slice(&level.to_ne_bytes());
    p[s + 12..s + 14].copy_from_slice(&flags.to_ne_bytes());
    p
}

/// A leaf page with one line pointer per key (a high key first when `next` is set), each an
/// 8-byte index tuple header and the key's bytes.
fn leaf_with(keys: &[[u8; 16]], next: u32, free: u16) -> Vec<u8> {
    let items = keys.len() + usize::from(next != P_NONE);
    let lower = (24 + 4 * items) as u16;
    let mut p = page(lower, lower + free, 0, next, 0, BTP_LEAF);
    let mut off = 4000usize;
    let mut all: Vec<[u8; 16]> = Vec::new();
    if next != P_NONE {
        all.push([0xff; 16]);
    }
    all.extend_from_slice(keys);
    for (i, k) in all.iter().enumerate() {
        let id: u32 = (off as u32) | (1 << 15) | (24u32 << 17);
        p[24 + 4 * i..28 + 4 * i].copy_from_slice(&id.to_ne_bytes());
        p[off + 8..off + 24].copy_from_slice(k);
        off += 24;
    }
    p
}

#[test]
fn parts_by_first_key() {
    let k = |b: u8| [b; 16];
    // The first data key is after the high key on a page with a right sibling.
    let leaf = leaf_with(&[k(0x10), k(0x20)], 9, 100);
    assert_eq!(
        first_key(&leaf, &BtPage::parse(&leaf), 16),
        Some(&k(0x10)[..])
    );
    let rightmost = leaf_with(&[k(0x30)], P_NONE, 100);
    assert_eq!(
        first_key(&rightmost, &BtPage::parse(&rightmost), 16),
        Some(&k(0x30)[..])
    );
    let empty = leaf_with(&[], 9, 100);
    assert_eq!(first_key(&empty, &BtPage::parse(&empty), 16), None);
    let mut t = Totals {
        exact_free_space: true,
        parts: Some(Parts::new(&k(0x10), &k(0x1f))),
        ..Totals::default()
    };
    t.add_page(1, &leaf_with(&[k(0x01)], 3, 4000)); // outside
    t.add_page(2, &leaf_with(&[k(0x10)], 1, 1000)); // inside, its sibling earlier
    t.add_page(3, &leaf_with(&[k(0x1f)], P_NONE, 2000)); // inside, the last leaf
    let parts = t.parts.clone().unwrap();
    assert_eq!((parts.inside.leaf_pages, parts.outside.leaf_pages), (2, 1));
    assert_eq!(parts.inside.fragments, 1);
    assert_eq!(parts.inside.leaf_fragmentation(), 50.0);
    assert_eq!(parts.inside.free_space, 3000);
    assert_eq!(t.leaf_pages, 3);
    assert!(PartTotals::default().avg_leaf_density().is_nan());
}

#[test]
fn classifies_like_pgstatindex() {
    let mut t = Totals {
        exact_free_space: true,
        ..Totals::default()
    };
    // Leaf 1 -> 2 (in order), leaf 3 -> 2 (out of order), a deleted and a half-dead page, an internal page.
    t.add(
        1,
        &BtPage::parse(&page(24 + 4 * 101, 1000, 0, 2, 0, BTP_LEAF)),
    );
    t.add(
        2,
        &BtPage::parse(&page(24 + 4 * 50, 5000, 1, 0, 0, BTP_LEAF)),
    );
    t.add(
        3,
        &BtPage::parse(&page(24 + 4 * 10, 8000, 0, 2, 0, BTP_LEAF)),
    );
    t.add(
        4,
        &BtPage::parse(&page(24, 8176, 0, 0, 0, BTP_LEAF | BTP_DELETED)),
    );
    t.add(
        5,
        &BtPage::parse(&page(24, 8176, 0, 0, 0, BTP_LEAF | BTP_HALF_DEAD)),
    );
    t.add(6, &BtPage::parse(&page(24 + 4 * 3, 8000, 0, 0, 1, 2)));
    assert_eq!(
        (
            t.leaf_pages,
            t.internal_pages,
            t.deleted_pages,
            t.empty_pages
        ),
        (3, 1, 1, 1)
    );
    assert_eq!(t.fragments, 1);
    assert_eq!(t.not_adjacent, 1, "3 -> 2 is not adjacent; 1 -> 2 is");
    assert_eq!(t.leaf_tuples, 100 + 50 + 9);
    assert_eq!(t.pages_per_level, vec![3, 1]);
    let max_avail = 3 * (8176 - 24) as u64;
    assert_eq!(t.max_avail, max_avail);
    assert_eq!(t.free_space, (1000 - 428) + (5000 - 224) + (8000 - 64));
    let d = finish(
        Meta {
            version: 4,
            root: 6,
            level: 1,
        },
        &t,
        BLCKSZ,
    );
    assert_eq!(d.index_size, 7 * 8192);
    let expected = 100.0 - t.free_space as f64 / max_avail as f64 * 100.0;
    assert_eq!(
        d.avg_leaf_density,
        format!("{expected:.2}").parse::<f64>().unwrap()
    );
    assert_eq!(d.leaf_fragmentation, 33.33);
    // Before PostgreSQL 18, pgstatindex counted one line pointer less per leaf.
    let mut old = Totals::default();
    old.add(
        1,
        &BtPage::parse(&page(24 + 4 * 101, 1000, 0, 2, 0, BTP_LEAF)),
    );
    assert_eq!(old.free_space, 1000 - 428 - 4);
    old.add(2, &BtPage::parse(&page(8000, 8002, 0, 0, 0, BTP_LEAF)));
    assert_eq!(
        old.free_space,
        1000 - 428 - 4,
        "less than a line pointer free counts as 0"
    );
}

#[test]
fn empty_index_gives_nan_like_pgstatindex() {
    let d = finish(
        Meta {
            version: 4,
            root: 0,
            level: 0,
        },
        &Totals::default(),
        BLCKSZ,
    );
    assert!(d.avg_leaf_density.is_nan() && d.leaf_fragmentation.is_nan());
    assert_eq!(d.index_size, 8192);
    assert_eq!(d.bytes_per_key, None);
}

#[test]
fn metapage() {
    let mut p = page(24 + 24, 8176, 0, 0, 0, BTP_META);
    p[24..28].copy_from_slice(&BTREE_MAGIC.to_ne_bytes());
    p[28..32].copy_from_slice(&4u32.to_ne_bytes());
    p[32..36].copy_from_slice(&3u32.to_ne_bytes());
    p[36..40].copy_from_slice(&1u32.to_ne_bytes());
    assert_eq!(
        read_meta(&p),
        Ok(Meta {
            version: 4,
            root: 3,
            level: 1
        })
    );
    assert_eq!(read_meta(&vec![0u8; BLCKSZ]), Err(0));
    // The magic and the META flag are both needed.
    let mut no_flag = p.clone();
    no_flag[8176 + 12..8176 + 14].copy_from_slice(&0u16.to_ne_bytes());
    assert_eq!(read_meta(&no_flag), Err(BTREE_MAGIC));
    let mut no_magic = p.clone();
    no_magic[24..28].copy_from_slice(&7u32.to_ne_bytes());
    assert_eq!(read_meta(&no_magic), Err(7));
}

/// What first_key refuses: items past pd_lower, tuples too short for the key, keys past the
/// page's end.
#[test]
fn first_key_reads_only_what_is_there() {
    let k = [0x42u8; 16];
    // A page whose only item is its high key, and a line pointer to a whole tuple in the free
    // space just past pd_lower: not an item.
    let mut high_only = leaf_with(&[], 9, 100);
    let id: u32 = 4000 | (1 << 15) | (24u32 << 17);
    high_only[28..32].copy_from_slice(&id.to_ne_bytes());
    high_only[4008..4024].copy_from_slice(&k);
    assert_eq!(first_key(&high_only, &BtPage::parse(&high_only), 16), None);
    // A tuple one byte short of its header and a 16-byte key.
    let mut short = leaf_with(&[k], P_NONE, 100);
    let id: u32 = 4000 | (1 << 15) | (23u32 << 17);
    short[24..28].copy_from_slice(&id.to_ne_bytes());
    assert_eq!(first_key(&short, &BtPage::parse(&short), 16), None);
    assert_eq!(
        first_key(&short, &BtPage::parse(&short), 15),
        Some(&k[..15])
    );
    // A tuple whose key would end past the page.
    let mut past = leaf_with(&[k], P_NONE, 100);
    let id: u32 = (BLCKSZ as u32 - 20) | (1 << 15) | (24u32 << 17);
    past[24..28].copy_from_slice(&id.to_ne_bytes());
    assert_eq!(first_key(&past, &BtPage::parse(&past), 16), None);
}

#[test]
fn zero_page_reads_as_internal_like_c() {
    let z = BtPage::parse(&vec![0u8; BLCKSZ]);
    let mut t = Totals::default();
    t.add(1, &z);
    assert_eq!(t.internal_pages, 1);
}

/// An index of `leaves` leaves (block 1 upwards, no internal pages), leaf `b` holding `free(b)`
/// bytes free and pointing right to `next(b)`.
fn pages_of(leaves: u32, free: impl Fn(u32) -> u16, next: impl Fn(u32) -> u32) -> Vec<Vec<u8>> {
    (1..=leaves)
        .map(|b| page(100, 100 + free(b), 0, next(b), 0, BTP_LEAF))
        .collect()
}

fn sampled(pages: &[Vec<u8>], blocks: &[u32]) -> (Density, SampleError) {
    let mut t = Totals {
        exact_free_space: true,
        ..Totals::default()
    };
    for b in blocks {
        t.add_page(*b, &pages[*b as usize - 1]);
    }
    let meta = Meta {
        version: 4,
        root: 1,
        level: 0,
    };
    finish_sampled(
        meta,
        &t,
        pages.len() as u32 + 1,
        blocks.len() as u32,
        BLCKSZ,
    )
}

#[test]
fn sample_blocks_are_distinct_in_order_and_skip_the_metapage() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let b = sample_blocks(&mut rng, 10_001, 2_000);
    assert_eq!(b.len(), 2_000);
    assert!(b.windows(2).all(|w| w[0] < w[1]), "sorted, distinct");
    assert!(b[0] >= 1 && *b.last().unwrap() <= 10_000);
    assert_eq!(
        sample_blocks(&mut rng, 50, 2_000),
        (1..50).collect::<Vec<_>>()
    );
    assert_eq!(sample_blocks(&mut rng, 1, 10), Vec::<u32>::new());
}

#[test]
fn a_sample_of_every_block_is_the_exact_reading() {
    let pages = pages_of(
        300,
        |b| (b % 7) as u16 * 300,
        |b| if b % 5 == 0 { b - 3 } else { b + 1 },
    );
    let all: Vec<u32> = (1..=300).collect();
    let (d, e) = sampled(&pages, &all);
    let mut t = Totals {
        exact_free_space: true,
        ..Totals::default()
    };
    for b in &all {
        t.add_page(*b, &pages[*b as usize - 1]);
    }
    let exact = finish(
        Meta {
            version: 4,
            root: 1,
            level: 0,
        },
        &t,
        BLCKSZ,
    );
    assert_eq!(d, exact);
    assert_eq!((e.pages_read, e.leaves_read), (301, 300));
    assert_eq!((e.density_error, e.fragmentation_error), (0.0, 0.0));
}

#[test]
fn a_sample_lands_within_its_stated_error() {
    // 100,000 leaves: fill spread evenly from 50% to 100%, every fourth out of order.
    let n = 100_000u32;
    let pages = pages_of(
        n,
        |b| (b * 37 % 4000) as u16,
        |b| if b % 4 == 0 { b - 2 } else { b + 1 },
    );
    let all: Vec<u32> = (1..=n).collect();
    let (exact, _) = sampled(&pages, &all);
    // Seeded: the same 2,000 blocks every run.
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let blocks = sample_blocks(&mut rng, n + 1, 2_000);
    let (d, e) = sampled(&pages, &blocks);
    assert_eq!(e.pages_read, 2_001);
    assert!(e.density_error > 0.3 && e.density_error < 1.5, "{e:?}");
    assert!(
        (d.avg_leaf_density - exact.avg_leaf_density).abs() <= e.density_error,
        "{d:?} {exact:?} {e:?}"
    );
    assert!(
        (d.leaf_fragmentation - exact.leaf_fragmentation).abs() <= e.fragmentation_error,
        "{d:?} {exact:?} {e:?}"
    );
    assert!(
        (d.leaf_pages - n as i64).abs() < 100,
        "every page is a leaf: scaled back to all of them"
    );
    assert_eq!(d.index_size, (n as i64 + 1) * BLCKSZ as i64);
}
