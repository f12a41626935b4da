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
(cd "$top" && cp -R util net core rules render config daemon cli "$tmp/tree/")
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
plant core/tree/tree.c ../../rules/rules.h "core/tree/ may include only"
plant core/trace/trace.h ../../config/config.h "core/trace/ may include only"
plant core/trace/source.c ../tree/tree.h "core/trace/ may include only"
plant core/models/roofline.c ../analysis/report.h "core/models/ may include only"
plant core/analysis/report.c ../../render/report_text.h "core/analysis/ may include only"
plant core/diff/measure.c ../../daemon/daemon.h "core/diff/ may include only"
plant util/arena.c ../core/trace/trace.h "util/ may include only"
plant net/http.c ../daemon/forge/forge.h "net/ may include only"
plant rules/judge.c ../render/diff_render.h "rules/ may include only"
plant render/report_text.c ../daemon/daemon.h "render/ may include only"
plant config/config.c ../daemon/store/store.h "config/ may include only"
plant daemon/storage/s3.c ../store/store_impl.h "an *_impl.h header is its own folder's"
plant cli/cmd_history.c ../daemon/daemon_impl.h "an *_impl.h header is its own folder's"
plant daemon/forge/forge.c ../daemon.h "daemon/forge/ may include only"
plant daemon/forge/forge.c ../git/git.h "daemon/forge/ may include only"
plant daemon/store/store.c ../manifest.h "daemon/store/ may include only"
plant daemon/store/store.c ../history/run_metrics.h "daemon/store/ may include only"
plant daemon/git/git.c ../../cli/cli.h "daemon/git/ may include only"
plant daemon/daemon.c ../cli/commands.h "daemon/ may include only"

sh "$top/tests/layering.sh" "$tmp/tree" >"$tmp/out" 2>&1
check "restored, the copy passes again" "exit $?: $(head -c 600 "$tmp/out")" [ ! -s "$tmp/out" ]
# what is allowed stays allowed: the rooms below, by their public headers
printf '#include "../../net/http.h"\n#include "../../util/log.h"\n#include "../../util/sha256.h"\n' >>"$tmp/tree/daemon/forge/forge.c"
printf '#include "../store/store.h"\n' >>"$tmp/tree/daemon/history/branch_series.c"
printf '#include "../rules/rules.h"\n#include "../core/tree/tree.h"\n' >>"$tmp/tree/render/report_text.c"
printf '#include "../trace/trace.h"\n#include "../tree/tree.h"\n' >>"$tmp/tree/core/models/roofline.c"
sh "$top/tests/layering.sh" "$tmp/tree" >"$tmp/out" 2>&1
check "the rooms below stay allowed: net and util from a room, the store from history, rules from render, earlier stages in core" "exit $?: $(cat "$tmp/out")" [ ! -s "$tmp/out" ]
sh "$top/tests/layering.sh" "$tmp/nowhere" >"$tmp/out" 2>&1
check "a folder that is not there: exit 2" "exit $?" [ "$?" -eq 2 ]
tap_exit
