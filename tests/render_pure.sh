#!/bin/sh
# render_pure.sh - the renderers call nothing that computes ("compute once,
# render apart", docs/conventions.md): for each render object listed in
# LIST (default tests/render_pure.list: "object PATH" lines, relative to
# BUILD), the undefined symbols nm -u gives must match none of the list's
# "forbid GLOB" patterns. Prints one line per offence, "PATH: SYMBOL
# (forbid GLOB)", or per missing object, "PATH: missing (make builds it)";
# exits 1 when there is any, 0 when none.
# Usage: sh tests/render_pure.sh BUILD [LIST]
set -u
b=${1:-build}
list=${2:-$(dirname "$0")/render_pure.list}
if [ ! -r "$list" ]; then
	echo "$list: cannot read the list" >&2
	exit 2
fi
objects=$(sed -n 's/^object[[:space:]]\{1,\}//p' "$list")
forbid=$(sed -n 's/^forbid[[:space:]]\{1,\}//p' "$list")
bad=0
for o in $objects; do
	if [ ! -f "$b/$o" ]; then
		echo "$b/$o: missing (make builds it)"
		bad=1
		continue
	fi
	for s in $(nm -u "$b/$o" | awk '{print $NF}'); do
		for g in $forbid; do
			# shellcheck disable=SC2254 # g is a pattern on purpose
			case "$s" in $g)
				echo "$b/$o: $s (forbid $g)"
				bad=1
				break
				;;
			esac
		done
	done
done
exit "$bad"
