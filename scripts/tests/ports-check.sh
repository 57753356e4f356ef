#!/usr/bin/env bash
# The port table (scripts/lib/ports.sh) holds: no script named twice, no two rows' ranges
# overlapping, every port of every script, server and major distinct, every port_for in scripts/
# naming a row (and every row used), and no script starting a server on a port of its own choosing.
# Needs no PostgreSQL: scripts/test.sh runs it first.
# Usage: scripts/tests/ports-check.sh   (prints "ok - ..." / "not ok - ..." lines; exit 1 on failure)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh ports
result() { # result DESCRIPTION PROBLEMS: ok when PROBLEMS is empty, else not ok naming them
  if [ -z "$2" ]; then ok "$1"; else not_ok "$1: $(echo "$2" | paste -sd ' ')"; fi
}
rows=$(awk 'NF >= 3 { print $1, $2, $3 }' <<< "$KB_PORTS")

result "$(wc -l <<< "$rows") rows, no script named twice" "$(awk '{ print $1 }' <<< "$rows" | sort | uniq -d)"

result "each row's first port a multiple of 100, its range below 65536" \
  "$(awk '$2 % 100 != 0 || $2 < 1024 || $2 + 100 * $3 > 65536 || $3 < 1 { print $1 }' <<< "$rows")"

result "no two rows' ranges overlap" \
  "$(sort -k2,2n <<< "$rows" | awk 'NR > 1 && $2 < end { print prev "/" $1 } { end = $2 + 100 * $3; prev = $1 }')"

ports=$(while read -r script _ servers; do
  for m in "${PG_MAJORS[@]}"; do
    for ((n = 0; n < servers; n++)); do echo "$(port_for "$script" "$m" "$n") $script $m $n"; done
  done
done <<< "$rows")
result "the $(wc -l <<< "$ports") ports of every script, server and major (${PG_MAJORS[*]}) are distinct" \
  "$(awk '{ print $1 }' <<< "$ports" | sort | uniq -d)"

result "port_for refuses a server beyond its row and a script without one" \
  "$(port_for demo 18 1 2>/dev/null && echo 'demo server 1')$(port_for no-such-script 18 2>/dev/null && echo no-such-script)"

# Every name passed to port_for (or to citus_cluster_start, which calls it) in the scripts.
scripts=$(find scripts -name '*.sh' ! -path scripts/lib/ports.sh ! -path scripts/tests/ports-check.sh | sort)
# shellcheck disable=SC2086 # $scripts: file names, one word each
code=$(grep -hv '^[[:space:]]*#' $scripts)
used=$( { grep -oE 'port_for [a-z0-9-]+' <<< "$code" | awk '{ print $2 }'
          grep -oE 'citus_cluster_start "[^"]*" [^ ]+ [a-z0-9-]+' <<< "$code" | awk '{ print $4 }'; } | sort -u)
result "every script name given to port_for has a row" "$(comm -23 <(echo "$used") <(awk '{ print $1 }' <<< "$rows" | sort))"
result "every row is used by a script" "$(comm -13 <(echo "$used") <(awk '{ print $1 }' <<< "$rows" | sort))"

# A server's port is port_for's (or a variable holding it), never a number in the script.
# shellcheck disable=SC2086 # $scripts: file names, one word each
result "no script picks a port by hand" \
  "$(grep -nHE '(cluster_start|standby_start) +[^ ]+ +[^ ]+ +"?[0-9]{4}|\$\(\( *[1-9][0-9]{3,4} *\+' $scripts)"
exit $failed
