# shellcheck shell=bash
# Sourced by lib/common.sh: psql on the server cluster_start last started (PGHOST, PGPORT, PGUSER
# and PGDATABASE), without ~/.psqlrc, stopping at the first error. In the scripts `psql` is this
# function; "$PGBIN/psql" is the program itself, for any other set of options.
psql() { # psql [ARGS...]: values only (-At: unaligned, no header, no footer), for the script to read
  "$PGBIN/psql" -X -At -v ON_ERROR_STOP=1 "$@"
}
psql_q() { # psql_q [ARGS...]: tables as psql prints them, without command tags or row counts, for a person
  "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -P footer=off "$@"
}
