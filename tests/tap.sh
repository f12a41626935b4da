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
