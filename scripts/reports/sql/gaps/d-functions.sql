CREATE TABLE gaps_d (way text, batch int, ms float8, index_bytes bigint, idx_blks_read bigint, idx_blks_hit bigint,
                     heap_blks_read bigint, heap_blks_hit bigint, PRIMARY KEY (way, batch));
CREATE TABLE gaps_d_buffers (way text, batch int, what text, buffers bigint, dirty bigint, avg_usage numeric, PRIMARY KEY (way, batch, what));
CREATE FUNCTION gaps_buffers(tbl regclass, idx regclass) RETURNS TABLE (what text, buffers bigint, dirty bigint, avg_usage numeric)
LANGUAGE sql AS $$
  SELECT CASE WHEN b.relfilenode IS NULL THEN 'unused'
              WHEN c.oid = idx THEN 'pk index'
              WHEN c.oid = tbl AND b.relforknumber = 0 THEN 'heap'
              WHEN c.oid = tbl THEN 'heap fsm and vm'
              ELSE 'everything else' END,
         count(*), count(*) FILTER (WHERE b.isdirty), round(avg(b.usagecount), 2)
  FROM pg_buffercache b
  LEFT JOIN pg_class c ON b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
                      AND b.relfilenode = pg_relation_filenode(c.oid)
  GROUP BY 1
$$;
CREATE FUNCTION gaps_d_record(way text, batch int, tbl regclass, idx regclass, ms float8) RETURNS void LANGUAGE sql AS $$
  INSERT INTO gaps_d SELECT way, batch, ms, pg_relation_size(idx), i.idx_blks_read, i.idx_blks_hit, t.heap_blks_read, t.heap_blks_hit
  FROM pg_statio_user_indexes i, pg_statio_user_tables t WHERE i.indexrelid = idx AND t.relid = tbl;
  INSERT INTO gaps_d_buffers SELECT way, batch, g.* FROM gaps_buffers(tbl, idx) g;
$$;
