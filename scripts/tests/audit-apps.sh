#!/usr/bin/env bash
# Real applications' keys, for keybench_audit(): each application's own migrations make its schema
# in a database of its own on a throwaway cluster, and its own code fills it (no INSERT of ours):
#   silk            django-silk (Django): its request ids, str(uuid4()) in varchar(36), with foreign
#                   keys onto them; Django's sessions (32 random [a-z0-9]) and identity keys
#   django_q        django-q2: task ids, uuid4().hex in varchar(32)
#   celery_results  django-celery-results: Celery's task and group ids, str(uuid4()), in unique
#                   varchar(255) columns beside identity keys
#   mlflow          MLflow's tracking store: run ids, uuid4().hex in varchar(32), with foreign keys
#                   from metrics, params, tags; 'm-' + hex model ids; 'tr-' + random hex trace ids
#   prefect         Prefect's server database: native uuid keys, every one made in the client
#                   although the columns default to gen_random_uuid(): v4 (flows, flow runs,
#                   deployments...) and v7 (task runs, states, logs), with foreign keys onto them
#   dagster         Dagster's instance storage (dagster-postgres): its runs and event_logs, rows of
#                   about 1 kB, keyed by bigserial ids, each event written in a transaction of its
#                   own; run ids str(uuid4()) in varchar(255), with run_tags' foreign key onto them;
#                   snapshot ids, SHA-1 hex of their content
#   libkeys         keys no application here makes, made by the client libraries applications use
#                   for them (advanced-alchemy's UUIDv7Base and NanoIDBase, uuid-utils' uuid7 as
#                   text and hex, python-ulid, snowflake-id from the Unix and from Twitter's epoch,
#                   cuid2, python3-xid; Stripe-style and Firebase push ids made by their vendors'
#                   documented formats) in tables this script defines
# scripts/tests/audit_apps/expected.tsv holds the ground truth: every primary key and unique index,
# what really makes its values (read in the packages' source), the foreign keys onto it; verify.py
# checks the databases against it. The applications come from PyPI, pinned
# (audit_apps/requirements.txt, constraints.txt), into a venv under target/audit-apps (its wheels
# kept in target/audit-apps/wheels, so that a rerun installs nothing).
# Then keybench's audit runs on each database and is checked against that truth
# (audit_apps/check_audit.py): keybench_audit's key_kind, key_form, insert_order and finding of
# every key, keybench_audit_references' child index and finding of every foreign key onto them;
# keybench_capacity on the Django databases against the models' own metadata (check_capacity.py);
# and keybench-audit.sql, the plain-SQL audit, as a role with pg_monitor and pg_read_all_data,
# must agree with the extension's row by row (scripts/tests/audit_plain/compare.py).
# keybench must be installed in that PostgreSQL (cargo pgrx install; .pg/MAJOR, or the install
# KB_PG_CONFIG names); its library need not be preloaded.
# Results: target/audit-apps/pgMAJOR/audit-keys.tsv, audit-references.tsv, audit-tables.md (the
# tables of docs/results/AUDIT-APPS.md); each step's output and seconds in target/audit-apps/pgMAJOR/logs
# (a directory per major: scripts/test.sh runs majors side by side; they share the venv).
# Usage: scripts/tests/audit-apps.sh [MAJOR]   (default 18; prints "ok - ..." / "not ok - ..." lines)
#        scripts/tests/audit-apps.sh --venv    (only makes the venv: scripts/test.sh starts it at
#                                               once, so that no lane waits for the download)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh audit-apps
venv_only=0; [ "${1:-}" = --venv ] && { venv_only=1; shift; }
v=${1:-18}
name=auditapps$v
here=scripts/tests/audit_apps
work=$KB_ROOT/target/audit-apps
outdir=$work/pg$v; [ $venv_only = 0 ] || outdir=$work/venv-only
logs=$outdir/logs
mkdir -p "$logs"
: > "$logs/timings.txt"
timed() { # timed LABEL CMD...: runs CMD, its output to $logs/LABEL.log, its seconds to timings.txt
  local label=$1 start rc ms; shift
  start=$(date +%s%N)
  "$@" > "$logs/$label.log" 2>&1; rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  printf '%s %d.%d s (exit %s)\n' "$label" $((ms / 1000)) $((ms % 1000 / 100)) "$rc" >> "$logs/timings.txt"
  return $rc
}

# keybench, this tree's version, installed in PostgreSQL MAJOR (.pg/MAJOR, or KB_PG_CONFIG's install).
[ $venv_only = 1 ] || {
# shellcheck disable=SC2015 # C is meant when A or B fails
pg_config=${KB_PG_CONFIG:-$(pg_config_for "$v")} && [ -x "$pg_config" ] \
  || { not_ok "PostgreSQL $v is installed (scripts/setup.sh)"; exit 1; }
control=$("$pg_config" --sharedir)/extension/keybench.control
want_version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
have_version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$control" 2>/dev/null)
if [ "$have_version" != "$want_version" ]; then
  not_ok "keybench $want_version is installed in PostgreSQL $v ($control: ${have_version:-no such file}; cargo pgrx install --pg-config $pg_config)"
  exit 1
fi
}

