//! [`Params`]: a run's parameters as the workers read them from the shared segment (plain data),
//! and what they derive from them: the statements, the row keybench.runs records.

use super::*;

/// A run's parameters, as stored in shared memory (plain data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Params {
    pub rows: i64,
    pub batch_size: i64,
    pub clients: i32,
    pub payload_width: i32,
    pub fillfactor: i32,
    pub kind: u8,
    pub shape: u8,
    pub method: u8,
    pub checkpoint_first: bool,
    pub keep: bool,
    /// Simulated ids per millisecond for the time-ordered generators (0: the real clock).
    pub ids_per_ms: i32,
    /// Random rather than counter sub-millisecond bits in uuidv7.
    pub subms_random: bool,
    /// Clients' clocks are spread evenly over -clock_skew_ms..+clock_skew_ms.
    pub clock_skew_ms: i32,
    /// Workers that read the table while it loads (after the `clients` loaders), and what they
    /// read: 0 point lookups, 1 lookups of the newest rows.
    pub readers: i32,
    pub read_recent: bool,
    /// A Citus distributed table hashed on the key, with `shard_count` shards (0: Citus's
    /// citus.shard_count).
    pub distributed: bool,
    pub shard_count: i32,
    /// Wait at the end of the load, at most `standby_timeout` seconds, for the server's streaming
    /// standbys to replay up to the load's end LSN.
    pub wait_for_standbys: bool,
    pub standby_timeout: i32,
    /// keybench_replay: pause replay on the standby in the segment during the load, then time it.
    pub pause_standby: bool,
    /// A CHECKPOINT after every this many rows of the load, all clients together (0: none but the
    /// server's own): the rows per checkpoint cycle, whatever the machine's speed.
    pub checkpoint_every: i64,
    /// customer_id (shape a) and user_id (shape c) are drawn from 0 to this many.
    pub users: i32,
    /// Snowflake: each client its own node id (its client number) and so its own counter.
    pub node_per_client: bool,
    /// bigint: the identity's sequence CACHE (1, PostgreSQL's default: none).
    pub identity_cache: i32,
    /// How clients' clocks are off ([`SkewModel`] as stored).
    pub skew_model: u8,
    /// The workers' wal_compression: 0 the server's, else [`WalCompression`] as stored plus 1.
    pub wal_compression: u8,
    /// The workers' synchronous_commit: 0 the server's, else [`SynchronousCommit`] as stored plus 1.
    pub synchronous_commit: u8,
    /// Foreign-key child tables of the run's table (0: none), each loaded with `rows_per_child`
    /// rows per parent row in the parent's transaction, their foreign keys checked per row or
    /// added after the load (`fk_after`).
    pub children: i32,
    pub rows_per_child: i32,
    pub fk_after: bool,
    /// A switch of generator: the rows go into the kept table of run `onto` (0: none), of kind
    /// `onto_kind` (as stored; the leader sets it from keybench.runs), each row's key made by this
    /// run's kind in the INSERT itself.
    pub onto: i64,
    pub onto_kind: u8,
    /// The writers' transaction isolation: 0 the server's default, else [`Isolation`] as stored
    /// plus 1.
    pub isolation: u8,
    /// Each transaction first looks its new keys up in the primary key (one index probe per row,
    /// as an application's check that a row is not there yet), then inserts them.
    pub read_before_write: bool,
}

impl Params {
    /// The row keybench.runs records for this run, under the run lock `lock_key`.
    pub fn record(&self, lock_key: i32) -> RunRecord {
        RunRecord {
            kind: self.kind().name(),
            rows: self.rows,
            batch_size: self.batch_size,
            clients: self.clients,
            payload_width: self.payload_width,
            shape: self.shape().name(),
            method: self.method().name(),
            fillfactor: self.fillfactor,
            checkpoint_first: self.checkpoint_first,
            keep: self.keep,
            ids_per_ms: self.ids_per_ms,
            uuidv7_subms: if self.subms_random {
                Subms::Random.name()
            } else {
                Subms::Counter.name()
            },
            clock_skew_ms: self.clock_skew_ms,
            lock_key,
            checkpoint_every: (self.checkpoint_every > 0).then_some(self.checkpoint_every),
            users: self.shape().users_column().map(|_| self.users),
            node_per_client: self.node_per_client,
            identity_cache: (self.kind() == Kind::Bigint).then_some(self.identity_cache),
            skew_model: self.skew_model().name(),
            children: (self.children > 0).then_some(self.children),
            rows_per_child: (self.children > 0).then_some(self.rows_per_child),
            fk_check: (self.children > 0).then(|| self.fk_check().name()),
            onto: (self.onto > 0).then_some(self.onto),
            isolation: self.isolation().map(Isolation::level),
            read_before_write: self.read_before_write,
        }
    }

    /// The writers' isolation, None for the server's default.
    pub fn isolation(&self) -> Option<Isolation> {
        (self.isolation > 0).then(|| {
            Isolation::from_u8(self.isolation - 1)
                .unwrap_or_else(|| corrupt("isolation", self.isolation))
        })
    }

