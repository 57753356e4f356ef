-- Every error keybench raises for bad input: SQLSTATE, message, detail and hint.
CREATE EXTENSION IF NOT EXISTS keybench;
\x on
SELECT * FROM regress.err($$SELECT public.uuidv7('-1000 years')$$);
SELECT * FROM regress.err($$SELECT public.uuidv7('9000 years')$$);
SELECT * FROM regress.err($$SELECT ulid_to_uuid('01ARZ3NDEK')$$);
SELECT * FROM regress.err($$SELECT ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAU')$$);
SELECT * FROM regress.err($$SELECT ulid_to_uuid('80000000000000000000000000')$$);
SELECT * FROM regress.err($$SELECT ulid_extract_timestamp('01ARZ3NDEKTSV4RRFFQ69G5FA!')$$);
SELECT * FROM regress.err($$SELECT nanoid(0)$$);
SELECT * FROM regress.err($$SELECT nanoid(2000000)$$);
SELECT * FROM regress.err($$SELECT nanoid(10, '')$$);
SELECT * FROM regress.err($$SELECT nanoid(10, 'abcda')$$);
SELECT * FROM regress.err($$SELECT nanoid(10, (SELECT string_agg(chr(256 + i), '') FROM generate_series(0, 255) i))$$);
SELECT * FROM regress.err($$SELECT snowflake_timestamp(-5)$$);
SELECT * FROM regress.err($$SET keybench.node_id = 1024$$);
SELECT * FROM regress.err($$SET keybench.node_id = -1$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_generator_cost(0)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_generator_cost(1000, 0)$$);
\x off
-- Distributed runs and shard density need Citus, which this server does not have.
\x on
SELECT * FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, distributed => true)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, shard_count => 4)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, distributed => true, shard_count => 0)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, distributed => true, method => 'copy_keys')$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, distributed => true, readers => 1)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, distributed => NULL)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_shard_density('keybench.runs_pkey')$$);
\x off
-- Standbys and the I/O bill.
\x on
SELECT * FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, standby_timeout => 0)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, standby_timeout => 86401)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, wait_for_standbys => NULL)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_io_cost(NULL)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_io_cost('{}')$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_io_cost(ARRAY[1, NULL])$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_io_cost(ARRAY[999999])$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_io_cost(ARRAY[1], inserts_per_sec => 0)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_io_cost(ARRAY[1], inserts_per_sec => 'NaN')$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_io_cost(ARRAY[1], price_per_million_requests => -1)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_io_cost(ARRAY[1], read_page_bytes => 100)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_io_cost(ARRAY[1], write_unit_bytes => 0)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_io_cost(ARRAY[1], from_rows => -1)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_io_cost(ARRAY[1], hours_per_month => 745)$$);
\x off
