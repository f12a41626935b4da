#!/bin/sh
# it_security.sh - the daemon's and the command line's security promises
# (docs/daemon.md, "Security"), end to end:
#   TLS       a GitHub fake over HTTPS with a self-signed certificate: the
#             daemon refuses it by default (a TLS error in its log, nothing
#             posted), posts with ca_file, and with tls_verify: false; the
#             same for S3 (s3rver over HTTPS)
#   tokens    a wrong token (the fake answers 401 and quotes the credentials
#             back): neither the token nor an Authorization header in the
#             daemon's log, output, state folder or database
#   escaping  a trace whose op and kernel names hold <script>, |, backticks,
#             ", \ and control characters: report html (escaped, no raw
#             <script>), md (| < > ` escaped), json (parses, names exact),
#             diff md and the daemon's comment escaped, no raw control byte
#   privilege as root: the daemon runs as nobody on a state folder it owns,
#             and a trace that is a symbolic link out of the storage is
#             refused (not root: SKIP the user switch)
#   systemd   contrib/systemd/tracegate.service passes systemd-analyze
#             verify, its exposure level is OK, it has the hardening
#             options, and its --check line works with the example configs
# Already elsewhere: path escapes (test_manifest.c, test_storage_local.c),
# tokens not in logs with real forges (it_daemon_servers.sh), Markdown
# escaping of kernel names in diff comments (cli_diff.sh).
# $1: the tracegate binary; TG_GEN: the generator.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"
. "$top/tests/servers/s3.sh"
. "$top/tests/servers/git.sh"

tg_it_run_folder it-security
t_start=$(date +%s)
git init -q src
echo a > src/a && git -C src add a && git -C src commit -qm base
main1=$(git -C src rev-parse HEAD)
git -C src checkout -qb pr && echo p >> src/a && git -C src commit -qam pr
pr1=$(git -C src rev-parse HEAD)
git -C src checkout -q main
git clone -q --bare src repo.git

G="--steps 8 --seq 4096 --layers 2 --noise 1"
"$gen" $G --seed 1 -o base.json.gz
"$gen" $G --seed 2 --sdpa-scale 1.08 -o slow.json.gz

up() { # DEST COMMIT BRANCH RUN TRACE [PR]
	mkdir -p "u-$4" && cp "$5" "u-$4/rank0.pt.trace.json.gz"
	"$upload" --dest "$1" --repo acme/llm --commit "$2" --branch "$3" ${6:+--pr $6 --target-branch main} \
		--workload train --run-id "$4" "u-$4/rank0.pt.trace.json.gz" >/dev/null
}
HTTP="http: {timeout: 3s, connect_timeout: 2s, retries: 2, backoff: 100ms, max_wait: 1s}"
have_node() { command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; }
# raw control bytes (other than newline) in a file
no_controls() { ! LC_ALL=C grep -qaP '[\x00-\x09\x0b-\x1f\x7f]' "$1"; }