    /// read_before_write: one batch of `n` rows whose keys, made first by `key` (the kind's
    /// generator; bigint's identity sequence's nextval, the identity overridden), are each looked
    /// up in the primary key (one probe per key: the workers plan it as a nested loop over the
    /// index) before the rows go in, as an application checks that a row is not there yet. The
    /// check's one row is joined to every new row, so every probe is made before the first insert;
    /// a key found would fail the insert as a duplicate.
    pub fn insert_checked(&self, table: &str, key: &str, n: i64) -> String {
        let (cols, exprs) = self.shape().row(self.payload_width, self.users);
        let overriding = if self.kind() == Kind::Bigint {
            " OVERRIDING SYSTEM VALUE"
        } else {
            ""
        };
        format!(
            "WITH k AS MATERIALIZED (SELECT {key} AS id FROM generate_series(1, {n})), \
             c AS (SELECT count(*) AS found FROM k WHERE EXISTS (SELECT 1 FROM {table} t WHERE t.id = k.id)) \
             INSERT INTO {table} (id, {cols}){overriding} SELECT k.id, {exprs} FROM k CROSS JOIN c"
        )
    }

    /// A switch's earlier run's kind (the leader sets it).
    pub fn onto_kind(&self) -> Kind {
        Kind::from_u8(self.onto_kind).unwrap_or_else(|| corrupt("onto kind", self.onto_kind))
    }

    /// When the children's foreign keys are checked.
    pub fn fk_check(&self) -> FkCheck {
        if self.fk_after {
            FkCheck::After
        } else {
            FkCheck::PerRow
        }
    }

