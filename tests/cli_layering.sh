#!/bin/sh
# cli_layering.sh - the include arrows of ../shared/DESIGN.md ("The house")
# hold in the tree (tests/layering.sh), and the check is not a rubber
# stamp: on a copy of the sources, each kind of bad include planted in turn
# makes it fail, naming the file, the line and the broken rule; the copy
# restored, it passes again.
# Usage: sh tests/cli_layering.sh [TRACEGATE] (unused; run.sh gives it)
set -u
. "$(dirname "$0")/tap.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/tg-layering-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

sh "$top/tests/layering.sh" "$top" >"$tmp/out" 2>&1
rc=$?
check "the tree keeps the layering" "exit $rc: $(head -c 600 "$tmp/out")" [ "$rc" -eq 0 ]

mkdir "$tmp/tree"
(cd "$top" && cp -R core rules config daemon "$tmp/tree/")
sh "$top/tests/layering.sh" "$tmp/tree" >"$tmp/out" 2>&1
check "the copy passes before anything is planted" "exit $?: $(head -c 600 "$tmp/out")" [ ! -s "$tmp/out" ]

# plant FILE INCLUDE RULE: appends the include to FILE in the copy, wants a
# failure naming FILE:LINE and RULE, then puts FILE back
plant() {
	f=$1 inc=$2 want=$3
	cp "$tmp/tree/$f" "$tmp/saved"
	printf '#include "%s"\n' "$inc" >>"$tmp/tree/$f"
	line=$(wc -l <"$tmp/tree/$f")
	sh "$top/tests/layering.sh" "$tmp/tree" >"$tmp/out" 2>&1
	rc=$?
	check "planted in $f: #include \"$inc\" fails" "exit $rc" [ "$rc" -eq 1 ]
	check "  ... naming $f:$line and the rule ($want)" "$(cat "$tmp/out")" \
		grep -qF "$f:$line: includes" "$tmp/out"
	check "  ... the rule: $want" "$(cat "$tmp/out")" grep -qF "$want" "$tmp/out"
	check "  ... and only that include" "$(cat "$tmp/out")" [ "$(wc -l <"$tmp/out")" -eq 1 ]
	cp "$tmp/saved" "$tmp/tree/$f"
}
plant core/tree/tree.c ../rules/rules.h "core/ includes only core/"
plant core/trace/trace.h ../config/config.h "core/ includes only core/"
plant core/analysis/report.c ../daemon/util.h "core/ includes only core/"
plant rules/judge.c ../daemon/daemon.h "rules/ never includes daemon/"
plant config/config.c ../daemon/store/store.h "config/ never includes daemon/"
plant daemon/storage/s3.c ../store/store_impl.h "an *_impl.h header is its own folder's"
plant cli/cmd_history.c ../daemon_impl.h "an *_impl.h header is its own folder's"
plant daemon/forge/forge.c ../daemon.h "never the job machine"
plant daemon/store/store.c ../manifest.h "never the job machine"
plant daemon/git/git.c ../cli/cli.h "a room never includes the command line"
plant daemon/history/history_render.c ../run_metrics.h "never the job machine"
plant daemon/history/history_order.c ../cli/cli.h "a room never includes the command line"
plant daemon/daemon.c cli/commands.h "the job machine never includes the command line"

sh "$top/tests/layering.sh" "$tmp/tree" >"$tmp/out" 2>&1
check "restored, the copy passes again" "exit $?: $(head -c 600 "$tmp/out")" [ ! -s "$tmp/out" ]
# what is allowed stays allowed: a room through another's public header, util.h
printf '#include "../forge/http.h"\n#include "../util.h"\n#include "../sha256.h"\n#include "../log.h"\n' >>"$tmp/tree/daemon/store/store.c"
sh "$top/tests/layering.sh" "$tmp/tree" >"$tmp/out" 2>&1
check "a room may include another room's public header, util.h, sha256.h and log.h" "exit $?: $(cat "$tmp/out")" [ ! -s "$tmp/out" ]
sh "$top/tests/layering.sh" "$tmp/nowhere" >"$tmp/out" 2>&1
check "a folder that is not there: exit 2" "exit $?" [ "$?" -eq 2 ]
tap_exit
