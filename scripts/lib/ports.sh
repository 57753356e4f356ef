# shellcheck shell=bash
# Sourced by lib/common.sh: the port of every throwaway server a script starts, from this one
# table, so that no two scripts (nor two servers of one script, nor two majors) share a port.
# A script's N-th server (0 = its first) on PostgreSQL MAJOR listens on FIRST + 100 * N + MAJOR, so
# the port ends in the major (55918: readme-check on 18); KB_PORT_OFFSET (default 0, at most 4) adds to
# it, so that a second checkout can test PostgreSQL 18 beside the first (its ports end in 19 to 22,
# which no major of the table uses). A row reserves SERVERS hundreds from
# FIRST. scripts/tests/ports-check.sh (a step of scripts/test.sh) checks that no two rows overlap
# and that every script takes its ports from here.
#
# script                first   servers  which servers
KB_PORTS='
demo                    54300   1        scripts/demo.sh (KB_PORT overrides it)
bench                   54400   1
bench-10m               54500   1
bench-100m              54600   1
bench-compare           54700   2        this tree, the base commit
bench-density           54900   1
bench-read              55000   1
bench-run               55100   1
deb-test                55200   1        scripts/tests/deb-test.sh: a Debian 12 PostgreSQL 15 cluster (pg_createcluster)
regress                 55400   3        scripts/test.sh: schedule_preload, _no_preload, _small_cache
crash-test              55700   1
lifecycle-test          55800   1
readme-check            55900   1
disk-test               56000   1
cancel-test             56100   1
standby-test            56200   3        the primary, its standby, a standby of another primary
fuzz                    56500   1
isolation               56600   1
citus-test              56700   3        a Citus coordinator, 2 workers
package                 57000   1
experiments             57100   5        A and B, checkpoints, a primary, its standby, 1 GB
experiment-c            57600   1
experiment-d            57700   1
experiment-c-replay     57800   2        a primary, its standby
read-side               58000   1
distributed             58100   4        a Citus coordinator, 2 workers, the report server
citus-cluster           58500   10       a Citus coordinator, up to 9 workers
audit-sample            59900   1        scripts/tests/audit-sample.sh: pgbench and the audit sample
curve                   60000   3        scripts/reports/curve.sh: the sweeps, under a memory cap, the report
gaps                    59500   4        scripts/reports/gaps.sh: parts A, B, C, D, E
bench-audit             60300   1        scripts/bench/bench-audit-sample.sh
audit-apps              60400   1        scripts/tests/audit-apps.sh: real applications, their own schemas and keys
plan-load               60500   1        scripts/tests/plan-load.sh: pgbench through each case of keybench_plan
audit-plain             60800   1        scripts/tests/audit-plain.sh: keybench-audit.sql against keybench_audit
bench-audit-values      60900   1        scripts/bench/bench-audit-values.sh: the value sample against a scan
children                61000   1        scripts/reports/children.sh: foreign-key children, the sweep with them
switch                  61100   1        scripts/reports/switch.sh: a switch of generator on a live table
contention              61200   2        scripts/reports/contention.sh: many writers, in memory and under a memory cap
logical-test            61400   2        scripts/tests/logical-test.sh: a publisher and its logical subscriber
logical                 61600   4        scripts/reports/logical.sh: publisher, subscriber, physical standby, a capped pair
serializable-size       62000   1        scripts/reports/serializable-size.sh: SERIALIZABLE failures against the index size
density-sample          62100   1        scripts/bench/bench-density-sample.sh: sampled density against pgstatindex
projection              62200   1        scripts/bench/bench-projection.sh: the audit projection against a real switch
source-test             62300   1        scripts/tests/source-test.sh: a Debian 12 PostgreSQL 15 cluster, keybench from source
bench-sync-commit       62400   1        scripts/bench/bench-sync-commit.sh: synchronous_commit off against on, fsync on
widen-load              62500   1        scripts/tests/widen-load.sh: pgbench through the plan widening a key to bigint
capacity-test           63000   1        scripts/tests/capacity-test.sh: keys that run out, each case, the rate under pgbench
bench-capacity          63100   1        scripts/bench/bench-capacity.sh: the cost of keybench_capacity on many tables
package-check           63200   1        scripts/tests/package-check.sh: keybench-audit.sql run from the unpacked packages
grants-test             63300   1        scripts/tests/grants-test.sh: the audit as roles holding exactly the documented grants
doc-examples            63400   1        scripts/tests/doc-examples.sh: every example of README.md and docs/
'

port_for() { # port_for SCRIPT MAJOR [N]: the port of SCRIPT's N-th server (default 0) on that major
  local script=$1 major=$2 n=${3:-0} first servers
  read -r first servers < <(awk -v s="$script" '$1 == s { print $2, $3 }' <<< "$KB_PORTS")
  if [ -z "$first" ]; then
    echo "port_for: no row for $script in scripts/lib/ports.sh" >&2; return 1
  fi
  if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -ge "$servers" ]; then
    echo "port_for: $script has $servers server(s) in scripts/lib/ports.sh; there is no server $n" >&2; return 1
  fi
  if ! [[ $major =~ ^[1-9][0-9]$ ]]; then
    echo "port_for: $major is not a PostgreSQL major (10 to 99)" >&2; return 1
  fi
  local offset=${KB_PORT_OFFSET:-0}
  if ! [[ $offset =~ ^[0-4]$ ]]; then
    echo "port_for: KB_PORT_OFFSET=$offset is not 0 to 4" >&2; return 1
  fi
  echo $((first + 100 * n + major + offset))
}
