WITH d AS (
  SELECT d.*, d.idx_blks_read - coalesce(lag(d.idx_blks_read) OVER w, 0) AS reads, d.idx_blks_hit - coalesce(lag(d.idx_blks_hit) OVER w, 0) AS hits
  FROM gaps_d d WHERE way = :'way' WINDOW w AS (ORDER BY batch)),
b AS (SELECT batch, sum(buffers) FILTER (WHERE what = 'pk index') AS idx, sum(buffers) FILTER (WHERE what = 'heap') AS heap,
             sum(buffers) FILTER (WHERE what IN ('heap fsm and vm', 'everything else')) AS other, sum(buffers) FILTER (WHERE what = 'unused') AS unused,
             sum(dirty) FILTER (WHERE what = 'heap') AS heap_dirty, max(avg_usage) FILTER (WHERE what = 'pk index') AS idx_usage,
             max(avg_usage) FILTER (WHERE what = 'heap') AS heap_usage
      FROM gaps_d_buffers WHERE way = :'way' GROUP BY batch)
SELECT d.batch, d.batch * :batch_rows AS rows, round(d.ms) AS ms, pg_size_pretty(d.index_bytes) AS pk_index,
       round(100.0 * d.index_bytes / pg_size_bytes(current_setting('shared_buffers')), 1) AS index_pct_of_sb,
       d.reads AS idx_reads, round(100.0 * d.reads / nullif(d.reads + d.hits, 0), 2) AS read_pct,
       b.idx AS idx_buffers, round(100.0 * b.idx * current_setting('block_size')::int / nullif(d.index_bytes, 0), 1) AS idx_cached_pct,
       b.heap AS heap_buffers, b.heap_dirty, b.other AS other_buffers, coalesce(b.unused, 0) AS unused, b.idx_usage, b.heap_usage
FROM d JOIN b USING (batch) ORDER BY d.batch;
