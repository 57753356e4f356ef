#!/usr/bin/env bash
# keybench_run and the disk, on a tablespace on a small filesystem made here (a tmpfs of 96 MB;
# needs root to mount it): a load the filesystem cannot hold is refused up front (53100, with the
# estimate and what is free) and creates nothing; a load that fits goes where default_tablespace
# says; a load during which free space falls below keybench.min_free_space stops, is marked failed
# with the reason and drops its table (even with keep => true), leaving no worker behind; and a role
# without CREATE on the tablespace is refused (42501).
# Usage: scripts/tests/disk-test.sh VERSION   (prints "ok - ..." / "not ok - ..." lines; exit 1 on failure)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh disk
v=${1:-18}
name=disk$v
small=$KB_ROOT/target/clusters/$name-small
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  cluster_stop "$name" "$v"
  umount "$small" 2>/dev/null
  rmdir "$small" 2>/dev/null
}
trap cleanup EXIT
cluster_start "$name" "$v" "$(port_for disk-test "$v")" shared_preload_libraries=keybench fsync=off keybench.progress_interval=0 \
  >/dev/null || { not_ok "cluster"; exit 1; }
umount "$small" 2>/dev/null
mkdir -p "$small"
if ! mount -t tmpfs -o size=96m,mode=0700 keybench-disk-test "$small"; then
  not_ok "cannot mount a 96 MB tmpfs on $small (the test needs root)"
  exit 1
fi
chown postgres "$small"
psql -c "CREATE EXTENSION keybench" -c "CREATE TABLESPACE small LOCATION '$small'" >/dev/null
runs() { psql -c "SELECT count(*) FROM keybench.runs"; }
in_small() { psql -c "SELECT count(*) FROM pg_class WHERE reltablespace = (SELECT oid FROM pg_tablespace WHERE spcname = 'small')"; }

# 1. Refused up front: 10 million rows cannot fit in 96 MB.
out=$(psql -c "SET default_tablespace = small" -c "\\set VERBOSITY verbose" \
  -c "SELECT * FROM keybench_run('uuidv4', 10000000)" 2>&1)
like "a load that cannot fit is refused with 53100" "ERROR:  53100: not enough free disk space for 10000000 uuidv4 rows: the filesystem of $KB_ROOT/target/clusters/$name/data/pg_tblspc/[0-9]+ has [0-9.]+ [kM]B free" "$out"
like "the refusal gives the estimate, its parts and the floor" "DETAIL:  The load is estimated to need [0-9.]+ [MG]B there \(the table: [0-9.]+ [MG]B, its primary key: [0-9.]+ [MG]B\), and keybench.min_free_space \(1024 MB\) is to stay free: [0-9.]+ [MG]B in all, [0-9.]+ [kM]B free" "$out"
like "the refusal says what to do" "HINT:  Load fewer rows, free some space, or SET default_tablespace" "$out"
check "the refusal records no run" 0 "$(runs)"
check "the refusal creates nothing in the tablespace" 0 "$(in_small)"

# 2. A load that fits goes where default_tablespace says.
id=$(psql -q -c "SET default_tablespace = small" -c "SET keybench.min_free_space = '16MB'" \
  -c "SELECT run_id FROM keybench_run('uuidv4', 50000, keep => true)")
check "a load that fits runs" "done" "$(psql -c "SELECT status FROM keybench.runs WHERE run_id = ${id:-0}")"
check "its table and primary key are in the tablespace" "small|small" \
  "$(psql -c "SELECT (SELECT spcname FROM pg_tablespace WHERE oid = c.reltablespace),
                     (SELECT spcname FROM pg_tablespace t JOIN pg_class i ON i.reltablespace = t.oid
                      JOIN pg_index x ON x.indexrelid = i.oid WHERE x.indrelid = c.oid)
              FROM pg_class c WHERE c.oid = 'keybench.run_${id}_uuidv4'::regclass")"
check "keybench's own tables stay where they are" 0 \
  "$(psql -c "SELECT count(*) FROM pg_class WHERE oid = 'keybench.batches'::regclass AND reltablespace <> 0")"
psql -c "DROP TABLE keybench.run_${id}_uuidv4" >/dev/null

