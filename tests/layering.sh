#!/bin/sh
# layering.sh - checks the include arrows of ../shared/DESIGN.md ("The
# house") over the sources under ROOT (default: the repository), and prints
# one line per include that breaks them: FILE:LINE: includes TARGET: RULE.
# Exit 0 when none does, 1 when one does, 2 on a usage error.
#
#   core/            includes only core/ (no rules/, config/, daemon/)
#   rules/, config/  never include daemon/
#   daemon/<room>/   (storage, store, git, forge, history, metrics) includes its own room, the
#                    other rooms' public headers (not *_impl.h, not cli/),
#                    and of daemon/ itself only util.h, sha256.h and log.h
#                    (leaf helpers; the log's level is its only state):
#                    never the job machine
#   daemon/          (the job machine) never includes cli/
#   *_impl.h         a module's private header: only its own folder's files
#
# The command line (cli/) may use any public header. tests/ and
# bench/ are not checked (white-box tests include *_impl.h on purpose).
# Usage: sh tests/layering.sh [ROOT]
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" 2>/dev/null || { echo "layering.sh: $root: no such folder" >&2; exit 2; }
[ -d core ] && [ -d daemon ] || { echo "layering.sh: $root: not a tracegate tree (no core/ or daemon/)" >&2; exit 2; }

# room PATH: core, rules, config, machine (daemon/ itself), a daemon room, or other
room() {
	case $1 in
	core/*) echo core ;;
	rules/*) echo rules ;;
	config/*) echo config ;;
	daemon/*/*) r=${1#daemon/}; echo "${r%%/*}" ;;
	daemon/*) echo machine ;;
	*) echo other ;;
	esac
}

# rule FILE TARGET: prints the broken rule, or nothing
rule() {
	fr=$(room "$1")
	tr=$(room "$2")
	case $2 in
	*_impl.h)
		[ "$(dirname "$1")" = "$(dirname "$2")" ] || { echo "an *_impl.h header is its own folder's"; return; } ;;
	esac
	case $fr in
	core) [ "$tr" = core ] || echo "core/ includes only core/" ;;
	rules | config) case $tr in core | rules | config | other) ;; *) echo "$fr/ never includes daemon/" ;; esac ;;
	machine) [ "$tr" = cli ] && echo "the job machine never includes the command line (cli/)" ;;
	storage | store | git | forge | history | metrics)
		case $tr in
		"$fr" | core | rules | config | other) ;;
		cli) echo "a room never includes the command line (cli/)" ;;
		machine)
			case $2 in
			util/util.h | util/sha256.h | util/log.h) ;;
			*) echo "a room uses of daemon/ only util.h, sha256.h and log.h, never the job machine" ;;
			esac ;;
		*) ;; # another room's public header
		esac ;;
	esac
	return 0
}

bad=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
find core rules config daemon -name '*.[ch]' | LC_ALL=C sort | while IFS= read -r f; do
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1 \2/' |
		while read -r n inc; do
			t=$(realpath -m --relative-to=. "$(dirname "$f")/$inc")
			why=$(rule "$f" "$t")
			[ -n "$why" ] && echo "$f:$n: includes $t: $why"
		done
done >"$out"
if [ -s "$out" ]; then
	cat "$out"
	bad=1
fi
exit $bad
