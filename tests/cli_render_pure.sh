#!/bin/sh
# cli_render_pure.sh - the render objects call nothing that computes
# (tests/render_pure.sh over tests/render_pure.list, on the objects make
# check built), no render source includes core/diff/compare.h, and the check is
# no rubber stamp: a planted render object that calls tg_compare_table is
# refused, naming the file and the symbol, and a listed object that is
# missing is refused too.
# Usage: TG_BUILD=build sh tests/cli_render_pure.sh TRACEGATE (the objects of
# $TG_BUILD are read, default build; TRACEGATE is unused)
set -u
. "$(dirname "$0")/tap.sh"
b=${TG_BUILD:-build}
if [ ! -d "$b/rules" ]; then
	not_ok "render pure" "$b/rules: no objects (make check builds them)"
	tap_exit
fi
out=$(sh tests/render_pure.sh "$b" 2>&1)
rc=$?
check "no render object calls a function that computes" "$out" [ "$rc" -eq 0 ]
n=$(grep -c '^object ' tests/render_pure.list)
check "the list names the diff's renderers" "$n objects" [ "$n" -ge 6 ]

# the sources of the listed objects include no computing module's header
tap_tmp
for o in $(sed -n 's/^object[[:space:]]\{1,\}//p' tests/render_pure.list); do
	c=${o%.o}.c
	[ -f "$c" ] && grep -Hn '#include.*/\(compare\|measure\|tree_diff\)\.h"' "$c" >>"$tmp/inc"
done
inc=$(cat "$tmp/inc" 2>/dev/null)
check "no render source includes compare.h, measure.h or tree_diff.h" "$inc" [ -z "$inc" ]

# a planted renderer that computes its own table
mkdir -p "$tmp/$b/render"
cat >"$tmp/zz_render.c" <<'C'
typedef struct tg_table tg_table;
int tg_compare_table(tg_table **out, const void *b, const void *n, const void *k, int by, unsigned long limit);
int tg_table_write_text(const tg_table *t, void *f, unsigned long width);
int zz_render(void *f, const void *b, const void *n, const void *k)
{
	tg_table *t;
	return tg_compare_table(&t, b, n, k, 0, 0) || tg_table_write_text(t, f, 80);
}
C
cc -c "$tmp/zz_render.c" -o "$tmp/$b/render/zz_render.o"
{ grep -v '^object ' tests/render_pure.list; echo "object render/zz_render.o"; } >"$tmp/list"
out=$(sh tests/render_pure.sh "$tmp/$b" "$tmp/list" 2>&1)
rc=$?
check "a planted render object that computes is refused" "rc $rc: $out" [ "$rc" -eq 1 ]
check "it names the file and the symbol, and only that one" "$out" \
	[ "$out" = "$tmp/$b/render/zz_render.o: tg_compare_table (forbid tg_compare_*)" ]

# a listed object that is not there
{ cat "$tmp/list"; echo "object render/zz_gone.o"; } >"$tmp/list2"
out=$(sh tests/render_pure.sh "$tmp/$b" "$tmp/list2" 2>&1)
check "a missing render object is refused" "$out" sh -c 'echo "$1" | grep -q "zz_gone.o: missing"' _ "$out"
tap_exit
