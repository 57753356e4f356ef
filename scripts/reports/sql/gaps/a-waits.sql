WITH w AS (
  SELECT clients, kind, identity_cache, samples,
         CASE WHEN wait_event_type = 'none' THEN 'none'
              WHEN wait_event = 'BufferContent' THEN 'buffer_content'
              WHEN wait_event IN ('WALWrite', 'WalSync', 'WALInsert', 'WALBufMapping', 'WalWrite', 'WALSync') THEN 'wal'
              WHEN wait_event IN ('extend', 'DataFileExtend', 'RelationExtension') THEN 'extend'
              ELSE 'other' END AS what
  FROM gaps_a_waits WHERE label = 'steady')
SELECT clients, kind, identity_cache AS cache, sum(samples) AS samples,
       round(100.0 * sum(samples) FILTER (WHERE what = 'none') / sum(samples), 1) AS none_pct,
       round(100.0 * sum(samples) FILTER (WHERE what = 'buffer_content') / sum(samples), 1) AS buffer_content_pct,
       round(100.0 * sum(samples) FILTER (WHERE what = 'wal') / sum(samples), 1) AS wal_pct,
       round(100.0 * sum(samples) FILTER (WHERE what = 'extend') / sum(samples), 1) AS extend_pct,
       round(100.0 * coalesce(sum(samples) FILTER (WHERE what = 'other'), 0) / sum(samples), 1) AS other_pct
FROM w GROUP BY clients, kind, identity_cache ORDER BY clients, kind <> 'bigint', identity_cache NULLS FIRST, kind;
