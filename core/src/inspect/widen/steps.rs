//! The plan: every step of a widening in order, the backfill and the stopgap.

use super::*;

/// The widening plan. `w` has been [`check`]ed.
pub fn plan(w: &Widen, o: &Options) -> Vec<Step> {
    let key = &w.columns[0];
    let t = key.qtable();
    let narrow: Vec<&Column> = w.columns.iter().filter(|c| c.narrow()).collect();
    let children = &w.columns[1..];
    let mut out = Vec::new();
    let prepared =
        "A statement prepared before it that reads SELECT * (as ORMs send it) fails after \
                    it (cached plan must not change result type) until the application prepares it \
                    again (a new connection, or DISCARD ALL).";
    for c in &narrow {
        let ct = c.qtable();
        out.push(Step {
            action: format!(
                "a bigint column {} beside {}.{} ({})",
                q(&c.new_name()),
                ct,
                q(&c.column),
                c.type_name
            ),
            statement: with_retries(
                &format!("ALTER TABLE {ct} ADD COLUMN {} bigint", q(&c.new_name())),
                o,
            ),
            note: format!(
                "No default: added to the catalog alone, no rewrite, under an ACCESS EXCLUSIVE \
                 lock held for a moment (the lock_timeout keeps it from queueing the table's \
                 queries behind a long transaction; retried). {prepared}"
            ),
            rollback: format!("ALTER TABLE {ct} DROP COLUMN {}", q(&c.new_name())),
        });
    }
    for c in &narrow {
        let ct = c.qtable();
        out.push(Step {
            action: format!(
                "{} kept equal to {} in new and updated rows of {ct}",
                q(&c.new_name()),
                q(&c.column)
            ),
            statement: retried(
                &format!(
                    "{};\nCREATE TRIGGER {} BEFORE INSERT OR UPDATE ON {ct} FOR EACH ROW EXECUTE FUNCTION {}();",
                    sync_function(c, false, &q(&c.new_name()), &q(&c.column), false),
                    q(&c.trigger_name()),
                    c.function()
                ),
                "lock_not_available",
                o,
            ),
            note: "A BEFORE ROW trigger (a plpgsql function in the table's schema): defaults and \
                   identity values are computed before it runs, so the new column gets the key \
                   the row is given. CREATE TRIGGER takes a SHARE ROW EXCLUSIVE lock for a moment \
                   (reads go on, writes wait), under the lock_timeout, retried. Each insert and \
                   update of the table costs one more column to write from now until the last step."
                .into(),
            rollback: format!(
                "DROP TRIGGER {} ON {ct};\nDROP FUNCTION {}()",
                q(&c.trigger_name()),
                c.function()
            ),
        });
    }
    for c in &narrow {
        out.push(backfill(c, o));
    }
    for c in narrow.iter().filter(|c| c.not_null) {
        let ct = c.qtable();
        out.push(Step {
            action: format!("no row of {ct} without {}, checked later", q(&c.new_name())),
            statement: with_retries(
                &format!(
                    "ALTER TABLE {ct} ADD CONSTRAINT {} CHECK ({} IS NOT NULL) NOT VALID",
                    q(&c.check_name()),
                    q(&c.new_name())
                ),
                o,
            ),
            note: "NOT VALID: new rows are checked from now on, the existing ones in the next \
                   steps; an ACCESS EXCLUSIVE lock for a moment, under the lock_timeout, retried. \
                   The swap's SET NOT NULL reads this validated CHECK instead of scanning the table."
                .into(),
            rollback: format!("ALTER TABLE {ct} DROP CONSTRAINT {}", q(&c.check_name())),
        });
    }
    for c in narrow.iter().filter(|c| c.not_null) {
        let ct = c.qtable();
        out.push(Step {
            action: format!(
                "the rows of {ct} checked: {} is never NULL",
                q(&c.new_name())
            ),
            statement: format!(
                "ALTER TABLE {ct} VALIDATE CONSTRAINT {}",
                q(&c.check_name())
            ),
            note: format!(
                "A scan of the table ({}) under a SHARE UPDATE EXCLUSIVE lock: reads and writes \
                 go on. It fails if a row was missed by the backfill: run the backfill again.",
                c.rows_pages()
            ),
            rollback: String::new(),
        });
    }
    let key_index = name63(&format!("{}_{}_key", key.table, key.new_name()));
    out.push(Step {
        action: format!("{} unique, for the key", q(&key.new_name())),
        statement: format!(
            "CREATE UNIQUE INDEX CONCURRENTLY {} ON {t} ({})",
            q(&key_index),
            q(&key.new_name())
        ),
        note: format!(
            "CONCURRENTLY: a SHARE UPDATE EXCLUSIVE lock, writes go on while it builds (two scans \
             of the table, {}); it cannot run inside a transaction block, and a failed build leaves \
             an invalid index to drop (the rollback) before trying again. The swap makes it the key.",
            key.rows_pages()
        ),
        rollback: format!(
            "DROP INDEX CONCURRENTLY {}.{}",
            q(&key.schema),
            q(&key_index)
        ),
    });
    for c in narrow[1..].iter() {
        if let (Some(i), Some(n)) = (&c.index, c.new_index()) {
            let ct = c.qtable();
            out.push(Step {
                action: format!("{} indexed as {} is", q(&c.new_name()), q(&c.column)),
                statement: format!(
                    "CREATE {}INDEX CONCURRENTLY {} ON {ct} USING {} ({})",
                    if c.index_unique { "UNIQUE " } else { "" },
                    q(&n),
                    c.index_method.as_deref().unwrap_or("btree"),
                    q(&c.new_name())
                ),
                note: format!(
                    "The same index as {} on the new column, so that the foreign key's checks \
                     (a delete of a parent row) find the children by index after the swap. \
                     CONCURRENTLY: writes go on; not inside a transaction block. The last step \
                     gives it the old index's name.",
                    q(i)
                ),
                rollback: format!("DROP INDEX CONCURRENTLY {}.{}", q(&c.schema), q(&n)),
            });
        }
    }
    let forward = swap_body(w, true, &key_index);
    let back_index = name63(&format!("{}_{}_key", key.table, key.old_name()));
    let back = swap_body(w, false, &back_index);
    let others: Vec<String> = w
        .columns
        .iter()
        .flat_map(|c| {
            c.dependents
                .iter()
                .map(move |d| format!("{d} (on {}.{})", c.qtable(), q(&c.column)))
        })
        .collect();
    let others_note = if others.is_empty() {
        "No other index, constraint or view uses these columns (the catalog, when the plan was \
         made)."
            .to_string()
    } else {
        format!(
            "Other objects use the old columns and stay on them after the swap (a view follows \
             the column, not its name): {}. Recreate each on the new column before the last step, \
             which drops the old columns (an index on them goes with them; a view blocks the DROP).",
            others.join("; ")
        )
    };
    let sequence_note = match (w.identity, &w.sequence, &w.default_expr) {
        (Some(_), Some(s), _) => format!(
            "The identity moves: its next value is read from {}, DROP IDENTITY drops that \
             sequence, and the new column's identity (a sequence of the same name, bigint) starts \
             at that value with the same increment. Options other than the increment (cache, \
             min and max values) take their defaults, and grants on the sequence are lost.",
            s.name
        ),
        (None, Some(s), Some(_)) => format!(
            "The sequence {} becomes bigint (ALTER SEQUENCE ... AS bigint moves its maximum with \
             the type when it was the old type's){}, and the default moves to the new column.",
            s.name,
            if s.owned { ", it is owned by the new column" } else { "" }
        ),
        (None, None, Some(_)) => "The default moves to the new column as it is.".to_string(),
        _ => "The key has no default: the application supplies its values, and must send them as bigint from now on where they go past the old type.".to_string(),
    };
    out.push(Step {
        action: format!(
            "the swap: {} takes the name {}, the key{}{}",
            q(&key.new_name()),
            q(&key.column),
            if w.identity.is_some() || w.default_expr.is_some() {
                ", the sequence"
            } else {
                ""
            },
            if children.is_empty() {
                ""
            } else {
                ", the foreign keys"
            }
        ),
        statement: retried_split(&forward, o),
        note: format!(
            "One short transaction under an ACCESS EXCLUSIVE lock on {} (the parent first, then \
             the children, as an application writes them), under the lock_timeout, rolled back \
             and retried a second later on a timeout or a deadlock: catalog changes only, no \
             rewrite or scan (SET NOT NULL reads the validated CHECK; the key takes the index \
             built concurrently). The foreign keys are dropped and added back NOT VALID \
             (checked in the next step). {sequence_note} The old columns are renamed ({}), \
             lose their NOT NULL, and are kept filled from the new ones where the value fits, \
             so that the rollback (the reverse swap) stays possible while every id fits the old \
             type: its SET NOT NULL on the old key scans the table under the lock, and fails if \
             an id no longer fits; after a rollback, the CHECK, VALIDATE and unique-index steps \
             run again before the swap can. After it, every statement prepared before it that returns the key or a \
             foreign-key column fails (cached plan must not change result type) until the \
             application prepares it again (a new connection, or DISCARD ALL); a client that \
             reads the key into a 32-bit integer must read 64 bits before ids pass 2147483647. \
             {others_note}",
            std::iter::once(t.clone())
                .chain(children.iter().map(|c| c.qtable()))
                .fold(Vec::<String>::new(), |mut v, x| {
                    if !v.contains(&x) {
                        v.push(x)
                    }
                    v
                })
                .join(", "),
            q(&key.old_name())
        ),
        rollback: format!(
            "-- each statement on its own: the old key's unique index first, then the reverse swap\n\
             CREATE UNIQUE INDEX CONCURRENTLY {} ON {t} ({});\n{}",
            q(&back_index),
            q(&key.old_name()),
            retried_split(&back, o)
        ),
    });
    for c in children {
        if let Some(con) = &c.constraint {
            out.push(Step {
                action: format!("the foreign key {} checked again", q(con)),
                statement: format!(
                    "ALTER TABLE {} VALIDATE CONSTRAINT {}",
                    c.qtable(),
                    q(con)
                ),
                note: format!(
                    "A scan of {} ({}) and lookups in the parent's key, under a SHARE UPDATE \
                     EXCLUSIVE lock on the child (ROW SHARE on the parent): reads and writes go on. \
                     New rows are checked since the swap.",
                    c.qtable(),
                    c.rows_pages()
                ),
                rollback: String::new(),
            });
        }
    }
    let mut drops = Vec::new();
    let mut tables: Vec<String> = Vec::new();
    for c in &narrow {
        if !tables.contains(&c.qtable()) {
            tables.push(c.qtable());
        }
    }
    drops.push(format!(
        "LOCK TABLE {} IN ACCESS EXCLUSIVE MODE",
        tables.join(", ")
    ));
    for c in &narrow {
        let ct = c.qtable();
        drops.push(format!("DROP TRIGGER {} ON {ct}", q(&c.trigger_name())));
        drops.push(format!("DROP FUNCTION {}()", c.function()));
        drops.push(format!("ALTER TABLE {ct} DROP COLUMN {}", q(&c.old_name())));
        if let (Some(i), Some(n)) = (&c.index, c.new_index()) {
            drops.push(format!(
                "ALTER INDEX {}.{} RENAME TO {}",
                q(&c.schema),
                q(&n),
                q(i)
            ));
        }
    }
    out.push(Step {
        action: "the old columns, the triggers and their functions dropped".into(),
        statement: retried(
            &(drops.join(";\n") + ";"),
            "lock_not_available OR deadlock_detected",
            o,
        ),
        note: format!(
            "Last, once the application runs on the new columns and you have checked them: after \
             it there is no way back but a restore. DROP COLUMN changes the catalog only (the \
             space is reclaimed as rows are rewritten), under an ACCESS EXCLUSIVE lock for a \
             moment, under the lock_timeout, retried. A view or function that uses an old column \
             blocks it, and the error names it. {others_note}"
        ),
        rollback: String::new(),
    });
    out.extend(stopgap(w));
    out
}

