-- Per client count, the median of each kind's time over the bigint run of its block (steady runs).
WITH s AS (SELECT r.*, r.seconds / b.seconds AS to_bigint FROM gaps_a_runs r
           JOIN gaps_a_runs b ON b.label = r.label AND b.block = r.block AND b.kind = 'bigint' AND b.identity_cache = 1 WHERE r.label = 'steady')
SELECT clients, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY to_bigint) FILTER (WHERE kind = 'uuidv7')::numeric, 2) AS uuidv7,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY to_bigint) FILTER (WHERE kind = 'bigint' AND identity_cache = :cache)::numeric, 2) AS bigint_cache,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY to_bigint) FILTER (WHERE kind = 'uuidv7_native')::numeric, 2) AS uuidv7_native
FROM s GROUP BY clients ORDER BY clients;
