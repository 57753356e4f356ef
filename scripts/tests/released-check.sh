#!/usr/bin/env bash
# The released upgrade scripts are as they were released (sql/released.sha256), and every other
# upgrade script is the one to the version this tree is (Cargo.toml's): a released script is never
# edited, as paradedb's CI refuses such an edit. Prints "ok - ..." / "not ok - ..." lines.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
status=0
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
while read -r sum file; do
  case $sum in ''|'#'*) continue ;; esac
  if [ ! -f "$file" ]; then
    echo "not ok - released: $file is gone"; status=1
  elif [ "$(sha256sum "$file" | cut -d' ' -f1)" = "$sum" ]; then
    echo "ok - released: $file is as released"
  else
    echo "not ok - released: $file changed since it was released (a released upgrade script is never edited: write the change into the next version's script)"; status=1
  fi
done < sql/released.sha256
for f in sql/keybench--*--*.sql; do
  grep -q " $f\$" sql/released.sha256 && continue
  to=${f##*--}; to=${to%.sql}
  if [ "$to" = "$version" ]; then
    echo "ok - released: $f is this version's ($version), not yet released"
  else
    echo "not ok - released: $f is neither released (sql/released.sha256) nor this version's ($version)"; status=1
  fi
done
exit $status
