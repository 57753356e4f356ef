-- The runs' figures, from every server of part A, into the last one.
CREATE TABLE gaps_a_runs (label text, block int, pos int, clients int, kind text, identity_cache int, run_id bigint,
    seconds float8, rows_per_sec float8, call_s numeric, cluster_cpu_s numeric, machine_busy_s numeric, load1 numeric,
    wal_inits bigint, wal_init_ms numeric, checkpoints bigint, density float8);
CREATE TABLE gaps_a_waits (label text, block int, clients int, kind text, identity_cache int, wait_event_type text, wait_event text, samples bigint);
