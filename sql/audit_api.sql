-- keybench_audit: every primary-key and unique B-tree index of the database (or of one schema),
-- one row of keybench.audit each, read from keybench_audit_rows (src/inspect/audit/api.rs: the JSON of
-- each row, by column name; keybench.audit has more attributes than a Rust function may return as
-- a table).
-- (Part of the install script: src/lib.rs includes sql/*.sql in order. Not an upgrade script.)
CREATE FUNCTION keybench_audit(schema_name text DEFAULT NULL, measure_density boolean DEFAULT NULL,
                               density_size_limit bigint DEFAULT 104857600, sample interval DEFAULT NULL,
                               wal_limit bigint DEFAULT 1073741824, sample_pages int DEFAULT 32)
RETURNS SETOF keybench.audit
LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  SELECT r.*
  FROM @extschema@.keybench_audit_rows(schema_name, measure_density, density_size_limit, sample, wal_limit,
                                       sample_pages)
       WITH ORDINALITY j(row, n),
       LATERAL jsonb_populate_record(NULL::keybench.audit, j.row::jsonb) r
  ORDER BY j.n
$$;
COMMENT ON FUNCTION keybench_audit(text, boolean, bigint, interval, bigint, int) IS
  'every primary-key and unique B-tree index: what its key is (from its default and a bounded sample of its values), how big and dense its index is, the foreign keys onto it, what it costs the server, and a verdict with the figures it rests on';