    /// The statements that create child `i`'s table `child` (schema-qualified and quoted) of the
    /// run's table `table`, whose key has SQL type `key_type`: its own bigint identity, the
    /// parent's key, a payload of the parent's width, and an index on the parent's key; with
    /// fk_check per_row, the foreign key from the start (else [`Params::add_foreign_key`]).
    pub fn create_child(&self, table: &str, child: &str, key_type: &str) -> Vec<String> {
        let fk = if self.fk_after {
            String::new()
        } else {
            format!(", FOREIGN KEY (parent_id) REFERENCES {table} (id)")
        };
        vec![
            format!(
                "CREATE TABLE {child} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
                 parent_id {key_type} NOT NULL, payload text NOT NULL{fk})"
            ),
            format!(
                "CREATE INDEX ON {child} (parent_id) WITH (fillfactor = {})",
                self.fillfactor
            ),
        ]
    }

    /// fk_check after: the statement that adds child `child`'s foreign key once loaded.
    pub fn add_foreign_key(&self, table: &str, child: &str) -> String {
        format!("ALTER TABLE {child} ADD FOREIGN KEY (parent_id) REFERENCES {table} (id)")
    }

    /// With children: one batch of `n` parent rows whose new keys go to the temporary table
    /// `ids` (which writes no WAL), for the children's statements to read.
    pub fn insert_parents(&self, table: &str, ids: &str, n: i64) -> String {
        let (cols, exprs) = self.shape().row(self.payload_width, self.users);
        format!(
            "WITH p AS (INSERT INTO {table} ({cols}) SELECT {exprs} FROM generate_series(1, {n}) RETURNING id) \
             INSERT INTO {ids} (id) SELECT id FROM p"
        )
    }

    /// With children: child `child`'s rows for the parents in `ids`, `rows_per_child` per parent,
    /// in the parents' order (each parent's rows together, as an application writes them).
    pub fn insert_children(&self, child: &str, ids: &str) -> String {
        format!(
            "INSERT INTO {child} (parent_id, payload) SELECT i.id, repeat('x', {}) \
             FROM {ids} i CROSS JOIN LATERAL generate_series(1, {}) g",
            self.payload_width, self.rows_per_child
        )
    }

    /// The workers' synchronous_commit, None for the server's.
    pub fn synchronous_commit(&self) -> Option<SynchronousCommit> {
        (self.synchronous_commit > 0).then(|| {
            SynchronousCommit::from_u8(self.synchronous_commit - 1)
                .unwrap_or_else(|| corrupt("synchronous_commit", self.synchronous_commit))
        })
    }

    /// The workers' wal_compression, None for the server's.
    pub fn wal_compression(&self) -> Option<WalCompression> {
        (self.wal_compression > 0).then(|| {
            WalCompression::from_u8(self.wal_compression - 1)
                .unwrap_or_else(|| corrupt("wal_compression", self.wal_compression))
        })
    }

    pub fn kind(&self) -> Kind {
        Kind::from_u8(self.kind).unwrap_or_else(|| corrupt("kind", self.kind))
    }
    pub fn shape(&self) -> Shape {
        Shape::from_u8(self.shape).unwrap_or_else(|| corrupt("shape", self.shape))
    }
    pub fn skew_model(&self) -> SkewModel {
        SkewModel::from_u8(self.skew_model)
            .unwrap_or_else(|| corrupt("skew model", self.skew_model))
    }
    pub fn method(&self) -> Method {
        Method::from_u8(self.method).unwrap_or_else(|| corrupt("method", self.method))
    }

    /// The clock offset of client `i`: evenly spread over -clock_skew_ms..+clock_skew_ms (the
    /// client skew model; 0 for the others, whose offsets are drawn per transaction or per id).
    pub fn client_skew_ms(&self, i: i32) -> i32 {
        if self.clients <= 1 || self.clock_skew_ms == 0 || self.skew_model() != SkewModel::Client {
            return 0;
        }
        let span = 2 * self.clock_skew_ms as i64;
        (-(self.clock_skew_ms as i64) + span * i as i64 / (self.clients as i64 - 1)) as i32
    }

    /// Number of batches.
    pub fn batches(&self) -> i64 {
        (self.rows + self.batch_size - 1) / self.batch_size
    }

    /// Rows in batch `b` (0-based), None past the end.
    pub fn batch_rows(&self, b: i64) -> Option<i64> {
        let first = b.checked_mul(self.batch_size)?;
        (b >= 0 && first < self.rows).then(|| self.batch_size.min(self.rows - first))
    }

    /// The statements that create the run's table: `table` is schema-qualified and quoted.
    pub fn create_table(&self, ext: &str, table: &str, index: &str) -> Vec<String> {
        let shape = self.shape();
        let mut key = self.kind().column(ext);
        if self.identity_cache > 1 {
            key = format!("{key} (CACHE {})", self.identity_cache);
        }
        let mut sql = vec![format!(
            "CREATE TABLE {table} ({}, {}, CONSTRAINT {index} PRIMARY KEY (id) WITH (fillfactor = {}))",
            key,
            shape.columns(),
            self.fillfactor
        )];
        if shape == Shape::C {
            for col in ["user_id", "created_at"] {
                sql.push(format!(
                    "CREATE INDEX ON {table} ({col}) WITH (fillfactor = {})",
                    self.fillfactor
                ));
            }
        }
        sql
    }

    /// The statement that distributes the run's table over the Citus cluster, hashed on the key.
    pub fn distribute(&self, table: &str) -> Option<String> {
        let lit = format!("'{}'", table.replace('\'', "''"));
        self.distributed.then(|| match self.shard_count {
            0 => format!("SELECT pg_catalog.create_distributed_table({lit}, 'id')"),
            n => format!(
                "SELECT pg_catalog.create_distributed_table({lit}, 'id', shard_count => {n})"
            ),
        })
    }

    /// A switch's key expression for the INSERT: the new kind's generator; None when the table's
    /// own default makes the key (no switch, or a switch to bigint, whose keys are the column's
    /// identity or sequence: a bigint key is a column property, not a generator).
    fn switch_key(&self, ext: &str) -> Option<String> {
        (self.onto > 0 && self.kind() != Kind::Bigint).then(|| self.kind().default_expr(ext))
    }

    /// One batch of `n` rows in one statement; a switch (`onto`) makes each row's key in the
    /// statement with this run's kind (`ext`: keybench's quoted schema), the table's default
    /// being the earlier run's.
    pub fn insert_batch(&self, table: &str, ext: &str, n: i64) -> String {
        let (cols, exprs) = self.shape().row(self.payload_width, self.users);
        if let Some(key) = self.switch_key(ext) {
            return format!(
                "INSERT INTO {table} (id, {cols}) SELECT {key}, {exprs} FROM generate_series(1, {n})"
            );
        }
        format!("INSERT INTO {table} ({cols}) SELECT {exprs} FROM generate_series(1, {n})")
    }

    /// Whether COPY sends the key in its data: with method copy_keys, for the kinds keybench
    /// generates itself (bigint identity and the server's own functions stay with the default).
    pub fn key_in_copy_data(&self) -> bool {
        self.method() == Method::CopyKeys && self.kind().keybench_generates()
    }

    /// The columns COPY is given (created_at, and the key unless sent, come from their defaults).
    pub fn copy_columns(&self) -> Vec<&'static str> {
        let mut cols = Vec::with_capacity(3);
        if self.key_in_copy_data() {
            cols.push("id");
        }
        match self.shape() {
            Shape::A => cols.extend(["customer_id", "payload"]),
            Shape::C => cols.extend(["user_id", "payload"]),
            Shape::D => cols.push("payload"),
        }
        cols
    }

    /// One row in one statement (a switch: its key made in the statement, as in
    /// [`Params::insert_batch`]).
    pub fn insert_one(&self, table: &str, ext: &str) -> String {
        let (cols, exprs) = self.shape().row(self.payload_width, self.users);
        if let Some(key) = self.switch_key(ext) {
            return format!("INSERT INTO {table} (id, {cols}) VALUES ({key}, {exprs})");
        }
        format!("INSERT INTO {table} ({cols}) VALUES ({exprs})")
    }
}
