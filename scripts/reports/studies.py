"""The studies' own figures (docs/EXPERIMENTS.md names each study and lists them), which the reports quote beside what they
measure. Data typed once, here, with where each comes from: never a measurement of this machine,
and never prose (scripts/tests/reports-check.py keeps figures out of the reports' strings).
"""

# Experiment A: 10 million rows from 4 pgbench connections in 1000-row batches, PostgreSQL 18.
A_ROWS = 10_000_000
A_CLIENTS = 4
A_BATCH = 1000
A_BIGINT_S = (7.2, 7.8)  # bigint's load time, seconds (lowest, highest)
A_UUIDV7_S = (11.1, 13.8)  # uuidv7()'s

# Experiment B: seven keys at 1 million rows through COPY, PostgreSQL 17.
B_ROWS = 1_000_000
B_MAJOR = 17
B_VERSION = "17.11"
B_BIGINT_WAL_MB = 96  # bigint's COPY WAL, MB (MiB)
B_SNOWFLAKE_DENSITY = 80.8  # Snowflake's leaf density, %
B_SNOWFLAKE_FRAGMENTATION = 9.7  # and leaf fragmentation, %

# Experiment C: 100 million rows, 16 pgbench clients, single-row transactions, memory capped, a standby.
C_ROWS = 100_000_000
C_CLIENTS = 16
C_SKEW_S = 60  # the clients' clocks differed by up to +/- this many seconds
C_UUIDV7_DENSITY = 69  # uuidv7's leaf density under that skew, %
C_UUIDV7_OUT_OF_ORDER = 45  # and its leaves out of order, %
C_LOOKUP_RATIO = 16  # uuidv7 partitioned by id against uuidv4 by created_at, lookups/s ratio
C_LOOKUP_V7_PER_S = "41k"
C_LOOKUP_V4_PER_S = "2.6k"
C_REPLAY_BEFORE = 2.4  # uuidv4's standby replay per row over the ordered keys', before the memory limit
C_REPLAY_AFTER = 5.5  # and after it
C_IO_COST_USD = (457, 486)  # uuidv4 over uuidv7, dollars a month (Aurora I/O)
C_LAST_TENTH_RATIO = (1.5, 1.9)  # uuidv4's WAL over the ordered keys' in the last tenth of the load
C_INTERVAL_MIN = (5, 30)  # checkpoint intervals compared, minutes
C_INTERVAL_CHANGE_PCT = -39  # uuidv4's WAL change from the shorter to the longer
C_LZ4_CHANGE_PCT = -7  # wal_compression = lz4's change of uuidv4's WAL
C_ROWS_PER_CYCLE = 10_000_000  # rows per checkpoint cycle at its spacing (minutes apart)

# Experiment D: the cache cliff, shared_buffers 128 MB.
D_READS_START_ROWS = "~2.8M"  # where the index's reads started
D_OUTGROWS_ROWS = "~3.3M"  # where the index outgrew shared_buffers
