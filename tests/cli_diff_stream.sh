#!/bin/sh
# cli_diff_stream.sh - `tracegate diff` reads one trace at a time
# (cli/diff_load.c: each trace's run data built, its model and tree freed
# before the next is read): a bad trace in any place (the first, the
# second, one rank of a side, a --noise-from run) fails with the reader's
# one line (its name and byte offset) and exit 2, nothing on stdout; two
# ranks a side are judged with the findings across their ranks, the same
# in any order of the files, a straggler found; runs of one rank are not;
# --noise-from widens the intervals; and the peak memory is about one
# trace's: below 1.75 times the peak of `critical-path` on one of the
# traces (its model, tree and graph), where reading both sides at once held
# two of each (about twice).
# Usage: sh tests/cli_diff_stream.sh TRACEGATE   (generator: $TG_GEN, default build/tg-gen)
set -u
TG=$1
. "$(dirname "$0")/tap.sh"
tap_tmp
tap_generator

B="--steps 4 --layers 2 --seq 1024"
gen() { # NAME ARGS...: $tmp/NAME.json
	n=$1; shift
	"$GEN" -o "$tmp/$n.json" "$@" 2>"$tmp/gen.err" || not_ok "generate $n" "$(head -c 300 "$tmp/gen.err")"
}
gen base $B
gen new $B --gemm-scale 1.06
gen noise $B --seed 3 --noise 3
gen r0 $B --ranks 2 --rank 0
gen r1 $B --ranks 2 --rank 1
gen n0 $B --ranks 2 --rank 0 --straggler 1 --skew-us 400
gen n1 $B --ranks 2 --rank 1 --straggler 1 --skew-us 400
head -c 30000 "$tmp/new.json" >"$tmp/cut.json"
gzip -c "$tmp/new.json" >"$tmp/whole.json.gz"
head -c $(($(wc -c <"$tmp/whole.json.gz") / 2)) "$tmp/whole.json.gz" >"$tmp/cut.json.gz"

run() { "$TG" diff "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
# bad NAME FILE ARGS...: exit 2, nothing on stdout, stderr the one line
# `tracegate report FILE` prints for it (the reader's: name, byte offset)
bad() {
	name=$1 file=$2; shift 2
	"$TG" report "$file" >/dev/null 2>"$tmp/want"
	run "$@"
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && cmp -s "$tmp/err" "$tmp/want" \
		&& grep -q "^tracegate: $file: .*byte [0-9]" "$tmp/err"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc: $(head -c 300 "$tmp/err") (want $(head -c 300 "$tmp/want"))"
	fi
}

# ------------------------------------------------------------ bad traces

bad "a truncated second trace: its name and byte offset, exit 2" "$tmp/cut.json" "$tmp/base.json" "$tmp/cut.json"
bad "a truncated first trace" "$tmp/cut.json" "$tmp/cut.json" "$tmp/base.json"
bad "a truncated gzip second trace" "$tmp/cut.json.gz" "$tmp/base.json" "$tmp/cut.json.gz"
bad "a truncated rank of the new side" "$tmp/cut.json" "$tmp/r0.json" "$tmp/r1.json" -- "$tmp/n0.json" "$tmp/cut.json"
bad "a truncated --noise-from run" "$tmp/cut.json" "$tmp/base.json" "$tmp/new.json" --noise-from "$tmp/cut.json"
run "$tmp/base.json" "$tmp/missing.json"
[ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "missing.json" "$tmp/err" \
	&& ok "a missing second trace: one line, exit 2" || not_ok "missing second trace" "exit $rc: $(cat "$tmp/err")"

# ------------------------------------------------------------ ranks

run "$tmp/r0.json" "$tmp/r1.json" -- "$tmp/n0.json" "$tmp/n1.json" --format json
cp "$tmp/out" "$tmp/ranks.json"
[ "$rc" -le 1 ] && [ ! -s "$tmp/err" ] && python3 - "$tmp/ranks.json" <<'EOF' && ok "two ranks a side: the straggler found across the new side's ranks" || not_ok "two ranks a side" "exit $rc: $(head -c 300 "$tmp/err")"
import json, sys
d = json.load(open(sys.argv[1]))
ids = [(f["id"], f["change"]) for f in d["findings"]]
assert ("straggler", "new") in ids, ids
EOF
run "$tmp/r1.json" "$tmp/r0.json" -- "$tmp/n1.json" "$tmp/n0.json" --format json
cmp -s "$tmp/out" "$tmp/ranks.json" && ok "two ranks a side in the other order: the same bytes" \
	|| not_ok "ranks in another order" "the documents differ"
run "$tmp/base.json" "$tmp/base.json" -- "$tmp/new.json" "$tmp/new.json" --format json
[ "$rc" -le 1 ] && [ ! -s "$tmp/err" ] && python3 - "$tmp/out" <<'EOF' && ok "runs of one rank: no straggler, judged" || not_ok "runs of one rank" "exit $rc: $(head -c 300 "$tmp/err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert all(f["id"] != "straggler" for f in d["findings"]), d["findings"]
EOF

# ------------------------------------------------------------ noise

run "$tmp/base.json" "$tmp/new.json" --format json
cp "$tmp/out" "$tmp/plain.json"
run "$tmp/base.json" "$tmp/new.json" --format json --noise-from "$tmp/noise.json"
[ "$rc" -le 1 ] && [ ! -s "$tmp/err" ] && ! cmp -s "$tmp/out" "$tmp/plain.json" \
	&& ok "--noise-from: judged from its measures, the document moves" || not_ok "--noise-from" "exit $rc: $(head -c 300 "$tmp/err")"

# ------------------------------------------------------------ memory

# tap_peak_rss measures a sanitizer's build with ASan's quarantine off: it
# would keep the first trace's freed model and tree (both commands' peaks as
# measured on one machine: 37 MB and 42 MB with it off, 69 MB and 187 MB with it on)
if [ -x /usr/bin/time ]; then
	gen big1 --train --target-mb 30 --seed 1 --noise 1
	gen big2 --train --target-mb 30 --seed 2 --noise 1
	tap_peak_rss "$tmp/rss.cp" "$TG" critical-path "$tmp/big1.json"
	tap_peak_rss "$tmp/rss.diff" "$TG" diff "$tmp/big1.json" "$tmp/big2.json"
	cp "$tmp/peak.err" "$tmp/err"
	cp=$(tail -1 "$tmp/rss.cp") diff=$(tail -1 "$tmp/rss.diff")
	# 1.75x: two traces held at once are 2x and more; in issue 24's fifth
	# round the critical path of one (the yardstick) came down to 15.3-15.6 MB
	# and the diff to 20.8 MB on a quiet machine (1.34x) but 23.2 MB with a
	# sanitizer's build beside it (1.52x: which parts the findings' thread
	# overlaps), so 1.5x failed a loaded CI run
	[ "$rc" -le 1 ] && [ "$diff" -lt $((cp * 7 / 4)) ] \
		&& ok "two 30 MB traces: the diff's peak $diff KB below 1.75x one trace's critical path ($cp KB)" \
		|| not_ok "the diff's peak" "exit $rc, $diff KB (critical-path of one: $cp KB): $(head -c 300 "$tmp/err")"
else
	skip "the diff's peak memory" "no GNU time at /usr/bin/time (contrib/install-deps.sh --bench)"
fi

echo "cli_diff_stream: $fails failed"
tap_exit
