-- uuidv4 to bigint through a new column, online, in the steps keybench_plan gives for a new key
-- column (its uuid column beside a bigint key, the other way round): the column with a sequence
-- default (new rows get theirs at once), the existing rows backfilled in committed batches in heap
-- order (the order they were written in), VACUUM, a NOT VALID check validated, the unique index
-- built CONCURRENTLY, and the swap in one short transaction: the new index becomes the primary key,
-- the uuid column is dropped (keep_uuid false) or stays as the ids the world sees, with a unique
-- index of its own built CONCURRENTLY before the swap (keep_uuid true). Each step timed, its WAL
-- from the insert position, into the table migrated.
-- Variables: run (the kept run), table (its table, schema-qualified), seq (the new sequence,
-- schema-qualified), pkey (its primary key's name), keep_uuid (true or false).
CREATE TABLE IF NOT EXISTS migrated (run_id bigint, step int, what text, seconds float8, wal_bytes bigint,
                                     table_bytes bigint);
SELECT set_config('keybench_report.run', :'run', false), set_config('keybench_report.table', :'table', false),
       set_config('keybench_report.seq', :'seq', false);
CREATE FUNCTION pg_temp.mark(what text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r bigint := current_setting('keybench_report.run')::bigint;
BEGIN
  IF what IS NOT NULL THEN
    INSERT INTO migrated
    SELECT r, (SELECT count(*) + 1 FROM migrated WHERE run_id = r), what,
           extract(epoch FROM clock_timestamp() - current_setting('keybench_report.t0')::timestamptz),
           pg_wal_lsn_diff(pg_current_wal_insert_lsn(), current_setting('keybench_report.l0')::pg_lsn)::bigint,
           pg_total_relation_size(current_setting('keybench_report.table')::regclass);
  END IF;
  PERFORM set_config('keybench_report.t0', clock_timestamp()::text, false),
          set_config('keybench_report.l0', pg_current_wal_insert_lsn()::text, false);
END $$;

-- As on a table loaded long before: vacuumed (hint bits set, pages all-visible, as autovacuum
-- leaves a table), then a checkpoint, so each page's first change writes its image. Autovacuum
-- is kept off the table meanwhile, so that its visits fall in no step's WAL: the VACUUM after the
-- backfill is the migration's own.
ALTER TABLE :table SET (autovacuum_enabled = off);
VACUUM (ANALYZE) :table;
CHECKPOINT;
SELECT pg_temp.mark(NULL);
ALTER TABLE :table ADD COLUMN id_new bigint;
CREATE SEQUENCE :seq OWNED BY :table.id_new;
ALTER TABLE :table ALTER COLUMN id_new SET DEFAULT nextval(:'seq');
SELECT pg_temp.mark('the column, its sequence and default (catalog only)');
-- Batches of about 10,000 rows by heap pages, each committed; rows updated earlier (their new
-- versions) and rows inserted meanwhile already have theirs.
DO $$
DECLARE
  t regclass := current_setting('keybench_report.table')::regclass;
  pages bigint := pg_relation_size(t) / current_setting('block_size')::bigint;
  per bigint;
  lo bigint := 0;
BEGIN
  EXECUTE format('SELECT greatest(1, (10000 * %s / greatest(count(*), 1))::bigint) FROM %s', pages, t) INTO per;
  WHILE lo < pages LOOP
    EXECUTE format('UPDATE %s SET id_new = nextval(%L) WHERE ctid >= %L::tid AND ctid < %L::tid AND id_new IS NULL',
                   t, current_setting('keybench_report.seq'), format('(%s,0)', lo), format('(%s,0)', lo + per));
    COMMIT;
    lo := lo + per;
  END LOOP;
END $$;
SELECT pg_temp.mark('the backfill, batches of about 10,000 rows, each committed');
VACUUM :table;
SELECT pg_temp.mark('VACUUM');
ALTER TABLE :table ADD CONSTRAINT id_new_not_null CHECK (id_new IS NOT NULL) NOT VALID;
ALTER TABLE :table VALIDATE CONSTRAINT id_new_not_null;
SELECT pg_temp.mark('a NOT VALID check, validated');
CREATE UNIQUE INDEX CONCURRENTLY id_new_key ON :table (id_new);
SELECT pg_temp.mark('the bigint unique index, CONCURRENTLY');
\if :keep_uuid
CREATE UNIQUE INDEX CONCURRENTLY public_id_key ON :table (id);
SELECT pg_temp.mark('the uuid''s own unique index, CONCURRENTLY');
\endif
BEGIN;
ALTER TABLE :table ALTER COLUMN id_new SET NOT NULL;
ALTER TABLE :table DROP CONSTRAINT :pkey;
ALTER TABLE :table ADD CONSTRAINT :pkey PRIMARY KEY USING INDEX id_new_key;
ALTER TABLE :table DROP CONSTRAINT id_new_not_null;
\if :keep_uuid
ALTER TABLE :table RENAME COLUMN id TO public_id;
\else
ALTER TABLE :table DROP COLUMN id;
\endif
ALTER TABLE :table RENAME COLUMN id_new TO id;
COMMIT;
SELECT pg_temp.mark(CASE WHEN :'keep_uuid'::bool THEN 'the swap: the bigint the key, the uuid column kept'
                         ELSE 'the swap: the bigint the key, the uuid column dropped' END);
SELECT count(*) FROM migrated WHERE run_id = :'run'::bigint;
