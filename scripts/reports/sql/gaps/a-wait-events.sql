SELECT kind, identity_cache AS cache, wait_event_type, wait_event, sum(samples) AS samples
FROM gaps_a_waits WHERE label = 'steady' AND clients = (SELECT max(clients) FROM gaps_a_waits) AND wait_event_type NOT IN ('none')
  AND wait_event NOT IN ('WALWrite', 'WalSync', 'WALInsert', 'WALBufMapping', 'WalWrite', 'extend', 'DataFileExtend')
GROUP BY 1, 2, 3, 4 HAVING sum(samples) >= :min_samples ORDER BY 1, 2, 5 DESC;
