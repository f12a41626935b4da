#!/bin/sh
# cli_sizes.sh - no source file over 800 lines and no function over 100
# (tests/sizes.sh, with the files of tests/sizes.allow let through), and the
# check is not a rubber stamp: on a copy of the sources, a planted long
# function and a planted long file each make it fail, naming the file, the
# line and the function; an allowed file is let through; bad usage exits 2.
# Usage: sh tests/cli_sizes.sh [TRACEGATE] (unused; run.sh gives it)
set -u
. "$(dirname "$0")/tap.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
tap_tmp

sh "$top/tests/sizes.sh" --allow "$top/tests/sizes.allow" "$top" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "the tree keeps the size limits" "exit $rc: $(head -c 600 "$tmp/out")" [ "$rc" -eq 0 ]
check "  ... and says nothing" "$(head -c 600 "$tmp/out")" [ ! -s "$tmp/out" ]

mkdir "$tmp/tree" "$tmp/tree/core"
# a function of exactly 100 lines passes, one of 101 does not
{
	echo "/* x.c - planted */"
	echo "static int fits(int a,"
	echo "		int b)"
	echo "{"
	i=0; while [ $i -lt 95 ]; do echo "	a += b;"; i=$((i + 1)); done
	echo "	return a;"
	echo "}"
	echo "static const int table[] = {"
	echo "	1,"
	echo "};"
	echo "int tg_x_long(int a)"
	echo "{"
	i=0; while [ $i -lt 97 ]; do echo "	a++;"; i=$((i + 1)); done
	echo "	return fits(a, table[0]);"
	echo "}"
} >"$tmp/tree/core/x.c"
sh "$top/tests/sizes.sh" "$tmp/tree" >"$tmp/out" 2>&1
rc=$?
check "a function of 101 lines fails" "exit $rc: $(cat "$tmp/out")" [ "$rc" -eq 1 ]
check "  ... naming its file, line, name and length" "$(cat "$tmp/out")" \
	[ "$(cat "$tmp/out")" = "core/x.c:105: function tg_x_long is 101 lines (over 100)" ]

i=0; while [ $i -lt 801 ]; do echo "int v$i;"; i=$((i + 1)); done >"$tmp/tree/core/y.h"
sh "$top/tests/sizes.sh" "$tmp/tree" >"$tmp/out" 2>&1
check "a header of 801 lines fails too" "exit $?" grep -qxF "core/y.h: 801 lines (over 800)" "$tmp/out"

printf '# planted\ncore/x.c\ncore/y.h\n' >"$tmp/allow"
sh "$top/tests/sizes.sh" --allow "$tmp/allow" "$tmp/tree" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "files on the allow list pass" "exit $rc: $(cat "$tmp/out")" [ "$rc" -eq 0 ]
rm "$tmp/tree/core/y.h"
sh "$top/tests/sizes.sh" --allow "$tmp/allow" "$tmp/tree" >"$tmp/out" 2>"$tmp/err"
check "an allowed file that is gone is named on stderr" "$(cat "$tmp/err")" \
	grep -qF "names core/y.h, which is not there" "$tmp/err"

sh "$top/tests/sizes.sh" "$tmp/nowhere" >"$tmp/out" 2>&1
check "a folder that is not there: exit 2" "exit $?" [ "$?" -eq 2 ]
sh "$top/tests/sizes.sh" --allow "$tmp/nolist" "$tmp/tree" >"$tmp/out" 2>&1
check "an allow list that is not there: exit 2" "exit $?" [ "$?" -eq 2 ]
tap_exit
