# shellcheck shell=bash disable=SC2034 # failed: the driver exits with it
# Sourced by the test drivers (scripts/tests/) after lib/common.sh, as `. scripts/lib/check.sh NAME`:
# their checks, each printing one line, "ok - NAME: DESCRIPTION" or "not ok - NAME: DESCRIPTION
# (why)", which scripts/test.sh counts (run_step, count_step). A driver ends with `exit $failed`
# (1 once any check failed).
CHECK_NAME=${1:?usage: . scripts/lib/check.sh NAME}
failed=0
ok() { echo "ok - $CHECK_NAME: $1"; } # ok DESCRIPTION
not_ok() { echo "not ok - $CHECK_NAME: $1"; failed=1; } # not_ok DESCRIPTION
check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (expected '$2', got '$3')"; fi
}
like() { # like DESCRIPTION PATTERN ACTUAL (a grep -E pattern)
  # A here-string, not a pipe: grep -q stops reading at its first match, and a writer still writing
  # into the pipe then dies of SIGPIPE, which pipefail reports as the pipeline's status.
  if grep -Eq -- "$2" <<< "$3"; then ok "$1"; else not_ok "$1 (no match for '$2' in: $3)"; fi
}
q() { # q SQL: what one statement prints, its errors and notices included (a check then shows them)
  psql -c "$1" 2>&1
}
err() { # err SQL: the SQLSTATE and message of the ERROR it raises
  psql -v VERBOSITY=verbose -c "$1" 2>&1 | sed -n 's/^ERROR:  //p' | head -1
}
WAIT_SECONDS=60
wait_for() { # wait_for SQL: until it prints t, at most WAIT_SECONDS (60 unless the driver sets it)
  local _; for _ in $(seq $((WAIT_SECONDS * 10))); do [ "$(psql -c "$1" 2>/dev/null)" = t ] && return 0; sleep 0.1; done; return 1
}
