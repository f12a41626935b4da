#!/bin/sh
# it_upload.sh - contrib/ci/tracegate-upload.sh against a real S3 server
# (s3rver, which checks SigV4 signatures) on loopback (issue 15):
#   S3 answers the first PUT "503 SlowDown" (tests/servers/fault-proxy.js
#   in front of s3rver)   -> the upload retries and succeeds; every object
#                            is there, byte for byte
#   a wrong secret        -> non-zero exit, S3's code and message shown
#                            (SignatureDoesNotMatch), nothing half-uploaded
#   a bucket that is not there -> NoSuchBucket shown
#   S3 down               -> the connection error shown, non-zero exit
# $1: the tracegate binary (unused but for the common opening); TG_GEN.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"
. "$top/tests/servers/s3.sh"
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
	tg_skip_all "it_upload: node and npm are needed for s3rver (contrib/install-deps.sh --servers)"
tg_npm_install s3 "$TG_S3RVER_PKG" >/dev/null ||
	tg_skip_all "it_upload: s3rver ($TG_S3RVER_PKG) cannot be installed from npm"
tg_it_run_folder it-upload

s3port=$(tg_free_port)
(cd "$top" && tg_s3rver_start "$s3port" artifacts) || { tg_not_ok "s3rver starts"; tg_done it_upload; exit; }
pport=$(tg_free_port)
pid=$(tg_start proxy node "$top/tests/servers/fault-proxy.js" "$pport" "$s3port" PUT 1 503 SlowDown \
	"Please reduce your request rate.")
tg_wait_port "$pport" 20 "$pid" || tg_not_ok "the fault proxy starts" "$(cat proxy.log)"

"$gen" --steps 2 --seed 7 -o rank0.pt.trace.json.gz
key=${TG_S3RVER_KEYS%%:*} secret=${TG_S3RVER_KEYS#*:}
sha=0123456789abcdef0123456789abcdef01234567
# up ENDPOINT SECRET DEST RUN_ID: runs the upload script as a CI job does
up() {
	TRACEGATE_S3_ENDPOINT=$1 AWS_ACCESS_KEY_ID=$key AWS_SECRET_ACCESS_KEY=$2 \
		"$upload" --dest "$3" --repo acme/llm --commit "$sha" --branch main --workload train \
		--run-id "$4" rank0.pt.trace.json.gz >"$4.out" 2>"$4.err"
}
get() { tg_s3_curl "$TG_S3RVER_KEYS" "http://127.0.0.1:$s3port/artifacts/$1" -o "$2" -w '%{http_code}'; }

# 1. one 503 SlowDown, then S3 takes it
up "http://127.0.0.1:$pport" "$secret" s3://artifacts/runs r1
rc=$?
tg_eq "503 once: the upload succeeds" 0 "$rc"
tg_check "503 once: the proxy answered one PUT with 503" grep -q "^PUT .* -> 503 (fault)" proxy.log
tg_eq "503 once: the faulted PUT was sent again and passed" 1 \
	"$(grep -c "^PUT $(grep -m1 '(fault)' proxy.log | awk '{print $2}') -> 200 (passed)" proxy.log)"
tg_eq "503 once: the trace is in S3, byte for byte" 200 "$(get "runs/acme/llm/$sha/train/r1/rank0.pt.trace.json.gz" got.gz)"
tg_check "503 once: same bytes" cmp -s got.gz rank0.pt.trace.json.gz
tg_eq "503 once: the manifest is in S3" 200 "$(get "runs/acme/llm/$sha/train/r1/manifest.json" got.json)"
tg_check "503 once: the manifest names the trace" grep -q '"rank0.pt.trace.json.gz"' got.json
tg_check "503 once: no curl error on stderr" sh -c "! grep -q 'curl' r1.err"

# 2. a wrong secret: S3's code and message, and no manifest
up "http://127.0.0.1:$s3port" "not-the-secret" s3://artifacts/runs r2
rc=$?
tg_check "wrong secret: non-zero exit" test "$rc" -ne 0
tg_check "wrong secret: S3's code is shown" grep -q "HTTP 403 SignatureDoesNotMatch" r2.err
tg_check "wrong secret: S3's message is shown" grep -q "signature we calculated does not match" r2.err
tg_check "wrong secret: the key that failed is named" grep -q "runs/acme/llm/$sha/train/r2/rank0.pt.trace.json.gz" r2.err
tg_check "wrong secret: the secret is not echoed" sh -c "! grep -q not-the-secret r2.err r2.out"
tg_eq "wrong secret: no manifest (the daemon sees no run)" 404 "$(get "runs/acme/llm/$sha/train/r2/manifest.json" none)"

# 3. a bucket that is not there
up "http://127.0.0.1:$s3port" "$secret" s3://no-such-bucket/runs r3
tg_check "no bucket: S3's code is shown" grep -q "HTTP 404 NoSuchBucket" r3.err
tg_check "no bucket: one line per failure, from the script" grep -q "^tracegate-upload: " r3.err

# 4. S3 down: the connection error, after the retries (two: 1 s + 2 s)
tg_stop proxy
s=$(date +%s)
TRACEGATE_UPLOAD_RETRIES=2 up "http://127.0.0.1:$pport" "$secret" s3://artifacts/runs r4
rc=$?
tg_check "S3 down: non-zero exit" test "$rc" -ne 0
tg_check "S3 down: the connection error is shown" grep -qi "connect" r4.err
took=$(($(date +%s) - s))
tg_check "S3 down: it retried (backing off 1 s, then 2 s) and gave up ($took s)" test "$took" -ge 2 -a "$took" -lt 30
tg_done it_upload
