#!/usr/bin/env bash
# The two install packages of one PostgreSQL major (scripts/lib/package.sh) checked against each
# other without installing either: Debian 12 ships only PostgreSQL 15, so the .debs of 14, 16, 17
# and 18 cannot be installed here (scripts/tests/deb-test.sh installs the 15 one into Debian's own
# server). The .deb's control fields; its files (dpkg-deb -c): root's, 644 and 755, in the
# Debian/PGDG directories, the tarball's files and nothing else but the docs; the extension files
# byte for byte the tarball's, with this version's install script and every update script of
# sql/; keybench.so the tarball's stripped, built for that major (its PG_MODULE_MAGIC block), the
# libraries it links the same in both, each from a package the .deb depends on; the copyright
# file's license; and lintian with no error. The plain-SQL audit, sql/keybench-audit.sql, byte for
# byte in both (the tarball's ./doc/, the .deb's /usr/share/doc/postgresql-N-keybench/), and run
# from each of those two places with psql -f, as a role with pg_monitor and pg_read_all_data, in a
# throwaway server of that major whose database has no keybench (this project's .pg/MAJOR, or the
# install KB_PG_CONFIG names).
# With DIR, checks the packages there (scripts/tools/package.sh: release builds in dist/); without,
# first makes them into target/package-check/pgMAJOR from the debug build that
# `cargo pgrx install` made for scripts/test.sh (cargo pgrx package --debug: no new compile).
# Usage: scripts/tests/package-check.sh MAJOR [DIR [NAME]]   (prints "ok - ..." / "not ok - ..." lines)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/package.sh
m=${1:?usage: scripts/tests/package-check.sh MAJOR [DIR [NAME]]}
. scripts/lib/check.sh "${3:-package pg$m}"
v=$(kb_version)
dir=${2:-}
if [ -z "$dir" ]; then
  dir=$KB_ROOT/target/package-check/pg$m
  rm -rf "$dir"
  start=$SECONDS
  package_make "$m" "$(pg_config_for "$m")" "$dir" --debug || { not_ok "cargo pgrx package --debug (target/logs/package-pg$m.log)"; exit 1; }
  ok "made $(tarball_name "$v" "$m") and $(deb_name "$v" "$m") from the debug build ($((SECONDS - start)) s)"
fi
tgz=$dir/$(tarball_name "$v" "$m") deb=$dir/$(deb_name "$v" "$m")
# shellcheck disable=SC2015 # C is meant when A or B fails
[ -f "$tgz" ] && [ -f "$deb" ] || { not_ok "no $(basename "$tgz") or $(basename "$deb") in $dir"; exit 1; }
x=$(mktemp -d); trap 'rm -rf "$x"' EXIT
mkdir -p "$x/tar" "$x/deb"
# shellcheck disable=SC2015 # C is meant when A or B fails
tar -xzf "$tgz" -C "$x/tar" && dpkg-deb -x "$deb" "$x/deb" || { not_ok "cannot unpack the packages"; exit 1; }

field() { dpkg-deb -f "$deb" "$1"; }
name=postgresql-$m-keybench
check "Package" "$name" "$(field Package)"
check "Version (Cargo.toml's, Debian revision $KB_DEB_REVISION)" "$v-$KB_DEB_REVISION" "$(field Version)"
check "Architecture" amd64 "$(field Architecture)"
check "Section" database "$(field Section)"
like "Depends: postgresql-$m first" "^postgresql-$m, " "$(field Depends)"
like "Description: a synopsis and a long description" "^[a-z].{10,79}$" "$(field Description | head -1)"
like "Maintainer: a name and an address" '^[^<]+ <[^@ ]+@[^> ]+>$' "$(field Maintainer)"

listing=$(dpkg-deb -c "$deb")
check "every entry is root's (dpkg-deb --root-owner-group)" "" "$(awk '$2 != "root/root" { print $6 }' <<< "$listing")"
check "files 644, directories 755" "" \
  "$(awk '($1 ~ /^-/ && $1 != "-rw-r--r--") || ($1 ~ /^d/ && $1 != "drwxr-xr-x") || $1 !~ /^[-d]/ { print $1, $6 }' <<< "$listing")"
lib=usr/lib/postgresql/$m/lib ext=usr/share/postgresql/$m/extension doc=usr/share/doc/$name
want=$( { echo "./$lib/keybench.so"
          (cd "$x/tar/sharedir/extension" && ls) | sed "s|^|./$ext/|"
          printf './%s/%s\n' "$doc" changelog.Debian.gz "$doc" changelog.gz "$doc" copyright "$doc" keybench-audit.sql; } | sort)
check "the tarball's files in Debian's directories, and the docs: nothing else" "$want" \
  "$(awk '$1 ~ /^-/ { print $6 }' <<< "$listing" | sort)"

