#!/bin/sh
# it_s3.sh - the S3 client and storage backend against real S3 servers on
# loopback: the live tests of build/tests/test_s3 (put, list across pages
# with awkward keys, start-after, get into a file and into memory, 404,
# wrong secret, the storage backend's manifests and fetch), run once
# against @20minutes/s3rver (signature-checking, fast) and once against
# Ceph radosgw (the faithful one), plus checks that radosgw is as strict as
# the notes say (so that passing there means something): chunked uploads
# get 411, a wrong payload hash gets 400, and none of tracegate's requests
# got 411.
#
# radosgw needs the packages of contrib/install-deps.sh --servers: when
# they are missing and this is not root, that half is skipped, saying so;
# as root (this machine, CI) it must run.
#
# Usage: sh tests/it_s3.sh [TRACEGATE]   (test binary: $TG_BUILD/tests/test_s3)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. tests/servers/lib.sh
. tests/servers/s3.sh

T=${TG_BUILD:-build}/tests/test_s3
BUCKET=artifacts
START=$(date +%s.%N)
TG_RUN=$(mktemp -d "${TMPDIR:-/tmp}/tg-it-s3.XXXXXX") || exit 1
trap 'tg_s3_stop_all; rm -rf "$TG_RUN"' EXIT

elapsed() { awk -v a="$START" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# live NAME ENDPOINT ACCESS:SECRET : the live tests of test_s3 against one server
live() {
	local name=$1 endpoint=$2 keys=$3 out rc run passed
	out=$(TG_TEST_S3_ENDPOINT=$endpoint TG_TEST_S3_BUCKET=$BUCKET TG_TEST_S3_ACCESS_KEY=${keys%%:*} \
		TG_TEST_S3_SECRET_KEY=${keys#*:} TG_TEST_S3_SIGCHECK=1 TG_TEST_S3_SERVER=$name "$T" live 2>&1)
	rc=$?
	run=$(printf '%s\n' "$out" | grep -c '^\[ RUN      \]')
	passed=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p')
	if [ "$rc" -ne 0 ] || [ "$run" -lt 7 ] || [ "${passed:-0}" != "$run" ] || printf '%s\n' "$out" | grep -q SKIPPED; then
		printf '%s\n' "$out" | sed 's/^/#   /'
	else
		printf '%s\n' "$out" | grep '^note:' | sed 's/^/#   /'
	fi
	tg_eq "$name: test_s3 live exits 0" 0 "$rc"
	tg_eq "$name: every live test ran and passed ($run)" "$run" "${passed:-0}"
	tg_check "$name: at least the 7 live tests ran" [ "$run" -ge 7 ]
	tg_eq "$name: no live test skipped" "" "$(printf '%s\n' "$out" | grep SKIPPED)"
}

if [ ! -x "$T" ]; then
	tg_not_ok "the test binary $T exists (make $T)"
	tg_done it_s3
	exit 1
fi

# ---------------------------------------------------------------- s3rver
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	tg_not_ok "node and npm are installed (contrib/install-deps.sh --servers)"
else
	port=$(tg_free_port)
	if tg_s3rver_start "$port" "$BUCKET"; then
		tg_ok "s3rver ($TG_S3RVER_PKG) started on 127.0.0.1:$port at $(elapsed) s"
		live s3rver "http://127.0.0.1:$port" "$TG_S3RVER_KEYS"
		tg_stop s3rver
	else
		tg_not_ok "s3rver ($TG_S3RVER_PKG) starts"
	fi
fi

# ---------------------------------------------------------------- radosgw
missing=$(tg_rgw_missing)
root=0
[ "$(id -u)" -eq 0 ] && root=1
if [ -n "$missing" ]; then
	if [ "$root" -eq 1 ]; then
		tg_not_ok "radosgw is installed (missing: $missing; run contrib/install-deps.sh --servers)"
	else
		tg_skip "$(printf 'radosgw: missing %s (not root: run contrib/install-deps.sh --servers as root)' "$missing")"
	fi
else
	# a second try on a fresh cluster if the first start fails (a start race
	# of Ceph's own, see tg_rgw_start; its logs are kept until the end)
	started=0
	for try in 1 2; do
		port=$(tg_rgw_port)
		t_rgw=$(date +%s.%N)
		if tg_rgw_start "$port" "$BUCKET"; then
			started=1
			break
		fi
		mv "$TG_RUN/ceph" "$TG_RUN/ceph.failed.$try"
		[ "$try" -eq 1 ] && printf '# radosgw did not start (see above): trying once more\n'
	done
	if [ "$started" -eq 1 ]; then
		tg_ok "radosgw started on 127.0.0.1:$port in $(awk -v a="$t_rgw" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
		E=http://127.0.0.1:$port
		live radosgw "$E" "$TG_RGW_KEYS"
		# radosgw is strict where s3rver is lenient: show it, so that the
		# passes above mean that uploads carry a Content-Length and the
		# right payload hash
		c=$(printf 'chunked' | tg_s3_curl "$TG_RGW_KEYS" -o /dev/null -w '%{http_code}' -T - "$E/$BUCKET/it/chunked")
		tg_eq "radosgw: a chunked upload (no Content-Length) gets 411" 411 "$c"
		c=$(curl -s -o "$TG_RUN/badhash.xml" -w '%{http_code}' --aws-sigv4 "aws:amz:us-east-1:s3" --user "$TG_RGW_KEYS" \
			-H "x-amz-content-sha256: $(printf 'other' | sha256sum | cut -d' ' -f1)" -X PUT --data-binary 'body' \
			"$E/$BUCKET/it/badhash")
		tg_eq "radosgw: a wrong x-amz-content-sha256 gets 400" 400 "$c"
		tg_check "radosgw: ... XAmzContentSHA256Mismatch" grep -q XAmzContentSHA256Mismatch "$TG_RUN/badhash.xml"
		log=$TG_RUN/ceph/log/client.rgw.a.log
		puts=$(grep -c '"PUT .*HTTP/1.1" 200 .*"tracegate/' "$log")
		tg_check "radosgw: its access log has tracegate's PUTs ($puts)" [ "$puts" -ge 10 ]
		tg_eq "radosgw: no tracegate request got 411" 0 "$(grep -c 'HTTP/1.1" 411 .*"tracegate/' "$log")"
		tg_eq "radosgw: no tracegate request got 400" 0 "$(grep -c 'HTTP/1.1" 400 .*"tracegate/' "$log")"
		t_stop=$(date +%s.%N)
		tg_rgw_stop
		printf '# radosgw stopped in %s s\n' "$(awk -v a="$t_stop" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
	elif [ "$root" -eq 1 ]; then
		tg_not_ok "radosgw starts (see the lines above)"
	else
		tg_skip "radosgw: it did not start as a non-root user (see above)"
	fi
fi

printf '# it_s3: %s s\n' "$(elapsed)"
tg_done it_s3
