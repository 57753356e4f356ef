//! [`RunRequest`]'s validation into [`Params`] (its fields and defaults are the knobs'
//! declaration, [`super::knobs`]).

use super::*;

/// The default of `users`: customer_id and user_id from 0 to 100,000.
pub const DEFAULT_USERS: i32 = 100_000;

impl RunRequest {
    /// The request for `rows` rows of `kind`, every knob at its default.
    pub fn new(kind: &str, rows: i64) -> Self {
        RunRequest {
            kind: kind.into(),
            rows,
            ..Default::default()
        }
    }

    /// The parameters the workers read, or what is wrong with the request.
    pub fn validate(&self) -> Result<Params, RunError> {
        let k = Kind::parse(&self.kind)
            .ok_or_else(|| RunError::UnknownKind(UnknownKind(self.kind.clone())))?;
        let rows = self.rows;
        if !(1..=MAX_ROWS).contains(&rows) {
            return Err(RunError::Rows(rows));
        }
        let batch_size = self.batch_size.unwrap_or_else(|| DEFAULT_BATCH.min(rows));
        if !(1..=rows.min(MAX_BATCH)).contains(&batch_size) {
            return Err(RunError::BatchSize(batch_size, rows));
        }
        if !(1..=MAX_CLIENTS as i32).contains(&self.clients) {
            return Err(RunError::Clients(self.clients));
        }
        if !(0..=MAX_PAYLOAD).contains(&self.payload_width) {
            return Err(RunError::PayloadWidth(self.payload_width));
        }
        if !(10..=100).contains(&self.fillfactor) {
            return Err(RunError::Fillfactor(self.fillfactor));
        }
        let clock = self.clock()?;
        if k == Kind::Snowflake && clock.ids_per_ms != 0 {
            return Err(RunError::SnowflakeClock("ids_per_ms"));
        }
        if k == Kind::Snowflake && clock.clock_skew_ms != 0 {
            return Err(RunError::SnowflakeClock("clock_skew_ms"));
        }
        let shape = Shape::parse(&self.shape).ok_or_else(|| RunError::Shape(self.shape.clone()))?;
        let method =
            Method::parse(&self.method).ok_or_else(|| RunError::Method(self.method.clone()))?;
        let mut p = Params {
            rows,
            batch_size,
            clients: self.clients,
            payload_width: self.payload_width,
            fillfactor: self.fillfactor,
            kind: k as u8,
            shape: shape as u8,
            method: method as u8,
            checkpoint_first: self.checkpoint_first,
            keep: self.keep,
            ids_per_ms: clock.ids_per_ms,
            subms_random: clock.subms == Subms::Random,
            clock_skew_ms: clock.clock_skew_ms,
            readers: 0,
            read_recent: false,
            distributed: false,
            shard_count: 0,
            wait_for_standbys: false,
            standby_timeout: DEFAULT_STANDBY_TIMEOUT,
            pause_standby: self.pause_standby,
            checkpoint_every: 0,
            users: DEFAULT_USERS,
            node_per_client: false,
            identity_cache: 1,
            skew_model: clock.skew_model as u8,
            wal_compression: match &self.wal_compression {
                None => 0,
                Some(w) => {
                    WalCompression::parse(w).ok_or_else(|| RunError::WalCompression(w.clone()))?
                        as u8
                        + 1
                }
            },
            synchronous_commit: match &self.synchronous_commit {
                None => 0,
                Some(c) => {
                    SynchronousCommit::parse(c)
                        .ok_or_else(|| RunError::SynchronousCommit(c.clone()))?
                        as u8
                        + 1
                }
            },
            children: 0,
            rows_per_child: 0,
            fk_after: false,
            onto: 0,
            onto_kind: 0,
            isolation: 0,
            read_before_write: false,
        };
        self.curve(&mut p)?;
        self.readers(&mut p)?;
        self.distribution(&mut p)?;
        self.standbys(&mut p)?;
        self.children(&mut p)?;
        self.onto(&mut p)?;
        self.transactions(&mut p)?;
        Ok(p)
    }

