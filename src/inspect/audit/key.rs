//! One key's row of keybench_audit: its index figures, its value sample and kind, the finding, the
//! core's verdict and cost, and the sources; or, when that fails, the row that says so.

use super::catalog::{churn, Capacity, Row};
use super::context::Context;
use super::cost_inputs::{key_cost, Children};
use super::index_figures::{measure_index, IndexFigures};
use super::sources::sources;
use super::value_sample::{read_values, Values};
use crate::pg::spi::one;
use keybench_core::inspect::audit::{
    projected_rows, verdict, AuditRow, Cost, Facts, Finding, KeyKind,
};
use pgrx::spi::{quote_identifier, quote_qualified_identifier};

/// The row of a key whose audit failed: its catalog facts, and the error in its verdict.
pub(super) fn not_audited(r: Row, shared_buffers: i64, error: &str) -> AuditRow {
    let finding = Finding::NotAudited;
    AuditRow {
        schema_name: r.schema,
        table_name: r.table,
        index_name: r.index,
        constraint_kind: r.constraint,
        key_columns: r.key_columns,
        key_default: r.default_expr,
        key_kind: KeyKind::ApplicationSupplied.label().to_string(),
        kind_basis: "not audited".into(),
        insert_order: "unknown".into(),
        row_estimate: r.rows,
        index_bytes: r.index_bytes,
        share_of_shared_buffers: r.index_bytes as f64 / shared_buffers as f64,
        finding: finding.label().to_string(),
        verdict: format!("keybench could not audit this key: {error}. The other keys are audited."),
        sources: format!("not audited: {error}"),
        ..AuditRow::default()
    }
}

/// One key's row of keybench_audit.
pub(super) fn audit_key(mut r: Row, cx: &Context<'_>) -> AuditRow {
    let index = measure_index(&mut r, cx);
    // The values: not of a distributed table (the coordinator's is empty).
    let values = read_values(&r, cx.sample_pages, index.spread.is_none());
    let kind = values.kind;
    let finding = finding_of(&r, &values, &index);
    let bytes_per_key = index
        .density
        .as_ref()
        .and_then(|d| d.bytes_per_key)
        .or_else(|| {
            r.rows
                .filter(|n| *n > 0)
                .map(|n| r.index_bytes as f64 / n as f64)
        });
    let children = Children::of(cx.refs.get(&r.index_oid).cloned().unwrap_or_default());
    let mut facts = facts(&r, cx, &values, &index, &children);
    let (cost, time_error) = key_cost(&r, cx, &values, &index, &children, bytes_per_key);
    // The insert rate the decision weighs a time unit against: the key's own times, else
    // the window's (or the statistics') inserts.
    facts.inserts_per_sec = cost
        .rows_per_day
        .map(|d| d / 86_400.0)
        .or(cost.inserts_per_sec);
    let mut text = verdict(kind, finding, &facts);
    // A key that runs out outranks every other finding: the capacity's verdict first.
    let cap = (r.columns == 1)
        .then(|| r.attnum.and_then(|a| cx.capacity.get(&(r.table_oid, a))))
        .flatten();
    let finding = match cap {
        Some(c) if c.finding == "runs out" || c.finding == "wraps onto used keys" => {
            text = format!("{} {text}", c.verdict);
            Finding::RunsOut
        }
        _ => finding,
    };
    let sources = sources(
        &r, cx, &values, &index, &children, &facts, &cost, cap, time_error,
    );
    row(
        r,
        cx,
        RowParts {
            values,
            index,
            children,
            facts,
            cost,
            cap,
            finding,
            verdict: text,
            sources,
            bytes_per_key,
        },
    )
}

/// The finding keybench.audit_finding (sql/audit.sql) draws from the kind and the figures.
fn finding_of(r: &Row, values: &Values, index: &IndexFigures) -> Finding {
    let c = &values.classified;
    let finding_label: String = one(
        "SELECT keybench.audit_finding($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        &[
            c.kind.clone().into(),
            c.basis.clone().into(),
            c.value_kinds.clone().into(),
            c.insert_order.clone().into(),
            index.leaf_pages.into(),
            index.density_figure.into(),
            c.key_form.clone().into(),
            c.key_bytes.into(),
            r.index_bytes.into(),
            r.rows.into(),
        ],
    )
    .unwrap_or_default();
    Finding::from_label(&finding_label).unwrap_or_else(|| {
        pgrx::error!(
            "keybench_audit: keybench.audit_finding gave an unknown finding \"{finding_label}\""
        )
    })
}

