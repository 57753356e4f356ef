-- keybench_density(): the same figures as pgstattuple's pgstatindex(), and its errors.
CREATE EXTENSION IF NOT EXISTS keybench;
CREATE EXTENSION pgstattuple;
SET timezone = 'UTC';
CREATE FUNCTION pg_temp.same_as_pgstatindex(idx regclass) RETURNS boolean LANGUAGE sql AS $$
  SELECT (k.version, k.tree_level, k.index_size, k.root_block_no, k.internal_pages, k.leaf_pages,
          k.empty_pages, k.deleted_pages, k.avg_leaf_density, k.leaf_fragmentation)
         IS NOT DISTINCT FROM
         (p.version, p.tree_level, p.index_size, p.root_block_no, p.internal_pages, p.leaf_pages,
          p.empty_pages, p.deleted_pages, p.avg_leaf_density, p.leaf_fragmentation)
  FROM keybench_density(idx) k, pgstatindex(idx) p
$$;

-- Sequential keys: right-most splits at fillfactor 90, leaves in physical order (the chain only
-- skips the blocks that became internal pages).
CREATE TABLE seq_keys (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, payload text NOT NULL);
INSERT INTO seq_keys (payload) SELECT repeat('x', 60) FROM generate_series(1, 200000);
-- Random keys: 50/50 splits anywhere, leaves settle near 70% and out of physical order.
CREATE TABLE random_keys (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), payload text NOT NULL);
INSERT INTO random_keys (payload) SELECT repeat('x', 60) FROM generate_series(1, 200000);
SELECT pg_temp.same_as_pgstatindex('seq_keys_pkey') AS seq_same,
       pg_temp.same_as_pgstatindex('random_keys_pkey') AS random_same;
SELECT 'sequential' AS keys, tree_level, avg_leaf_density BETWEEN 88 AND 91 AS density_about_90,
       leaf_fragmentation = 0 AS fragmentation_as_expected,
       leaves_not_adjacent < 0.02 * leaf_pages AS adjacency_as_expected,
       leaf_tuples = 200000 AS every_key_counted, pages_per_level[1] = leaf_pages AS level_0_is_leaves,
       cardinality(pages_per_level) = tree_level + 1 AS one_count_per_level,
       bytes_per_key = round((index_size::float8 / 200000)::numeric, 2)::float8 AS bytes_per_key_consistent
FROM keybench_density('seq_keys_pkey')
UNION ALL
SELECT 'random uuid', tree_level, avg_leaf_density BETWEEN 60 AND 80, leaf_fragmentation > 20,
       leaves_not_adjacent > leaves_out_of_order, leaf_tuples = 200000, pages_per_level[1] = leaf_pages,
       cardinality(pages_per_level) = tree_level + 1, bytes_per_key = round((index_size::float8 / 200000)::numeric, 2)::float8
FROM keybench_density('random_keys_pkey');

-- keybench_density(index, sample_pages): a sample that covers the index is the exact reading,
-- with no error.
SELECT (s.version, s.tree_level, s.index_size, s.root_block_no, s.internal_pages, s.leaf_pages,
        s.empty_pages, s.deleted_pages, s.avg_leaf_density, s.leaf_fragmentation, s.pages_per_level,
        s.leaves_out_of_order, s.leaves_not_adjacent, s.leaf_tuples, s.avg_tuples_per_leaf, s.bytes_per_key)
       IS NOT DISTINCT FROM
       (k.version, k.tree_level, k.index_size, k.root_block_no, k.internal_pages, k.leaf_pages,
        k.empty_pages, k.deleted_pages, k.avg_leaf_density, k.leaf_fragmentation, k.pages_per_level,
        k.leaves_out_of_order, k.leaves_not_adjacent, k.leaf_tuples, k.avg_tuples_per_leaf, k.bytes_per_key)
         AS whole_sample_is_exact,
       s.pages_read = pg_relation_size('random_keys_pkey') / current_setting('block_size')::int AS read_every_block,
       s.leaves_read = k.leaf_pages AS every_leaf,
       (s.avg_leaf_density_error, s.leaf_fragmentation_error) = (0, 0) AS no_error
FROM keybench_density('random_keys_pkey', 1000000) s, keybench_density('random_keys_pkey') k;
-- A sample of 100 blocks reads 101 (the metapage too). Sequential keys' leaves are all 90% full
-- but the rightmost, and none lies before its left sibling, whichever blocks are drawn.
SELECT pages_read, leaves_read BETWEEN 95 AND 100 AS mostly_leaves, avg_leaf_density >= 85 AS about_90,
       leaf_fragmentation = 0 AS in_order, avg_leaf_density_error < 5 AS density_error_small,
       leaf_fragmentation_error > 0 AS fragmentation_has_an_error,
       index_size = pg_relation_size('seq_keys_pkey') AS size_exact,
       leaf_pages BETWEEN 0.9 * (pg_relation_size('seq_keys_pkey') / current_setting('block_size')::int) AND pg_relation_size('seq_keys_pkey') / current_setting('block_size')::int
         AS leaves_scaled
