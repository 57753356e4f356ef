#!/usr/bin/env bash
# Every example of README.md and docs/*.md, run as written or skipped with its reason
# (scripts/tests/doc-examples.py, whose header has the markers), on PostgreSQL MAJOR (default 18):
# a throwaway cluster with keybench preloaded (as the README asks for snowflake_id() on 14 to 16)
# and every other setting the default a reader's server has (keybench.max_workers among them).
# Usage: scripts/tests/doc-examples.sh [MAJOR]   (prints "ok - ...", "not ok - ...", "skip - ...";
#        exit 1 on failure)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
v=${1:-18}
name=doc-examples$v
trap 'cluster_stop "$name" "$v"' EXIT
cluster_start "$name" "$v" "$(port_for doc-examples "$v")" shared_preload_libraries=keybench fsync=off \
  keybench.progress_interval=0 >/dev/null || { echo "not ok - doc-examples: cluster"; exit 1; }
python3 scripts/tests/doc-examples.py "$v"
