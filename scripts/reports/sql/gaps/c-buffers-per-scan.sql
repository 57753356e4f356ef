-- The uuidv4 table partitioned by created_at: buffers per index scan, over every measured count (median).
SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY buffers_per_lookup / nullif(index_scans_per_lookup, 0))::numeric, 1) AS buffers_per_scan
FROM pl WHERE layout LIKE 'uuidv4, partitioned%';