FROM keybench_density('seq_keys_pkey', 100);
-- A random key's leaves: between half full (just split) and full, with an error of a few points.
SELECT pages_read, avg_leaf_density BETWEEN 45 AND 100 AS plausible, avg_leaf_density_error BETWEEN 0.1 AND 10 AS error_of_points
FROM keybench_density('random_keys_pkey', 200);
\x on
SELECT * FROM regress.err($$SELECT * FROM keybench_density('random_keys_pkey', 0)$$);
\x off
SELECT count(*) AS rows_for_null_sample FROM keybench_density('random_keys_pkey', NULL);

-- After deleting a contiguous range and VACUUM: deleted pages, still equal to pgstatindex.
DELETE FROM seq_keys WHERE id BETWEEN 20000 AND 120000;
VACUUM seq_keys;
SELECT deleted_pages + empty_pages > 0 AS has_deleted_pages, leaf_tuples < 200000 AS fewer_tuples,
       pg_temp.same_as_pgstatindex('seq_keys_pkey') AS same
FROM keybench_density('seq_keys_pkey');

-- Expression, multi-column, unique non-PK and text indexes: equal too.
CREATE INDEX random_keys_payload_idx ON random_keys (payload, id);
CREATE UNIQUE INDEX random_keys_text_idx ON random_keys ((id::text));
SELECT pg_temp.same_as_pgstatindex('random_keys_payload_idx') AS multi_column_same,
       pg_temp.same_as_pgstatindex('random_keys_text_idx') AS expression_same;
-- A tiny index (root is the only leaf) and an empty one.
CREATE TABLE tiny (id int PRIMARY KEY);
SELECT tree_level, leaf_pages, index_size, pg_temp.same_as_pgstatindex('tiny_pkey') AS same FROM keybench_density('tiny_pkey');
INSERT INTO tiny VALUES (1), (2), (3);
SELECT tree_level, leaf_pages, leaf_tuples, pages_per_level, pg_temp.same_as_pgstatindex('tiny_pkey') AS same FROM keybench_density('tiny_pkey');

-- Errors.
\x on
SELECT * FROM regress.err($$SELECT * FROM keybench_density('seq_keys')$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_density('seq_keys_id_seq')$$);
CREATE INDEX random_keys_hash ON random_keys USING hash (id);
SELECT * FROM regress.err($$SELECT * FROM keybench_density('random_keys_hash')$$);
CREATE INDEX seq_keys_brin ON seq_keys USING brin (id);
SELECT * FROM regress.err($$SELECT * FROM keybench_density('seq_keys_brin')$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_density('no_such_index')$$);
-- A failed CREATE INDEX CONCURRENTLY leaves an invalid index behind.
CREATE TABLE dupes (v int);
INSERT INTO dupes VALUES (1), (1);
\x off
CREATE UNIQUE INDEX CONCURRENTLY dupes_v ON dupes (v);
\x on
SELECT * FROM regress.err($$SELECT * FROM keybench_density('dupes_v')$$);
-- A partitioned index: ask for each partition's index, as the hint says.
CREATE TABLE parted (id bigint PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (1000);
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (1000) TO (2000);
INSERT INTO parted SELECT generate_series(0, 1999);
SELECT * FROM regress.err($$SELECT * FROM keybench_density('parted_pkey')$$);
\x off
SELECT p.relid, d.leaf_tuples, d.avg_leaf_density > 0 AS measured
FROM pg_partition_tree('parted_pkey') p, keybench_density(p.relid) d WHERE p.isleaf ORDER BY 1;

-- Another session's temporary index (via dblink, which keeps its session open).
CREATE EXTENSION dblink;
SELECT dblink_connect('other', format('dbname=%s user=%s port=%s host=%s', current_database(), current_user,
       current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
SELECT dblink_exec('other', 'CREATE TEMP TABLE their_temp (id int PRIMARY KEY)');
SELECT * FROM regress.err(format('SELECT * FROM keybench_density(%s)',
  (SELECT c.oid FROM pg_class c WHERE c.relname = 'their_temp_pkey')::oid));
SELECT dblink_disconnect('other');
-- Our own temporary index is fine.
CREATE TEMP TABLE my_temp (id int PRIMARY KEY);
INSERT INTO my_temp SELECT generate_series(1, 1000);
SELECT leaf_tuples FROM keybench_density('my_temp_pkey');

-- Privileges: like pgstatindex (granted to pg_stat_scan_tables), an ordinary role may not read
-- index statistics of a table it cannot SELECT from.
CREATE ROLE kb_nobody;
SET ROLE kb_nobody;
\x on
SELECT * FROM regress.err($$SELECT * FROM keybench_density('seq_keys_pkey')$$);
SELECT * FROM regress.err($$SELECT * FROM pgstatindex('seq_keys_pkey')$$);
\x off
RESET ROLE;
GRANT SELECT ON seq_keys TO kb_nobody;
SET ROLE kb_nobody;
SELECT leaf_pages > 0 AS with_select FROM keybench_density('seq_keys_pkey');
RESET ROLE;
REVOKE SELECT ON seq_keys FROM kb_nobody;
GRANT pg_stat_scan_tables TO kb_nobody;
SET ROLE kb_nobody;
SELECT leaf_pages > 0 AS with_pg_stat_scan_tables FROM keybench_density('seq_keys_pkey');
RESET ROLE;
DROP ROLE kb_nobody;

DROP TABLE seq_keys, random_keys, tiny, dupes, parted;
