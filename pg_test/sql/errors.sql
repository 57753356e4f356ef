-- Every error keybench raises for bad input: SQLSTATE, message, detail and hint.
CREATE EXTENSION IF NOT EXISTS keybench;
CREATE FUNCTION pg_temp.err(q text, OUT state text, OUT message text, OUT detail text, OUT hint text)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  state := 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                          detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END $$;
\x on
SELECT * FROM pg_temp.err($$SELECT public.uuidv7('-1000 years')$$);
SELECT * FROM pg_temp.err($$SELECT public.uuidv7('9000 years')$$);
SELECT * FROM pg_temp.err($$SELECT ulid_to_uuid('01ARZ3NDEK')$$);
SELECT * FROM pg_temp.err($$SELECT ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAU')$$);
SELECT * FROM pg_temp.err($$SELECT ulid_to_uuid('80000000000000000000000000')$$);
SELECT * FROM pg_temp.err($$SELECT ulid_extract_timestamp('01ARZ3NDEKTSV4RRFFQ69G5FA!')$$);
SELECT * FROM pg_temp.err($$SELECT nanoid(0)$$);
SELECT * FROM pg_temp.err($$SELECT nanoid(2000000)$$);
SELECT * FROM pg_temp.err($$SELECT nanoid(10, '')$$);
SELECT * FROM pg_temp.err($$SELECT nanoid(10, 'abcda')$$);
SELECT * FROM pg_temp.err($$SELECT nanoid(10, (SELECT string_agg(chr(256 + i), '') FROM generate_series(0, 255) i))$$);
SELECT * FROM pg_temp.err($$SELECT snowflake_timestamp(-5)$$);
SELECT * FROM pg_temp.err($$SET keybench.node_id = 1024$$);
SELECT * FROM pg_temp.err($$SET keybench.node_id = -1$$);
SELECT * FROM pg_temp.err($$SELECT * FROM keybench_generator_cost(0)$$);
SELECT * FROM pg_temp.err($$SELECT * FROM keybench_generator_cost(1000, 0)$$);
\x off
