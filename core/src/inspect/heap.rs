//! A heap page's tuple headers, read from its bytes (PostgreSQL's bufpage.h and htup_details.h):
//! which of its tuples an UPDATE wrote. The audit measures the order of new rows' keys by the age
//! of the transaction that wrote each row (xmin); an updated row's new version is as young as an
//! inserted row but keeps its old key, so the audit ranks such rows among the older keys, never as
//! new ones.

use super::density::PAGE_HEADER;

/// ItemIdData.lp_flags of a line pointer to a tuple in use.
pub const LP_NORMAL: u32 = 1;
/// HeapTupleHeaderData.t_infomask: this tuple is the new version an UPDATE wrote.
pub const HEAP_UPDATED: u16 = 0x2000;
/// Offset of t_infomask in HeapTupleHeaderData: t_choice (12 bytes), t_ctid (6), t_infomask2 (2).
const T_INFOMASK: usize = 20;
/// Bytes of a tuple header up to t_hoff: what a line pointer to a tuple must at least cover.
const TUPLE_HEADER: usize = 23;

/// The offset numbers (1-based, as in a ctid) of the tuples in use on `page` that an UPDATE
/// wrote. Line pointers that point outside the page, or to fewer bytes than a tuple header, are
/// skipped: the page is read as it is, and nothing on it can make this fail.
pub fn updated_offsets(page: &[u8]) -> Vec<u16> {
    if page.len() < PAGE_HEADER {
        return Vec::new();
    }
    let pd_lower = u16::from_le_bytes([page[12], page[13]]) as usize;
    let end = pd_lower.min(page.len());
    let mut out = Vec::new();
    let mut at = PAGE_HEADER;
    let mut offset: u16 = 1;
    while at + 4 <= end {
        let lp = u32::from_le_bytes([page[at], page[at + 1], page[at + 2], page[at + 3]]);
        let (off, flags, len) = (
            (lp & 0x7fff) as usize,
            (lp >> 15) & 0x3,
            (lp >> 17) as usize,
        );
        if flags == LP_NORMAL
            && len >= TUPLE_HEADER
            && off >= PAGE_HEADER
            && off + TUPLE_HEADER <= page.len()
        {
            let infomask = u16::from_le_bytes([page[off + T_INFOMASK], page[off + T_INFOMASK + 1]]);
            if infomask & HEAP_UPDATED != 0 {
                out.push(offset);
            }
        }
        at += 4;
        offset = offset.wrapping_add(1);
    }
    out
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
