//! The value sample: a bounded read of a key's values (keybench.audit_values) and the buffers it
//! touched, its classification (keybench.audit_classify), and what its figures say.

use super::catalog::Row;
use crate::pg::spi::{one, row};
use keybench_core::inspect::audit::{random_reads_ordered, KeyKind, PageChurn};
use pgrx::prelude::*;
use serde_json::Value;

/// keybench.audit_classify's row.
#[derive(serde::Deserialize, Default)]
pub(super) struct Classified {
    pub kind: String,
    pub basis: String,
    pub key_form: Option<String>,
    pub key_bytes: Option<f64>,
    pub value_kinds: Option<String>,
    pub switched_at: Option<String>,
    pub newest_kinds: Option<String>,
    pub insert_order: String,
    pub newest_rank: Option<f64>,
    pub ranked_rows: Option<i32>,
    pub note: Option<String>,
}

/// The bounded sample of a key's values (keybench.audit_values), and the buffers it touched
/// (this backend's buffer counters: shared blocks hit and read).
fn sample_values(table: pg_sys::Oid, column: &str, pages: i32) -> (Value, i64) {
    let before = crate::workers::xact::usage();
    let v: Value = one::<pgrx::JsonB>(
        "SELECT keybench.audit_values($1::regclass, $2, $3)",
        &[table.into(), column.into(), pages.into()],
    )
    .map(|j| j.0)
    .unwrap_or(Value::Null);
    let after = crate::workers::xact::usage();
    let buffers = (after.buf.shared_blks_hit + after.buf.shared_blks_read)
        - (before.buf.shared_blks_hit + before.buf.shared_blks_read);
    (v, buffers)
}

/// What the value sample's figures say, for `sources`; the order figure is the one the
/// classification chose (among the keys of the main version, or among them all).
pub(super) fn sample_note(
    v: &Value,
    buffers: i64,
    c: &Classified,
    correlation: Option<f64>,
) -> String {
    let n = |k: &str| v.get(k).and_then(Value::as_i64).unwrap_or(0);
    let mut out = format!(
        "values: {} rows from {} heap pages ({} spread over its {} pages by TID range scans, its last {}) and the \
         highest key through the index, {buffers} buffers in all",
        n("rows"),
        n("pages"),
        n("spread_pages"),
        n("table_pages"),
        n("tail_pages")
    );
    if let Some(r) = c.newest_rank {
        out.push_str(&format!(
            "; order: the {} newest rows' keys rank {r:.2} (median) among the older sampled keys of their kind (1: above all of them, 0.5: anywhere); newest by the age of the transaction that wrote each row (xmin): the youngest quarter of each kind's sampled rows, from {} of the sample's {} transactions, {} of them in the table's last pages",
            c.ranked_rows.unwrap_or(0),
            n("newest_transactions"),
            n("transactions"),
            n("newest_in_tail")
        ));
        if c.insert_order == "unknown" {
            out.push_str(", too few to say (30 or more)");
        } else {
            let newest = c.ranked_rows.unwrap_or(0) as i64;
            let older = n("rows") - newest;
            let p = random_reads_ordered(newest, older.max(1));
            out.push_str(&format!(
                "; how sure: a random key's median over these rows reaches 0.7 {}",
                if p < 1e-6 {
                    "less than once in a million tables".to_string()
                } else {
                    format!("about once in {:.0} tables", 1.0 / p)
                }
            ));
        }
        match (v.get("updates_read").and_then(Value::as_bool), n("updated_rows")) {
            (Some(true), 0) => {}
            (Some(true), u) if v.get("updated_apart").and_then(Value::as_bool) != Some(true) => out.push_str(&format!(
                "; {u} sampled rows were written by an UPDATE (their tuple headers say so), too many to leave out (fewer than 60 others): they count among the newest rows"
            )),
            (Some(true), u) => out.push_str(&format!(
                "; {u} sampled rows were written by an UPDATE (their tuple headers say so): as young as new rows by xmin but with old keys, they are ranked neither as new keys nor as older ones"
            )),
            _ => out.push_str("; rows written by an UPDATE were not told apart (their tuple headers unread): each counts as a new row"),
        }
        // Frozen rows: old rows, whatever the age of the xmin a freeze keeps reads.
        out.push_str(&match (v.get("updates_read").and_then(Value::as_bool), n("frozen_rows")) {
            (Some(true), f) => format!(
                "; frozen rows (their tuple headers say so): {f} of the sampled rows, counted as older than every row not frozen"
            ),
            (_, f) => format!(
                "; frozen rows told apart only where the age of their xmin reads as wrapped or frozen (their tuple headers unread): {f} of the sampled rows, counted as older than every row not frozen"
            ),
        });
    }
    if let Some(c) = correlation {
        out.push_str(&format!(
            "; pg_stats.correlation {c:.2} (the key's order against the rows' physical order, as of the last ANALYZE)"
        ));
    }
    out
}

