# shellcheck shell=bash
# Sourced after lib/common.sh by the scripts that make or check keybench's install packages
# (scripts/tools/package.sh, scripts/tests/package-check.sh, scripts/tests/deb-test.sh). One
# `cargo pgrx package` build per PostgreSQL major gives two packages of the same files:
#   keybench-VERSION-pgN-linux-x86_64.tar.gz    ./pkglibdir/keybench.so, ./sharedir/extension/keybench*
#                                               (two tar commands into the directories pg_config names),
#                                               ./doc/keybench-audit.sql (the plain-SQL audit, which
#                                               those two commands leave out)
#   postgresql-N-keybench_VERSION-1_amd64.deb   the Debian and PGDG layout, as their extension packages:
#       usr/lib/postgresql/N/lib/keybench.so
#       usr/share/postgresql/N/extension/        keybench.control, keybench--VERSION.sql and every
#                                                keybench--A--B.sql update script
#       usr/share/doc/postgresql-N-keybench/     copyright (MIT, from LICENSE), changelog.Debian.gz,
#                                                changelog.gz (CHANGELOG.md), keybench-audit.sql
#                                                (uncompressed, for psql -f)
#     Depends: postgresql-N and the libraries keybench.so links (dpkg-shlibdeps); no maintainer
#     scripts, so removing it removes its files and touches no cluster, as Debian's own extension
#     packages. Built with dpkg-deb --root-owner-group: files 644, directories 755, root:root.

KB_DEB_REVISION=1
# The Maintainer field: the name and address the project's commits carry.
KB_DEB_MAINTAINER=${KB_DEB_MAINTAINER:-keybench maintainers <maintainers@users.noreply.a-seed-6b9f94d1.example>}

kb_version() { # kb_version [SOURCE_TREE]: the version in its Cargo.toml ([package] version)
  sed -n 's/^version = "\(.*\)"/\1/p' "${1:-$KB_ROOT}/Cargo.toml" | head -1
}
tarball_name() { echo "keybench-$1-pg$2-linux-x86_64.tar.gz"; } # tarball_name VERSION MAJOR
deb_name() { echo "postgresql-$2-keybench_$1-${KB_DEB_REVISION}_amd64.deb"; } # deb_name VERSION MAJOR

