#!/bin/sh
# cli_bad_input.sh - command-line tests of tracegate on bad input: every
# fixture of tests/fixtures/bad must fail with exit status 2, nothing on
# stdout and exactly one line on stderr naming the file and, for malformed
# JSON or gzip, the byte offset (hard-coded below, counted by hand; see
# tests/fixtures/bad/make.sh). Also the usage errors, the reading limits, and
# the exact output of `tracegate tree` on tests/fixtures/tiny.json.
#
# Usage (from the repository root): sh tests/cli_bad_input.sh PATH_TO_TRACEGATE
# Prints "ok - ..." or "not ok - ..." per check; exits 1 if any check failed.
set -u

TG=${1:-./tracegate}
B=tests/fixtures/bad
TINY=tests/fixtures/tiny.json
failures=0
checks=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tg-cli-bad.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

ok() {
	checks=$((checks + 1))
	echo "ok - $1"
}

not_ok() {
	checks=$((checks + 1))
	failures=$((failures + 1))
	echo "not ok - $1"
	shift
	for l in "$@"; do
		echo "#   $l"
	done
}

# run ARGS...: runs tracegate; sets rc, stdout in $tmp/out, stderr in $tmp/err
run() {
	"$TG" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# one_line FILE: true if FILE is exactly one newline-terminated line
one_line() {
	[ "$(wc -l <"$1")" -eq 1 ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ]
}

# failure_shape WHAT: checks exit 2, empty stdout, one "tracegate: " line on
# stderr; sets line to that line. Returns 1 (after reporting) if not.
failure_shape() {
	line=$(cat "$tmp/err")
	if [ "$rc" -ne 2 ]; then
		not_ok "$1" "exit status $rc, expected 2" "stderr: $line"
		return 1
	fi
	if [ -s "$tmp/out" ]; then
		not_ok "$1" "stdout not empty: $(head -c 200 "$tmp/out")"
		return 1
	fi
	if ! one_line "$tmp/err"; then
		not_ok "$1" "stderr is not exactly one line ($(wc -l <"$tmp/err") newlines):" "$line"
		return 1
	fi
	case $line in
	"tracegate: "*) ;;
	*)
		not_ok "$1" "stderr does not start with 'tracegate: ': $line"
		return 1
		;;
	esac
	return 0
}

# fails_exact WHAT EXPECTED_LINE ARGS...: tracegate ARGS fails with exactly
# EXPECTED_LINE on stderr.
fails_exact() {
	what=$1
	want=$2
	shift 2
	run "$@"
	failure_shape "$what" || return 0
	if [ "$line" = "$want" ]; then
		ok "$what"
	else
		not_ok "$what" "expected: $want" "actual:   $line"
	fi
}

# fails_glob WHAT GLOB ARGS...: the same, the line matched by a shell pattern
# (for messages holding counts that depend on zlib).
fails_glob() {
	what=$1
	pat=$2
	shift 2
	run "$@"
	failure_shape "$what" || return 0
	# shellcheck disable=SC2254
	case $line in
	$pat) ok "$what" ;;
	*) not_ok "$what" "expected pattern: $pat" "actual:           $line" ;;
	esac
}

# bad NAME MESSAGE: tree and modules on fixture NAME fail with
# "tracegate: tests/fixtures/bad/NAME: MESSAGE".
bad() {
	fails_exact "tree $1" "tracegate: $B/$1: $2" tree "$B/$1"
	fails_exact "modules $1" "tracegate: $B/$1: $2" modules "$B/$1"
}

# bad_glob NAME PATTERN: the same with a pattern for what follows "NAME: ".
bad_glob() {
	fails_glob "tree $1" "tracegate: $B/$1: $2" tree "$B/$1"
	fails_glob "modules $1" "tracegate: $B/$1: $2" modules "$B/$1"
}

# succeeds WHAT EXPECTED_FILE ARGS...: exit 0, empty stderr, stdout equal to
# the file.
succeeds() {
	what=$1
	want=$2
	shift 2
	run "$@"
	if [ "$rc" -ne 0 ]; then
		not_ok "$what" "exit status $rc, expected 0" "stderr: $(head -c 300 "$tmp/err")"
	elif [ -s "$tmp/err" ]; then
		not_ok "$what" "stderr not empty: $(head -c 300 "$tmp/err")"
	elif ! cmp -s "$tmp/out" "$want"; then
		not_ok "$what" "stdout differs from the expected output:" \
			"$(diff "$want" "$tmp/out" | head -20)"
	else
		ok "$what"
	fi
}

if [ ! -x "$TG" ]; then
	not_ok "tracegate binary $TG is executable"
	exit 1
fi

# ------------------------------------------------------------- bad fixtures
# no document
bad empty.json 'byte 0: empty file: no JSON document'
bad whitespace.json 'byte 6: empty file: no JSON document'
bad not_json.json \
	"byte 0: expected a JSON object with \"traceEvents\" (or an array of events), found 'h'"
