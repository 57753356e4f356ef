-- Where the coordinator's WAL of run :run went: block references by relation, from its pg_walinspect.
SELECT coalesce(c.relname::text, 'relfilenode ' || b.relfilenode) AS relation, count(*) AS block_references,
       count(*) FILTER (WHERE b.block_fpi_length > 0) AS full_page_images
FROM keybench.run_nodes n CROSS JOIN LATERAL pg_get_wal_block_info(n.lsn_start, n.lsn_end, false) b
LEFT JOIN pg_class c ON c.relfilenode = b.relfilenode
    AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
WHERE n.coordinator AND n.run_id = :run GROUP BY 1 ORDER BY 2 DESC LIMIT 5;
