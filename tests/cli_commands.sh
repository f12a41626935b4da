#!/bin/sh
# cli_commands.sh - the command table (cli/commands.c) seen from the two
# binaries: `tracegate --help` lists exactly the commands whose help each
# binary prints, in the same words from both; an unknown command fails with
# exit 2 and one line; tracegate runs every command itself but daemon and
# history, for which it runs tracegate-daemon beside it (alone in a folder,
# it says it cannot, and runs the others).
#
# Usage (from the repository root): sh tests/cli_commands.sh PATH_TO_TRACEGATE
set -u
. "$(dirname "$0")/tap.sh"
TG=${1:-${TG_BIN:-build/tracegate}}
TGD=$(dirname "$TG")/tracegate-daemon
tap_tmp

"$TG" --help >"$tmp/usage" 2>"$tmp/err"; rc=$?
check "--help: exit 0, nothing on stderr" "rc $rc" sh -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' - "$rc" "$tmp/err"
"$TGD" --help >"$tmp/usage_d"
check "tracegate-daemon --help is the same" "$(diff "$tmp/usage" "$tmp/usage_d" | head -3)" \
	cmp -s "$tmp/usage" "$tmp/usage_d"
"$TG" >"$tmp/out" 2>"$tmp/usage_e"; rc=$?
check "no arguments: the usage on stderr, exit 2" "rc $rc" \
	sh -c '[ "$1" -eq 2 ] && [ ! -s "$2" ] && cmp -s "$3" "$4"' - "$rc" "$tmp/out" "$tmp/usage" "$tmp/usage_e"
check "no line over 80 columns" "$(awk 'length > 80' "$tmp/usage")" awk 'length > 80 { exit 1 }' "$tmp/usage"
# the commands listed: the lines between "Commands:" and the blank line that start a command
sed -n '/^Commands:$/,/^$/p' "$tmp/usage" | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' >"$tmp/listed"
check "the listed commands, in order" "$(tr '\n' ' ' <"$tmp/listed")" \
	[ "$(tr '\n' ' ' <"$tmp/listed")" = "tree modules report critical-path diff daemon history replay augment " ]
for c in $(cat "$tmp/listed"); do
	"$TG" "$c" --help >"$tmp/help" 2>"$tmp/err"; rc=$?
	check "$c --help: its usage, exit 0" "rc $rc: $(head -1 "$tmp/help") $(cat "$tmp/err")" \
		sh -c '[ "$1" -eq 0 ] && grep -q "^usage: tracegate $2 " "$3"' - "$rc" "$c" "$tmp/help"
	"$TGD" "$c" --help >"$tmp/help_d" 2>&1
	check "$c --help: the same from tracegate-daemon" "differs" cmp -s "$tmp/help" "$tmp/help_d"
done
"$TG" nosuch >"$tmp/out" 2>"$tmp/err"; rc=$?
check "an unknown command: exit 2, one line, nothing on stdout" "rc $rc: $(cat "$tmp/err")" \
	sh -c '[ "$1" -eq 2 ] && [ ! -s "$2" ] && [ "$(cat "$3")" = "tracegate: unknown command '"'"'nosuch'"'"' (see tracegate --help)" ]' \
	- "$rc" "$tmp/out" "$tmp/err"

# tracegate alone: what it runs itself works, daemon and history need tracegate-daemon
mkdir "$tmp/alone" && cp "$TG" "$tmp/alone/tracegate"
for c in $(cat "$tmp/listed"); do
	"$tmp/alone/tracegate" "$c" --help >"$tmp/out" 2>"$tmp/err"; rc=$?
	case $c in
	daemon | history)
		check "$c: tracegate runs tracegate-daemon for it" "rc $rc: $(cat "$tmp/err")" \
			sh -c '[ "$1" -eq 2 ] && grep -q "^tracegate: $2: cannot run $3/tracegate-daemon: " "$4"' \
			- "$rc" "$c" "$tmp/alone" "$tmp/err" ;;
	*)
		check "$c: tracegate runs it itself" "rc $rc: $(cat "$tmp/err")" \
			sh -c '[ "$1" -eq 0 ] && grep -q "^usage: tracegate $2 " "$3"' - "$rc" "$c" "$tmp/out" ;;
	esac
done
if command -v nm >/dev/null 2>&1; then
	check "tracegate links neither the daemon nor history" "$(nm "$TG" | grep -E ' T (tg_cmd_daemon|tg_cmd_history)$')" \
		sh -c '! nm "$1" | grep -qE " T (tg_cmd_daemon|tg_cmd_history)$"' - "$TG"
else
	skip "tracegate links neither the daemon nor history" "no nm"
fi
tap_exit
