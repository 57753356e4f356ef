-- Experiment D's cache cliff, scaled down: shared_buffers is 16MB in this cluster, so a random-key
-- index outgrows it within a few hundred thousand rows.
CREATE EXTENSION keybench;
SHOW shared_buffers;
CREATE TEMP TABLE v4_run AS SELECT * FROM keybench_run('uuidv4', 1000000, batch_size => 10000, shape => 'd', payload_width => 100);
CREATE TEMP TABLE v4 AS SELECT f.* FROM v4_run JOIN keybench.run_figures f USING (run_id);
CREATE TEMP TABLE v7_run AS SELECT * FROM keybench_run('uuidv7', 1000000, batch_size => 10000, shape => 'd', payload_width => 100);
CREATE TEMP TABLE v7 AS SELECT f.* FROM v7_run JOIN keybench.run_figures f USING (run_id);
SELECT c.kind, c.shared_buffers,
       c.rows_when_index_outgrew_shared_buffers BETWEEN 100000 AND 900000 AS outgrew_midway,
       c.rows_when_index_reads_started IS NOT NULL AS reads_started,
       c.rows_when_index_reads_started BETWEEN c.rows_when_index_outgrew_shared_buffers * 0.5
                                           AND c.rows_when_index_outgrew_shared_buffers * 1.5 AS reads_start_near_the_cache_size,
       c.index_hit_ratio_after < 0.99 AS misses_after
FROM v4, keybench_cliff(v4.run_id) c;
-- The time-ordered key outgrows the cache too, but its inserts keep touching the same few pages.
SELECT c.kind, c.rows_when_index_outgrew_shared_buffers IS NOT NULL AS outgrew,
       c.rows_when_index_reads_started IS NULL AS no_reads
FROM v7, keybench_cliff(v7.run_id) c;
-- The projection for other shared_buffers sizes, at the bytes per key the run measured.
SELECT p.shared_buffers, p.projected_rows > 0 AS projected,
       p.projected_rows = (pg_size_bytes(p.shared_buffers) / (v4.index_bytes::float8 / v4.rows))::bigint AS consistent,
       p.basis LIKE 'projection at % bytes per key (run %: uuidv4, 1000000 rows, index %)' AS labelled
FROM v4, keybench_cliff_projection(v4.run_id, ARRAY['16MB', '1GB', '16GB']) p;
-- Experiment C's I/O bill, projected from the same two runs: the random key's reads after the
-- cliff and its larger WAL cost more a month; the figures are the batches' own, per row.
SELECT c.kind, c.rows_counted, sign(c.cost_over_first) AS sign_over_first,
       c.monthly_read_requests = round(b.shared_read::float8 / b.rows * 1000 * 730 * 3600) AS reads_from_batches,
       c.monthly_write_requests = round(b.wal_bytes::float8 / 4096 / b.rows * 1000 * 730 * 3600) AS writes_from_wal,
       c.monthly_cost = round((c.monthly_read_requests + c.monthly_write_requests) / 1e6 * 0.20, 2) AS priced,
       c.projection
FROM v4, v7, keybench_io_cost(ARRAY[v4.run_id, v7.run_id]) WITH ORDINALITY c
JOIN LATERAL (SELECT sum(rows) AS rows, sum(shared_read) AS shared_read, sum(wal_bytes) AS wal_bytes
              FROM keybench.batches WHERE run_id = c.run_id) b ON true
ORDER BY c.ordinality;
SELECT (SELECT cost_over_first FROM keybench_io_cost(ARRAY[v4.run_id, v7.run_id]) WHERE kind = 'uuidv7') < 0
         AS random_key_costs_more,
       (SELECT rows_counted FROM keybench_io_cost(ARRAY[v4.run_id], from_rows => 500000)) AS rows_from_half,
       (SELECT monthly_cost FROM keybench_io_cost(ARRAY[v4.run_id], price_per_million_requests => 0)) AS free
FROM v4, v7;