# The venv: rebuilt only when the pins change; the wheels stay in target/audit-apps/wheels.
python=${KB_PYTHON:-python3}
venv=$work/venv
py=$venv/bin/python
stamp=$(cat "$here/requirements.txt" "$here/constraints.txt" | sha256sum | cut -c1-16)
# shellcheck disable=SC2317 # run through timed
make_venv() {
  rm -rf "$venv" && "$python" -m venv "$venv" || return 1
  local pins=(-r "$here/requirements.txt" -c "$here/constraints.txt")
  "$venv/bin/pip" install -q --no-index --find-links "$work/wheels" "${pins[@]}" 2>/dev/null \
    || { "$venv/bin/pip" download -q -d "$work/wheels" "${pins[@]}" \
         && "$venv/bin/pip" install -q --no-index --find-links "$work/wheels" "${pins[@]}"; } || return 1
  echo "$stamp" > "$venv/.stamp"
}
exec 9>"$work/venv.lock" && flock 9  # one script at a time makes the venv
if [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$stamp" ]; then
  if ! timed venv make_venv; then not_ok "the venv of the pinned applications ($(tail -3 "$logs/venv.log"))"; exit 1; fi
fi
flock -u 9
if [ $venv_only = 1 ]; then
  ok "the venv of the pinned applications is made ($venv)"; exit 0
fi
ok "the venv holds the pinned applications ($("$py" -c 'import django, silk, django_q, mlflow, prefect, dagster; print("django", django.__version__, "mlflow", mlflow.__version__, "prefect", prefect.__version__, "dagster", dagster.__version__)' 2>&1))"

# The cluster, of the PostgreSQL keybench is installed in (KB_PG_CONFIG: another install of MAJOR).
trap 'cluster_stop "$name" "$v"' EXIT
cluster_start "$name" "$v" "$(port_for audit-apps "$v")" fsync=off >/dev/null || { not_ok "cluster"; exit 1; }
dbs=(silk django_q celery_results mlflow prefect dagster libkeys)
for db in "${dbs[@]}"; do psql -q -c "CREATE DATABASE $db" >/dev/null || not_ok "CREATE DATABASE $db"; done
export PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED=0

# driver DB LABEL CMD...: runs an application's setup; ok when it exits 0 and its tables hold rows
driver() {
  local db=$1 what=$2; shift 2
  if timed "$db" "$@"; then
    local tables filled
    tables=$(psql -d "$db" -c "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
    filled=$(grep -c '^rows .* [1-9][0-9]*$' "$logs/$db.log")
    # An application that exits 0 having written no row has not been exercised.
    if [ "$filled" -gt 0 ]; then ok "$db: $what ($tables tables, $filled of them filled)"
    else not_ok "$db: $what exited 0 but filled none of its $tables tables"; fi
  else
    not_ok "$db: $what ($(grep -v '^rows ' "$logs/$db.log" | tail -3 | tr '\n' ' '))"
  fi
}
driver silk "Django's migrate, then requests through SilkyMiddleware" "$py" "$here/django_apps.py" silk
driver django_q "django-q2's migrations, then async_task, schedule" "$py" "$here/django_apps.py" django_q
driver celery_results "django-celery-results' migrations, then Celery tasks and groups" "$py" "$here/django_apps.py" celery_results
driver mlflow "MLflow's alembic migrations, then MlflowClient and tracing" "$py" "$here/mlflow_app.py"

# Prefect: its own `prefect server database upgrade`, then its client against its API in this process.
# Its server's background services off (nothing is written after the calls return), no telemetry.
# PREFECT_HOME anew each run: Prefect memoizes its block registration there (memo_store.toml) and
# would skip registering its block types into this new database on a rerun.
rm -rf "$outdir/prefect-home"
export PREFECT_HOME=$outdir/prefect-home PREFECT_LOGGING_LEVEL=WARNING \
  PREFECT_API_DATABASE_CONNECTION_URL="postgresql+asyncpg://postgres@/prefect?host=$PGHOST&port=$PGPORT" \
  PREFECT_API_DATABASE_MIGRATE_ON_START=false PREFECT_SERVER_ANALYTICS_ENABLED=false \
  PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED=false PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_ENABLED=false \
  PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED=false PREFECT_SERVER_SERVICES_ACTIONS_ENABLED=false \
  PREFECT_SERVER_SERVICES_EVENT_LOGGER_ENABLED=false
if timed prefect-migrate "$venv/bin/prefect" server database upgrade -y; then
  driver prefect "Prefect's migrations, then PrefectClient through its API" "$py" "$here/prefect_app.py"
else
  not_ok "prefect: prefect server database upgrade ($(tail -3 "$logs/prefect-migrate.log" | tr '\n' ' '))"
fi

# Dagster: its own `dagster instance migrate` on an instance whose run, event-log and schedule
# storages are dagster-postgres' (they create their tables and stamp alembic on an empty database),
# then jobs run in this process against that instance. DAGSTER_HOME anew each run (its dagster.yaml,
# and the runs' compute logs and outputs). The URL names psycopg2: SQLAlchemy 2.1's default
# PostgreSQL driver is psycopg 3, which the venv does not hold.
rm -rf "$outdir/dagster-home" && mkdir -p "$outdir/dagster-home"
cat > "$outdir/dagster-home/dagster.yaml" <<EOF
storage:
  postgres:
    postgres_url: "postgresql+psycopg2://postgres@/dagster?host=$PGHOST&port=$PGPORT"
telemetry:
  enabled: false
EOF
if timed dagster-migrate env DAGSTER_HOME="$outdir/dagster-home" "$venv/bin/dagster" instance migrate; then
  driver dagster "Dagster's storages and instance migrate, then jobs of assets and ops run in process" \
    env DAGSTER_HOME="$outdir/dagster-home" "$py" "$here/dagster_app.py"
else
  not_ok "dagster: dagster instance migrate ($(tail -3 "$logs/dagster-migrate.log" | tr '\n' ' '))"
fi
driver libkeys "SQLAlchemy models whose keys advanced-alchemy, uuid-utils, python-ulid, snowflake-id, cuid2, svix-ksuid, pymongo (bson), cuid, typeid-python, timeflake, python3-xid make" \
  "$py" "$here/libkeys.py"

for db in "${dbs[@]}"; do psql -d "$db" -q -c "ANALYZE" >/dev/null; done

# The databases against the ground truth: keys, types, row counts, the values' shapes, foreign keys.
"$py" "$here/verify.py" "$here/expected.tsv" 2>"$logs/verify.err" || failed=1
[ -s "$logs/verify.err" ] && not_ok "verify.py ran ($(tail -3 "$logs/verify.err" | tr '\n' ' '))"

# keybench's audit on each database, against expected.tsv. pgstattuple for keybench-audit.sql's
# leaf density (keybench_audit measures its own).
for db in "${dbs[@]}"; do
  out=$(psql -q -d "$db" -c "CREATE EXTENSION keybench" -c "CREATE EXTENSION pgstattuple" 2>&1) \
    || not_ok "CREATE EXTENSION keybench, pgstattuple in $db ($out)"
done
check "keybench_audit and keybench_audit_references exist (keybench $want_version)" "2" \
  "$(psql -d silk -c "SELECT count(DISTINCT proname) FROM pg_proc WHERE proname IN ('keybench_audit', 'keybench_audit_references')")"
timed check-audit "$py" "$here/check_audit.py" "$here/expected.tsv" "$outdir" || failed=1
grep -E '^(not )?ok - ' "$logs/check-audit.log"
grep -qE '^Traceback|^[A-Za-z.]*Error' "$logs/check-audit.log" && not_ok "check_audit.py ran ($(tail -3 "$logs/check-audit.log" | tr '\n' ' '))"

# Keys that run out: keybench_capacity on the Django applications' databases against their models'
# own metadata (audit_apps/check_capacity.py): every integer key and foreign key onto one, each once,
# with its parent and the foreign keys that reference it.
for db in silk django_q celery_results; do
  timed "capacity-$db" "$py" "$here/check_capacity.py" "$db" || failed=1
  grep -E '^(not )?ok - ' "$logs/capacity-$db.log"
  grep -qE '^Traceback' "$logs/capacity-$db.log" && not_ok "check_capacity.py ran on $db ($(tail -3 "$logs/capacity-$db.log" | tr '\n' ' '))"
done

# keybench-audit.sql (the plain-SQL audit) against keybench_audit and keybench_audit_references,
# row by row, as a role with pg_monitor and pg_read_all_data, on each database.
psql -q -c "CREATE ROLE auditor LOGIN IN ROLE pg_monitor, pg_read_all_data" >/dev/null || not_ok "CREATE ROLE auditor"
for db in "${dbs[@]}"; do
  timed "plain-$db" env PGUSER=auditor "$py" scripts/tests/audit_plain/compare.py "$CHECK_NAME: $db" sql/keybench-audit.sql "$db" public \
    || failed=1
  grep -E '^(not )?ok - ' "$logs/plain-$db.log"
  grep -qE '^Traceback' "$logs/plain-$db.log" && not_ok "compare.py ran on $db ($(tail -3 "$logs/plain-$db.log" | tr '\n' ' '))"
done
echo "# audit-apps: $SECONDS s in all; the steps' seconds: $(sed 's/ (exit [0-9]*)//' "$logs/timings.txt" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
exit $failed