/// The facts the core's verdict reads (its insert rate set after the cost).
fn facts(
    r: &Row,
    cx: &Context<'_>,
    values: &Values,
    index: &IndexFigures,
    children: &Children,
) -> Facts {
    let c = &values.classified;
    Facts {
        table: quote_qualified_identifier(&r.schema, &r.table),
        column: quote_identifier(r.column.clone().unwrap_or_default()),
        type_name: r.type_name.clone(),
        rows: r.rows,
        index_bytes: r.index_bytes,
        shared_buffers_bytes: cx.shared_buffers,
        density: index.density_figure,
        fragmentation: index.fragmentation_figure,
        leaf_pages: index.leaf_pages,
        uuidv7_call: cx.uuidv7_call.to_string(),
        key_bytes: c.key_bytes,
        value_kinds: c.value_kinds.clone(),
        switched_at: c.switched_at.clone(),
        newest_kinds: c.newest_kinds.clone(),
        insert_order: c.insert_order.clone(),
        key_form: c.key_form.clone(),
        note: c.note.clone(),
        references: children.list.len() as i64,
        unindexed_references: children.unindexed,
        distributed: index.spread.as_ref().map(|s| s.note.clone()),
        churn: churn(r.table_oid),
        within_unit: values.sampled.as_ref().and_then(|(v, _)| {
            Some((
                v.get("within_unit_pairs")?.as_i64()?,
                v.get("within_unit_descending")?.as_i64()?,
            ))
        }),
        basis: c.basis.clone(),
        pages: values.page_churn(),
        inserts_per_sec: None,
    }
}

/// What the row is made of, besides the key's catalog row and the shared context.
struct RowParts<'a> {
    values: Values,
    index: IndexFigures,
    children: Children,
    facts: Facts,
    cost: Cost,
    cap: Option<&'a Capacity>,
    finding: Finding,
    verdict: String,
    sources: Vec<String>,
    bytes_per_key: Option<f64>,
}

/// The key's row of keybench_audit.
fn row(r: Row, cx: &Context<'_>, p: RowParts<'_>) -> AuditRow {
    let RowParts {
        values,
        index,
        children,
        facts,
        cost,
        cap,
        finding,
        verdict,
        sources,
        bytes_per_key,
    } = p;
    let (kind, c) = (values.kind, values.classified);
    let (measured, shared_buffers) = (cx.measured, cx.shared_buffers);
    let key_default = match r.identity.as_str() {
        "a" => Some("GENERATED ALWAYS AS IDENTITY".to_string()),
        "d" => Some("GENERATED BY DEFAULT AS IDENTITY".to_string()),
        _ => r.default_expr.clone(),
    };
    let type_prefix = if matches!(kind, KeyKind::Identity | KeyKind::Sequence) {
        format!("{} ", r.type_name)
    } else {
        String::new()
    };
    let l = index.leaf_pages_or_estimate(r.index_bytes);
    AuditRow {
        schema_name: r.schema,
        table_name: r.table,
        index_name: r.index,
        constraint_kind: r.constraint,
        key_columns: r.key_columns,
        key_default,
        key_kind: format!("{type_prefix}{}", kind.label()),
        kind_basis: c.basis,
        key_form: c.key_form,
        key_bytes: c.key_bytes,
        value_kinds: c.value_kinds,
        switched_at: c.switched_at,
        insert_order: c.insert_order,
        newest_rank: c.newest_rank,
        row_estimate: r.rows,
        index_bytes: r.index_bytes,
        share_of_shared_buffers: r.index_bytes as f64 / shared_buffers as f64,
        leaf_pages: index.leaf_pages,
        avg_leaf_density: facts.density,
        leaf_fragmentation: facts.fragmentation,
        bytes_per_key,
        projected_rows_at_shared_buffers: projected_rows(shared_buffers, bytes_per_key),
        referenced_by: children.list.len() as i32,
        unindexed_references: children.unindexed as i32,
        child_index_bytes: children.index_bytes,
        finding: finding.label().to_string(),
        verdict,
        sample_seconds: measured.sampled.then_some(measured.seconds).flatten(),
        wal_bytes: cost.wal_bytes,
        fpi_bytes: cost.fpi_bytes,
        wal_share: cost.wal_share,
        table_wal_bytes: cost.table_wal_bytes,
        table_fpi_bytes: cost.table_fpi_bytes,
        with_children_wal_bytes: cost.with_children_wal_bytes,
        with_children_fpi_bytes: cost.with_children_fpi_bytes,
        inserts_per_sec: cost.inserts_per_sec,
        wal_per_inserted_row: cost.wal_per_inserted_row,
        rows_per_day: cost.rows_per_day,
        checkpoints_per_hour: measured.checkpoints_per_hour,
        rows_per_checkpoint: cost.rows_per_checkpoint,
        r_over_l: cost.rows_per_checkpoint.map(|r| r / l.max(1.0)),
        projected_wal_saving_per_day: cost.projected_wal_saving_per_day,
        days_to_shared_buffers: cost.days_to_shared_buffers,
        with_children_days_to_shared_buffers: cost.with_children_days_to_shared_buffers,
        days_to_ram: cost.days_to_ram,
        io_cost_per_month: cost.io_cost_per_month,
        sources: sources.join("; "),
        used_pct: cap.and_then(|c| c.used_pct),
        days_left: cap.and_then(|c| c.days_left),
    }
}