    /// The writers' transactions: their isolation, and whether each reads its new keys first.
    /// The read needs the keys before the INSERT, so COPY's methods (the key from the default or
    /// the COPY data), children (the parents' keys from the INSERT) and a switch (the key in
    /// the INSERT) cannot have it; a distributed run neither (its reads go through Citus).
    fn transactions(&self, p: &mut Params) -> Result<(), RunError> {
        if let Some(i) = &self.isolation {
            p.isolation =
                Isolation::parse_level(i).ok_or_else(|| RunError::Isolation(i.clone()))? as u8 + 1;
        }
        if !self.read_before_write {
            return Ok(());
        }
        let with = match p.method() {
            Method::Copy | Method::CopyKeys => Some(format!("method {}", p.method().name())),
            Method::Insert | Method::Single if p.children > 0 => Some("children".into()),
            Method::Insert | Method::Single if p.onto > 0 => Some("onto".into()),
            Method::Insert | Method::Single if p.distributed => Some("distributed".into()),
            Method::Insert | Method::Single => None,
        };
        if let Some(w) = with {
            return Err(RunError::ReadBeforeWrite(w));
        }
        p.read_before_write = true;
        Ok(())
    }

    /// The clock knobs of experiments B and C, for the time-ordered generators.
    fn clock(&self) -> Result<Clock, RunError> {
        if !(0..=crate::generators::clock::MAX_IDS_PER_MS).contains(&self.ids_per_ms) {
            return Err(RunError::IdsPerMs(self.ids_per_ms));
        }
        if !(0..=MAX_SKEW_MS).contains(&self.clock_skew_ms) {
            return Err(RunError::Skew(self.clock_skew_ms));
        }
        let subms = Subms::parse(&self.uuidv7_subms)
            .ok_or_else(|| RunError::Subms(self.uuidv7_subms.clone()))?;
        let skew_model = match &self.skew_model {
            None => SkewModel::Client,
            Some(m) => SkewModel::parse(m).ok_or_else(|| RunError::SkewModel(m.clone()))?,
        };
        if skew_model != SkewModel::Client && self.clock_skew_ms == 0 {
            return Err(RunError::SkewModelWithoutSkew(skew_model.name()));
        }
        Ok(Clock {
            ids_per_ms: self.ids_per_ms,
            subms,
            clock_skew_ms: self.clock_skew_ms,
            skew_model,
        })
    }

    /// The knobs that set a run's place on the cost curve (docs/results/CURVE.md): rows per
    /// checkpoint, the user_id index's spread, Snowflake's nodes, the identity's cache.
    fn curve(&self, p: &mut Params) -> Result<(), RunError> {
        if let Some(n) = self.checkpoint_every {
            if n < p.batch_size.max(1) || n > p.rows {
                return Err(RunError::CheckpointEvery(n, p.batch_size, p.rows));
            }
            p.checkpoint_every = n;
        }
        if let Some(u) = self.users {
            if p.shape().users_column().is_none() {
                return Err(RunError::UsersShape(u));
            }
            if u < 1 {
                return Err(RunError::Users(u));
            }
            p.users = u;
        }
        if self.node_per_client && p.kind() != Kind::Snowflake {
            return Err(RunError::NodePerClient(p.kind().name()));
        }
        p.node_per_client = self.node_per_client;
        if let Some(n) = self.identity_cache {
            if p.kind() != Kind::Bigint {
                return Err(RunError::IdentityCacheKind(p.kind().name()));
            }
            if !(1..=MAX_IDENTITY_CACHE).contains(&n) {
                return Err(RunError::IdentityCache(n));
            }
            p.identity_cache = n;
        }
        Ok(())
    }

    /// Readers during the load.
    fn readers(&self, p: &mut Params) -> Result<(), RunError> {
        let spare = MAX_CLIENTS as i32 - p.clients;
        if !(0..=spare).contains(&self.readers) {
            return Err(RunError::Readers(self.readers, spare));
        }
        p.readers = self.readers;
        p.read_recent = match Workload::parse(&self.read_workload) {
            Some(Workload::Point) => false,
            Some(Workload::Recent) => true,
            Some(Workload::Range | Workload::Join | Workload::Group) | None => {
                return Err(RunError::ReadWorkload(self.read_workload.clone()))
            }
        };
        Ok(())
    }

