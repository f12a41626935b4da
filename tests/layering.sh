#!/bin/sh
# layering.sh - checks the include arrows of ../shared/DESIGN.md ("The
# house") over the sources under ROOT (default: the repository), and prints
# one line per include that breaks them: FILE:LINE: includes TARGET: RULE.
# Exit 0 when none does, 1 when one does, 2 on a usage error.
#
# The rooms and the rooms each may include are data (the table below): a
# file's room is the longest room that is a prefix of its path; a file may
# include its own room and the rooms its row names, nothing else. A room
# not in the table (tests/, bench/, contrib/) is not checked. Besides the
# table, one rule: an *_impl.h header (a module's private header) is
# included only by the files of its own folder.
#
# Arrows point down (DESIGN.md): cli -> daemon -> its rooms -> net -> util;
# daemon and cli -> render -> rules -> core -> util; inside core, by stage:
# trace -> tree -> models -> analysis -> diff, each using the ones before.
# The daemon's rooms never use each other (history may read the store) nor
# the job machine; render reads what core and rules computed (whether it
# calls anything that computes is tests/render_pure.sh's check, on symbols).
# Usage: sh tests/layering.sh [ROOT]
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" 2>/dev/null || { echo "layering.sh: $root: no such folder" >&2; exit 2; }
[ -d core ] && [ -d util ] && [ -d daemon ] || { echo "layering.sh: $root: not a tracegate tree (no core/, util/ or daemon/)" >&2; exit 2; }

# room            may include (besides itself)
rooms='
util
net               util
core/trace        util
core/tree         core/trace util
core/models       core/tree core/trace util
core/analysis     core/models core/tree core/trace util
core/diff         core/analysis core/models core/tree core/trace util
rules             core/diff core/analysis core/models core/tree core/trace util
render            rules core/diff core/analysis core/models core/tree core/trace util
config            util
daemon/storage    net util
daemon/store      core/diff core/analysis core/models core/tree core/trace util
daemon/git        util
daemon/forge      net util
daemon/history    daemon/store render rules core/diff core/analysis core/models core/tree core/trace util
daemon/metrics    net util
daemon            daemon/storage daemon/store daemon/git daemon/forge daemon/history daemon/metrics config render rules core/diff core/analysis core/models core/tree core/trace net util
cli               daemon daemon/storage daemon/store daemon/git daemon/forge daemon/history daemon/metrics config render rules core/diff core/analysis core/models core/tree core/trace net util
'

find util net core rules render config daemon cli -name '*.[ch]' 2>/dev/null | LC_ALL=C sort | while IFS= read -r f; do
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1 \2/' |
		while read -r n inc; do
			echo "$f $n $(realpath -m --relative-to=. "$(dirname "$f")/$inc")"
		done
done | awk -v rooms="$rooms" '
function room_of(p,   best, r) {
	best = ""
	for (r in allow)
		if ((index(p, r "/") == 1) && length(r) > length(best))
			best = r
	return best
}
function dir_of(p) { sub(/\/[^\/]*$/, "", p); return p }
BEGIN {
	n = split(rooms, line, "\n")
	for (i = 1; i <= n; i++) {
		k = split(line[i], w, /[ \t]+/)
		if (k == 0 || w[1] == "") continue
		allow[w[1]] = " " w[1]
		for (j = 2; j <= k; j++) allow[w[1]] = allow[w[1]] " " w[j]
		allow[w[1]] = allow[w[1]] " "
	}
}
{
	f = $1; ln = $2; t = $3
	if (t ~ /_impl\.h$/ && dir_of(t) != dir_of(f)) {
		printf "%s:%s: includes %s: an *_impl.h header is its own folder'"'"'s\n", f, ln, t; bad = 1; next
	}
	fr = room_of(f); tr = room_of(t)
	if (fr == "" || tr == "") next
	if (index(allow[fr], " " tr " ") == 0) {
		printf "%s:%s: includes %s: %s/ may include only%s\n", f, ln, t, fr, substr(allow[fr], 1, length(allow[fr]) - 1); bad = 1
	}
}
END { exit bad }'
