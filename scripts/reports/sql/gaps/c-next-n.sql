-- Where the ratio crosses :target in mode :'mode': the partition count log-linearly interpolated between
-- the two measured counts that bracket it; none when a measured ratio is within :tolerance of it, or
-- when that count is measured already.
WITH r AS (SELECT v7.partitions AS n, v7.lookups_per_sec / v4.lookups_per_sec AS ratio
      FROM pl v7 JOIN pl v4 USING (plan_cache_mode, call_n, mode)
      WHERE plan_cache_mode = 'auto' AND mode = :'mode' AND v7.layout LIKE 'uuidv7%' AND v4.layout LIKE 'uuidv4, partitioned%'),
    pair AS (SELECT a.n AS an, a.ratio AS ar, b.n AS bn, b.ratio AS br FROM r a
      JOIN LATERAL (SELECT * FROM r b WHERE b.n > a.n ORDER BY b.n LIMIT 1) b ON true
      WHERE a.ratio < :target AND b.ratio >= :target ORDER BY a.n LIMIT 1),
    next AS (SELECT round(exp(ln(an) + (ln(:target) - ln(ar)) * (ln(bn) - ln(an)) / (ln(br) - ln(ar))))::int AS n FROM pair)
SELECT n FROM next WHERE NOT EXISTS (SELECT FROM r WHERE abs(r.ratio - :target) <= :tolerance * :target OR r.n = next.n);
