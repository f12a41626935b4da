#!/bin/sh
# cli_upload.sh - contrib/ci/tracegate-upload.sh into a local folder, the
# part that needs no server (tests/it_upload.sh has S3): a branch's run
# uploaded without TRACEGATE_SIGNING_KEY gets one warning on stderr and is
# uploaded; with --require-signature it is refused before anything is
# written (exit 2); a signed run, or a pull request's run, gets no warning.
# Usage: sh tests/cli_upload.sh TRACEGATE (unused: the script needs no binary)
set -u
. "$(dirname "$0")/tap.sh"
up=$(cd "$(dirname "$0")/.." && pwd)/contrib/ci/tracegate-upload.sh
tap_tmp
sha=0123456789abcdef0123456789abcdef01234567
mkdir -p "$tmp/store"
printf '{"traceEvents": []}\n' > "$tmp/rank0.pt.trace.json"
# run RUN_ID [options]: one upload, stdout and stderr kept apart
run() {
	id=$1
	shift
	sh "$up" --dest "$tmp/store" --repo acme/llm --commit "$sha" --workload train --run-id "$id" "$@" \
		"$tmp/rank0.pt.trace.json" >"$tmp/$id.out" 2>"$tmp/$id.err"
	echo $? > "$tmp/$id.rc"
}
manifest() { echo "$tmp/store/acme/llm/$sha/train/$1/manifest.json"; }
warning="tracegate-upload: warning: run of branch main uploaded without TRACEGATE_SIGNING_KEY: a daemon with storage.signing_key judges it but never makes it a baseline nor posts on its commit (--require-signature makes this an error)"

unset TRACEGATE_SIGNING_KEY
run u1 --branch main
check "unsigned branch run: uploaded (exit 0)" "exit $(cat "$tmp/u1.rc"): $(cat "$tmp/u1.err")" \
	sh -c "[ $(cat "$tmp/u1.rc") = 0 ] && [ -f '$(manifest u1)' ]"
check "unsigned branch run: one warning line on stderr saying why" "$(cat "$tmp/u1.err")" \
	[ "$(cat "$tmp/u1.err")" = "$warning" ]
check "unsigned branch run: stdout names the manifest only" "$(cat "$tmp/u1.out")" \
	[ "$(cat "$tmp/u1.out")" = "tracegate-upload: $(manifest u1)" ]

run u2 --branch main --require-signature
check "--require-signature without the key: exit 2" "exit $(cat "$tmp/u2.rc")" [ "$(cat "$tmp/u2.rc")" = 2 ]
check "--require-signature without the key: one line naming the variable" "$(cat "$tmp/u2.err")" \
	[ "$(cat "$tmp/u2.err")" = "tracegate-upload: --require-signature: TRACEGATE_SIGNING_KEY is not set (or empty): nothing uploaded" ]
check "--require-signature without the key: nothing uploaded" "$(ls -R "$tmp/store/acme/llm/$sha/train" 2>&1)" \
	[ ! -e "$tmp/store/acme/llm/$sha/train/u2" ]
TRACEGATE_SIGNING_KEY= run u3 --branch main --require-signature
check "--require-signature with an empty key: exit 2" "exit $(cat "$tmp/u3.rc")" [ "$(cat "$tmp/u3.rc")" = 2 ]

TRACEGATE_SIGNING_KEY=k3y run u4 --branch main --require-signature
check "signed branch run with --require-signature: uploaded, signed" "exit $(cat "$tmp/u4.rc"): $(cat "$tmp/u4.err")" \
	grep -q '"signature": "hmac-sha256:' "$(manifest u4)"
check "signed branch run: no warning" "$(cat "$tmp/u4.err")" [ ! -s "$tmp/u4.err" ]

run u5 --branch feature-x --pr 12 --target-branch main
check "unsigned pull-request run: uploaded, no warning (it is never a baseline)" \
	"exit $(cat "$tmp/u5.rc"): $(cat "$tmp/u5.err")" sh -c "[ $(cat "$tmp/u5.rc") = 0 ] && [ ! -s '$tmp/u5.err' ]"

sh "$up" --help > "$tmp/help"
check "--help names --require-signature" "$(cat "$tmp/help")" grep -q -- "--require-signature" "$tmp/help"
check "--help is the header alone (no code)" "$(tail -2 "$tmp/help")" sh -c "! grep -q '^set -eu' '$tmp/help'"
tap_exit
