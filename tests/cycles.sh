#!/bin/sh
# cycles.sh - finds circles of files calling one another (issue 16): for
# each folder of objects under BUILD (util, net, each room of core, rules,
# render, config, daemon's job machine, each daemon room, the command line), an arrow goes from a file
# to every other file of the folder that defines a symbol it uses (nm),
# and every strongly connected set of two or more files is printed as
# "FOLDER: a.o b.o ..." (a.o calls b.o ... calls a.o). Exit 0 when there is
# none, 1 when there is one, 2 on a usage error. The include arrows are
# tests/layering.sh's; this checks the calls inside a folder.
# Run from the repository's root (objects count when their source exists).
# Usage: sh tests/cycles.sh [BUILD] (default build)
set -u
b=${1:-build}
[ -d "$b/core" ] && [ -d "$b/util" ] || { echo "cycles.sh: $b/core, $b/util: no objects (build first)" >&2; exit 2; }
command -v nm >/dev/null 2>&1 || { echo "cycles.sh: nm is needed (binutils)" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "cycles.sh: python3 is needed" >&2; exit 2; }
found=0
for dir in "$b"/util "$b"/net "$b"/core/*/ "$b"/rules "$b"/render "$b"/config "$b"/daemon "$b"/daemon/*/ "$b"/cli; do
	dir=${dir%/}
	# the objects of sources that exist (a renamed source leaves its old
	# object behind in the build folder)
	objs=$(for o in "$dir"/*.o; do
		s=${o#"$b"/}
		[ -f "${s%.o}.c" ] && echo "$o"
	done)
	[ -n "$objs" ] || continue
	# "o D sym" for each defined global symbol, "o U sym" for each used one
	for o in $objs; do
		nm -g --defined-only "$o" | awk -v o="$(basename "$o")" 'NF == 3 && $2 ~ /[TDBRC]/ {print o, "D", $3}'
		nm -u "$o" | awk -v o="$(basename "$o")" '{print o, "U", $NF}'
	done >"${TMPDIR:-/tmp}/cycles.$$"
	out=$(python3 - "${TMPDIR:-/tmp}/cycles.$$" "$dir" <<'PY'
import sys
defs, uses = {}, {}
for line in open(sys.argv[1]):
    o, k, s = line.split()
    uses.setdefault(o, set())
    if k == "D":
        defs.setdefault(s, o)
    else:
        uses[o].add(s)
g = {o: sorted({defs[s] for s in u if s in defs and defs[s] != o}) for o, u in uses.items()}
index, low, stack, on, n = {}, {}, [], set(), [0]
sys.setrecursionlimit(100000)
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1
    stack.append(v); on.add(v)
    for w in g[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            print("%s: %s" % (sys.argv[2], " ".join(sorted(comp))))
for v in sorted(g):
    if v not in index:
        visit(v)
PY
)
	rm -f "${TMPDIR:-/tmp}/cycles.$$"
	if [ -n "$out" ]; then
		echo "$out"
		found=1
	fi
done
exit $found
