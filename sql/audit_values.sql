-- The audit's value sample and a key's kind, in SQL (the first part of the audit's SQL is
-- sql/audit.sql, which says who runs it):
--   keybench.audit_value(v, is_uuid)     the form of one key value, its version and its time
--   keybench.audit_values(table, column) a bounded sample of a key's values: their forms, versions
--                                        and times, and whether new rows' keys land in order
--   keybench.audit_classify(...)         the key's kind, from its default and from its values
-- None of them writes; the sample reads a bounded number of pages.
-- (Part of the install script: src/lib.rs includes sql/*.sql in order. Not an upgrade script.)

-- The form of one key value, from its text: uuid (the native type, text of 36 characters, or 32 hex
-- digits), ULID (26 characters of Crockford's base32), KSUID, ObjectId, cuid, XID, a Firebase push
-- id, text that begins with a Unix time in decimal (13 digits: milliseconds, 10: seconds), a
-- content hash's 40 or 64 hex digits, an integer, or other text; each perhaps after a prefix
-- ('m-', 'tr-', 'prod_', 'invoice_item_': letters and digits in parts joined by '_', ending in
-- '-', '_' or ':'), which is returned apart. For a uuid form: its version (RFC 9562's nibble,
-- 'non-rfc' for another variant) and the Unix milliseconds in its first 48 bits; for the
-- time-prefixed forms the Unix milliseconds of their time.
CREATE FUNCTION keybench.audit_value(v text, is_uuid boolean)
RETURNS TABLE (form text, prefix text, version text, ms bigint)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  m text[];
  body text;
  hex text;
  i int;
  d int;
  acc bigint := 0;
BEGIN
  prefix := '';
  IF is_uuid THEN
    form := 'uuid';
    hex := replace(v, '-', '');
  ELSE
    -- A prefix: letters and digits, in parts joined by '_' ('invoice_item_'), up to 40 characters
    -- with its separator, before a body of a form read below (a uuid's text or hex, a ULID, or
    -- letters and digits).
    m := regexp_match(v, '^([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*[-_:])'
                         '([0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}|[0-9A-Za-z]{14,})$');
    IF length(m[1]) > 40 THEN m := NULL; END IF;
    body := v;
    IF m IS NOT NULL AND (m[2] ~* '^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$'
                          OR m[2] ~* '^[0-7][0-9a-hjkmnp-tv-z]{25}$'
                          OR m[2] ~ '^[0-9A-Za-z]{27}$'
                          -- random characters after a lowercase prefix ending in '_', as Stripe's
                          -- 'cus_' and 24 of base62: read as text after the prefix
                          OR (m[2] ~ '^[0-9A-Za-z]{14,}$' AND m[1] ~ '^[a-z][a-z0-9]*(_[a-z0-9]+)*_$')) THEN
      prefix := m[1];
      body := m[2];
    ELSE
      -- A TypeID: a prefix of up to 63 lowercase letters and underscores, '_', and 26 lowercase
      -- characters of Crockford's base32 (a uuid, v7 by the specification).
      m := regexp_match(v, '^([a-z](?:[a-z_]{0,61}[a-z])?_)([0-7][0-9a-hjkmnp-tv-z]{25})$');
      IF m IS NOT NULL THEN
        prefix := m[1];
        body := m[2];
      END IF;
    END IF;
    IF body ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
      form := 'text36';
      hex := lower(replace(body, '-', ''));
    ELSIF body ~* '^[0-9a-f]{32}$' THEN
      form := 'hex32';
      hex := lower(body);
    ELSIF body ~* '^[0-7][0-9a-hjkmnp-tv-z]{25}$' THEN
      form := 'ulid';
      FOR i IN 1..10 LOOP
        d := strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(body, i, 1))) - 1;
        acc := acc * 32 + d;
      END LOOP;
      ms := acc;
      -- Bits 48-51 and 64-65 of the 128 (in characters 11 and 14 after the 2 bits of padding): a
      -- uuid v7's version and variant, as a TypeID holds them (a ULID's are random there).
      IF (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(body, 11, 1))) - 1) >> 1 = 7
         AND ((strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(body, 14, 1))) - 1) >> 2) & 3 = 2 THEN
        version := 'v7';
      END IF;
      RETURN NEXT;
      RETURN;
    ELSIF body ~* '^[0-9a-f]{40}$' OR body ~* '^[0-9a-f]{64}$' THEN
      -- 40 or 64 hex digits: a SHA-1's or a SHA-256's length (a content hash; no time in it).
      form := CASE length(body) WHEN 40 THEN 'sha1' ELSE 'sha256' END;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[0-9a-f]{24}$' THEN
      -- A MongoDB ObjectId's hex: 4 bytes of seconds since 1970, then random and a counter.
      form := 'objectid';
      ms := ('x' || substr(body, 1, 8))::bit(32)::bigint * 1000;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^c[0-9a-z]{24}$' THEN
      -- A cuid (v1): 'c', the time in milliseconds in 8 characters of base36, then a counter, a
      -- fingerprint and random characters.
      form := 'cuid';
      FOR i IN 2..9 LOOP
        acc := acc * 36 + strpos('0123456789abcdefghijklmnopqrstuvwxyz', substr(body, i, 1)) - 1;
      END LOOP;
      ms := acc;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[0-9A-Za-z]{27}$' THEN
      -- A KSUID: 27 characters of base62 holding 160 bits, 4 bytes of seconds since 2014-05-13
      -- 16:53:20 UTC (1400000000), then 16 random bytes.
      DECLARE n numeric := 0;
      BEGIN
        FOR i IN 1..27 LOOP
          n := n * 62 + strpos('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', substr(body, i, 1)) - 1;
        END LOOP;
        IF n < 2::numeric ^ 160 THEN
          form := 'ksuid';
          ms := ((floor(n / 2::numeric ^ 128) + 1400000000) * 1000)::bigint;
        ELSE
          form := 'text';
        END IF;
      END;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[0-9a-v]{20}$' THEN
      -- An XID: 12 bytes in 20 characters of base32hex (0-9a-v), the first 4 bytes seconds since
      -- 1970 (the first 7 characters' 35 bits, less the last 3), then a machine, a process id and
      -- a counter.
      form := 'xid';
      FOR i IN 1..7 LOOP
        acc := acc * 32 + strpos('0123456789abcdefghijklmnopqrstuv', substr(body, i, 1)) - 1;
      END LOOP;
      ms := (acc >> 3) * 1000;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[-0-9A-Za-z_]{20}$' THEN
      -- A Firebase push id: 20 characters of a 64-character alphabet in ASCII order, the first 8
      -- the Unix milliseconds (6 bits each), then 12 random characters (incremented within one
      -- millisecond by the client that made them).
      form := 'pushid';
      FOR i IN 1..8 LOOP
        acc := acc * 64 + strpos('-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz', substr(body, i, 1)) - 1;
      END LOOP;
      ms := acc;
      RETURN NEXT;
      RETURN;
    ELSIF v ~ '^-?[0-9]{1,19}$' THEN
      form := 'integer';
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[0-9]{13}[^0-9]' THEN
      -- Text that begins with a Unix time in decimal and goes on: milliseconds (13 digits) ...
      form := 'timetext-ms';
      ms := left(body, 13)::bigint;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[0-9]{10}[^0-9]' THEN
      -- ... or seconds (10 digits).
      form := 'timetext-s';
      ms := left(body, 10)::bigint * 1000;
      RETURN NEXT;
      RETURN;
    ELSE
      form := 'text';
      RETURN NEXT;
      RETURN;
    END IF;
  END IF;
  version := CASE WHEN substr(hex, 17, 1) IN ('8', '9', 'a', 'b') THEN 'v' || substr(hex, 13, 1) ELSE 'non-rfc' END;
  ms := ('x' || substr(hex, 1, 12))::bit(48)::bigint;
  RETURN NEXT;
END $$;

-- A bounded sample of the values of key column `col` of table `tab`, read-only, as jsonb:
--   - `sample_pages` heap pages spread evenly over the table (TID range scans: each reads its one
--     page, so the sample costs the same on a 100 GB table as on a small one), and the rows of its
--     last pages (the newest rows of a table that is appended to);
--   - the highest key through the index (its rightmost leaf), and whether its row is among the
--     newest.
-- What the values are: their forms and versions with the share of each, the times in them, and
-- the order new rows' keys take: each newest row's key ranked among the spread rows' keys of its
-- own form and version (1: above them all), the median of those ranks against what keys in
-- insertion order would give. Pages read and rows sampled are in the result.
CREATE FUNCTION keybench.audit_values(tab regclass, col name, sample_pages int DEFAULT 32, tail_pages int DEFAULT 2)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  nblocks bigint;
  k int;
  tail_from bigint;
  parts text[] := '{}';
  b bigint;
  i int;
  q text;
  is_uuid boolean;
  is_int boolean;
  result jsonb;
  top_q text;
  top_plan json;
  top_tid tid;
  blocks bigint[] := '{}';
  ext name;
  updated bigint[] := '{}';
  frozen bigint[] := '{}';
  heap jsonb;
  updates_read boolean := false;
BEGIN
  nblocks := pg_relation_size(tab) / current_setting('block_size')::int;
  IF nblocks = 0 THEN
    RETURN jsonb_build_object('pages', 0, 'rows', 0, 'newest_rows', 0);
  END IF;
  SELECT t.typname = 'uuid', t.typname IN ('int2', 'int4', 'int8', 'numeric')
    INTO is_uuid, is_int
    FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
    WHERE a.attrelid = tab AND a.attname = col;
  tail_from := greatest(nblocks - tail_pages, 0);
  -- The highest key's row, read through the index backwards, and only so: where no index gives the
  -- column's order (another collation or operator class), the plan would scan the whole table, and
  -- the sample goes without it.
  top_q := format('SELECT ctid FROM %s WHERE %I IS NOT NULL ORDER BY %I DESC LIMIT 1', tab, col, col);
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || top_q INTO top_plan;
  IF top_plan::text LIKE '%"Scan Direction": "Backward"%' AND top_plan::text NOT LIKE '%"Sort"%' THEN
    EXECUTE top_q INTO top_tid;
  END IF;
  k := least(sample_pages::bigint, tail_from)::int;
  -- The spread pages, then the tail as one TID range: every bound is a constant, so the planner
  -- makes each a TID Range Scan (never a sequential scan).
  FOR i IN 0 .. k - 1 LOOP
    b := (i::bigint * tail_from) / k;
    blocks := blocks || b;
    parts := parts || format('SELECT ctid AS t, age(xmin) AS xage, %I AS key FROM %s WHERE ctid >= %L::tid AND ctid < %L::tid',
                             col, tab, format('(%s,0)', b), format('(%s,0)', b + 1));
  END LOOP;
  parts := parts || format('SELECT ctid AS t, age(xmin) AS xage, %I AS key FROM %s WHERE ctid >= %L::tid',
                           col, tab, format('(%s,0)', tail_from));
  blocks := blocks || ARRAY(SELECT generate_series(tail_from, nblocks - 1));
  -- The sampled pages' tuple headers, where keybench is installed to read them
  -- (keybench_audit_pages): the rows an UPDATE wrote, by xmin as young as new rows but with old
  -- keys, so ranked neither as new keys nor among the older ones; the frozen rows, old rows
  -- whatever the age of their xmin reads (a freeze keeps the raw xmin, whose age wraps once the
  -- table has lived through 2^31 transactions); and the dead tuples and free space, the deletes
  -- the statistics counters lose on a standby or at a reset. Without it (the plain-SQL audit), an
  -- updated row counts as a new one, a frozen row is old only where its xmin's age reads negative
  -- (or is FrozenTransactionId's), and no page is read for deletes.
  SELECT n.nspname INTO ext FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'keybench';
  IF ext IS NOT NULL
     AND to_regprocedure(format('%I.keybench_audit_pages(regclass, bigint[])', ext)) IS NOT NULL THEN
    BEGIN
      EXECUTE format('SELECT %I.keybench_audit_pages($1, $2)', ext) INTO heap USING tab, blocks;
      updated := ARRAY(SELECT x::bigint FROM jsonb_array_elements_text(heap->'updated') x);
      frozen := ARRAY(SELECT x::bigint FROM jsonb_array_elements_text(heap->'frozen') x);
      updates_read := true;
    EXCEPTION WHEN OTHERS THEN
      updated := '{}';
      frozen := '{}';
      heap := NULL;
    END;
  END IF;
  q := format($q$
    WITH s AS MATERIALIZED (%s),
    -- The newest rows, by the age of the transaction that wrote each row (xmin), rows of one
    -- transaction by their place in the heap: wherever a row was put (the table's end, or free
    -- space after deletes), its xmin says when, and the rows of a table loaded in one transaction
    -- are ordered as written. Ranked for the order: the youngest quarter of each class's sampled
    -- rows (at least 30 of 60 or more; newest_in_class), or of them all (newest). What the
    -- inserts make now (a switch of version): the youngest twentieth of the sample, at least 10 (latest).
    f0 AS MATERIALIZED (
      SELECT s.t, s.key, s.xage, f.form, f.prefix, f.version, f.ms
      FROM s, keybench.audit_value(s.key::text, %L) f
      WHERE s.key IS NOT NULL),
    -- A prefix before random characters ('cus_') is a prefix where a tenth of the sampled
    -- values or more share it; else it is the random text's own ('aj_' in a nanoid).
    f1 AS MATERIALIZED (
      SELECT f0.t, f0.key, f0.xage, f0.form, f0.version, f0.ms,
             CASE WHEN f0.form = 'text' AND f0.prefix <> '' AND count(*) OVER (PARTITION BY f0.prefix) * 10 < count(*) OVER ()
                  THEN '' ELSE f0.prefix END AS prefix
      FROM f0),
    f AS MATERIALIZED (
      SELECT f.t, f.key, f.form, f.prefix, f.version, f.ms,
             ((f.t::text::point)[0]::bigint * 65536 + (f.t::text::point)[1]::bigint) = ANY (%L::bigint[]) AS upd,
             -- A frozen row is an old row: older than every row not frozen, frozen rows among
             -- themselves by their raw xmin's age where it reads as one.
             CASE WHEN ((f.t::text::point)[0]::bigint * 65536 + (f.t::text::point)[1]::bigint) = ANY (%L::bigint[])
                       OR f.xage < 0 OR f.xage = 2147483647
                  THEN 2147483648 + greatest(f.xage, 0) ELSE f.xage::bigint END AS xage,
             ((f.t::text::point)[0]::bigint * 65536 + (f.t::text::point)[1]::bigint) = ANY (%L::bigint[])
               OR f.xage < 0 OR f.xage = 2147483647 AS frozen_row,
             -- the class a key is ranked in: its version for a uuid form, else its form and
             -- prefix (each prefix of a column that holds several, user_ and org_, is an
             -- append point of its own)
             CASE WHEN f.form NOT IN ('uuid', 'text36', 'hex32') THEN f.form || CASE WHEN f.prefix <> '' THEN ' ' || f.prefix ELSE '' END
                  WHEN f.version IN ('v1', 'v4', 'v6', 'v7', 'v8') THEN f.version ELSE 'other' END AS class
      FROM f1 f),
    -- Rows an UPDATE wrote are left out where 60 or more others remain to rank; else (a table
    -- whose every row is updated soon after its insert) they count as new, and sources say so.
    fa AS MATERIALIZED (
      SELECT f.*, f.upd AND (SELECT count(*) FILTER (WHERE NOT f2.upd) >= 60 FROM f f2) AS apart FROM f),
    v AS MATERIALIZED (
      SELECT f.*,
             NOT f.apart AND row_number() OVER young
               <= greatest(count(*) FILTER (WHERE NOT f.apart) OVER () / 4, least(30, count(*) FILTER (WHERE NOT f.apart) OVER () / 2))
               AS newest,
             NOT f.apart AND row_number() OVER (PARTITION BY f.class ORDER BY f.apart, f.xage, f.t DESC)
               <= greatest(count(*) FILTER (WHERE NOT f.apart) OVER (PARTITION BY f.class) / 4,
                           least(30, count(*) FILTER (WHERE NOT f.apart) OVER (PARTITION BY f.class) / 2))
               AS newest_in_class,
             NOT f.apart AND row_number() OVER young
               <= greatest(count(*) FILTER (WHERE NOT f.apart) OVER () / 20, least(10, count(*) FILTER (WHERE NOT f.apart) OVER ()))
               AS latest
      FROM fa f WINDOW young AS (ORDER BY f.apart, f.xage, f.t DESC)),
    -- Each newest key's rank among the older sampled keys (of its class, and of all; rows an UPDATE
    -- wrote are neither): the share of them below it, counted in one pass over the keys in order (a key index's keys are
    -- distinct, so the older keys up to a newest one are those below it).
    ranked AS (
      SELECT w.class, w.old_below::float8 / nullif(w.old_in_class, 0) AS rank
      FROM (SELECT v.class, v.newest_in_class,
                   count(*) FILTER (WHERE NOT v.newest_in_class AND NOT v.apart) OVER (PARTITION BY v.class ORDER BY v.key) AS old_below,
                   count(*) FILTER (WHERE NOT v.newest_in_class AND NOT v.apart) OVER (PARTITION BY v.class) AS old_in_class
            FROM v) w
      WHERE w.newest_in_class),
    ranked_all AS (
      SELECT w.old_below::float8 / nullif(w.old_all, 0) AS rank_all
      FROM (SELECT v.newest,
                   count(*) FILTER (WHERE NOT v.newest AND NOT v.apart) OVER (ORDER BY v.key) AS old_below,
                   count(*) FILTER (WHERE NOT v.newest AND NOT v.apart) OVER () AS old_all
            FROM v) w
      WHERE w.newest),
    -- The class the inserts make now: the latest rows' most common.
    now_class AS (SELECT class FROM v WHERE latest GROUP BY class ORDER BY count(*) DESC, class LIMIT 1),
    -- Within the time unit a key begins with: the newest keys that share their time with another,
    -- each against the one written before it (xmin, then place in the heap); a key below the one
    -- before it landed out of order within its unit (a random tail, not a counter).
    within AS (
      SELECT w.key, lag(w.key) OVER (PARTITION BY w.ms ORDER BY w.xage DESC, w.t) AS prev
      FROM v w WHERE w.newest_in_class AND w.class = (TABLE now_class) AND w.ms IS NOT NULL)
    SELECT jsonb_strip_nulls(jsonb_build_object(
      'pages', %s,
      'spread_pages', %s,
      'tail_pages', %s,
      'table_pages', %s,
      'rows', (SELECT count(*) FROM v),
      'updated_rows', (SELECT count(*) FROM v WHERE upd),
      'updated_apart', (SELECT bool_or(apart) FROM v),
      'frozen_rows', (SELECT count(*) FROM v WHERE frozen_row),
      'newest_rows', (SELECT count(*) FROM v WHERE latest),
      'transactions', (SELECT count(DISTINCT xage) FROM v),
      'newest_transactions', (SELECT count(DISTINCT xage) FROM v WHERE newest_in_class AND class = (TABLE now_class)),
      'newest_in_tail', (SELECT count(*) FROM v WHERE newest_in_class AND class = (TABLE now_class) AND t >= %L::tid),
      'within_unit_pairs', (SELECT count(*) FROM within WHERE prev IS NOT NULL),
      'within_unit_descending', (SELECT count(*) FROM within WHERE key < prev),
      'forms', (SELECT jsonb_object_agg(form, n) FROM (SELECT form, count(*) AS n FROM v GROUP BY form) x),
      'prefixes', (SELECT jsonb_object_agg(prefix, n) FROM (SELECT prefix, count(*) AS n FROM v WHERE prefix <> '' GROUP BY prefix) x),
      'versions', (SELECT jsonb_object_agg(version, n) FROM (SELECT version, count(*) AS n FROM v WHERE version IS NOT NULL GROUP BY version) x),
      'newest_versions', (SELECT jsonb_object_agg(version, n) FROM (SELECT version, count(*) AS n FROM v WHERE latest AND version IS NOT NULL GROUP BY version) x),
      'newest_class', (TABLE now_class),
      'v7_first_ms', (SELECT min(ms) FROM v WHERE version = 'v7'),
      'v7_last_ms', (SELECT max(ms) FROM v WHERE version = 'v7'),
      'ulid_first_ms', (SELECT min(ms) FROM v WHERE form = 'ulid'),
      'ulid_last_ms', (SELECT max(ms) FROM v WHERE form = 'ulid'),
      'nonrfc_first_ms', (SELECT percentile_disc(0.1) WITHIN GROUP (ORDER BY ms) FROM v WHERE version = 'non-rfc'),
      'nonrfc_last_ms', (SELECT percentile_disc(0.9) WITHIN GROUP (ORDER BY ms) FROM v WHERE version = 'non-rfc'),
      'v4_first_ms', (SELECT percentile_disc(0.1) WITHIN GROUP (ORDER BY ms) FROM v WHERE version = 'v4'),
      'v4_last_ms', (SELECT percentile_disc(0.9) WITHIN GROUP (ORDER BY ms) FROM v WHERE version = 'v4'),
      'text_time_min_ms', (SELECT min(ms) FROM v WHERE form IN ('ksuid', 'objectid', 'cuid', 'xid', 'pushid', 'timetext-ms', 'timetext-s')),
      'text_time_max_ms', (SELECT max(ms) FROM v WHERE form IN ('ksuid', 'objectid', 'cuid', 'xid', 'pushid', 'timetext-ms', 'timetext-s')),
      'int_min', (SELECT min(key::text::numeric) FROM v WHERE form = 'integer'),
      'int_max', (SELECT max(key::text::numeric) FROM v WHERE form = 'integer'),
      -- (of the text after a prefix, where there is one)
      'text_lengths', (SELECT jsonb_object_agg(l, n) FROM (SELECT length(key::text) - length(prefix) AS l, count(*) AS n FROM v WHERE form = 'text' GROUP BY 1) x),
      'text_prefix_share', (SELECT max(n)::float8 / sum(n) FROM (SELECT count(*) AS n FROM v WHERE form = 'text' GROUP BY left(substr(key::text, length(prefix) + 1), 2)) x),
      'text_alphabet', (SELECT CASE WHEN bool_and(substr(key::text, length(prefix) + 1) ~ '^[0-9a-f]+$') THEN 'hex'
                                    WHEN bool_and(substr(key::text, length(prefix) + 1) ~ '^[0-9a-z]+$') THEN 'lower alphanumeric'
                                    WHEN bool_and(substr(key::text, length(prefix) + 1) ~ '^[0-9A-Za-z]+$') THEN 'alphanumeric'
                                    WHEN bool_and(substr(key::text, length(prefix) + 1) ~ '^[0-9A-Za-z_-]+$') THEN 'url-safe'
                                    ELSE 'mixed' END FROM v WHERE form = 'text'),
      'newest_rank', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY rank) FROM ranked WHERE rank IS NOT NULL AND class = (TABLE now_class)),
      'ranked_rows', (SELECT count(rank) FROM ranked WHERE class = (TABLE now_class)),
      'newest_rank_all', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY rank_all) FROM ranked_all WHERE rank_all IS NOT NULL),
      'ranked_rows_all', (SELECT count(rank_all) FROM ranked_all),
      'time_text_lengths', (SELECT jsonb_object_agg(l, n) FROM (SELECT length(key::text) AS l, count(*) AS n FROM v WHERE form IN ('timetext-ms', 'timetext-s') GROUP BY 1) x),
      -- each newest key among the older keys of its own class, every class: the order of a column
      -- of several prefixes, each ranked among its own
      'newest_rank_classes', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY rank) FROM ranked WHERE rank IS NOT NULL),
      'ranked_rows_classes', (SELECT count(rank) FROM ranked),
      'key_bytes', (SELECT round(avg(pg_column_size(key)), 1) FROM v),
      'highest_key_is_newest', %L::tid >= %L::tid))
    $q$, array_to_string(parts, E'\nUNION ALL '), is_uuid, updated, frozen, frozen,
        k + (nblocks - tail_from), k, nblocks - tail_from, nblocks, format('(%s,0)', tail_from),
        top_tid, format('(%s,0)', tail_from));
  EXECUTE q INTO result;
  -- The sampled pages' dead tuples and free space (the spread pages' free space alone: the
  -- table's last pages are being filled).
  IF heap IS NOT NULL THEN
    result := result || jsonb_build_object(
      'heap_live', heap->'live', 'heap_dead', heap->'dead', 'fillfactor', heap->'fillfactor',
      'heap_pages', (SELECT count(*) FROM jsonb_array_elements(heap->'free') x WHERE x <> 'null'),
      'heap_spread_pages', (SELECT count(*) FROM jsonb_array_elements(heap->'free') WITH ORDINALITY a(x, i)
                            WHERE a.i <= k AND a.x <> 'null'),
      'heap_spread_free', (SELECT coalesce(sum(a.x::text::bigint), 0) FROM jsonb_array_elements(heap->'free') WITH ORDINALITY a(x, i)
                           WHERE a.i <= k AND a.x <> 'null'));
  END IF;
  RETURN result || jsonb_build_object('updates_read', updates_read);
END $$;

-- A key's kind, from its default (the column's default expression or identity) and from its
-- values (keybench.audit_values' sample, or NULL): the values decide where they were sampled and
-- recognised, since the client may make keys its default never does; the default decides
-- otherwise. Returns the kind (the labels of keybench_audit's key_kind, which src/inspect/audit/
-- reads), how it was decided, the key's form in storage and its bytes per key, the kinds its
-- values hold with the share of each, when the table switched from v4 to v7 keys (the first v7
-- time the sample holds), where it holds several kinds those of its newest rows ('v7 40 of the 40
-- newest rows'), whether new rows' keys land in order, and a note when the default and the values
-- disagree.
CREATE FUNCTION keybench.audit_classify(type_name text, identity text, default_expr text, columns int,
                                        is_expression boolean, vals jsonb)
RETURNS TABLE (kind text, basis text, key_form text, key_bytes float8, value_kinds text,
               switched_at timestamptz, newest_kinds text, insert_order text, newest_rank float8, ranked_rows int,
               note text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  d text := lower(coalesce(default_expr, ''));
  is_text boolean := type_name = 'text' OR type_name LIKE 'character%' OR type_name = 'name';
  by_default text;
  by_values text;
  rows bigint := coalesce((vals->>'rows')::bigint, 0);
  forms jsonb := coalesce(vals->'forms', '{}');
  versions jsonb := coalesce(vals->'versions', '{}');
  newest text := vals->>'newest_class';
  main text;
  main_form text;
  twitter_epoch_ms constant bigint := 1288834974657;
  plausible_from constant bigint := 1420070400000; -- 2015-01-01, in Unix milliseconds
  now_ms bigint := (extract(epoch FROM now()) * 1000)::bigint + 86400000;
  shares text;
  sf_epoch text;
  sf_ms numeric;
  sf_named boolean;
  -- the prefixes the values hold: several, each an append point of its own
  prefixes int := (SELECT count(*) FROM jsonb_object_keys(coalesce(vals->'prefixes', '{}')));
BEGIN
  key_bytes := (vals->>'key_bytes')::float8;
  insert_order := 'unknown';
  IF columns > 1 THEN
    kind := 'composite'; basis := 'catalog'; RETURN NEXT; RETURN;
  END IF;
  IF is_expression THEN
    kind := 'expression'; basis := 'catalog'; RETURN NEXT; RETURN;
  END IF;
  -- By the default.
  by_default := CASE
    WHEN identity IN ('a', 'd') THEN 'identity'
    WHEN d LIKE '%nextval(%' THEN 'sequence'
    WHEN d LIKE '%snowflake_id(%' THEN 'snowflake'
    WHEN d LIKE '%ulid_uuid(%' OR d LIKE '%ulid_monotonic_uuid(%' THEN 'ulid as uuid'
    WHEN d LIKE '%ulid%' THEN CASE WHEN is_text THEN 'ulid as text' ELSE 'ulid as uuid' END
    WHEN d LIKE '%nanoid(%' THEN 'random text'
    WHEN d LIKE '%uuidv7(%' OR d LIKE '%uuid_generate_v7(%' THEN CASE WHEN is_text THEN 'uuid v7 as text' ELSE 'uuid v7' END
    WHEN d LIKE '%gen_random_uuid(%' OR d LIKE '%uuidv4(%' OR d LIKE '%uuid_generate_v4(%'
      THEN CASE WHEN is_text THEN 'uuid v4 as text' ELSE 'uuid v4 (random)' END
    WHEN d LIKE '%uuid_generate_v1%' THEN 'uuid v1'
  END;
  -- By the values: the sample's most frequent version (or form); where it holds v4 and v7 keys
  -- alike, the newest rows' (a table that switched is what its inserts make now).
  main := coalesce((SELECT v.key FROM jsonb_each_text(versions) v ORDER BY v.value::bigint DESC, v.key LIMIT 1),
                   (SELECT f.key FROM jsonb_each_text(forms) f ORDER BY f.value::bigint DESC, f.key LIMIT 1));
  IF coalesce((versions->>'v4')::bigint, 0) * 100 >= rows AND coalesce((versions->>'v7')::bigint, 0) * 100 >= rows
     AND (coalesce((versions->>'v4')::bigint, 0) + coalesce((versions->>'v7')::bigint, 0)) * 10 >= rows * 9
     AND newest IN ('v4', 'v7') THEN
    main := newest;
  END IF;
  main_form := (SELECT f.key FROM jsonb_each_text(forms) f ORDER BY f.value::bigint DESC, f.key LIMIT 1);
  -- A Snowflake-like integer's epoch and layout: of the known ones, those that put every sampled
  -- key between 2010 and now, the one that puts the highest key latest (a key made today read
  -- with an earlier epoch reads years ago); named where its highest key is from the last year or
  -- it is the only one that fits, else the epoch is unknown. Only Twitter's is decoded further
  -- (keybench's snowflake_timestamp reads that epoch).
  IF main_form = 'integer' AND (vals->>'int_min')::numeric >= 2^40 THEN
    SELECT e.name, e.t_max, e.t_max >= now_ms - 86400000::bigint * 366 OR count(*) OVER () = 1
      INTO sf_epoch, sf_ms, sf_named
      FROM (SELECT x.name, floor((vals->>'int_max')::numeric / x.div) * x.unit + x.epoch AS t_max,
                   floor((vals->>'int_min')::numeric / x.div) * x.unit + x.epoch AS t_min
            FROM (VALUES ('Twitter''s (2010-11-04, milliseconds above 22 bits)', 4194304::numeric, 1, twitter_epoch_ms::numeric),
                         ('Discord''s (2015-01-01, milliseconds above 22 bits)', 4194304, 1, 1420070400000),
                         ('Instagram''s (2011-08-24, milliseconds above 23 bits)', 8388608, 1, 1314220021721),
                         ('Sonyflake''s (2014-09-01, 10 ms units above 24 bits)', 16777216, 10, 1409529600000),
                         ('the Unix epoch (1970, milliseconds above 22 bits)', 4194304, 1, 0)) x(name, div, unit, epoch)) e
      WHERE e.t_min >= 1262304000000 AND e.t_max <= now_ms
      ORDER BY e.t_max DESC LIMIT 1;
    IF NOT coalesce(sf_named, false) THEN sf_epoch := NULL; END IF;
  END IF;
  IF rows > 0 AND main IS NOT NULL THEN
    by_values := CASE
      WHEN main_form IN ('uuid', 'text36', 'hex32') THEN
        CASE main
          WHEN 'v7' THEN 'uuid v7'
          -- A ULID with v4's version and variant bits set over it (python-ulid's to_uuid4, and
          -- the like): its first 48 bits are milliseconds, which for 10 or more random v4 keys
          -- fall between 2015 and now at the 10th and 90th percentiles about never (the window
          -- is 11 of the 8,900 years 48 bits of milliseconds span). Stored as text, it is a uuid
          -- as text (`uuid as text`), not a random `uuid v4 as text`.
          WHEN 'v4' THEN CASE WHEN (vals->'versions'->>'v4')::int >= 10
                                   AND (vals->>'v4_first_ms')::bigint BETWEEN plausible_from AND now_ms
                                   AND (vals->>'v4_last_ms')::bigint BETWEEN plausible_from AND now_ms
                                THEN CASE WHEN main_form = 'uuid' THEN 'ulid as uuid' ELSE 'uuid' END
                              WHEN main_form = 'uuid' THEN 'uuid v4 (random)' ELSE 'uuid v4' END
          WHEN 'v1' THEN 'uuid v1'
          WHEN 'v6' THEN 'uuid v6'
          WHEN 'v8' THEN 'uuid v8'
          WHEN 'non-rfc' THEN
            -- (as text, 32 hex digits or 36 characters: a ULID's or a timeflake's hex, time in
            -- its first 48 bits)
            CASE WHEN (vals->>'nonrfc_first_ms')::bigint BETWEEN plausible_from AND now_ms
                  AND (vals->>'nonrfc_last_ms')::bigint BETWEEN plausible_from AND now_ms
                 THEN CASE WHEN main_form = 'uuid' THEN 'ulid as uuid' ELSE 'ulid as hex text' END
                 ELSE 'uuid (no known version)' END
          ELSE 'uuid (no known version)'
        END
        || CASE WHEN main_form <> 'uuid' AND main IN ('v1', 'v4', 'v6', 'v7', 'v8') THEN ' as text' ELSE '' END
      -- ULIDs (or TypeIDs) after several prefixes (user_, org_): each prefix's keys in order
      -- among themselves, none convertible to a uuid without losing its prefix
      WHEN main_form = 'ulid' AND prefixes > 1 THEN 'ulid as text, per prefix'
      WHEN main_form = 'ulid' THEN 'ulid as text'
      -- Time-prefixed text whose every sampled time lies between 2009 and now: KSUID, ObjectId,
      -- cuid, XID, Firebase push ids, text that begins with a Unix time in decimal (random
      -- characters of the same shape read as times anywhere from 1970 to 2150 or later).
      WHEN main_form IN ('ksuid', 'objectid', 'cuid', 'xid', 'pushid', 'timetext-ms', 'timetext-s')
       AND (vals->>'text_time_min_ms')::bigint >= 1230768000000 AND (vals->>'text_time_max_ms')::bigint <= now_ms
        THEN CASE main_form WHEN 'ksuid' THEN 'ksuid' WHEN 'objectid' THEN 'objectid as text' WHEN 'cuid' THEN 'cuid'
                            WHEN 'xid' THEN 'xid' WHEN 'pushid' THEN 'firebase push id'
                            WHEN 'timetext-ms' THEN 'time-prefixed text (milliseconds)'
                            ELSE 'time-prefixed text (seconds)' END
      WHEN main_form IN ('ksuid', 'objectid', 'cuid', 'xid', 'pushid') AND rows >= 20 THEN 'random text'
      -- 40 or 64 hex digits: a SHA-1's or SHA-256's length; what a content hash is (random)
      WHEN main_form IN ('sha1', 'sha256') THEN 'content hash'
      WHEN main_form = 'integer' THEN
        CASE WHEN sf_epoch LIKE 'Twitter%' THEN 'snowflake'
             WHEN (vals->>'int_min')::numeric >= 2^40 THEN 'snowflake-like integer'
             ELSE 'integer' END
      -- Random identifiers (nanoid, cuid2, random hex, session keys): 20 values or more, of one
      -- length (or two next to each other), of an identifier's alphabet, and no two first
      -- characters shared by half of them; text of other lengths, signs or a common start (names,
      -- slugs, e-mail addresses, 'var_1') is the application's own, and so is a handful of rows.
      WHEN main_form = 'text' AND rows >= 20 AND vals->>'text_alphabet' <> 'mixed'
       AND (SELECT max(l.key::int) - min(l.key::int) FROM jsonb_each(vals->'text_lengths') l) <= 1
       AND (vals->>'text_prefix_share')::float8 < 0.5 THEN 'random text'
    END;
  END IF;
  IF by_values = 'uuid (no known version)' AND main_form <> 'uuid' THEN by_values := 'uuid as text'; END IF;
  IF by_values IN ('integer') AND by_default IN ('identity', 'sequence') THEN
    by_values := NULL; -- the values of a sequence are what its default makes
  END IF;
  IF by_values IS NOT NULL AND NOT (by_values = 'integer' AND by_default IS NULL) THEN
    kind := by_values;
    basis := format('%svalues: %s rows from %s pages',
                    CASE WHEN by_default = by_values THEN 'default, and ' ELSE '' END, rows, vals->>'pages');
    IF by_default IS NOT NULL AND by_default <> by_values THEN
      note := format('its default %s would make %s keys, but the sampled keys are %s: the client makes them', default_expr, by_default, by_values);
    END IF;
  ELSIF by_default IS NOT NULL THEN
    kind := by_default;
    basis := 'default';
  ELSIF by_values = 'integer' THEN
    kind := 'application-supplied integer';
    basis := format('values: %s rows from %s pages', rows, vals->>'pages');
  ELSE
    kind := 'application-supplied';
    basis := CASE WHEN vals IS NULL THEN 'no default, and its values were not read'
                  WHEN rows = 0 THEN 'no default, and no rows' ELSE 'no default, and its values are not recognised' END;
  END IF;
  IF kind = 'snowflake-like integer' THEN
    note := concat_ws('; ', note, CASE WHEN sf_epoch IS NOT NULL
      THEN format('its keys fit %s epoch, the highest read as %s', sf_epoch, to_timestamp(sf_ms / 1000.0))
      ELSE 'its epoch is unknown: no known Snowflake layout puts its keys between 2010 and now, or several do' END);
  END IF;
  -- The form in storage.
  key_form := CASE
    WHEN type_name = 'uuid' THEN 'uuid'
    WHEN main_form = 'text36' THEN 'text: 36 characters'
    WHEN main_form = 'hex32' THEN 'text: 32 hex digits'
    WHEN main_form = 'ulid' AND coalesce((versions->>'v7')::bigint, 0) * 20 >= coalesce((forms->>'ulid')::bigint, 0) * 19
      THEN 'text: 26 characters (TypeID: a uuid v7 in base32)'
    WHEN main_form = 'ulid' THEN 'text: 26 characters (ULID)'
    WHEN main_form = 'ksuid' THEN 'text: 27 characters (KSUID: seconds since 2014-05-13, then 128 random bits)'
    WHEN main_form = 'objectid' THEN 'text: 24 hex digits (ObjectId: seconds, then random and a counter)'
    WHEN main_form = 'cuid' THEN 'text: 25 characters (cuid: c, then milliseconds in base36)'
    WHEN main_form = 'xid' THEN 'text: 20 characters (XID: seconds, then machine, process and counter in base32hex)'
    WHEN main_form = 'pushid' THEN 'text: 20 characters (Firebase push id: milliseconds, then 72 random bits)'
    WHEN main_form = 'timetext-ms' THEN 'text: ' || coalesce((SELECT CASE WHEN count(*) <= 3 THEN string_agg(l.key, ' or ' ORDER BY l.key::int)
                                        ELSE min(l.key::int) || ' to ' || max(l.key::int) END
                            FROM jsonb_each_text(vals->'time_text_lengths') l), '?') || ' characters (Unix milliseconds in 13 digits first)'
    WHEN main_form = 'timetext-s' THEN 'text: ' || coalesce((SELECT CASE WHEN count(*) <= 3 THEN string_agg(l.key, ' or ' ORDER BY l.key::int)
                                        ELSE min(l.key::int) || ' to ' || max(l.key::int) END
                            FROM jsonb_each_text(vals->'time_text_lengths') l), '?') || ' characters (Unix seconds in 10 digits first)'
    WHEN main_form = 'sha1' THEN 'text: 40 hex digits (a SHA-1''s length)'
    WHEN main_form = 'sha256' THEN 'text: 64 hex digits (a SHA-256''s length)'
    WHEN is_text AND main_form = 'text' THEN
      -- up to three lengths named, more as their range
      'text: ' || coalesce((SELECT CASE WHEN count(*) <= 3 THEN string_agg(l.key, ' or ' ORDER BY l.key::int)
                                        ELSE min(l.key::int) || ' to ' || max(l.key::int) END
                            FROM jsonb_each_text(vals->'text_lengths') l), '?')
      || ' characters, ' || coalesce(vals->>'text_alphabet', '?')
    ELSE type_name END
    || coalesce((SELECT format(' after a prefix (%s)', string_agg(p.key, ', ' ORDER BY p.key))
                 FROM jsonb_each_text(vals->'prefixes') p HAVING count(*) > 0), '');
  -- The kinds the values hold, with their shares, when they hold more than one of the versions
  -- RFC 9562 gives an order (v1, v4, v6, v7, v8), each in 1% of the rows or more (a kind whose
  -- version nibble is random, as a ULID's in a uuid, holds none of them in earnest).
  IF rows > 0 AND main IN ('v1', 'v4', 'v6', 'v7', 'v8') THEN
    SELECT string_agg(format('%s %s%%', v.key, round(100.0 * v.value::bigint / rows, 1)), ', ' ORDER BY v.value::bigint DESC, v.key),
           count(*)
      INTO shares
      FROM jsonb_each_text(versions) v
      WHERE v.key IN ('v1', 'v4', 'v6', 'v7', 'v8') AND v.value::bigint * 100 >= rows;
    IF (SELECT count(*) FROM jsonb_each_text(versions) v
        WHERE v.key IN ('v1', 'v4', 'v6', 'v7', 'v8') AND v.value::bigint * 100 >= rows) > 1 THEN
      value_kinds := shares;
    END IF;
  END IF;
  IF versions ? 'v7' AND versions ? 'v4' AND main = 'v7' THEN
    switched_at := to_timestamp((vals->>'v7_first_ms')::bigint / 1000.0);
  END IF;
  -- Where the values hold several kinds: what the newest rows (the table's last pages) hold, so
  -- that a switch is seen to be complete, or another writer seen still to make the old kind.
  IF value_kinds IS NOT NULL THEN
    newest_kinds := (SELECT string_agg(format('%s %s', v.key, v.value), ', ' ORDER BY v.value::bigint DESC, v.key)
                     FROM jsonb_each_text(vals->'newest_versions') v)
                    || format(' of the %s newest rows', vals->>'newest_rows');
  END IF;
  -- The order of new rows' keys: ranked among the sampled keys of their own version where the
  -- version means something (a table that switched from v4 to v7 holds both), else among them all.
  IF main IN ('v1', 'v4', 'v6', 'v7', 'v8') THEN
    newest_rank := (vals->>'newest_rank')::float8;
    ranked_rows := coalesce((vals->>'ranked_rows')::int, 0);
  ELSIF prefixes > 1 AND main_form NOT IN ('uuid', 'text36', 'hex32') THEN
    -- several prefixes: each newest key ranked among the older keys of its own prefix
    newest_rank := (vals->>'newest_rank_classes')::float8;
    ranked_rows := coalesce((vals->>'ranked_rows_classes')::int, 0);
  ELSE
    newest_rank := (vals->>'newest_rank_all')::float8;
    ranked_rows := coalesce((vals->>'ranked_rows_all')::int, 0);
  END IF;
  -- Fewer than 30 newest rows to rank say nothing of the order: a random key's median rank over 30
  -- rows strays past 0.7 about once in a hundred tables.
  insert_order := CASE
    WHEN vals IS NULL OR ranked_rows < 30 THEN 'unknown'
    WHEN newest_rank >= 0.9 THEN 'in order'
    WHEN newest_rank <= 0.7 THEN 'random'
    ELSE 'partly in order' END;
  IF kind = 'ulid as text, per prefix' THEN
    note := concat_ws('; ', note, format('its values hold %s prefixes (%s), each an append point of its own in the index, and their order is measured per prefix; a uuid column would drop the prefix',
                                         prefixes, (SELECT string_agg(p, ', ' ORDER BY p) FROM jsonb_object_keys(vals->'prefixes') p)));
  END IF;
  -- A uuid v1 in a uuid column: its first bytes are its clock's low 32 bits, in order only
  -- within one turn of them.
  IF kind = 'uuid v1' AND type_name = 'uuid' AND insert_order = 'in order' THEN
    note := concat_ws('; ', note, 'uuid v1 stores the low 32 bits of its clock (100 ns units) first, so in a uuid column''s byte order its keys wrap every 429.5 s: the sample''s newest keys are in order, and a load longer than that sweeps its inserts through the middle of the index');
  END IF;
  RETURN NEXT;
END $$;