/// A swap from [`swap_body`] (its DECLARE part and its statements) in a retried DO block.
pub(super) fn retried_split((declare, body): &(String, String), o: &Options) -> String {
    retried_with(declare, body, "lock_not_available OR deadlock_detected", o)
}

/// The backfill of `c`'s new column, by ranges of pages, each committed.
pub(super) fn backfill(c: &Column, o: &Options) -> Step {
    let ct = c.qtable();
    let (n, old) = (q(&c.new_name()), q(&c.column));
    let regclass = format!("{}::regclass", lit(&ct));
    Step {
        action: format!("{n} of {ct} backfilled by ranges of pages, each committed"),
        statement: format!(
            "DO $plan$\nDECLARE\n  pages bigint := pg_catalog.pg_relation_size({regclass}) / pg_catalog.current_setting('block_size')::bigint;\n  per bigint;\n  lo bigint := 0;\n  n bigint;\n  done bigint := 0;\n  started timestamptz := pg_catalog.clock_timestamp();\n  secs float8;\nBEGIN\n  -- Pages per batch: about {rows} rows at the table's rows per page (100 when it has no estimate).\n  SELECT greatest(1, ceil({rows} / CASE WHEN c.reltuples > 0 AND c.relpages > 0 THEN c.reltuples / c.relpages ELSE 100 END))::bigint INTO per\n  FROM pg_catalog.pg_class c WHERE c.oid = {regclass};\n  WHILE lo < pages LOOP\n    UPDATE {ct} SET {n} = {old}\n    WHERE ctid >= pg_catalog.format('(%s,0)', lo)::tid AND ctid < pg_catalog.format('(%s,0)', lo + per)::tid\n      AND {n} IS DISTINCT FROM {old};\n    GET DIAGNOSTICS n = ROW_COUNT;\n    COMMIT;\n    done := done + n;\n    lo := lo + per;\n    secs := extract(epoch FROM pg_catalog.clock_timestamp() - started);\n    RAISE NOTICE '%: pages % of %, % rows updated in % s (% rows/s), about % s left',\n      {name}, least(lo, pages), pages, done, round(secs::numeric, 1), round(done / greatest(secs, 0.001)), round((secs * greatest(pages - lo, 0) / lo)::numeric, 1);\n  END LOOP;\nEND $plan$",
            rows = o.batch_rows,
            name = lit(&ct),
        ),
        note: format!(
            "The backfill covers the table's pages as they are when it starts ({}): rows written \
             later get the trigger. Batches of about {} rows (a range of pages, a TID range scan), \
             each committed, so that no row lock or snapshot is held long; rows an application \
             transaction holds make the batch wait for it. A NOTICE after each batch gives the \
             pages done, the rows per second so far and the time left at that rate. Each updated \
             row leaves a dead tuple (the table and, where the update is not HOT, its indexes \
             grow): VACUUM the table after it (autovacuum will, later). Runs only as its own \
             statement, not inside a transaction block; run again, it updates only the rows \
             still missing.",
            c.rows_pages(),
            o.batch_rows
        ),
        rollback: String::new(),
    }
}