/// The dead tuples and free space of the heap pages the value sample read (keybench.audit_values,
/// where keybench_audit_pages read their headers).
fn page_churn(v: &Value) -> Option<PageChurn> {
    let n = |k: &str| v.get(k).and_then(Value::as_i64);
    Some(PageChurn {
        pages: n("heap_pages")?,
        spread_pages: n("heap_spread_pages")?,
        live: n("heap_live")?,
        dead: n("heap_dead")?,
        free_bytes: n("heap_spread_free")?,
        reserved_share: (100 - n("fillfactor").unwrap_or(100)).max(0) as f64 / 100.0,
    })
}

/// A key's values as the audit read them: the sample and its buffers (None when not read), their
/// classification, the error that left them unread, the one prefix of a text key's values, and
/// the kind.
pub(super) struct Values {
    pub sampled: Option<(Value, i64)>,
    pub classified: Classified,
    pub error: Option<String>,
    pub prefix: Option<String>,
    pub kind: KeyKind,
}

impl Values {
    /// The dead tuples and free space of the sampled heap pages.
    pub fn page_churn(&self) -> Option<PageChurn> {
        self.sampled.as_ref().and_then(|(v, _)| page_churn(v))
    }
}

/// Reads and classifies a key's values: read where the caller may read the table (and `local`:
/// not a distributed table's coordinator), for a one-column key; each step on its own, so that a
/// value the sample's reading cannot take leaves the kind to the default, with the reason.
pub(super) fn read_values(r: &Row, sample_pages: i32, local: bool) -> Values {
    let sampling = r.selectable && r.columns == 1 && !r.is_expression && local;
    let sampled = crate::workers::xact::in_subtransaction(|| {
        sampling
            .then(|| {
                r.column
                    .as_deref()
                    .map(|c| sample_values(r.table_oid, c, sample_pages))
            })
            .flatten()
    });
    let (sampled, sample_error) = match sampled {
        Ok(s) => (s, None),
        Err(e) => (None, Some(e.message)),
    };
    let classify = |vals: Option<Value>| {
        row::<Classified>(
            "SELECT * FROM keybench.audit_classify($1, $2, $3, $4, $5, $6)",
            &[
                r.type_name.clone().into(),
                r.identity.clone().into(),
                r.default_expr.clone().into(),
                r.columns.into(),
                r.is_expression.into(),
                vals.map(pgrx::JsonB).into(),
            ],
        )
        .unwrap_or_default()
    };
    let (sampled, classified, values_error) = match crate::workers::xact::in_subtransaction(|| {
        let c = classify(sampled.as_ref().map(|(v, _)| v.clone()));
        (sampled.clone(), c)
    }) {
        Ok((sampled, c)) => (sampled, c, None),
        Err(e) => (None, classify(None), Some(e.message)),
    };
    let prefix = sampled.as_ref().and_then(|(v, _)| {
        let p = v.get("prefixes")?.as_object()?;
        (p.len() == 1).then(|| p.keys().next().cloned()).flatten()
    });
    let kind = KeyKind::from_label(&classified.kind).unwrap_or_else(|| {
        pgrx::error!(
            "keybench_audit: keybench.audit_classify gave an unknown kind \"{}\"",
            classified.kind
        )
    });
    Values {
        sampled,
        classified,
        error: sample_error.or(values_error),
        prefix,
        kind,
    }
}
