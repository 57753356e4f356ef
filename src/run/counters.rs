//! The counters one batch adds up (WAL, shared buffers, index blocks).

/// The counters one batch adds up.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counters {
    pub wal_bytes: i64,
    pub wal_records: i64,
    pub wal_fpi: i64,
    pub shared_hit: i64,
    pub shared_read: i64,
    pub shared_dirtied: i64,
    pub shared_written: i64,
    pub index_blks_read: i64,
    pub index_blks_hit: i64,
}

impl std::ops::AddAssign for Counters {
    fn add_assign(&mut self, o: Counters) {
        self.wal_bytes += o.wal_bytes;
        self.wal_records += o.wal_records;
        self.wal_fpi += o.wal_fpi;
        self.shared_hit += o.shared_hit;
        self.shared_read += o.shared_read;
        self.shared_dirtied += o.shared_dirtied;
        self.shared_written += o.shared_written;
        self.index_blks_read += o.index_blks_read;
        self.index_blks_hit += o.index_blks_hit;
    }
}
