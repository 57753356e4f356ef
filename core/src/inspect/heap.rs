//! A heap page's line pointers and tuple headers, read from its bytes (PostgreSQL's bufpage.h and
//! htup_details.h): which of its tuples an UPDATE wrote, which are frozen, how many are live and
//! how many dead, and its free space. The audit measures the order of new rows' keys by the age
//! of the transaction that wrote each row (xmin); an updated row's new version is as young as an
//! inserted row but keeps its old key, so the audit ranks such rows among the older keys, never as
//! new ones; a frozen row is an old row whatever its xmin's age reads (once the table has lived
//! through 2^31 transactions, the raw xmin a freeze keeps reads as young, or from the future). Dead
//! tuples, emptied line pointers and free space are the deletes and updates the statistics
//! counters lose on a standby and at a reset.

use super::density::PAGE_HEADER;

/// ItemIdData.lp_flags of a line pointer to a tuple in use.
pub const LP_NORMAL: u32 = 1;
/// HeapTupleHeaderData.t_infomask: this tuple is the new version an UPDATE wrote.
pub const HEAP_UPDATED: u16 = 0x2000;
/// Offset of t_infomask in HeapTupleHeaderData: t_choice (12 bytes), t_ctid (6), t_infomask2 (2).
const T_INFOMASK: usize = 20;
/// Bytes of a tuple header up to t_hoff: what a line pointer to a tuple must at least cover.
const TUPLE_HEADER: usize = 23;
/// t_infomask: xmin committed and invalid together mean frozen (HEAP_XMIN_FROZEN, since 9.4).
pub const HEAP_XMIN_FROZEN: u16 = 0x0300;
/// t_infomask: no xmax (the tuple was not deleted or updated), and an xmax that only locks.
pub const HEAP_XMAX_INVALID: u16 = 0x0800;
pub const HEAP_XMAX_LOCK_ONLY: u16 = 0x0080;
/// The xmin of a tuple frozen before 9.4 (FrozenTransactionId).
pub const FROZEN_XID: u32 = 2;
/// ItemIdData.lp_flags of an unused and of a dead line pointer (a pruned or vacuumed tuple's).
pub const LP_UNUSED: u32 = 0;
pub const LP_DEAD: u32 = 3;

/// What one heap page holds, by its line pointers and tuple headers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageTuples {
    /// Offsets (1-based, as in a ctid) of the tuples in use that an UPDATE wrote, and of the
    /// frozen ones.
    pub updated: Vec<u16>,
    pub frozen: Vec<u16>,
    /// Tuples in use with no xmax (or one that only locks), and the dead: tuples a delete or an
    /// update ended (an xmax that does not only lock), and line pointers left dead or unused by a
    /// prune or a VACUUM.
    pub live: i64,
    pub dead: i64,
    /// pd_upper - pd_lower: the page's free bytes.
    pub free_bytes: i64,
}

/// Reads one heap page. Line pointers that point outside the page, or to fewer bytes than a
/// tuple header, are skipped: the page is read as it is, and nothing on it can make this fail.
pub fn read_page(page: &[u8]) -> PageTuples {
    let mut out = PageTuples::default();
    if page.len() < PAGE_HEADER {
        return out;
    }
    let pd_lower = u16::from_le_bytes([page[12], page[13]]) as usize;
    let pd_upper = u16::from_le_bytes([page[14], page[15]]) as usize;
    if pd_lower <= pd_upper && pd_upper <= page.len() {
        out.free_bytes = (pd_upper - pd_lower) as i64;
    }
    let end = pd_lower.min(page.len());
    let mut at = PAGE_HEADER;
    let mut offset: u16 = 1;
    while at + 4 <= end {
        let lp = u32::from_le_bytes([page[at], page[at + 1], page[at + 2], page[at + 3]]);
        let (off, flags, len) = (
            (lp & 0x7fff) as usize,
            (lp >> 15) & 0x3,
            (lp >> 17) as usize,
        );
        if flags == LP_UNUSED || flags == LP_DEAD {
            out.dead += 1;
        } else if flags == LP_NORMAL
            && len >= TUPLE_HEADER
            && off >= PAGE_HEADER
            && off + TUPLE_HEADER <= page.len()
        {
            let word = |i: usize| {
                u32::from_le_bytes([
                    page[off + i],
                    page[off + i + 1],
                    page[off + i + 2],
                    page[off + i + 3],
                ])
            };
            let (xmin, xmax) = (word(0), word(4));
            let infomask = u16::from_le_bytes([page[off + T_INFOMASK], page[off + T_INFOMASK + 1]]);
            if infomask & HEAP_UPDATED != 0 {
                out.updated.push(offset);
            }
            if infomask & HEAP_XMIN_FROZEN == HEAP_XMIN_FROZEN || xmin == FROZEN_XID {
                out.frozen.push(offset);
            }
            if infomask & (HEAP_XMAX_INVALID | HEAP_XMAX_LOCK_ONLY) == 0 && xmax != 0 {
                out.dead += 1;
            } else {
                out.live += 1;
            }
        }
        at += 4;
        offset = offset.wrapping_add(1);
    }
    out
}