    /// A Citus distributed table (whether Citus is there is the extension's check).
    fn distribution(&self, p: &mut Params) -> Result<(), RunError> {
        if !self.distributed {
            return match self.shard_count {
                Some(n) => Err(RunError::ShardCountLocal(n)),
                None => Ok(()),
            };
        }
        if let Some(n) = self.shard_count {
            if !(1..=MAX_SHARDS).contains(&n) {
                return Err(RunError::ShardCount(n));
            }
        }
        match p.method() {
            Method::Copy | Method::CopyKeys => {
                return Err(RunError::Distributed(format!(
                    "method {}, whose COPY goes into the coordinator's table without Citus",
                    p.method().name()
                )))
            }
            Method::Insert | Method::Single => {}
        }
        if p.readers > 0 {
            return Err(RunError::Distributed(
                "readers, which read the coordinator's own pages".into(),
            ));
        }
        if p.wal_compression > 0 {
            return Err(RunError::Distributed(
                "wal_compression, which sets the coordinator's sessions while the rows' WAL is \
                 written on the Citus workers"
                    .into(),
            ));
        }
        if p.synchronous_commit > 0 {
            return Err(RunError::Distributed(
                "synchronous_commit, which sets the coordinator's sessions while the rows are \
                 committed on the Citus workers"
                    .into(),
            ));
        }
        p.distributed = true;
        p.shard_count = self.shard_count.unwrap_or(0);
        Ok(())
    }

    /// Foreign-key children: how many tables, rows per parent row, when their keys are checked.
    /// Every kind and shape can have them (a child's parent_id has the key's own type); the
    /// loads that cannot are COPY's (one table per COPY) and distributed ones.
    fn children(&self, p: &mut Params) -> Result<(), RunError> {
        if !(0..=MAX_CHILDREN).contains(&self.children) {
            return Err(RunError::Children(self.children));
        }
        if self.children == 0 {
            if let Some(k) = self.rows_per_child {
                return Err(RunError::ChildKnob("rows_per_child", k.to_string()));
            }
            if let Some(f) = &self.fk_check {
                return Err(RunError::ChildKnob("fk_check", f.clone()));
            }
            return Ok(());
        }
        let k = self.rows_per_child.unwrap_or(1);
        if !(1..=MAX_ROWS_PER_CHILD).contains(&k) {
            return Err(RunError::RowsPerChild(k));
        }
        let fk = match &self.fk_check {
            None => FkCheck::PerRow,
            Some(f) => FkCheck::parse(f).ok_or_else(|| RunError::FkCheck(f.clone()))?,
        };
        match p.method() {
            Method::Copy | Method::CopyKeys => {
                return Err(RunError::ChildrenMethod(p.method().name()))
            }
            Method::Insert | Method::Single => {}
        }
        if p.distributed {
            return Err(RunError::Distributed(
                "children, whose foreign keys Citus needs co-located with the parent".into(),
            ));
        }
        let all = p.rows as i128 * (1 + self.children as i128 * k as i128);
        if all > MAX_ROWS as i128 {
            return Err(RunError::ChildRows {
                rows: p.rows,
                children: self.children,
                rows_per_child: k,
            });
        }
        p.children = self.children;
        p.rows_per_child = k;
        p.fk_after = fk == FkCheck::After;
        Ok(())
    }

    /// A switch of generator onto an earlier run's kept table (its kind, shape and state are the
    /// extension's checks, from keybench.runs): the rows' keys come from the INSERT (bigint's from
    /// the column's own identity or sequence default), so COPY's methods cannot switch.
    fn onto(&self, p: &mut Params) -> Result<(), RunError> {
        let Some(id) = self.onto else { return Ok(()) };
        if id < 1 {
            return Err(RunError::Onto(id));
        }
        match p.method() {
            Method::Copy | Method::CopyKeys => {
                return Err(RunError::OntoWith(
                    id,
                    format!("method {}", p.method().name()),
                ))
            }
            Method::Insert | Method::Single => {}
        }
        if p.children > 0 {
            return Err(RunError::OntoWith(id, "children".into()));
        }
        if p.distributed {
            return Err(RunError::Distributed("onto".into()));
        }
        p.onto = id;
        // The table is the earlier run's: never dropped by this one.
        p.keep = true;
        Ok(())
    }

    /// The wait for the server's streaming standbys at the end of the load.
    fn standbys(&self, p: &mut Params) -> Result<(), RunError> {
        if !(1..=MAX_STANDBY_TIMEOUT).contains(&self.standby_timeout) {
            return Err(RunError::StandbyTimeout(self.standby_timeout));
        }
        p.wait_for_standbys = self.wait_for_standbys;
        p.standby_timeout = self.standby_timeout;
        Ok(())
    }
}

/// The clock knobs, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Clock {
    ids_per_ms: i32,
    subms: Subms,
    clock_skew_ms: i32,
    skew_model: SkewModel,
}