bad truncated.json 'byte 200: unexpected end of data (truncated JSON)'

# gzip: offsets are of the compressed file (10-byte header; 250-byte member)
bad_glob truncated.json.gz \
	'truncated gzip stream: input ends at compressed byte 200 after [0-9]* bytes inflated'
bad corrupt.json.gz 'corrupt gzip data near compressed byte 11: invalid block type'
bad crc_mismatch.json.gz 'corrupt gzip data near compressed byte 246: incorrect data check'
bad gzip_trailing_garbage.json.gz 'trailing garbage after gzip stream at compressed byte 250'
bad nan.json.gz \
	'byte 50 of the inflated JSON: NaN and Infinity are not JSON numbers ("dur")'
# 33 blocks of 1 MiB inflated: the first count past 32 MiB
bad_glob bomb.json.gz \
	'gzip bomb suspected: 34603008 bytes inflated from [0-9]* compressed bytes (ratio above 200; raise it with --max-ratio)'

# JSON that is not a trace
bad not_a_trace.json 'byte 9: not a trace: the top-level object has no "traceEvents" array'
bad array_of_numbers.json "byte 1: expected an event object in \"traceEvents\", found '1'"
bad duplicate_trace_events.json 'byte 18: duplicate "traceEvents"'

# fields of the wrong type
bad wrong_type_ts.json 'byte 42: "ts" must be a number'
bad wrong_type_name.json 'byte 33: "name" must be a string'
bad args_not_object.json 'byte 59: "args" must be an object'
bad missing_dur.json 'byte 16: complete event (ph X) without "dur"'
bad flow_without_id.json 'byte 16: flow event without "ts" or "id"'

# numbers
bad nan.json 'byte 50: NaN and Infinity are not JSON numbers ("dur")'
bad infinity.json 'byte 42: NaN and Infinity are not JSON numbers ("ts")'
bad neg_infinity.json 'byte 64: NaN and Infinity are not JSON numbers (expected a digit)'
bad leading_zero.json 'byte 42: leading zero in a number'
bad ts_out_of_range.json 'byte 42: "ts" out of range'

# strings
bad invalid_utf8.json 'byte 35: invalid UTF-8 byte 0xff in a string'
bad control_char.json 'byte 35: control character 0x01 in a string'
bad lone_surrogate.json 'byte 35: lone UTF-16 surrogate in a \u escape'
bad bad_escape.json 'byte 35: invalid escape in a string'
bad nul_byte.json 'byte 35: NUL byte in the JSON text'

# structure
bad trailing_garbage.json 'byte 19: trailing data after the JSON document'
bad deep_nesting.json 'byte 124: nesting deeper than 64 levels (limit)'

# every fixture of the directory is covered above
for f in "$B"/*; do
	case $f in
	*/make.sh) continue ;;
	esac
	n=$(basename "$f")
	if ! grep -q "^bad[_a-z]* $n " "$0"; then
		not_ok "fixture $n has a check in $0"
	fi
done

# ------------------------------------------------------------------ limits
fails_exact "--max-bytes 100" \
	"tracegate: $TINY: more than 100 bytes of JSON (limit; raise it with --max-bytes)" \
	tree --max-bytes 100 "$TINY"
# tiny.json nests 5 levels: "Input Dims": [8, 16] (its '[' is byte 726)
# below 4 the limit is raised to 4: a trace's own structure needs four levels
fails_exact "--max-depth 3 on nesting 5" \
	"tracegate: $TINY: byte 726: nesting deeper than 4 levels (limit)" \
	tree --max-depth 3 "$TINY"
fails_exact "--max-depth 4 on nesting 5" \
	"tracegate: $TINY: byte 726: nesting deeper than 4 levels (limit)" \
	tree --max-depth 4 "$TINY"
run tree --max-depth 5 "$TINY"
if [ "$rc" -eq 0 ]; then ok "--max-depth 5 on nesting 5"; else not_ok "--max-depth 5 on nesting 5" "exit $rc: $(cat "$tmp/err")"; fi
# the first string of more than 10 bytes: the key "schemaVersion" (byte 5)
fails_exact "--max-string 10" \
	"tracegate: $TINY: byte 5: string longer than 10 bytes (limit)" \
	tree --max-string 10 "$TINY"
# the third kept event (aten::relu; metadata is not kept) starts at byte 591
fails_exact "--max-events 2" \
	"tracegate: $TINY: byte 591: more than 2 events (limit)" \
	tree --max-events 2 "$TINY"
# a higher ratio lets the bomb inflate: its JSON ends after 16 + 40 MiB bytes
fails_exact "bomb.json.gz with --max-ratio 5000" \
	"tracegate: $B/bomb.json.gz: byte 41943056 of the inflated JSON: unexpected end of data (truncated JSON)" \
	tree --max-ratio 5000 "$B/bomb.json.gz"