/// The offset numbers (1-based, as in a ctid) of the tuples in use on `page` that an UPDATE
/// wrote ([`read_page`]'s `updated`).
pub fn updated_offsets(page: &[u8]) -> Vec<u16> {
    read_page(page).updated
}

/// A ctid as one number, block * 65536 + offset: how keybench.audit_values matches a sampled row
/// against the tuples an UPDATE wrote.
pub fn tid_number(block: u32, offset: u16) -> i64 {
    ((block as i64) << 16) | offset as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An 8 kB heap page with one line pointer per (infomask, lp_flags), tuples from the end.
    fn page(tuples: &[(u16, u32)]) -> Vec<u8> {
        let mut p = vec![0u8; 8192];
        let mut upper = 8192usize;
        for (i, &(infomask, flags)) in tuples.iter().enumerate() {
            let len = 32usize;
            upper -= len;
            p[upper + T_INFOMASK..upper + T_INFOMASK + 2].copy_from_slice(&infomask.to_le_bytes());
            let lp = (upper as u32) | (flags << 15) | ((len as u32) << 17);
            let at = PAGE_HEADER + 4 * i;
            p[at..at + 4].copy_from_slice(&lp.to_le_bytes());
        }
        let lower = (PAGE_HEADER + 4 * tuples.len()) as u16;
        p[12..14].copy_from_slice(&lower.to_le_bytes());
        p[14..16].copy_from_slice(&(upper as u16).to_le_bytes());
        p
    }

    #[test]
    fn finds_the_tuples_an_update_wrote() {
        let p = page(&[
            (0, LP_NORMAL),
            (HEAP_UPDATED, LP_NORMAL),
            (HEAP_UPDATED | 0x0100, LP_NORMAL),
            (0x0900, LP_NORMAL),
        ]);
        assert_eq!(updated_offsets(&p), vec![2, 3]);
    }

    /// A line pointer's length is its top 15 bits: a tuple of 128 bytes (the length's bit in
    /// the fourth byte alone) is read; a line pointer to an updated tuple that claims fewer bytes
    /// than a tuple header is not.
    #[test]
    fn reads_the_length_of_each_line_pointer() {
        let mut p = page(&[(HEAP_UPDATED, LP_NORMAL)]);
        let tuple = 8192 - 32;
        let long = (tuple as u32 - 96) | (LP_NORMAL << 15) | (128 << 17);
        p[tuple - 96 + T_INFOMASK..tuple - 96 + T_INFOMASK + 2]
            .copy_from_slice(&HEAP_UPDATED.to_le_bytes());
        p[PAGE_HEADER..PAGE_HEADER + 4].copy_from_slice(&long.to_le_bytes());
        assert_eq!(updated_offsets(&p), vec![1]);
        let short = tuple as u32 | (LP_NORMAL << 15) | (16 << 17);
        p[PAGE_HEADER..PAGE_HEADER + 4].copy_from_slice(&short.to_le_bytes());
        assert!(updated_offsets(&p).is_empty());
    }

    #[test]
    fn skips_line_pointers_not_in_use() {
        // 0: unused, 2: redirect (HOT), 3: dead: their bytes are not a tuple's.
        let p = page(&[
            (HEAP_UPDATED, 0),
            (HEAP_UPDATED, 2),
            (HEAP_UPDATED, 3),
            (HEAP_UPDATED, LP_NORMAL),
        ]);
        assert_eq!(updated_offsets(&p), vec![4]);
    }

    #[test]
    fn nothing_on_a_page_makes_it_fail() {
        assert!(updated_offsets(&[]).is_empty());
        assert!(updated_offsets(&[0xff; 30]).is_empty());
        // pd_lower past the page, line pointers to the page's last bytes or to short tuples.
        let mut p = vec![0xffu8; 8192];
        p[12..14].copy_from_slice(&u16::MAX.to_le_bytes());
        let _ = updated_offsets(&p);
        let mut q = page(&[(HEAP_UPDATED, LP_NORMAL)]);
        let lp = 8180u32 | (LP_NORMAL << 15) | (32 << 17);
        q[PAGE_HEADER..PAGE_HEADER + 4].copy_from_slice(&lp.to_le_bytes());
        assert!(updated_offsets(&q).is_empty());
        let short = 8000u32 | (LP_NORMAL << 15) | (8 << 17);
        q[PAGE_HEADER..PAGE_HEADER + 4].copy_from_slice(&short.to_le_bytes());
        assert!(updated_offsets(&q).is_empty());
        // Every byte value at each place of the header and first line pointer.
        for at in 12..28 {
            for v in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut r = page(&[(HEAP_UPDATED, LP_NORMAL)]);
                r[at] = v;
                let _ = updated_offsets(&r);
            }
        }
    }

    /// xmin and xmax words of each tuple: `page` writes zeros there.
    fn set_words(p: &mut [u8], n: usize, xmin: u32, xmax: u32) {
        let at = PAGE_HEADER + 4 * n;
        let lp = u32::from_le_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]]);
        let off = (lp & 0x7fff) as usize;
        p[off..off + 4].copy_from_slice(&xmin.to_le_bytes());
        p[off + 4..off + 8].copy_from_slice(&xmax.to_le_bytes());
    }

    #[test]
    fn frozen_dead_live_and_free() {
        let mut p = page(&[
            (HEAP_XMAX_INVALID, LP_NORMAL),                    // live
            (HEAP_XMAX_INVALID | HEAP_XMIN_FROZEN, LP_NORMAL), // live, frozen by its infomask
            (HEAP_XMAX_INVALID, LP_NORMAL),                    // live, frozen before 9.4
            (0x0100, LP_NORMAL),                               // deleted: an xmax that holds
            (HEAP_XMAX_LOCK_ONLY, LP_NORMAL),                  // only locked: live
            (0, LP_UNUSED),                                    // vacuumed away
            (0, LP_DEAD),                                      // pruned
            (0, 2),                                            // a HOT redirect: neither
        ]);
        set_words(&mut p, 2, FROZEN_XID, 0);
        set_words(&mut p, 3, 1000, 1200);
        set_words(&mut p, 4, 1000, 1300);
        let t = read_page(&p);
        assert_eq!(t.frozen, vec![2, 3]);
        assert_eq!((t.live, t.dead), (4, 3));
        // 8 line pointers, 8 tuples of 32 bytes from the end.
        assert_eq!(t.free_bytes, (8192 - 8 * 32 - (PAGE_HEADER + 8 * 4)) as i64);
        // A page that says pd_upper below pd_lower: no free space read.
        let mut q = p.clone();
        q[14..16].copy_from_slice(&10u16.to_le_bytes());
        assert_eq!(read_page(&q).free_bytes, 0);
    }

    #[test]
    fn tids_as_numbers() {
        assert_eq!(tid_number(0, 1), 1);
        assert_eq!(tid_number(3, 7), 3 * 65536 + 7);
        assert_eq!(
            tid_number(u32::MAX, u16::MAX),
            ((u32::MAX as i64) << 16) | 0xffff
        );
    }
}
