#!/bin/sh
# demo.sh - `make demo`: the main job on the embedded default. For now that
# is the trace analysis (report, tree, modules) on the bundled sample trace;
# the daemon (watching a storage folder, posting to a forge) arrives with its
# own issue.
set -eu
tg=${1:-./tracegate}
sample=tests/fixtures/sample.json
echo "== tracegate tree $sample"
"$tg" tree "$sample"
echo
echo "== tracegate modules $sample"
"$tg" modules "$sample"
echo
echo "== tracegate report $sample (first tables)"
"$tg" report "$sample" | head -40
echo "   ... (tracegate report $sample --format csv -o DIR writes TraceLens's CSV files)"
echo
echo "== tracegate tree $sample --match 'flash'"
"$tg" tree "$sample" --match flash
echo
echo "The daemon (tracegate daemon --once on a local storage folder, with the"
echo "gate's verdict posted to an outbox forge) comes in a later release; today"
echo "tracegate reads traces and gives their perf report, event tree and nn.Module view."