# 3. Free space falls below the floor mid-run: the run stops, failed, its table dropped though kept.
(psql -q -c "SET default_tablespace = small" -c "SET keybench.min_free_space = '16MB'" -c "\\set VERBOSITY verbose" \
  -c "SELECT * FROM keybench_run('bigint', 400000, method => 'single', keep => true)" > "$small.out" 2>&1) &
caller=$!
wait_for "SELECT count(*) = 1 FROM keybench.progress WHERE rows_done > 0" || not_ok "the run never started"
# Leave 8 MB free: below the 16 MB floor.
free_kb=$(df -k --output=avail "$small" | tail -1)
fallocate -l $(( (free_kb - 8192) * 1024 )) "$small/filler" 2>/dev/null \
  || dd if=/dev/zero of="$small/filler" bs=1024 count=$((free_kb - 8192)) status=none
wait $caller
out=$(cat "$small.out"); rm -f "$small.out"
like "the caller gets 53100 with where and how much is free" "ERROR:  53100: keybench_run failed: stopped after [0-9]+ rows: the filesystem of $KB_ROOT/target/clusters/$name/data/pg_tblspc/[0-9]+ has [0-9.]+ [kM]B free, less than keybench.min_free_space \(16 MB\); the run's table was dropped" "$out"
last=$(psql -c "SELECT max(run_id) FROM keybench.runs")
check "the run is marked failed with the reason" "failed|t" \
  "$(psql -c "SELECT status, error LIKE 'stopped after % rows: the filesystem of % has % free, less than keybench.min_free_space (16 MB)%' FROM keybench.runs WHERE run_id = $last")"
check "it stopped before the end" t "$(psql -c "SELECT coalesce(sum(rows), 0) < 400000 FROM keybench.batches WHERE run_id = $last")"
check "its table is dropped, though kept" "t|" \
  "$(psql -c "SELECT to_regclass('keybench.run_${last}_bigint') IS NULL, table_name FROM keybench.runs WHERE run_id = $last")"
check "nothing of it is left in the tablespace" 0 "$(in_small)"
wait_for "SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'keybench run worker'" || true
check "no worker is left" 0 "$(psql -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'keybench run worker'")"
rm -f "$small/filler"
id=$(psql -q -c "SET default_tablespace = small" -c "SET keybench.min_free_space = '16MB'" \
  -c "SELECT run_id FROM keybench_run('bigint', 10000)")
check "with the space back, the next load runs" "done" "$(psql -c "SELECT status FROM keybench.runs WHERE run_id = ${id:-0}")"

# 4. The floor is a superuser's setting, and the tablespace needs CREATE.
psql -c "CREATE ROLE kb_disk LOGIN" -c "GRANT USAGE, CREATE ON SCHEMA keybench TO kb_disk" \
  -c "GRANT SELECT, INSERT, UPDATE ON keybench.runs TO kb_disk" -c "GRANT SELECT, INSERT ON keybench.batches TO kb_disk" \
  -c "GRANT EXECUTE ON FUNCTION keybench_run TO kb_disk" >/dev/null
out=$(psql -U kb_disk -c "\\set VERBOSITY verbose" -c "SET keybench.min_free_space = 0" 2>&1)
like "an ordinary role cannot lower the floor" "ERROR:  42501: permission denied to set parameter \"keybench.min_free_space\"" "$out"
out=$(psql -U kb_disk -c "SET default_tablespace = small" -c "\\set VERBOSITY verbose" -c "SELECT * FROM keybench_run('bigint', 10)" 2>&1)
like "a role without CREATE on the tablespace is refused with 42501" "ERROR:  42501: permission denied for tablespace \"small\" \(default_tablespace\)" "$out"
psql -c "GRANT CREATE ON TABLESPACE small TO kb_disk" -c "ALTER ROLE kb_disk SET keybench.min_free_space = '16MB'" >/dev/null
id=$(psql -U kb_disk -q -c "SET default_tablespace = small" -c "SELECT run_id FROM keybench_run('bigint', 10)" 2>&1)
check "with CREATE on it, its load runs there" "done" "$(psql -c "SELECT status FROM keybench.runs WHERE run_id = ${id:-0}" 2>&1)"
exit $failed
