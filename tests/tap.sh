# tap.sh - sourced by the cli_*.sh tests: TAP-style lines and a failure
# count (fails) that the script turns into its exit status.
fails=0
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1: $2"; fails=$((fails + 1)); }
check() { # name, detail, command...
	name=$1; detail=$2; shift 2
	if "$@"; then ok "$name"; else not_ok "$name" "$detail"; fi
}
