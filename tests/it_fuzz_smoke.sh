#!/bin/sh
# it_fuzz_smoke.sh - the CI smoke of the libFuzzer targets (docs/fuzzing.md):
# builds every tests/fuzz/fuzz_<name>.c (make fuzz-build, in build-fuzz/) and
# runs each for FUZZ_SMOKE_SECONDS (default 5) over its seeds in
# tests/fuzz/corpus/<name>/, which hold the inputs of every finding fixed so
# far and, in campaign/, the smallest inputs that cover what a long campaign
# reached (docs/fuzzing.md): every one of them runs first, whatever the
# seconds. New inputs go to a throwaway folder. Any crash, leak, sanitizer
# report, broken promise or input slower than 10 s fails the smoke; the
# input is kept in build-fuzz/smoke-<name>-*. When clang cannot link a
# libFuzzer program, says SKIP and exits 77 (a skip for tests/run.sh) (contrib/install-deps.sh --fuzz
# installs clang and libFuzzer; make check does). Takes 65 to 105 s here.
# Arguments: the tracegate binary (unused: run.sh gives it to every it_*.sh).
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${FUZZ_SMOKE_SECONDS:-5}
tmp=$(mktemp -d /tmp/tg-it-fuzz-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
if ! command -v clang >/dev/null 2>&1 ||
	! clang -fsanitize=fuzzer,address,undefined -o "$tmp/probe" "$tmp/probe.c" >/dev/null 2>&1; then
	echo "# SKIP it_fuzz_smoke: no clang with libFuzzer (contrib/install-deps.sh --fuzz)"
	exit 77 # a skip (tests/run.sh)
fi

names=
for src in tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	names="$names ${t#fuzz_}"
done
start=$(date +%s)
if ! make -s -j2 fuzz-build FUZZ_TARGETS="$names" >"$tmp/build.log" 2>&1; then
	tail -40 "$tmp/build.log"
	echo "it_fuzz_smoke: FAIL: the fuzz targets do not build"
	exit 1
fi
built=$(($(date +%s) - start))

n=0
failed=
for t in $names; do
	n=$((n + 1))
	mkdir -p "$tmp/corpus-$t"
	dict=
	[ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
	# shellcheck disable=SC2086
	if build-fuzz/fuzz_$t -max_total_time="$secs" -max_len=65536 -timeout=10 -print_final_stats=1 $dict \
		-artifact_prefix="$tmp/$t-" "$tmp/corpus-$t" "tests/fuzz/corpus/$t" >"$tmp/$t.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$t.log")
		cov=$(sed -n 's/^#[0-9]*[[:space:]]*DONE[[:space:]]*cov: \([0-9]*\).*/\1/p' "$tmp/$t.log")
		echo "ok $n - fuzz_$t: ${runs:-?} runs in $secs s, cov ${cov:-?}"
	else
		grep -a -v '^#\|^INFO' "$tmp/$t.log" | head -40
		for a in "$tmp/$t-"*; do
			[ -f "$a" ] && cp "$a" "build-fuzz/smoke-$(basename "$a")" &&
				echo "input kept: build-fuzz/smoke-$(basename "$a")"
		done
		echo "not ok $n - fuzz_$t"
		failed="$failed $t"
	fi
done
echo "it_fuzz_smoke: $n targets, build ${built} s, all $(($(date +%s) - start)) s${failed:+, failed:$failed}"
[ -z "$failed" ]
