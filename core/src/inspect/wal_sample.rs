//! What a sample of the running server reads, in the parts that need no server: a relation's WAL
//! (records and full-page images), how a server reads WAL, pg_walinspect 1.0's block references, and
//! the machine's memory and cgroup limit.

/// The WAL one relation wrote in the window: the records whose first block is one of its blocks
/// (their whole length), and the full-page images of its blocks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RelWal {
    pub wal_bytes: i64,
    pub fpi_bytes: i64,
    pub fpi_count: i64,
}

impl std::ops::AddAssign for RelWal {
    fn add_assign(&mut self, o: RelWal) {
        self.wal_bytes += o.wal_bytes;
        self.fpi_bytes += o.fpi_bytes;
        self.fpi_count += o.fpi_count;
    }
}

/// How keybench reads WAL on this server, or why it cannot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalReader {
    /// pg_walinspect 1.1 (PostgreSQL 16 and later): pg_get_wal_block_info, per block.
    Blocks(String),
    /// pg_walinspect 1.0 (PostgreSQL 15, or an older install): pg_get_wal_records_info, whose
    /// block references are parsed.
    Records(String),
    Unavailable(String),
}

/// A relation's counters at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counts {
    pub inserted: i64,
    pub blocks_read: i64,
}

/// A block reference of pg_get_wal_records_info (PostgreSQL 15's pg_walinspect): each
/// "blkref #N: rel SPC/DB/NODE ... blk B" with "FPW" when it carries a full-page image.
pub fn parse_block_refs(block_ref: &str) -> Vec<(u32, u32, u32, bool)> {
    let mut out = Vec::new();
    for part in block_ref.split("blkref #").skip(1) {
        let Some(rel) = part.split("rel ").nth(1) else {
            continue;
        };
        let ids: Vec<u32> = rel
            .split(|c: char| !c.is_ascii_digit())
            .take(3)
            .filter_map(|n| n.parse().ok())
            .collect();
        if ids.len() == 3 {
            // The image marker belongs to this reference: up to the next one.
            let fpw = part.contains("FPW");
            out.push((ids[0], ids[1], ids[2], fpw));
        }
    }
    out
}

/// The smaller of the machine's memory (/proc/meminfo's MemTotal) and the memory limit of the
/// cgroup this server runs in (v2 memory.max, v1 memory.limit_in_bytes), in bytes.
pub fn memory_bytes() -> Option<i64> {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<i64>().ok())
            .map(|kb| kb * 1024)
    });
    let limit = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|c| cgroup_limit(&c, |p| std::fs::read_to_string(p).ok()));
    match (total, limit) {
        (Some(t), Some(l)) => Some(t.min(l)),
        (t, l) => t.or(l),
    }
}

/// The memory limit of the cgroup named in `proc_self_cgroup` (the text of /proc/self/cgroup),
/// reading files with `read`; None when there is none ("max", or far beyond any machine).
pub fn cgroup_limit(proc_self_cgroup: &str, read: impl Fn(&str) -> Option<String>) -> Option<i64> {
    let parse = |s: String| -> Option<i64> {
        let v: i64 = s.trim().parse().ok()?;
        (v < (1i64 << 60)).then_some(v)
    };
    for line in proc_self_cgroup.lines() {
        let mut f = line.splitn(3, ':');
        let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
        if controllers.is_empty() {
            if let Some(v) = read(&format!("/sys/fs/cgroup{path}/memory.max")).and_then(parse) {
                return Some(v);
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            if let Some(v) = read(&format!(
                "/sys/fs/cgroup/memory{path}/memory.limit_in_bytes"
            ))
            .and_then(parse)
            {
                return Some(v);
            }
        }
    }
    None
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn block_references_of_postgresql_15() {
        assert_eq!(
            parse_block_refs(
                "blkref #0: rel 1663/16971/17545 fork main blk 31 (FPW); hole: offset: 560, length: 1200"
            ),
            vec![(1663, 16971, 17545, true)]
        );
        assert_eq!(
            parse_block_refs(
                "blkref #0: rel 1663/5/16390 fork main blk 2, blkref #1: rel 1663/5/16390 fork main blk 7 FPW"
            ),
            vec![(1663, 5, 16390, false), (1663, 5, 16390, true)]
        );
        assert!(parse_block_refs("").is_empty());
    }

    #[test]
    fn cgroup_memory_limits() {
        let files = |p: &str| match p {
            "/sys/fs/cgroup/system.slice/pg.service/memory.max" => Some("1073741824\n".to_string()),
            "/sys/fs/cgroup/memory/keybench-x/memory.limit_in_bytes" => {
                Some("100663296\n".to_string())
            }
            "/sys/fs/cgroup/memory/unlimited/memory.limit_in_bytes" => {
                Some("9223372036854771712\n".to_string())
            }
            "/sys/fs/cgroup/memory.max" => Some("max\n".to_string()),
            _ => None,
        };
        assert_eq!(
            cgroup_limit("0::/system.slice/pg.service\n", files),
            Some(1 << 30)
        );
        assert_eq!(
            cgroup_limit("12:memory:/keybench-x\n11:cpu:/\n", files),
            Some(96 << 20)
        );
        assert_eq!(cgroup_limit("4:memory:/unlimited\n", files), None);
        assert_eq!(cgroup_limit("0::/\n", files), None);
    }
}
