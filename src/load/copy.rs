//! The COPY source: generated rows fed to PostgreSQL's COPY FROM through its data-source callback
//! (FFI), with the key in the data or from the column default.

use super::{Params, Shape};
use crate::kind::Kind;
use pgrx::prelude::*;

/// Generated COPY text rows: `customer_id\tpayload\n` (or `payload\n` for shape D), served in
/// whatever pieces COPY asks for.
#[derive(Debug, Default)]
pub struct CopyRows {
    remaining: i64,
    with_number: bool,
    payload: Vec<u8>,
    line: Vec<u8>,
    pos: usize,
}

impl CopyRows {
    pub fn new(rows: i64, shape: Shape, width: i32) -> Self {
        CopyRows {
            remaining: rows,
            with_number: shape != Shape::D,
            payload: vec![b'x'; width.max(0) as usize],
            line: Vec::new(),
            pos: 0,
        }
    }

    /// Fill `out` (COPY asks for at least `_min` bytes; this fills it whole unless the rows run
    /// out); `number` gives the random integer column of the next row. Returns the bytes written,
    /// 0 at the end.
    pub fn fill(&mut self, out: &mut [u8], min: usize, mut number: impl FnMut() -> u32) -> usize {
        self.fill_with_key(out, min, |_| {}, &mut number)
    }

    /// [`fill`](Self::fill), with `key` appending each row's key (and its tab) first.
    pub fn fill_with_key(
        &mut self,
        out: &mut [u8],
        _min: usize,
        mut key: impl FnMut(&mut Vec<u8>),
        number: &mut impl FnMut() -> u32,
    ) -> usize {
        let mut n = 0;
        while n < out.len() {
            if self.pos == self.line.len() {
                if self.remaining == 0 {
                    break;
                }
                self.remaining -= 1;
                self.line.clear();
                key(&mut self.line);
                if self.with_number {
                    self.line.extend_from_slice(number().to_string().as_bytes());
                    self.line.push(b'\t');
                }
                self.line.extend_from_slice(&self.payload);
                self.line.push(b'\n');
                self.pos = 0;
            }
            let k = (self.line.len() - self.pos).min(out.len() - n);
            out[n..n + k].copy_from_slice(&self.line[self.pos..self.pos + k]);
            self.pos += k;
            n += k;
        }
        n
    }
}

thread_local! {
    /// The rows COPY is reading, the kind whose keys go in its data (if any), and the number of
    /// users the customer_id or user_id column is drawn up to.
    static COPY_SOURCE: std::cell::RefCell<(CopyRows, Option<Kind>, u32)> =
        std::cell::RefCell::new((CopyRows::default(), None, 0));
}

#[pg_guard]
unsafe extern "C-unwind" fn copy_source(
    outbuf: *mut std::ffi::c_void,
    minread: i32,
    maxread: i32,
) -> i32 {
    // SAFETY: COPY hands us a buffer of maxread bytes.
    let out =
        unsafe { std::slice::from_raw_parts_mut(outbuf.cast::<u8>(), maxread.max(0) as usize) };
    COPY_SOURCE.with_borrow_mut(|(src, key, users)| {
        let key = *key;
        let modulus = *users + 1;
        let mut number = || {
            use rand::Rng;
            crate::generators::rng::with_rng(|r| r.next_u32() % modulus)
        };
        let min = minread.max(0) as usize;
        match key {
            Some(kind) => src.fill_with_key(
                out,
                min,
                |line| crate::kind::write_key(kind, line),
                &mut number,
            ) as i32,
            None => src.fill(out, min, number) as i32,
        }
    })
}