/// The stopgap, where the key's sequence has used half its range or more: restart it in the
/// negative half. A note only, never a statement: it changes what the ids mean.
pub(super) fn stopgap(w: &Widen) -> Option<Step> {
    let s = w.sequence.as_ref()?;
    let key = &w.columns[0];
    let last = s.last_value?;
    let (lo, _) = range(&key.type_name);
    let span = (s.max as f64) - (s.min as f64);
    let used = (last as f64 - s.min as f64) / span;
    if s.increment <= 0 || s.min <= lo || used < 0.5 {
        return None;
    }
    let sql = format!("ALTER SEQUENCE {} MINVALUE {lo} RESTART WITH {lo}", s.name);
    Some(Step {
        action: format!(
            "the stopgap, if the widening cannot finish in time: {} restarted at {lo}",
            s.name
        ),
        statement: String::new(),
        note: format!(
            "Not run by the plan (no statement): {} is at {last} of {} ({:.0}% of its range). If \
             the days left are too few for the steps above, `{sql}` buys as many values again as \
             it has used: no rewrite, an ACCESS EXCLUSIVE lock for a moment. Its cost: ids are \
             negative from then on, so ORDER BY {} no longer follows insertion order, and \
             clients that assume positive ids (or use 0 or negatives as markers) break. The \
             widening is still needed after it.",
            s.name,
            s.max,
            used * 100.0,
            q(&key.column)
        ),
        rollback: String::new(),
    })
}