# ============================================================ TLS
mkdir -p st-tls
up st-tls "$pr1" pr tls1 base.json.gz 5
if have_node && command -v openssl >/dev/null 2>&1 && mkdir -p tls && tg_git_make_cert tls; then
	fport=$(tg_free_port)
	TOKEN=tg-tls-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
	FAKE_TOKEN=$TOKEN FAKE_TLS_CERT=tls/cert.pem FAKE_TLS_KEY=tls/key.pem \
		tg_start fake-tls node "$top/tests/servers/fake-forge.js" github "$fport" "https://127.0.0.1:$fport" >/dev/null
	tg_wait_port "$fport" 30 "$(cat fake-tls.pid)" || tg_not_ok "TLS: the HTTPS fake did not start" "$(cat fake-tls.log)"
	# the pull request as the forge has it (the daemon asks before posting)
	curl -s --cacert tls/cert.pem -X POST "https://127.0.0.1:$fport/_fake/seed" \
		-d "{\"repo\":\"acme/llm\",\"pr\":5,\"head\":\"$pr1\",\"base\":\"main\"}" >/dev/null
	export TOKEN
	tlsconf() { # NAME EXTRA-FORGE-KEYS
		cat > "$1.yaml" <<EOF
storage: {local: st-tls, poll_interval: 1s}
database: {sqlite: $1.db}
forges:
  - {name: gh, kind: github, api_url: "https://127.0.0.1:$fport", token: {env: TOKEN}$2}
repositories:
  - {name: acme/llm, forge: gh, clone_url: "file://$TG_RUN/repo.git", on_unjudged: {no_baseline: success}}
daemon: {state_dir: state-$1}
$HTTP
EOF
	}
	fake_state() { # JS expression over s
		curl -s --cacert tls/cert.pem "https://127.0.0.1:$fport/_fake/state" |
			node -e "let d='';process.stdin.on('data',c=>d+=c).on('end',()=>{const s=JSON.parse(d);console.log($1)})"
	}
	tlsconf verify ""
	"$tg" daemon --config verify.yaml --once >verify.out 2>verify.log
	tg_check "TLS on by default: the self-signed forge is refused with a TLS error" \
		grep -q "GET https://127.0.0.1:$fport/repos/acme/llm/pulls/5: TLS: SSL certificate problem: self-signed certificate" verify.log
	tg_eq "TLS on by default: nothing posted" "0 0 0" "$(fake_state 's.statuses.length+" "+s.comments.length+" "+s.requests.length')"
	tg_check "TLS on by default: the run waits for the forge (not lost)" grep -q "will try again after its lease" verify.log
	tlsconf cafile ", ca_file: tls/cert.pem"
	"$tg" daemon --config cafile.yaml --once >cafile.out 2>cafile.log
	tg_eq "TLS with ca_file: the status and the comment are posted" "pending success 1" \
		"$(fake_state "s.statuses.map(x=>x.state).join(' ')+' '+s.comments.length")"
	tlsconf insecure ", tls_verify: false"
	"$tg" daemon --config insecure.yaml --once >insecure.out 2>insecure.log
	tg_eq "TLS with tls_verify: false: posted too" "pending success pending success 1" \
		"$(fake_state "s.statuses.map(x=>x.state).join(' ')+' '+s.comments.length")"
	tg_check "TLS: the server saw the refused handshakes" grep -q "TLS handshake failed" fake-tls.log
	tg_check "docs: tls_verify: false is for tests" sh -c "grep -E '^\| \`tls_verify\` .*not outbox' '$top/docs/config.md' | grep -q 'test setups only'"

	# S3 over HTTPS (s3rver): refused by default, listed with ca_file
	if tg_npm_install s3 "$TG_S3RVER_PKG" >/dev/null; then
		s3port=$(tg_free_port)
		(cd "$top" && S3RVER_TLS_CERT=$TG_RUN/tls/cert.pem S3RVER_TLS_KEY=$TG_RUN/tls/key.pem tg_s3rver_start "$s3port" artifacts) ||
			tg_not_ok "S3 TLS: s3rver did not start"
		export TG_S3_KEY=${TG_S3RVER_KEYS%%:*} TG_S3_SECRET=${TG_S3RVER_KEYS#*:}
		CURL_CA_BUNDLE=$TG_RUN/tls/cert.pem TRACEGATE_S3_ENDPOINT=https://127.0.0.1:$s3port \
			AWS_ACCESS_KEY_ID=$TG_S3_KEY AWS_SECRET_ACCESS_KEY=$TG_S3_SECRET up s3://artifacts/runs "$main1" main s3m base.json.gz
		s3conf() {
			cat > "$1.yaml" <<EOF
storage:
  s3: {endpoint: "https://127.0.0.1:$s3port", bucket: artifacts, prefix: runs/, access_key: {env: TG_S3_KEY}, secret_key: {env: TG_S3_SECRET}$2}
  poll_interval: 1s
database: {sqlite: $1.db}
forges:
  - {name: outbox, kind: outbox, outbox: out-$1}
repositories:
  - {name: acme/llm, forge: outbox, clone_url: "file://$TG_RUN/repo.git", on_unjudged: {no_baseline: success}}
daemon: {state_dir: state-$1}
$HTTP
EOF
		}
		s3conf s3verify ""
		"$tg" daemon --config s3verify.yaml --once >s3verify.out 2>s3verify.log
		tg_check "S3 TLS on by default: the listing is refused with a TLS error" \
			grep -q "cannot list the storage: .*TLS: SSL certificate problem: self-signed certificate" s3verify.log
		tg_check "S3 TLS on by default: nothing judged" test ! -e out-s3verify/statuses.log
		s3conf s3cafile ", ca_file: tls/cert.pem"
		"$tg" daemon --config s3cafile.yaml --once >s3cafile.out 2>s3cafile.log
		tg_check "S3 TLS with ca_file: the run is judged" grep -q "\"sha\":\"$main1\",\"state\":\"success\"" out-s3cafile/statuses.log
		tg_stop s3rver
	else
		tg_skip "S3 over HTTPS: cannot install s3rver"
	fi
else
	tg_skip "TLS: node, npm or openssl is not installed (contrib/install-deps.sh --servers)"
fi

# ============================================================ tokens
if have_node; then
	hport=$(tg_free_port)
	RIGHT=tg-right-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
	WRONG=tg-wrong-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
	export WRONG
	FAKE_TOKEN=$RIGHT FAKE_ECHO_AUTH=1 tg_start fake-401 node "$top/tests/servers/fake-forge.js" github "$hport" >/dev/null
	tg_wait_port "$hport" 30 "$(cat fake-401.pid)" || tg_not_ok "tokens: the fake did not start"
	mkdir -p st-401
	up st-401 "$pr1" pr t1 base.json.gz 5
	cat > t401.yaml <<EOF
storage: {local: st-401, poll_interval: 1s}
database: {sqlite: t401.db}
forges:
  - {name: gh, kind: github, api_url: "http://127.0.0.1:$hport", token: {env: WRONG}}
repositories:
  - {name: acme/llm, forge: gh, clone_url: "file://$TG_RUN/repo.git", on_unjudged: {no_baseline: success}}
daemon: {state_dir: state-401, lease: 1s, max_attempts: 2}
$HTTP
EOF
	# three claims: two attempts, then the daemon gives up with an error
	for k in 1 2 3; do
		"$tg" daemon --config t401.yaml --once >>t401.out 2>>t401.log
		sleep 1.2
	done
	tg_check "wrong token: the 401 is reported" grep -q "401" t401.log
	tg_check "wrong token: the daemon gave up on the run with an error" grep -q "gave up after 2 attempts" t401.log
	tg_check "wrong token: the fake quoted the token back (the test is armed)" \
		sh -c "curl -s -H 'Authorization: Bearer $WRONG' 'http://127.0.0.1:$hport/repos/acme/llm/issues/5/comments' | grep -qF '$WRONG'"
	leak=$(grep -rlaF -e "$WRONG" t401.log t401.out state-401 t401.db* 2>/dev/null | tr '\n' ' ')
	tg_eq "wrong token: the token is in no log, output, state file or database" "" "$leak"
	leak=$(grep -rlai -e "authorization:" -e "bearer $WRONG" t401.log t401.out state-401 t401.db* 2>/dev/null | tr '\n' ' ')
	tg_eq "wrong token: no Authorization header either" "" "$leak"
	tg_check "wrong token: the quoted token is shown as [token]" grep -qF "[token]" t401.log
	tg_stop fake-401
else
	tg_skip "tokens: node is not installed"
fi

# ============================================================ escaping
# op aten::add, kernel nvjet_... (both sides) and a new op (new side only)
# renamed to hostile names; JSON escapes keep the file valid
H1='aten::add<script>alert(1)<\/script>|p`t`\\"q\\\\b\\u0007\\t\\u001b[31m'
H2='nvjet<script>alert(2)<\/script>|k`x`\\"y\\\\z\\u0001'
H3='aten::evil<script>alert(3)<\/script>|e`v`\\"l\\\\\\u0002'
"$gen" $G --seed 1 -o hb.json
"$gen" $G --seed 2 --sdpa-scale 1.08 --gemm-scale 1.3 --extra-op aten::EVIL -o hn.json
for f in hb hn; do
	sed -e "s/\"aten::add\"/\"$H1\"/" -e "s/\"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN\"/\"$H2\"/" \
		-e "s/\"aten::EVIL\"/\"$H3\"/" "$f.json" > "$f-evil.json"
done
tg_check "escaping: the hostile traces are valid JSON with the names" node -e '
	const fs=require("fs");for(const f of ["hb-evil.json","hn-evil.json"]){const t=JSON.parse(fs.readFileSync(f));
	if(!t.traceEvents.some(e=>e.name&&e.name.startsWith("aten::add<script>")&&e.name.includes("\u0007\t\u001b")))process.exit(1)}'
"$tg" report hn-evil.json --format html -o rep.html >/dev/null
h=rep.html
tg_check "report html: the names are there, escaped" grep -q 'aten::add&lt;script&gt;alert(1)&lt;/script&gt;|p&#96;t&#96;&quot;q' "$h"
tg_eq "report html: no raw <script> from the trace" 0 "$(grep -c '<script' "$h")"
tg_check "report html: no raw control character" no_controls "$h"
"$tg" report hn-evil.json --format md > rep.md
tg_check "report md: | < > \` escaped" grep -qF 'aten::add&lt;script&gt;alert(1)&lt;/script&gt;\|p\`t\`"q\\b' rep.md
tg_eq "report md: no unescaped | or \` from the names" 0 "$(grep -cE 'script&gt;\||\|p`|[^\\]`t' rep.md)"
tg_check "report md: no raw control character" no_controls rep.md
"$tg" report hn-evil.json --format json > rep.json
tg_check "report json: parses, and every name comes back exactly" node -e '
	const fs=require("fs");const tr=JSON.parse(fs.readFileSync("hn-evil.json"));
	const want=new Set(tr.traceEvents.map(e=>e.name).filter(n=>n&&n.includes("alert(")));
	const r=JSON.parse(fs.readFileSync("rep.json"));const got=new Set();
	(function w(o){if(typeof o==="string"){if(o.includes("alert("))got.add(o)}else if(o&&typeof o==="object")for(const k in o)w(o[k])})(r);
	const exact=[...got].filter(s=>want.has(s));
	const mangled=[...got].filter(s=>![...want].some(n=>s.includes(n)));
	if(exact.length<2||mangled.length){console.error({exact,mangled});process.exit(1)}'
"$tg" diff hb-evil.json hn-evil.json --format md > diff.md
tg_check "diff md: the names are in the comment, escaped" grep -qF 'aten::evil&lt;script&gt;alert(3)&lt;/script&gt;\|e\`v\`' diff.md
tg_eq "diff md: no raw <script>" 0 "$(grep -c '<script' diff.md)"
tg_check "diff md: no raw control character (tables and the divergence drawing)" no_controls diff.md
"$tg" diff hb-evil.json hn-evil.json > diff.txt
tg_check "diff text: no raw control character (a terminal is safe)" no_controls diff.txt
# the daemon's comment (outbox)
mkdir -p st-evil
gzip -c hb-evil.json > hb-evil.json.gz
gzip -c hn-evil.json > hn-evil.json.gz
up st-evil "$main1" main em hb-evil.json.gz
cat > evil.yaml <<EOF
storage: {local: st-evil, poll_interval: 1s}
database: {sqlite: evil.db}
forges:
  - {name: outbox, kind: outbox, outbox: out-evil}
repositories:
  - {name: acme/llm, forge: outbox, clone_url: "file://$TG_RUN/repo.git", on_unjudged: {no_baseline: success}}
daemon: {state_dir: state-evil}
EOF
"$tg" daemon --config evil.yaml --once >evil.out 2>evil.log
up st-evil "$pr1" pr ep hn-evil.json.gz 7
"$tg" daemon --config evil.yaml --once >>evil.out 2>>evil.log
c=$(find out-evil -path '*pr-7*' -name 'comment-*.md' | head -1)
tg_check "daemon comment: posted, with the hostile names escaped" grep -qF 'aten::evil&lt;script&gt;alert(3)&lt;/script&gt;\|e\`v\`' "${c:-/dev/null}"
tg_eq "daemon comment: no raw <script>" 0 "$(grep -c '<script' "${c:-/dev/null}")"
tg_check "daemon comment: no raw control character" no_controls "${c:-/dev/null}"

# ============================================================ privilege
mkdir -p st-priv outside
cp base.json.gz outside/secret.json.gz
up st-priv "$main1" main pm base.json.gz
up st-priv "$pr1" pr link base.json.gz 9
ln -sf "$TG_RUN/outside/secret.json.gz" "st-priv/acme/llm/$pr1/train/link/rank0.pt.trace.json.gz"
mkdir -p priv
# a local clone_url must belong to the daemon's user (libgit2's
# safe.directory rule): the daemon's own copy of the repository
cp -r repo.git priv-repo.git
cat > priv.yaml <<EOF
storage: {local: st-priv, poll_interval: 1s}
database: {sqlite: priv/tracegate.db}
forges:
  - {name: outbox, kind: outbox, outbox: priv/outbox}
repositories:
  - {name: acme/llm, forge: outbox, clone_url: "file://$TG_RUN/priv-repo.git", on_unjudged: {no_baseline: success}}
daemon: {state_dir: priv/state}
EOF
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1 && getent group nogroup >/dev/null; then
	chmod 755 "$TG_RUN"
	# tracegate runs tracegate-daemon from its own folder for the daemon (docs/daemon.md)
	mkdir -p bin && cp "$tg" bin/tracegate && cp "$(dirname "$tg")/tracegate-daemon" bin/tracegate-daemon &&
		chmod 755 bin bin/tracegate bin/tracegate-daemon
	chown nobody:nogroup priv
	chown -R nobody:nogroup priv-repo.git
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- env HOME=/nonexistent \
		bin/tracegate daemon --config priv.yaml --once >priv.out 2>priv.log
	rc=$?
	tg_eq "as nobody: daemon --once exits 0" 0 "$rc"
	tg_check "as nobody: the run is judged" grep -q "\"sha\":\"$main1\",\"state\":\"success\"" priv/outbox/statuses.log
	tg_eq "as nobody: everything it wrote belongs to nobody" "" "$(find priv ! -user nobody | head -3)"
	tg_check "as nobody: it could not write the root-owned storage" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- sh -c 'touch st-priv/x 2>&1 | grep -q "Permission denied"'
else
	tg_skip "running as nobody: not root (or no setpriv, nobody, nogroup); the symlink check runs as $(id -un)"
	"$tg" daemon --config priv.yaml --once >priv.out 2>priv.log
fi
tg_check "a trace linked out of the storage: error status" \
	grep -q "\"sha\":\"$pr1\",\"state\":\"error\",.*\"description\":\"cannot judge: rank0.pt.trace.json.gz is a symbolic link (storage links are never followed)\"" priv/outbox/statuses.log
tg_check "the error status does not say where the storage is on the daemon's host" sh -c "! grep -qF '$TG_RUN' priv/outbox/statuses.log"
tg_check "a trace linked out of the storage: not read (no numbers recorded)" \
	sh -c "! '$tg' history --config priv.yaml --repo acme/llm --branch pr --format csv 2>&1 | grep -q link"

# ============================================================ -o onto a device or a pipe
# "complete or not at all" renames a temporary file over the target: over a
# device or a FIFO that would replace it (as root, /dev/null itself)
mkdir -p devs
mkfifo devs/fifo
(cat devs/fifo > devs/from-fifo &)
"$tg" diff hb-evil.json hn-evil.json --format md -o devs/fifo
tg_check "diff -o FIFO: written through the pipe, the FIFO still a FIFO" sh -c "test -p devs/fifo && sleep 0.3 && grep -q 'tracegate: block' devs/from-fifo"
if [ "$(id -u)" -eq 0 ] && mknod devs/null c 1 3 2>/dev/null; then
	chmod 666 devs/null
	"$tg" diff hb-evil.json hn-evil.json -o devs/null
	tg_check "diff -o a character device (as root): still the device" test -c devs/null
	"$tg" history --config evil.yaml --repo acme/llm --branch main -o devs/null
	tg_check "history -o a character device (as root): still the device" test -c devs/null
else
	tg_skip "-o onto a character device: not root (or mknod refused)"
fi

# ============================================================ systemd
unit=$top/contrib/systemd/tracegate.service
for opt in '^User=tracegate$' '^NoNewPrivileges=yes$' '^ProtectSystem=strict$' '^CapabilityBoundingSet=$' \
	'^AmbientCapabilities=$' '^SystemCallFilter=@system-service$' '^PrivateTmp=yes$' '^RestrictSUIDSGID=yes$'; do
	tg_check "systemd unit: $opt" grep -qE "$opt" "$unit"
done
# secrets from files need no secrets.env (issue 23: the unit required one)
tg_eq "systemd unit: every EnvironmentFile= is optional (\"-\")" "" "$(grep '^EnvironmentFile=' "$unit" | grep -v '^EnvironmentFile=-')"
tg_check "systemd unit: its header names the folder make install puts it in" \
	grep -q "^# \`make install\` puts this unit in /usr/local/lib/systemd/system/" "$unit"
tg_check "make install puts it there (Makefile UNITDIR)" grep -q '^UNITDIR ?= $(PREFIX)/lib/systemd/system$' "$top/Makefile"
mkdir -p sd
sed "s|/usr/local/bin/tracegate|$tg|g" "$unit" > sd/tracegate.service
if command -v systemd-analyze >/dev/null 2>&1; then
	systemd-analyze verify sd/tracegate.service >sd/verify.txt 2>&1
	rc=$?
	tg_eq "systemd-analyze verify: clean" "0 " "$rc $(cat sd/verify.txt)"
	if systemd-analyze security --offline=yes sd/tracegate.service >sd/security.txt 2>&1; then
		level=$(sed -nE 's/.*Overall exposure level for tracegate.service: ([0-9.]+).*/\1/p' sd/security.txt)
		tg_check "systemd-analyze security: exposure $level (at most 2.0)" awk -v l="${level:-99}" 'BEGIN{exit !(l <= 2.0)}'
	else
		tg_skip "systemd-analyze security --offline: not supported here"
	fi
else
	tg_skip "systemd-analyze: not installed (the grep checks above ran)"
fi
# ExecStartPre's --check with the example configurations, paths made local
check_line=$(sed -n 's/^ExecStartPre=//p' sd/tracegate.service)
mkdir -p ex/srv ex/var ex/rules ex/secrets
cp "$top/contrib/rules/default.yaml" ex/rules/llm.yaml
sed -e "s|/srv/artifacts|$TG_RUN/ex/srv|" -e "s|/var/lib/tracegate|$TG_RUN/ex/var|g" \
	-e "s|/etc/tracegate/rules/llm.yaml|$TG_RUN/ex/rules/llm.yaml|" "$top/contrib/config/tracegate.yaml" > ex/tracegate.yaml
sed -e "s|/run/secrets/|$TG_RUN/ex/secrets/|g" -e "s|/var/lib/tracegate|$TG_RUN/ex/var|g" \
	"$top/contrib/config/tracegate-s3-gitlab.yaml" > ex/tracegate-s3-gitlab.yaml
echo glpat-example > ex/secrets/gitlab-token
out=$(GITHUB_TOKEN=ghp_example ${check_line/\/etc\/tracegate\/tracegate.yaml/$TG_RUN/ex/tracegate.yaml} 2>&1)
tg_eq "ExecStartPre --check: the example config loads" \
	"$TG_RUN/ex/tracegate.yaml: ok: local storage, sqlite store, 1 forge, 1 repository" "$out"
out=$(AWS_ACCESS_KEY_ID=AKIAEXAMPLE AWS_SECRET_ACCESS_KEY=example TRACEGATE_DATABASE_URL=postgresql://x@db/x \
	${check_line/\/etc\/tracegate\/tracegate.yaml/$TG_RUN/ex/tracegate-s3-gitlab.yaml} 2>&1)
tg_eq "ExecStartPre --check: the S3 + GitLab example loads" \
	"$TG_RUN/ex/tracegate-s3-gitlab.yaml: ok: s3 storage, postgresql store, 1 forge, 1 repository" "$out"
out=$(env -u GITHUB_TOKEN ${check_line/\/etc\/tracegate\/tracegate.yaml/$TG_RUN/ex/tracegate.yaml} 2>&1)
tg_check "ExecStartPre --check: refuses to start without the secret" sh -c "echo '$out' | grep -q 'GITHUB_TOKEN is not set'"

tg_check "no crash or sanitizer report in the logs" sh -c "! grep -Eq 'runtime error|AddressSanitizer|LeakSanitizer' ./*.log"
tg_log "it_security: $(($(date +%s) - t_start)) s"
tg_done it_security
