#!/bin/sh
# sizes.sh - the size limits of docs/conventions.md: no source file over 800
# lines, no function over 100. Scans every .c and .h under the source rooms
# of ROOT (core rules config daemon, and util net render cli when they
# exist) and prints one line per breach:
#
#   FILE: N lines (over 800)
#   FILE:LINE: function NAME is N lines (over 100)
#
# Exit 0 when there is none, 1 when there is one, 2 on a usage error.
#
# A function is found the way this code base writes one: its definition
# opens in column 0 (the line holding the name and "(", the return type on
# the same line), its body opens with a "{" alone in column 0 and closes
# with a "}" in column 0. It counts from the definition's first line to the
# closing brace, both included. Comments, preprocessor lines and
# "struct x {" / "= {" tables never open a body ("{" not alone in column 0).
#
# --allow FILE names a data file (tests/sizes.allow) of source paths, one a
# line, "#" comments, that are still over a limit while another branch
# splits them: their breaches are not counted (an allowed path that is back
# within the limits is named on stderr, so the list can shrink).
# Usage: sh tests/sizes.sh [--allow FILE] [ROOT] (ROOT: the repository)
set -u
allow=""
if [ "${1:-}" = --allow ]; then
	[ $# -ge 2 ] || { echo "sizes.sh: --allow needs a FILE" >&2; exit 2; }
	allow=$2
	shift 2
	[ -f "$allow" ] || { echo "sizes.sh: $allow: no such allow list" >&2; exit 2; }
	allow=$(cd "$(dirname "$allow")" && pwd)/$(basename "$allow")
fi
root=${1:-$(dirname "$0")/..}
cd "$root" 2>/dev/null || { echo "sizes.sh: $root: no such folder" >&2; exit 2; }
[ -d core ] || { echo "sizes.sh: $root: not a tracegate tree (no core/)" >&2; exit 2; }
rooms=""
for r in core rules config daemon util net render cli; do
	[ -d "$r" ] && rooms="$rooms $r"
done
files=$(find $rooms -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)

# allowed PATH: whether the allow list names PATH
allowed() {
	[ -n "$allow" ] || return 1
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$allow" | grep -qxF "$1"
}

found=0
for f in $files; do
	out=$(awk -v f="$f" -v maxfile=800 -v maxfn=100 '
		# head: the last column-0 line outside a body that may open a definition
		!inbody && /^[A-Za-z_]/ { head = NR; text = $0 }
		!inbody && /^\{[[:space:]]*$/ && head && text ~ /\(/ {
			inbody = 1
			name = text
			sub(/\(.*/, "", name)
			n = split(name, w, /[[:space:]*]+/)
			name = w[n]
			next
		}
		inbody && /^\}/ {
			inbody = 0
			len = NR - head + 1
			if (len > maxfn)
				fns = fns sprintf("%s:%d: function %s is %d lines (over %d)\n", f, head, name, len, maxfn)
			head = 0
		}
		END {
			if (NR > maxfile)
				printf "%s: %d lines (over %d)\n", f, NR, maxfile
			printf "%s", fns
		}
	' "$f")
	[ -n "$out" ] || continue
	if allowed "$f"; then
		continue
	fi
	echo "$out"
	found=1
done
if [ -n "$allow" ]; then
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$allow" | grep -v '^$' | while read -r p; do
		if [ ! -f "$p" ]; then
			echo "sizes.sh: $allow names $p, which is not there (drop it)" >&2
			continue
		fi
		awk -v p="$p" 'BEGIN { over = 0 } !inbody && /^[A-Za-z_]/ { head = NR }
			!inbody && /^\{[[:space:]]*$/ { inbody = 1 } inbody && /^\}/ { inbody = 0; if (NR - head + 1 > 100) over = 1 }
			END { if (NR <= 800 && !over) printf "sizes.sh: %s is within the limits now (drop it from the allow list)\n", p }' "$p" >&2
	done
fi
exit $found
