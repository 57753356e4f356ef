-- The COPY with the key left to its default (method 'copy'): snowflake's and uuidv7's WAL records,
-- WAL and time against bigint's (whose nextval() default keeps the multi-row path).
SELECT d.kind, round(d.wal_records::numeric / b.wal_records, 1) AS records_ratio,
       round(100 * (d.lsn_delta::numeric / b.lsn_delta - 1)) AS more_wal_pct,
       round((d.elapsed_ms / 1000)::numeric, 1) AS seconds, round((b.elapsed_ms / 1000)::numeric, 1) AS bigint_seconds
FROM keybench.runs d JOIN keybench.runs b ON b.kind = 'bigint' AND b.method = 'copy' AND b.rows = d.rows
WHERE d.method = 'copy' AND d.rows = :rows AND d.kind <> 'bigint' ORDER BY d.kind;