# package_make MAJOR PG_CONFIG DIR [cargo pgrx package options...]: build keybench for the server
# PG_CONFIG names (a PostgreSQL MAJOR) with `cargo pgrx package` (release unless the options say
# --debug), then write DIR/$(tarball_name) and DIR/$(deb_name). The source tree is KB_ROOT, or
# KB_PACKAGE_SRC (another version's checkout: its Cargo.toml, sql/ and CHANGELOG.md); CARGO_TARGET_DIR
# is honoured. The build's output goes to target/logs/package-pgMAJOR.log (KB_PACKAGE_LOG).
package_make() {
  local m=$1 pgc=$2 dir=$3; shift 3
  local src=${KB_PACKAGE_SRC:-$KB_ROOT} log=${KB_PACKAGE_LOG:-$KB_ROOT/target/logs/package-pg$m.log}
  local v; v=$(kb_version "$src")
  mkdir -p "$KB_ROOT/target"
  local work; work=$(mktemp -d "$KB_ROOT/target/package-work.XXXXXX")
  local out=$work/out tar=$work/tar deb=$work/deb
  mkdir -p "$dir" "$(dirname "$log")"
  dir=$(cd "$dir" && pwd)
  if ! (cd "$src" && cargo pgrx package --pg-config "$pgc" --out-dir "$out" "$@") >"$log" 2>&1; then
    tail -20 "$log" >&2; rm -rf "$work"; return 1
  fi
  local lib ext
  lib=$out$("$pgc" --pkglibdir) ext=$out$("$pgc" --sharedir)/extension
  # shellcheck disable=SC2015 # C is meant when A or B fails
  [ -f "$lib/keybench.so" ] && [ -f "$ext/keybench.control" ] \
    || { echo "package_make: cargo pgrx package left no keybench.so or keybench.control (see $log)" >&2; rm -rf "$work"; return 1; }

  # The tarball: the files as cargo pgrx package wrote them.
  mkdir -p "$tar/pkglibdir" "$tar/sharedir/extension"
  cp "$lib/keybench.so" "$tar/pkglibdir/"
  cp "$ext"/keybench* "$tar/sharedir/extension/"
  # The plain-SQL audit (sql/keybench-audit.sql, from 0.9.0 on; an older source tree has none), for
  # servers where keybench cannot be installed: outside ./sharedir, so the install commands leave it.
  local audit=$src/sql/keybench-audit.sql parts=(./pkglibdir ./sharedir)
  if [ -f "$audit" ]; then mkdir -p "$tar/doc" && cp "$audit" "$tar/doc/" && parts+=(./doc); fi
  tar -czf "$dir/$(tarball_name "$v" "$m")" -C "$tar" --owner=0 --group=0 "${parts[@]}" || { rm -rf "$work"; return 1; }

  # The .deb: the same files in Debian's directories, with the modes Debian gives them.
  local name=postgresql-$m-keybench doc=$deb/usr/share/doc/postgresql-$m-keybench
  install -d -m 755 "$deb/DEBIAN" "$deb/usr/lib/postgresql/$m/lib" "$deb/usr/share/postgresql/$m/extension" "$doc"
  install -m 644 "$lib/keybench.so" "$deb/usr/lib/postgresql/$m/lib/"
  deb_strip "$deb/usr/lib/postgresql/$m/lib/keybench.so"
  install -m 644 "$ext"/keybench* "$deb/usr/share/postgresql/$m/extension/"
  deb_copyright "$src" > "$doc/copyright"; chmod 644 "$doc/copyright"
  [ ! -f "$audit" ] || install -m 644 "$audit" "$doc/"
  gzip -9n < "$src/CHANGELOG.md" > "$doc/changelog.gz"
  {
    echo "$name ($v-$KB_DEB_REVISION) unstable; urgency=medium"
    echo
    echo "  * keybench $v for PostgreSQL $m; what changed: changelog.gz (CHANGELOG.md)."
    echo
    echo " -- $KB_DEB_MAINTAINER  $(git -C "$src" log -1 --format=%aD)"
  } | gzip -9n > "$doc/changelog.Debian.gz"
  chmod 644 "$doc/changelog.gz" "$doc/changelog.Debian.gz"
  # The libraries keybench.so links, as dpkg-shlibdeps names their packages (it reads a
  # debian/control, so it runs in a directory that has one).
  mkdir -p "$work/shlibs/debian"
  printf 'Source: keybench\n\nPackage: %s\nArchitecture: amd64\n' "$name" > "$work/shlibs/debian/control"
  local shlibs
  shlibs=$(cd "$work/shlibs" && dpkg-shlibdeps -O -e"$deb/usr/lib/postgresql/$m/lib/keybench.so" 2>>"$log" | sed -n 's/^shlibs:Depends=//p')
  [ -n "$shlibs" ] || { echo "package_make: dpkg-shlibdeps found no libraries (see $log)" >&2; rm -rf "$work"; return 1; }
  # Installed-Size as dpkg-gencontrol counts it: kB per file, rounded up, and 1 per directory.
  local size
  size=$(find "$deb" -path "$deb/DEBIAN" -prune -o \( -type f -printf '%s\n' -o -type d -printf '1024\n' \) \
    | awk '{ s += int(($1 + 1023) / 1024) } END { print s }')
  (cd "$deb" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$deb/DEBIAN/md5sums"
  cat > "$deb/DEBIAN/control" <<EOF
Package: $name
Source: keybench
Version: $v-$KB_DEB_REVISION
Architecture: amd64
Maintainer: $KB_DEB_MAINTAINER
Installed-Size: $size
Depends: postgresql-$m, $shlibs
Section: database
Priority: optional
Description: primary-key generators and key benchmarks for PostgreSQL $m
 keybench gives PostgreSQL the key generators engineers argue about (UUID v7
 as RFC 9562 and PostgreSQL 18 make it, UUID v4, ULID, Snowflake, nanoid) and
 measures what each costs the server: it loads tables keyed by each from
 background workers while reading the server's own WAL, buffer and index
 counters, and reports the B-tree leaf density and fragmentation of any index,
 with an audit of every primary key.
 .
 This package is keybench $v for PostgreSQL $m.$(if [ "$m" -le 16 ]; then printf '\n%s' \
   " snowflake_id() needs keybench in shared_preload_libraries on PostgreSQL $m;" \
   " nothing else does."; fi)
EOF
  chmod 644 "$deb/DEBIAN/control" "$deb/DEBIAN/md5sums"
  dpkg-deb --root-owner-group --build "$deb" "$dir/$(deb_name "$v" "$m")" >>"$log" 2>&1 \
    || { tail -5 "$log" >&2; rm -rf "$work"; return 1; }
  rm -rf "$work"
}

# deb_strip FILE.so: strip it as Debian's dh_strip strips a shared library (its dynamic symbols,
# which PostgreSQL looks the functions up by, stay). The tarball keeps cargo pgrx package's file.
deb_strip() { strip --remove-section=.comment --remove-section=.note --strip-unneeded "$@"; }

deb_copyright() { # deb_copyright SOURCE_TREE: the .deb's copyright file (Debian's machine-readable format)
  local license=$KB_ROOT/LICENSE
  cat <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: keybench
Upstream-Contact: $KB_DEB_MAINTAINER

Files: *
$(sed -n 's/^Copyright (c) /Copyright: /p' "$license")
License: MIT

License: MIT
$(sed '1,/^Copyright/d' "$license" | sed '1{/^$/d}' | sed 's/^$/./; s/^/ /')
EOF
}

# so_magic FILE.so: the PostgreSQL the module was built for, from its PG_MODULE_MAGIC block (the
# struct Pg_magic_func returns: its length, then PG_VERSION_NUM / 100, ...), read from the file
# without loading it: "1500" for PostgreSQL 15. The block's address is what Pg_magic_func returns:
# the last rip-relative lea into %rax before its first ret (pgrx's also sets its panic hook first).
so_magic() {
  local so=$1 fn size addr
  read -r fn size < <(nm -D -S --defined-only "$so" | awk '$4 == "Pg_magic_func" { print $1, $2 }')
  [ -n "$size" ] || { echo "no Pg_magic_func"; return 1; }
  addr=$(objdump -d --no-show-raw-insn --start-address="0x$fn" --stop-address="$(printf '0x%x' $((0x$fn + 0x$size)))" "$so" \
    | awk '/\tlea .*\(%rip\),%rax/ { a = $NF; if (a ~ /^</) a = $(NF - 1) } /\tret/ { print a; exit }')
  [ -n "$addr" ] || { echo "no Pg_magic_func returning a block"; return 1; }
  # objdump -s prints the bytes at that address in every section that has it (debug sections
  # start at 0 too): the first loaded section's line is the block.
  objdump -s --start-address="0x$addr" --stop-address="$(printf '0x%x' $((0x$addr + 8)))" "$so" \
    | awk '/^Contents of section / { s = $4 } s !~ /^\.debug/ && $1 ~ /^[0-9a-f]+$/ && NF >= 3 { print $3; exit }' \
    | sed 's/\(..\)\(..\)\(..\)\(..\)/0x\4\3\2\1/' | xargs printf '%d\n'
}

so_needed() { # so_needed FILE.so: the libraries it links (DT_NEEDED), sorted, one line
  readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | paste -sd ' '
}
