-- The WAL from $1 to $2 by relation file of this database (src/inspect/wal_sample.rs), through
-- pg_walinspect's pg_get_wal_block_info (1.1, PostgreSQL 16 and later; @walinspect@ is its
-- schema): each record's whole length goes to the relation of its first block (block 0), each
-- block's full-page image to its own relation. Its columns are read by name.
SELECT b.reltablespace, b.relfilenode,
       coalesce(sum(b.record_length) FILTER (WHERE b.block_id = 0), 0)::bigint AS wal_bytes,
       coalesce(sum(b.block_fpi_length), 0)::bigint AS fpi_bytes,
       count(*) FILTER (WHERE b.block_fpi_length > 0) AS fpi_count
FROM @walinspect@.pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn, false) b
WHERE b.reldatabase = (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())
GROUP BY b.reltablespace, b.relfilenode
