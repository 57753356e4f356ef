-- keybench 0.2.0 -> 0.3.0. Written by hand: every change to the extension's objects since 0.2.0
-- (commit a8d114a), so that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh
-- 0.3.0 install (scripts/lifecycle-test.sh checks it object by object, from 0.1.0 through 0.2.0).
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.3.0'" to load this file. \quit

-- keybench_export and keybench_import (src/run/export.rs): runs and their batches in a portable
-- form; imported runs record where they came from.
ALTER TABLE keybench.runs ADD COLUMN imported_from jsonb;
COMMENT ON COLUMN keybench.runs.imported_from IS 'for a run loaded by keybench_import: its run id and table at the source, and the source';
CREATE FUNCTION "keybench_export"(
	"run_ids" bigint[],
	"label" TEXT DEFAULT NULL
) RETURNS jsonb
STABLE PARALLEL SAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'keybench_export_wrapper';
CREATE FUNCTION "keybench_import"(
	"export" jsonb
) RETURNS TABLE (
	"source_run_id" bigint,
	"run_id" bigint,
	"kind" TEXT,
	"status" TEXT,
	"rows" bigint,
	"clients" INT,
	"batches" bigint
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'keybench_import_wrapper';
-- keybench_import writes: not executable by PUBLIC (README: Privileges).
REVOKE EXECUTE ON FUNCTION keybench_import(jsonb) FROM PUBLIC;
