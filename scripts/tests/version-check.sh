#!/usr/bin/env bash
# One version everywhere: Cargo.toml's [package] version, and the same in keybench.control
# (default_version: pgrx writes Cargo.toml's in place of @CARGO_VERSION@, or a literal), the newest
# update script's target
# (sql/keybench--A--B.sql), CHANGELOG.md's top entry, every package file name README.md, docs/*.md
# and scripts/tools/package.sh show (keybench-X-pgN-linux-x86_64.tar.gz,
# postgresql-N-keybench_X-R_amd64.deb), and each PACKAGE given: its name, and for a .deb its Version
# field and the keybench.control it ships. No version is written here: each is read from its file.
# Then the check itself: in scratch copies, each file alone moved to another version (Cargo.toml's
# with its last number plus one) must fail, naming that file.
# Usage: scripts/tests/version-check.sh [PACKAGE...]   (prints "ok - ..." / "not ok - ..." lines)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh version

# versions_of ROOT [PACKAGE...]: "SOURCE VERSION" lines, one per place a version is written.
versions_of() {
  local root=$1 cargo c f; shift
  cargo=$(sed -n '/^\[package\]/,/^\[/ s/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)
  echo "Cargo.toml ${cargo:-(none)}"
  c=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$root/keybench.control")
  [ "$c" = @CARGO_VERSION@ ] && c=$cargo
  echo "keybench.control ${c:-(none)}"
  # shellcheck disable=SC2012 # the update scripts, named keybench--A--B.sql
  f=$(cd "$root/sql" && ls keybench--*--*.sql 2>/dev/null | sed 's/^keybench--.*--\(.*\)\.sql$/\1 &/' | sort -V | tail -1)
  echo "sql/${f#* } ${f%% *}"
  echo "CHANGELOG.md $(awk '/^## / { print $2; exit }' "$root/CHANGELOG.md")"
  for f in README.md docs/*.md scripts/tools/package.sh; do
    [ -f "$root/$f" ] || continue
    grep -oE 'keybench-[0-9]+\.[0-9]+\.[0-9]+[^ ]*-pg[0-9N]+-linux-x86_64\.tar\.gz|postgresql-[0-9N]+-keybench_[0-9]+\.[0-9]+\.[0-9]+[^_ ]*-[0-9]+_amd64\.deb' "$root/$f" \
      | sort -u | while read -r p; do echo "$f:$p $(pkg_version "$p")"; done
  done
  for f in "$@"; do
    echo "$(basename "$f") $(pkg_version "$(basename "$f")")"
    case $f in *.deb)
      echo "$(basename "$f"):Version $(dpkg-deb -f "$f" Version | sed 's/-[^-]*$//')"
      echo "$(basename "$f"):keybench.control $(dpkg-deb --fsys-tarfile "$f" | tar -xO --wildcards './usr/share/postgresql/*/extension/keybench.control' | sed -n "s/^default_version = '\(.*\)'/\1/p")" ;;
    esac
  done
}
pkg_version() { # pkg_version FILE_NAME: the version in a package's file name
  sed -E 's/^keybench-(.*)-pg[0-9N]+-linux-x86_64\.tar\.gz$/\1/; s/^postgresql-[0-9N]+-keybench_(.*)-[0-9]+_amd64\.deb$/\1/' <<< "$1"
}
# differing ROOT [PACKAGE...]: the sources whose version is not Cargo.toml's, with theirs
differing() { versions_of "$@" | awk 'NR == 1 { v = $2 } $2 != v { print $1 "=" $2 }'; }

v=$(sed -n '/^\[package\]/,/^\[/ s/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
all=$(versions_of "$KB_ROOT" "$@")
check "Cargo.toml's $v in the $(($(wc -l <<< "$all") - 1)) other places: $(awk 'NR > 1 { print $1 }' <<< "$all" | paste -sd ' ')" "" \
  "$(differing "$KB_ROOT" "$@" | paste -sd ' ')"

# The check itself: each file alone at another version, in a scratch copy.
other=$(awk -F. -v OFS=. '{ $NF = $NF + 1; print }' <<< "$v")
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
fresh() { # a scratch copy of the files read above (the update scripts as empty files: their names count)
  rm -rf "$scratch/t"; mkdir -p "$scratch/t/sql" "$scratch/t/docs" "$scratch/t/scripts/tools"
  cp Cargo.toml keybench.control CHANGELOG.md README.md "$scratch/t/"
  cp docs/*.md "$scratch/t/docs/"; cp scripts/tools/package.sh "$scratch/t/scripts/tools/"
  local s; for s in sql/keybench--*--*.sql; do : > "$scratch/t/$s"; done
}
before=$(differing "$KB_ROOT" | cut -d= -f1)
mutated() { # mutated FILE SOURCE: with FILE changed alone, SOURCE differs and nothing else newly does
  local got new
  got=$(differing "$scratch/t" | cut -d= -f1)
  new=$(comm -23 <(sort <<< "$got") <(sort <<< "$before") | grep -vxF "$2" | paste -sd ' ')
  check "fails when only $1 says $other" "$2 differs; nothing else" \
    "$(grep -qxF "$2" <<< "$got" && echo "$2 differs" || echo "$2 does not differ"); ${new:-nothing else}"
}
fresh; sed -i "0,/^version = \"$v\"/s//version = \"$other\"/" "$scratch/t/Cargo.toml"
# Cargo.toml is the reference: with it alone moved, every other place differs from it (but
# keybench.control's @CARGO_VERSION@, which follows it).
follows=$(grep -q "^default_version = '@CARGO_VERSION@'" keybench.control && echo keybench.control)
check "fails when only Cargo.toml says $other: every other place differs" \
  "$(versions_of "$KB_ROOT" | awk 'NR > 1 { print $1 }' | grep -vxF "${follows:-/}" | paste -sd ' ')" \
  "$(differing "$scratch/t" | cut -d= -f1 | paste -sd ' ')"
fresh; sed -i "s/^default_version = .*/default_version = '$other'/" "$scratch/t/keybench.control"
mutated keybench.control keybench.control
fresh; : > "$scratch/t/sql/keybench--$v--$other.sql"
mutated "sql/keybench--$v--$other.sql (a new update script)" "sql/keybench--$v--$other.sql"
fresh; sed -i "0,/^## /s//## $other\n\n## /" "$scratch/t/CHANGELOG.md"
mutated CHANGELOG.md CHANGELOG.md
fresh; echo "Install postgresql-17-keybench_${other}-1_amd64.deb." >> "$scratch/t/README.md"
mutated "README.md (a package name)" "README.md:postgresql-17-keybench_${other}-1_amd64.deb"
exit $failed
