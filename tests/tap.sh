# tap.sh - sourced by the cli_*.sh tests: TAP-style lines and a failure
# count (fails) that the script turns into its exit status.
fails=0
skips=0
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1: $2"; fails=$((fails + 1)); }
check() { # name, detail, command...
	name=$1; detail=$2; shift 2
	if "$@"; then ok "$name"; else not_ok "$name" "$detail"; fi
}
# skip NAME WHY: a check that cannot run here; tap_exit turns any into exit
# status 77, which tests/run.sh counts as a skip (a failure when CI=true)
skip() { echo "ok - $1 # SKIP $2"; skips=$((skips + 1)); }
tap_exit() { [ "$fails" -eq 0 ] || exit 1; [ "$skips" -eq 0 ] || exit 77; exit 0; }
# tap_tmp: tmp is a new folder, removed at exit
tap_tmp() { tmp=$(mktemp -d) || exit 1; trap 'rm -rf "$tmp"' EXIT; }
# tap_generator: GEN is the trace generator ($TG_GEN, default
# build/tg-gen); without it, a failed check and exit 1
tap_generator() {
	GEN=${TG_GEN:-build/tg-gen}
	if [ ! -x "$GEN" ]; then
		not_ok "generator" "$GEN is missing (make build/tg-gen)"
		exit 1
	fi
}
# tap_peak_rss OUT CMD...: run CMD (stdout to $tmp/peak.out, stderr to
# $tmp/peak.err) under GNU time and write its peak RSS in KB to OUT; rc is
# its exit status. A sanitizer's build runs with ASan's quarantine off,
# which would otherwise keep what is freed and measure ASan, not the code.
# The caller checks that /usr/bin/time exists (and skips, saying so).
tap_peak_rss() {
	_out=$1; shift
	_asan=${ASAN_OPTIONS:-}
	grep -qa __asan_init "$1" && _asan="${_asan:+$_asan:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
	ASAN_OPTIONS=$_asan /usr/bin/time -f '%M' -o "$_out.time" "$@" >"$tmp/peak.out" 2>"$tmp/peak.err"
	rc=$?
	tail -1 "$_out.time" >"$_out"
}
