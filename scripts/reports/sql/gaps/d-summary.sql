-- For :'way': the first batch with more than :reads index reads ('reads'), and the first reading more than
-- :share_pct% of its index blocks ('share'); its index before it, and what shared_buffers held at the end
-- of the batch before it.
WITH d AS (
    SELECT d.*, d.idx_blks_read - coalesce(lag(d.idx_blks_read) OVER w, 0) AS reads, d.idx_blks_hit - coalesce(lag(d.idx_blks_hit) OVER w, 0) AS hits
    FROM gaps_d d WHERE way = :'way' WINDOW w AS (ORDER BY batch)),
  f AS (SELECT 'reads' AS finding, min(batch) AS batch FROM d WHERE reads > :reads
        UNION ALL SELECT 'share', min(batch) FROM d WHERE reads > :share_pct / 100.0 * (reads + hits))
SELECT f.finding, f.batch, f.batch * :batch_rows AS rows, d.reads, pg_size_pretty(p.index_bytes) AS index_before,
       round(100.0 * p.index_bytes / pg_size_bytes(current_setting('shared_buffers')), 1) AS index_pct_of_sb,
       bi.buffers AS idx_buffers, round(bi.buffers * current_setting('block_size')::int / 1048576.0) AS idx_mb,
       round(100.0 * bi.buffers * current_setting('block_size')::int / p.index_bytes) AS idx_cached_pct, bh.buffers AS heap_buffers, bh.dirty AS heap_dirty,
       (SELECT sum(buffers) FROM gaps_d_buffers WHERE way = :'way' AND batch = f.batch - 1 AND what IN ('heap fsm and vm', 'everything else')) AS other,
       coalesce((SELECT buffers FROM gaps_d_buffers WHERE way = :'way' AND batch = f.batch - 1 AND what = 'unused'), 0) AS unused
FROM f JOIN d ON d.batch = f.batch JOIN gaps_d p ON p.way = :'way' AND p.batch = f.batch - 1
JOIN gaps_d_buffers bi ON bi.way = :'way' AND bi.batch = f.batch - 1 AND bi.what = 'pk index'
JOIN gaps_d_buffers bh ON bh.way = :'way' AND bh.batch = f.batch - 1 AND bh.what = 'heap'
ORDER BY f.finding;
