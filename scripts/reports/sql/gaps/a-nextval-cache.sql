SET jit = off;
CREATE SEQUENCE gaps_seq; CREATE SEQUENCE gaps_seq_cache CACHE :cache;
CREATE FUNCTION pg_temp.ns(expr text, calls int, rounds int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t timestamptz; ns float8[] := '{}';
BEGIN
  FOR i IN 1..rounds LOOP
    t := clock_timestamp();
    EXECUTE format('SELECT count(%s) FROM generate_series(1, %s)', expr, calls);
    ns := ns || extract(epoch FROM clock_timestamp() - t) * 1e9 / calls;
  END LOOP;
  RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ns) x);
END $$;
WITH m AS (SELECT e, pg_temp.ns(e, :calls, :rounds) AS ns FROM unnest(ARRAY['1', 'nextval(''gaps_seq'')', 'nextval(''gaps_seq_cache'')', 'public.uuidv7()', 'pg_catalog.uuidv7()']) WITH ORDINALITY u(e, o) ORDER BY o)
SELECT e AS expr, round(ns::numeric, 1) AS ns_per_call, round((ns - (SELECT ns FROM m WHERE e = '1'))::numeric, 1) AS net_ns FROM m;
