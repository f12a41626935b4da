#!/bin/sh
# cli_cycles.sh - no circle of files calling one another inside a folder
# (tests/cycles.sh over the objects make check built), and the check
# itself finds a planted one: two files of a copied folder that call each
# other.
# Usage: TG_BUILD=build sh tests/cli_cycles.sh TRACEGATE (the objects of
# $TG_BUILD are read, default build; TRACEGATE is unused)
set -u
. "$(dirname "$0")/tap.sh"
b=${TG_BUILD:-build}
if [ ! -d "$b/core" ]; then
	not_ok "cycles" "$b/core: no objects (make check builds them)"
	tap_exit
fi
out=$(sh tests/cycles.sh "$b" 2>&1)
rc=$?
check "no folder's files call one another in a circle" "$out" [ "$rc" -eq 0 ]

# a planted circle: core/tree/zz_a.c calls core/tree/zz_b.c, which calls it back
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/core/tree" "$tmp/src/$b/core/tree" "$tmp/src/$b/util"
printf 'int zz_b(int);\nint zz_a(int x) { return x ? zz_b(x - 1) : 0; }\n' >"$tmp/src/core/tree/zz_a.c"
printf 'int zz_a(int);\nint zz_b(int x) { return zz_a(x); }\n' >"$tmp/src/core/tree/zz_b.c"
printf 'int zz_a(int);\nint zz_c(int x) { return zz_a(x); }\n' >"$tmp/src/core/tree/zz_c.c"
ok=1
for f in zz_a zz_b zz_c; do
	cc -c "$tmp/src/core/tree/$f.c" -o "$tmp/src/$b/core/tree/$f.o" || ok=0
done
here=$(pwd)
out=$(cd "$tmp/src" && sh "$here/tests/cycles.sh" "$b" 2>&1)
rc=$?
found() { [ "$ok" -eq 1 ] && [ "$rc" -eq 1 ]; }
check "a planted circle is found" "rc $rc: $out" found
check "it names the two files, not the one that only calls in" "$out" [ "$out" = "$b/core/tree: zz_a.o zz_b.o" ]
tap_exit