/// `n` generated rows through COPY FROM, as `COPY table (columns) FROM STDIN` would load them:
/// the same permission check, the same multi-insert path.
pub fn copy_rows(table: pg_sys::Oid, p: &Params, n: i64) {
    COPY_SOURCE.with_borrow_mut(|src| {
        *src = (
            CopyRows::new(n, p.shape(), p.payload_width),
            p.key_in_copy_data().then(|| p.kind()),
            p.users as u32,
        )
    });
    let lock = pg_sys::RowExclusiveLock as pg_sys::LOCKMODE;
    // SAFETY: opens the run's table (its oid, looked up in this worker) with the lock an INSERT
    // takes, inside the caller's transaction; closed below.
    let rel = unsafe { pg_sys::table_open(table, lock) };
    // SAFETY: a new parse state, freed below.
    let pstate = unsafe { pg_sys::make_parsestate(std::ptr::null_mut()) };
    // SAFETY: the open relation's range-table entry in that parse state, as COPY FROM builds it.
    let nsitem = unsafe {
        pg_sys::addRangeTableEntryForRelation(pstate, rel, lock, std::ptr::null_mut(), false, false)
    };
    // SAFETY: `nsitem` and its range-table entry were just made by PostgreSQL: INSERT is
    // required, and checked (an ERROR if the role lacks it), as COPY FROM does.
    #[cfg(any(feature = "pg14", feature = "pg15"))]
    unsafe {
        (*(*nsitem).p_rte).requiredPerms = pg_sys::ACL_INSERT as pg_sys::AclMode;
        pg_sys::ExecCheckRTPerms((*pstate).p_rtable, true);
    }
    // SAFETY: as above, with the permission info PostgreSQL 16 and later keep apart.
    #[cfg(not(any(feature = "pg14", feature = "pg15")))]
    unsafe {
        (*(*nsitem).p_perminfo).requiredPerms = pg_sys::ACL_INSERT as pg_sys::AclMode;
        pg_sys::ExecCheckPermissions(
            (*pstate).p_rtable,
            pg_sys::lappend(std::ptr::null_mut(), (*nsitem).p_perminfo.cast()),
            true,
        );
    }
    let mut columns: *mut pg_sys::List = std::ptr::null_mut();
    for c in p.copy_columns() {
        let name = std::ffi::CString::new(c).expect("column names have no NUL");
        // SAFETY: a palloc'd copy of the name, as a String node appended to a List (NULL is
        // the empty list), both in the current memory context.
        columns = unsafe {
            pg_sys::lappend(
                columns,
                pg_sys::makeString(pg_sys::pstrdup(name.as_ptr())).cast(),
            )
        };
    }
    // SAFETY: COPY FROM the open relation, reading through `copy_source` (which reads
    // COPY_SOURCE, set above) rather than a file, with the column list above and no options.
    let cstate = unsafe {
        pg_sys::BeginCopyFrom(
            pstate,
            rel,
            std::ptr::null_mut(),
            std::ptr::null(),
            false,
            Some(copy_source),
            columns,
            std::ptr::null_mut(),
        )
    };
    // SAFETY: the COPY begun above, run and ended once.
    unsafe {
        pg_sys::CopyFrom(cstate);
        pg_sys::EndCopyFrom(cstate);
    }
    // SAFETY: the parse state made above, no longer used; the relation opened above, its lock
    // kept until the end of the transaction, as after an INSERT.
    unsafe {
        pg_sys::free_parsestate(pstate);
        pg_sys::table_close(rel, pg_sys::NoLock as pg_sys::LOCKMODE);
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn copy_rows_in_any_pieces() {
        let mut src = CopyRows::new(3, Shape::A, 4);
        let mut next = 41u32;
        let mut all = Vec::new();
        let mut buf = [0u8; 5];
        loop {
            let n = src.fill(&mut buf, 1, || {
                next += 1;
                next
            });
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
        }
        assert_eq!(
            String::from_utf8(all).unwrap(),
            "42\txxxx\n43\txxxx\n44\txxxx\n"
        );
        let mut d = CopyRows::new(2, Shape::D, 2);
        let mut big = [0u8; 64];
        assert_eq!(d.fill(&mut big, 1, || 0), 6);
        assert_eq!(&big[..6], b"xx\nxx\n");
        let mut k = CopyRows::new(2, Shape::D, 1);
        let n = k.fill_with_key(&mut big, 1, |l| l.extend_from_slice(b"K\t"), &mut || 0);
        assert_eq!(&big[..n], b"K\tx\nK\tx\n");
    }
}