same=1
for f in "$x/tar/sharedir/extension"/*; do
  cmp -s "$f" "$x/deb/$ext/$(basename "$f")" || { same=0; echo "# differs: $(basename "$f")"; }
done
check "the extension files are the tarball's, byte for byte" 1 $same
check "keybench.control's default_version is $v" "$v" \
  "$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$x/deb/$ext/keybench.control")"
check "this version's install script, keybench--$v.sql" 1 "$(test -s "$x/deb/$ext/keybench--$v.sql" && echo 1)"
# shellcheck disable=SC2012 # the update scripts, named keybench--A--B.sql
check "every update script of sql/" "$(cd sql && ls keybench--*--*.sql | sort)" \
  "$(cd "$x/deb/$ext" && ls keybench--*--*.sql | sort)"

so=$x/deb/$lib/keybench.so
cp "$x/tar/pkglibdir/keybench.so" "$x/stripped.so" && deb_strip "$x/stripped.so"
check "keybench.so is the tarball's, stripped (dh_strip's options)" 1 "$(cmp -s "$x/stripped.so" "$so" && echo 1)"
check "keybench.so's PG_MODULE_MAGIC says PostgreSQL $m (deb, tarball)" "$((m * 100)) $((m * 100))" \
  "$(so_magic "$so") $(so_magic "$x/tar/pkglibdir/keybench.so")"
needed=$(so_needed "$so")
check "the libraries it links are the tarball's ($needed)" "$needed" "$(so_needed "$x/tar/pkglibdir/keybench.so")"
missing=
for l in $needed; do
  path=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ { print $NF; exit }')
  pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1)
  [ -n "$pkg" ] && grep -qE "(^|, )$pkg( |,|$)" <<< "$(field Depends)" || missing="$missing $l${pkg:+ ($pkg)}"
done
check "each library it links comes from a package it depends on" "" "$missing"
like "copyright: Debian's machine-readable format, MIT, the license text" \
  '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/.*License: MIT.*Permission is hereby granted' \
  "$(tr '\n' ' ' < "$x/deb/$doc/copyright")"

# The plain-SQL audit: in both packages, outside what the tarball's two install commands extract
# (./pkglibdir, ./sharedir), the file of this source tree, and it runs from where each package puts it.
check "the tarball's entries: ./pkglibdir, ./sharedir and ./doc/keybench-audit.sql" "./doc/keybench-audit.sql ./pkglibdir ./sharedir" \
  "$(tar -tzf "$tgz" | grep -v '/$' | sed -E 's#^(\./(pkglibdir|sharedir))/.*#\1#' | sort -u | paste -sd ' ')"
plain_deb=$x/deb/$doc/keybench-audit.sql plain_tar=$x/tar/doc/keybench-audit.sql
check "keybench-audit.sql is sql/keybench-audit.sql, byte for byte (deb, tarball)" "1 1" \
  "$(cmp -s sql/keybench-audit.sql "$plain_deb" && echo 1) $(cmp -s sql/keybench-audit.sql "$plain_tar" && echo 1)"
(
  name=package-check$m
  pgc=${KB_PG_CONFIG:-$(pg_config_for "$m")} || exit 1
  export KB_PG_CONFIG=$pgc
  trap 'cluster_stop "$name" "$m"' EXIT
  cluster_start "$name" "$m" "$(port_for package-check "$m")" fsync=off >/dev/null || { not_ok "a PostgreSQL $m server ($pgc)"; exit 1; }
  psql -q -c "CREATE EXTENSION pgstattuple" \
    -c "CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), placed_at timestamptz DEFAULT now())" \
    -c "INSERT INTO orders (placed_at) SELECT now() FROM generate_series(1, 5000)" \
    -c "CREATE TABLE accounts (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, n int)" \
    -c "INSERT INTO accounts (n) SELECT g FROM generate_series(1, 5000) g" \
    -c "CREATE ROLE auditor LOGIN IN ROLE pg_monitor, pg_read_all_data" >/dev/null || { not_ok "the schema"; exit 1; }
  objects() { psql -c "SELECT (SELECT count(*) FROM pg_class) || ' ' || (SELECT count(*) FROM pg_proc)"; }
  before=$(objects)
  for f in "$plain_deb" "$plain_tar"; do
    where=${f#"$x"/}; where=${where/#deb\//\/}; where=${where/#tar\//.\/}
    out=$(PGUSER=auditor "$PGBIN/psql" -X -A -F '|' -v ON_ERROR_STOP=1 -v schema=public -f "$f" 2>&1); rc=$?
    check "psql -f $where (as a role with pg_monitor and pg_read_all_data) exits 0" 0 "$rc"
    like "... its keys: orders' uuid v4 by its default and its values, with pgstatindex's density" \
      '^public\|orders\|orders_pkey\|primary key\|id uuid\|gen_random_uuid\(\)\|uuid v4 \(random\)\|default, and values: .*leaf density: pgstattuple' "$out"
    like "... and accounts' bigint identity, in order" '^public\|accounts\|accounts_pkey\|primary key\|id bigint\|GENERATED ALWAYS AS IDENTITY\|bigint identity\|[^|]*\|bigint\|8\|\|\|in order\|' "$out"
  done
  check "... and it left no object behind" "$before" "$(objects)"
  exit $failed
) || failed=1

lintian_out=$(lintian "$deb" 2>&1 | grep -v '^running with root privileges')
check "lintian: no errors$(n=$(grep -c '^W:' <<< "$lintian_out"); [ "$n" = 0 ] || echo " ($n warnings: $(grep '^W:' <<< "$lintian_out" | awk '{ print $3 }' | sort -u | paste -sd ' '))")" \
  "" "$(grep '^E:' <<< "$lintian_out")"
exit $failed