fails_exact "--max-bytes with a bad value" \
	"tracegate: tree: --max-bytes: '12x' is not a positive size (N, NK, NM or NG)" tree --max-bytes 12x "$TINY"
fails_exact "--max-depth without a value" \
	"tracegate: tree: --max-depth needs a value" tree "$TINY" --max-depth

# ------------------------------------------------------------------- usage
run --help
if [ "$rc" -eq 0 ] && grep -q '^usage:' "$tmp/out"; then ok "--help"; else not_ok "--help" "exit $rc"; fi
run --version
if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "tracegate 0.1.0" ]; then
	ok "--version"
else
	not_ok "--version" "exit $rc, stdout: $(cat "$tmp/out")"
fi
for c in tree modules; do
	run "$c" --help
	if [ "$rc" -eq 0 ] && grep -q "^usage: tracegate $c " "$tmp/out" && [ ! -s "$tmp/err" ]; then
		ok "$c --help"
	else
		not_ok "$c --help" "exit $rc"
	fi
	run "$c"
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "^usage: tracegate $c " "$tmp/err"; then
		ok "$c without a trace: exit 2 and usage on stderr"
	else
		not_ok "$c without a trace: exit 2 and usage on stderr" "exit $rc"
	fi
	fails_exact "$c /nonexistent.json" \
		"tracegate: /nonexistent.json: cannot open: No such file or directory" "$c" /nonexistent.json
	fails_exact "$c with an unknown option" \
		"tracegate: $c: unknown option --bogus (see tracegate $c --help)" "$c" --bogus "$TINY"
	fails_exact "$c with two traces" \
		"tracegate: $c: one TRACE only (see tracegate $c --help)" "$c" "$TINY" "$TINY"
	fails_exact "$c on a directory" \
		"tracegate: tests/fixtures: read error: Is a directory" "$c" tests/fixtures
done
run
if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q '^usage:' "$tmp/err"; then
	ok "no arguments: exit 2 and usage on stderr"
else
	not_ok "no arguments: exit 2 and usage on stderr" "exit $rc"
fi
fails_exact "unknown command" \
	"tracegate: unknown command 'nosuch' (see tracegate --help)" nosuch
fails_exact "tree --depth 0" "tracegate: tree: --depth: '0' is not a number of levels >= 1" \
	tree --depth 0 "$TINY"
fails_exact "tree --match with a bad regex" \
	"tracegate: --match: bad regular expression: Unmatched ( or \\(" tree --match '(' "$TINY"

# --------------------------------------------------------- a valid trace
cat >"$tmp/want" <<'EOF'
# pid 1 tid 1 (python3)
(user_annotation) ProfilerStep#1  [200.000 us]
  (python) model.py(12): forward  [150.000 us]
    (cpu) aten::relu  [100.000 us]
      (cuda_runtime) cudaLaunchKernel  [9.250 us]
        (kernel) relu_kernel  [20.125 us, stream 7]
EOF
succeeds "tree tiny.json" "$tmp/want" tree "$TINY"
succeeds "tree tiny.json with --single-thread" "$tmp/want" tree --single-thread "$TINY"
if gzip -n -c "$TINY" >"$tmp/tiny.json.gz" 2>/dev/null; then
	succeeds "tree tiny.json.gz" "$tmp/want" tree "$tmp/tiny.json.gz"
	succeeds "tree tiny.json.gz with --single-thread" "$tmp/want" tree --single-thread \
		"$tmp/tiny.json.gz"
fi

cat >"$tmp/want" <<'EOF'
# pid 1 tid 1 (python3)
(user_annotation) ProfilerStep#1  [200.000 us]
  (python) model.py(12): forward  [150.000 us]
EOF
succeeds "tree --depth 2 tiny.json" "$tmp/want" tree --depth 2 "$TINY"

cat >"$tmp/want" <<'EOF'
# in: ProfilerStep#1 > model.py(12): forward > aten::relu > cudaLaunchKernel
(kernel) relu_kernel  [20.125 us, stream 7]
EOF
succeeds "tree --match relu_kernel tiny.json" "$tmp/want" tree --match 'relu_k' "$TINY"

run tree --match 'no_such_event' "$TINY"
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ] && one_line "$tmp/err"; then
	ok "tree --match without a match: exit 0, one line on stderr"
else
	not_ok "tree --match without a match: exit 0, one line on stderr" "exit $rc"
fi

cat >"$tmp/want" <<EOF
nn.Module view of $TINY: 0 module paths, GPU busy 0.020 ms
(no 'nn.Module: ...' python_function events: record the trace with with_stack=True and with_modules=True)
EOF
succeeds "modules tiny.json" "$tmp/want" modules "$TINY"

echo "# cli_bad_input: $((checks - failures)) of $checks checks passed"
[ "$failures" -eq 0 ]
