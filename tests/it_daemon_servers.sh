#!/bin/sh
# it_daemon_servers.sh - the daemon end to end against real servers on
# loopback, per forge and per storage:
#   forges   GitHub, GitLab, Gitea: each a stateful fake behind `prism proxy
#            --errors` with the forge's published OpenAPI description, so every
#            request the daemon sends is checked against the contract
#   storage  a local folder (with SQLite), and S3 (@20minutes/s3rver, which
#            checks SigV4) with PostgreSQL
#   git      bare repositories served by `git daemon`
# For each: a baseline run on main, then a pull request 8 % slower on
# attention: pending, then failure, one comment; the pull request fixed:
# success, the same comment edited (never a second one). Then faults: the
# forge answering 500 twice and 429 with Retry-After (retried and delivered),
# forge timing out (a status and a comment's create answered after the
# daemon's timeout: retried, one comment), the forge down (the run waits and
# is delivered when it is back), a run claiming a pull request whose head is
# another commit (nothing posted: the daemon asks the forge), a Tracegate-Accept
# trailer (counts from a writer only, asked of the forge), a marker posted
# first by someone else (left alone: the daemon edits only its own comment), the
# storage down (the daemon keeps running and resumes). Tokens never appear
# in the daemon's logs or output.
# $1: the tracegate binary; TG_GEN: the generator; TG_SHARED: ../shared.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"
export TG_SHARED=$(cd "${TG_SHARED:-../shared}" 2>/dev/null && pwd || echo "${TG_SHARED:-../shared}")
. tests/servers/forges.sh
. tests/servers/s3.sh
. tests/servers/pg.sh
. tests/servers/git.sh

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	tg_skip_all "it_daemon_servers: node and npm are not installed (contrib/install-deps.sh --servers)"
fi
TG_RUN=$(mktemp -d "${TMPDIR:-/tmp}/tg-it-daemon.XXXXXX")
export TG_RUN
cleanup() {
	tg_pg_stop >/dev/null 2>&1
	tg_stop_all
	[ -n "${TG_KEEP:-}" ] && echo "# kept $TG_RUN" || rm -rf "$TG_RUN"
}
trap cleanup EXIT
if ! tg_forges_install || ! tg_forges_specs; then
	tg_skip_all "it_daemon_servers: cannot install the forge servers into $TG_CACHE (offline?)"
fi
cd "$TG_RUN"

# --- servers
forges=(GITHUB)
[ -f "$TG_FORGES_SPECS/gitlab.json" ] && forges+=(GITLAB GITEA) ||
	tg_skip "GitLab and Gitea: $TG_SHARED/specs is absent (set TG_SHARED)"
declare -A KIND=([GITHUB]=github [GITLAB]=gitlab [GITEA]=gitea)
declare -A API=([GITHUB]="" [GITLAB]=/api/v4 [GITEA]=/api/v1)
declare -A TOKEN REPO
for f in "${forges[@]}"; do
	TOKEN[$f]=tg-secret-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
	REPO[$f]=acme/$(tr 'A-Z' 'a-z' <<<"$f")
	tg_forge_start "$f" "${KIND[$f]}" "$TG_FORGES_SPECS/${KIND[$f]}.json" "${TOKEN[$f]}" 40 1 ||
		{ echo "it_daemon_servers: cannot start $f" >&2; exit 1; }
done
s3port=$(tg_free_port)
(cd "$top" && tg_s3rver_start "$s3port" artifacts) || { echo "it_daemon_servers: s3rver did not start" >&2; exit 1; }
tg_pg_start || { echo "it_daemon_servers: PostgreSQL did not start" >&2; exit 1; }
mkdir -p git
tg_git_daemon_start "$TG_RUN/git" || exit 1
for f in "${forges[@]}"; do
	tg_forge_ensure "$f" 90 "${KIND[$f]}" "$TG_FORGES_SPECS/${KIND[$f]}.json" "${TOKEN[$f]}" 40 1 ||
		{ echo "it_daemon_servers: $f did not start" >&2; exit 1; }
done
fake() { local p=TG_FORGE_FAKE_$1; echo "http://127.0.0.1:${!p}"; }
proxy() { local p=TG_FORGE_PROXY_$1; echo "http://127.0.0.1:${!p}${API[$1]}"; }

# --- one repository per forge (and one for S3), served by git daemon
declare -A MAIN SLOW FIXED
mkrepo() { # NAME
	local src=src-${1//\//_}
	git init -q "$src"
	echo a > "$src/a" && git -C "$src" add a && git -C "$src" commit -qm base
	MAIN[$1]=$(git -C "$src" rev-parse HEAD)
	git -C "$src" checkout -qb slow
	echo s >> "$src/a" && git -C "$src" commit -qam slower
	SLOW[$1]=$(git -C "$src" rev-parse HEAD)
	echo f >> "$src/a" && git -C "$src" commit -qam fixed
	FIXED[$1]=$(git -C "$src" rev-parse HEAD)
	git -C "$src" checkout -q main
	mkdir -p "git/${1%/*}"
	git clone -q --bare "$src" "git/$1.git"
}
for f in "${forges[@]}"; do mkrepo "${REPO[$f]}"; done
mkrepo acme/s3

G="--steps 8 --seq 4096 --layers 2 --noise 1"
"$gen" $G --seed 1 -o base.json.gz
"$gen" $G --seed 2 --sdpa-scale 1.08 -o slow.json.gz
"$gen" $G --seed 3 -o fine.json.gz

# --- configuration A: local storage, SQLite, the three forges
mkdir -p storage
{
	echo "storage: {local: storage, poll_interval: 1s}"
	echo "database: {sqlite: a.db}"
	echo "forges:"
	for f in "${forges[@]}"; do
		echo "  - {name: $f, kind: ${KIND[$f]}, api_url: \"$(proxy "$f")\", token: {env: TOKEN_$f}}"
	done
	echo "repositories:"
	for f in "${forges[@]}"; do
		# GitHub's repository takes Tracegate-Accept trailers (from writers: the fake says who may write)
		echo "  - {name: ${REPO[$f]}, forge: $f, clone_url: \"git://127.0.0.1:$TG_GIT_PORT/${REPO[$f]}.git\", on_unjudged: {no_baseline: success}$([ "$f" = GITHUB ] && echo ", accept_trailers: true")}"
	done
	echo "daemon: {state_dir: state-a, lease: 2s, max_attempts: 30}"
	echo "http: {timeout: 3s, connect_timeout: 2s, retries: 4, backoff: 100ms, max_wait: 2s}"
} > a.yaml
for f in "${forges[@]}"; do export "TOKEN_$f=${TOKEN[$f]}"; done
export TG_S3_KEY=${TG_S3RVER_KEYS%%:*} TG_S3_SECRET=${TG_S3RVER_KEYS#*:} TG_PG=$TG_PG_URL
cat > b.yaml <<EOF
storage:
  s3: {endpoint: "http://127.0.0.1:$s3port", bucket: artifacts, prefix: runs/, access_key: {env: TG_S3_KEY}, secret_key: {env: TG_S3_SECRET}}
  poll_interval: 1s
database: {postgresql: {env: TG_PG}}
forges:
  - {name: gh, kind: github, api_url: "$(proxy GITHUB)", token: {env: TOKEN_GITHUB}}
repositories:
  - {name: acme/s3, forge: gh, clone_url: "git://127.0.0.1:$TG_GIT_PORT/acme/s3.git", on_unjudged: {no_baseline: success}}
daemon: {state_dir: state-b, lease: 2s}
http: {timeout: 3s, retries: 4, backoff: 100ms, max_wait: 2s}
EOF
# --offline: the forge fakes answer only the operations the daemon posts
# with, not the repository lookup of the connectivity check
# (tests/cli_daemon_check.sh tests that against dead and live endpoints)
tg_check "config A --check --offline" "$tg" daemon --config a.yaml --check --offline
tg_check "config B --check --offline" "$tg" daemon --config b.yaml --check --offline

# the pull request as the forge has it (the daemon asks before posting): open,
# this commit its head, into main; ALIEN=1: the upload claims a pull request
# it is not part of (the fake keeps what it had)
seed_pr() { # REPO COMMIT PR
	local f
	case "$1" in acme/s3) f=GITHUB ;; *) f=$(tr 'a-z' 'A-Z' <<<"${1#acme/}") ;; esac
	[ -n "${ALIEN:-}" ] && return 0
	curl -s -X POST "$(fake "$f")/_fake/seed" -d "{\"repo\":\"$1\",\"pr\":$3,\"head\":\"$2\",\"base\":\"main\"}" >/dev/null
}
up_local() { # REPO COMMIT BRANCH RUN TRACE [PR]
	[ -z "${6:-}" ] || seed_pr "$1" "$2" "$6"
	mkdir -p "u-$4" && cp "$5" "u-$4/rank0.pt.trace.json.gz"
	"$upload" --dest storage --repo "$1" --commit "$2" --branch "$3" ${6:+--pr $6 --target-branch main} \
		--workload train --run-id "$4" "u-$4/rank0.pt.trace.json.gz" >/dev/null
}
up_s3() {
	[ -z "${6:-}" ] || seed_pr "$1" "$2" "$6"
	mkdir -p "u-$4" && cp "$5" "u-$4/rank0.pt.trace.json.gz"
	TRACEGATE_S3_ENDPOINT=http://127.0.0.1:$s3port AWS_ACCESS_KEY_ID=$TG_S3_KEY AWS_SECRET_ACCESS_KEY=$TG_S3_SECRET \
		"$upload" --dest s3://artifacts/runs --repo "$1" --commit "$2" --branch "$3" ${6:+--pr $6 --target-branch main} \
		--workload train --run-id "$4" "u-$4/rank0.pt.trace.json.gz" >/dev/null
}
run_a() { "$tg" daemon --config a.yaml --once >>a.out 2>>a.log; }
run_b() { "$tg" daemon --config b.yaml --once >>b.out 2>>b.log; }

# state queries on a fake: the status words posted for a sha, the comments with the marker
q() { # FORGE JS-EXPRESSION over s (the fake's state)
	curl -s "$(fake "$1")/_fake/state" | node -e "let d='';process.stdin.on('data',c=>d+=c).on('end',()=>{const s=JSON.parse(d);console.log($2)})"
}
# (the repositories are made alike, so their commits have the same SHAs: filter by repository too)
words() { q "$1" "s.statuses.filter(x=>x.sha==='$2'&&x.repo==='${3:-${REPO[$1]:-}}').map(x=>x.state).join(' ')"; }
marked() { q "$1" "s.comments.filter(c=>c.repo==='${2:-${REPO[$1]}}'&&c.body.startsWith('<!-- tracegate:train -->')).length"; }
body() { q "$1" "(s.comments.find(c=>c.repo==='${REPO[$1]}'&&c.body.startsWith('<!-- tracegate:train -->'))||{body:''}).body"; }
body_has() { body "$1" | grep -q "$2"; }
words_have() { words "$1" "$2" "${4:-}" | grep -q "$3"; }
declare -A PENDING=([GITHUB]=pending [GITLAB]=running [GITEA]=pending)
declare -A FAILURE=([GITHUB]=failure [GITLAB]=failed [GITEA]=failure)

# --- every forge, local storage + SQLite
for f in "${forges[@]}"; do
	r=${REPO[$f]}
	up_local "$r" "${MAIN[$r]}" main m1 base.json.gz
	run_a
	tg_eq "$f: main run: pending, then success (no baseline, on_unjudged: success)" "${PENDING[$f]} success" "$(words "$f" "${MAIN[$r]}")"
	up_local "$r" "${SLOW[$r]}" slow pr1 slow.json.gz 5
	run_a
	tg_eq "$f: slower PR: pending, then failure" "${PENDING[$f]} ${FAILURE[$f]}" "$(words "$f" "${SLOW[$r]}")"
	tg_eq "$f: one comment" 1 "$(marked "$f")"
	tg_check "$f: the comment blocks on sdpa-forward" body_has "$f" 'block: sdpa-forward' 
	up_local "$r" "${FIXED[$r]}" slow pr2 fine.json.gz 5
	run_a
	tg_eq "$f: fixed PR: pending, then success" "${PENDING[$f]} success" "$(words "$f" "${FIXED[$r]}")"
	tg_eq "$f: still one comment, edited" 1 "$(marked "$f")"
	tg_check "$f: the comment now passes" body_has "$f" 'tracegate: pass' 
done

# --- faults on GitHub: 500 twice on the status, then 429 with Retry-After on the comment
r=${REPO[GITHUB]}
git -C "src-${r//\//_}" checkout -qb faults "${MAIN[$r]}"
echo x >> "src-${r//\//_}/a" && git -C "src-${r//\//_}" commit -qam faults
sha=$(git -C "src-${r//\//_}" rev-parse HEAD)
git -C "src-${r//\//_}" push -q "$TG_RUN/git/$r.git" faults
curl -s -X POST "$(fake GITHUB)/_fake/fail" -d '{"count":2,"status":500,"method":"POST","path":"/statuses/"}' >/dev/null
curl -s -X POST "$(fake GITHUB)/_fake/fail" -d '{"count":1,"status":429,"retry_after":"1","method":"PATCH"}' >/dev/null
up_local "$r" "$sha" faults pr3 slow.json.gz 5
run_a
tg_eq "faults: 500 twice, 429 with Retry-After: the verdict still arrives" "pending failure" "$(words GITHUB "$sha")"
tg_eq "faults: still one comment on the pull request" 1 "$(marked GITHUB)"
tg_check "faults: the daemon honoured Retry-After (about 1 s)" sh -c "q=\$(grep -c 'fake-github: PATCH' '$TG_RUN/fake-GITHUB.log'); [ \$q -ge 2 ]"

# --- timeouts on GitHub (1 s for this run, see c.yaml): the pending status answered only after
#     the timeout, not applied (retried at once: a status is idempotent), and the comment's
#     create applied but answered after the timeout (it may have worked: the daemon looks for
#     its marker before trying again, finds it, and edits it): one comment, the final status
sed 's/^http: .*/http: {timeout: 1s, connect_timeout: 1s, retries: 3, backoff: 100ms, max_wait: 1s}/' a.yaml > c.yaml
git -C "src-${r//\//_}" checkout -qb timeouts "${MAIN[$r]}"
echo t >> "src-${r//\//_}/a" && git -C "src-${r//\//_}" commit -qam timeouts
sha=$(git -C "src-${r//\//_}" rev-parse HEAD)
git -C "src-${r//\//_}" push -q "$TG_RUN/git/$r.git" timeouts
curl -s -X POST "$(fake GITHUB)/_fake/fail" -d '{"count":1,"status":502,"delay_ms":2500,"method":"POST","path":"/statuses/"}' >/dev/null
curl -s -X POST "$(fake GITHUB)/_fake/fail" -d '{"count":1,"status":502,"delay_ms":2500,"apply":true,"method":"POST","path":"/issues/12/comments"}' >/dev/null
up_local "$r" "$sha" timeouts pr6 slow.json.gz 12
t0=$(date +%s%N)
"$tg" daemon --config c.yaml --once >>a.out 2>>timeouts.log
t1=$(date +%s%N)
tg_eq "timeouts: retried, the verdict arrives once" "pending failure" "$(words GITHUB "$sha")"
tg_eq "timeouts: three status posts (pending timed out, pending again, failure)" 3 \
	"$(q GITHUB "s.requests.filter(x=>x.method==='POST'&&x.path.endsWith('/statuses/$sha')).length")"
tg_eq "timeouts: one create of the comment (the late one), no second" 1 \
	"$(q GITHUB "s.requests.filter(x=>x.method==='POST'&&x.path==='/repos/$r/issues/12/comments').length")"
tg_eq "timeouts: the comments searched before the create and again after it timed out" 2 \
	"$(q GITHUB "s.requests.filter(x=>x.method==='GET'&&x.path==='/repos/$r/issues/12/comments').length")"
tg_eq "timeouts: exactly one comment on the pull request" 1 \
	"$(q GITHUB "s.comments.filter(c=>c.repo==='$r'&&c.pr===12&&c.body.startsWith('<!-- tracegate:train -->')).length")"
tg_check "timeouts: the comment is the verdict" eval "q GITHUB \"(s.comments.find(c=>c.repo==='$r'&&c.pr===12)||{body:''}).body\" | grep -q 'block: sdpa-forward'"
tg_check "timeouts: the run took seconds, not the forge's delays twice over ($(( (t1 - t0) / 1000000 )) ms)" \
	test $(( (t1 - t0) / 1000000 )) -lt 20000
tg_check "timeouts: no job left to retry" sh -c "! grep -q 'will try again after its lease' timeouts.log"

# --- a pull-request label accepts the regression, and the comment says who added it
git -C "src-${r//\//_}" checkout -qb labelled "${MAIN[$r]}"
echo l >> "src-${r//\//_}/a" && git -C "src-${r//\//_}" commit -qam labelled
sha=$(git -C "src-${r//\//_}" rev-parse HEAD)
git -C "src-${r//\//_}" push -q "$TG_RUN/git/$r.git" labelled
curl -s -X POST "$(fake GITHUB)/_fake/seed" \
	-d "{\"repo\":\"$r\",\"pr\":11,\"labels\":[{\"name\":\"tracegate-accept:sdpa-forward\",\"by\":\"alice\"},{\"name\":\"tracegate-accept:sdpa-backward\",\"by\":\"alice\"}]}" >/dev/null
up_local "$r" "$sha" labelled pr5 slow.json.gz 11
run_a
tg_eq "label: the accepted regression passes" "pending success" "$(words GITHUB "$sha")"
pr11() { q GITHUB "(s.comments.find(c=>c.repo==='$r'&&c.pr===11)||{body:''}).body"; }
# (a zero-width space after the @: the comment names alice without notifying her)
tg_check "label: the comment names the label and its author" eval 'pr11 | grep -q "Accepted: sdpa-forward by label tracegate-accept:sdpa-forward added by @$(printf "\342\200\213")alice"'

# --- the forge down: the run waits in posting and is delivered when it is back
git -C "src-${r//\//_}" checkout -qb down "${MAIN[$r]}"
echo d >> "src-${r//\//_}/a" && git -C "src-${r//\//_}" commit -qam down
sha=$(git -C "src-${r//\//_}" rev-parse HEAD)
git -C "src-${r//\//_}" push -q "$TG_RUN/git/$r.git" down
tg_stop prism-GITHUB
up_local "$r" "$sha" down pr4 fine.json.gz 6
"$tg" daemon --config a.yaml >>a.out 2>down.log &
dpid=$!
for i in $(seq 1 100); do grep -q "will try again after its lease" down.log && break; sleep 0.1; done
tg_check "forge down: the daemon reports it and keeps the run" grep -q "will try again after its lease" down.log
tg_check "forge down: the daemon keeps running" kill -0 "$dpid"
tg_forge_start_prism_again() {
	local pp=TG_FORGE_PROXY_GITHUB fp=TG_FORGE_FAKE_GITHUB
	tg_start prism-GITHUB "$TG_FORGES_NPM/node_modules/.bin/prism" proxy -h 127.0.0.1 -p "${!pp}" --errors \
		"$TG_FORGES_SPECS/github.json" "http://127.0.0.1:${!fp}" >/dev/null
	tg_wait_port "${!pp}" 60 "$(cat "$TG_RUN/prism-GITHUB.pid")"
}
tg_forge_start_prism_again
for i in $(seq 1 900); do words_have GITHUB "$sha" success && break; sleep 0.1; done
tg_check "forge back: the verdict is delivered" words_have GITHUB "$sha" success
kill -TERM "$dpid"; wait "$dpid"

# --- self-approval (GitHub, accept_trailers: true): a Tracegate-Accept trailer counts only
#     when the forge says the commit's author may write
r=${REPO[GITHUB]}
src=src-${r//\//_}
git -C "$src" checkout -qb selfapp "${MAIN[$r]}"
echo a1 >> "$src/a" && git -C "$src" commit -qam "slower, approved by myself

Tracegate-Accept: sdpa-forward: trust me"
sha=$(git -C "$src" rev-parse HEAD)
echo a2 >> "$src/a" && git -C "$src" commit -qam "slower, approved by a maintainer

Tracegate-Accept: sdpa-forward: the new kernel is exact"
sha2=$(git -C "$src" rev-parse HEAD)
git -C "$src" push -q "$TG_RUN/git/$r.git" selfapp
git -C "$src" checkout -q main
for seed in "{\"repo\":\"$r\",\"sha\":\"$sha\",\"author\":\"mallory\"}" "{\"repo\":\"$r\",\"collaborator\":\"mallory\",\"permission\":\"read\"}" \
	"{\"repo\":\"$r\",\"sha\":\"$sha2\",\"author\":\"alice\"}" "{\"repo\":\"$r\",\"collaborator\":\"alice\",\"permission\":\"write\"}"; do
	curl -s -X POST "$(fake GITHUB)/_fake/seed" -d "$seed" >/dev/null
done
up_local "$r" "$sha" selfapp sa1 slow.json.gz 22
run_a
tg_eq "self-approval: a reader's own trailer does not pass the block" "pending failure" "$(words GITHUB "$sha")"
pr22() { q GITHUB "(s.comments.find(c=>c.repo==='$r'&&c.pr===22&&c.user==='tracegate-bot')||{body:''}).body"; }
tg_check "self-approval: the comment says the trailer was ignored" eval 'pr22 | grep -q "Ignored: a Tracegate-Accept trailer of mallory (the forge does not confirm write access"'
up_local "$r" "$sha2" selfapp sa2 slow.json.gz 22
run_a
tg_eq "self-approval: a writer's trailer accepts the regression" "pending success" "$(words GITHUB "$sha2")"
tg_check "self-approval: the comment names the writer" eval 'pr22 | grep -q "Accepted: sdpa-forward by commit trailer of @$(printf "\342\200\213")alice (write access)"'

# --- comment hijack: someone posts the marker on a pull request before the daemon does;
#     their comment is left alone, the daemon writes (and keeps editing) its own
for f in "${forges[@]}"; do
	r=${REPO[$f]}
	src=src-${r//\//_}
	git -C "$src" checkout -qb hijack "${MAIN[$r]}"
	echo h >> "$src/a" && git -C "$src" commit -qam hijack
	sha=$(git -C "$src" rev-parse HEAD)
	git -C "$src" push -q "$TG_RUN/git/$r.git" hijack
	git -C "$src" checkout -q main
	curl -s -X POST "$(fake "$f")/_fake/seed" \
		-d "{\"repo\":\"$r\",\"pr\":21,\"by\":\"mallory\",\"body\":\"<!-- tracegate:train -->\\nmallory was here\"}" >/dev/null
	up_local "$r" "$sha" hijack hj1 slow.json.gz 21
	run_a
	tg_eq "$f: a marker posted first by someone else: left as it was" "mallory was here" \
		"$(q "$f" "s.comments.filter(c=>c.repo==='$r'&&c.pr===21&&c.user==='mallory').map(c=>c.body.split('\\n')[1]).join()")"
	tg_eq "$f: ... and the daemon's verdict is its own comment" 1 \
		"$(q "$f" "s.comments.filter(c=>c.repo==='$r'&&c.pr===21&&c.user==='tracegate-bot'&&c.body.includes('block: sdpa-forward')).length")"
done

# --- ask the forge, not the manifest: a run planted at main's commit that claims pull
#     request 5 (whose head is another commit) posts nothing on main's commit, nor on 5
#     (last on these repositories: without a signing key its numbers become main's)
for f in "${forges[@]}"; do
	r=${REPO[$f]}
	before=$(q "$f" "s.comments.filter(c=>c.repo==='$r'&&c.pr===5).map(c=>c.updated_at+c.body.length).join()")
	wb=$(words "$f" "${MAIN[$r]}")
	ALIEN=1 up_local "$r" "${MAIN[$r]}" main alien slow.json.gz 5
	run_a
	tg_eq "$f: a run claiming a pull request it is not the head of: no status on its commit" \
		"$wb" "$(words "$f" "${MAIN[$r]}")"
	tg_eq "$f: ... and pull request 5's comment untouched" "$before" \
		"$(q "$f" "s.comments.filter(c=>c.repo==='$r'&&c.pr===5).map(c=>c.updated_at+c.body.length).join()")"
	tg_check "$f: ... the log says why" grep -q "is not the head of pull request 5" a.log
done

# --- S3 storage + PostgreSQL (GitHub)
r=acme/s3
up_s3 "$r" "${MAIN[$r]}" main m1 base.json.gz
run_b
tg_eq "S3+PG: main run: pending, then success (no baseline, on_unjudged: success)" "pending success" "$(words GITHUB "${MAIN[$r]}" $r)"
up_s3 "$r" "${SLOW[$r]}" slow pr1 slow.json.gz 9
run_b
tg_eq "S3+PG: slower PR: pending, then failure" "pending failure" "$(words GITHUB "${SLOW[$r]}" $r)"
up_s3 "$r" "${FIXED[$r]}" slow pr2 fine.json.gz 9
run_b
tg_eq "S3+PG: fixed PR: success" "pending success" "$(words GITHUB "${FIXED[$r]}" $r)"
tg_eq "S3+PG: one comment on PR 9" 1 "$(marked GITHUB acme/s3)"
tg_check "S3+PG: history from PostgreSQL" sh -c "'$tg' history --config b.yaml --repo acme/s3 --branch main --metric rule:sdpa-forward | grep -q ${MAIN[$r]:0:12}"

# --- the storage down: the daemon keeps running and resumes
"$tg" daemon --config b.yaml >>b.out 2>s3down.log &
dpid=$!
sleep 1
tg_stop s3rver
sleep 2.5
tg_check "storage down: reported" grep -q "cannot list the storage" s3down.log
tg_check "storage down: the daemon keeps running" kill -0 "$dpid"
(cd "$top" && tg_s3rver_start "$s3port" artifacts)
git -C src-acme_s3 checkout -qb later "${MAIN[$r]}" && echo l >> src-acme_s3/a && git -C src-acme_s3 commit -qam later
sha=$(git -C src-acme_s3 rev-parse HEAD); git -C src-acme_s3 push -q "$TG_RUN/git/acme/s3.git" later
up_s3 "$r" "$sha" later pr3 fine.json.gz 10
for i in $(seq 1 100); do words_have GITHUB "$sha" success acme/s3 && break; sleep 0.1; done
tg_check "storage back: the new run is judged" words_have GITHUB "$sha" success acme/s3
kill -TERM "$dpid"; wait "$dpid"

# --- what every request looked like to the forges, and secrets
for f in "${forges[@]}"; do
	tg_check "$f: prism found no request or answer against the description" sh -c "! grep -q '✖' '$TG_RUN/prism-$f.log'"
done
leak=0
for f in "${forges[@]}"; do
	grep -qF "${TOKEN[$f]}" a.log a.out b.log b.out down.log s3down.log timeouts.log 2>/dev/null && leak=1
done
grep -qF "$TG_PG_PASSWORD" a.log b.log b.out s3down.log 2>/dev/null && leak=1
grep -qF "$TG_S3_SECRET" a.log b.log s3down.log 2>/dev/null && [ "$TG_S3_SECRET" != S3RVER ] && leak=1
tg_eq "no token, password or secret key in the daemon's logs and output" 0 "$leak"
tg_check "no sanitizer report" sh -c "! grep -Eq 'runtime error|AddressSanitizer|LeakSanitizer' a.log b.log down.log s3down.log timeouts.log"
# the git daemon stopped by the PID tg_start recorded leaves no git serving
# this run's repositories (it_common.sh's git() once made that PID a
# subshell's, and every make check left a git daemon behind)
tg_stop git-daemon
tg_check "git daemon stopped by its PID, none left" sh -c "! pgrep -f -- '--base-path=$TG_RUN/gi[t]' >/dev/null"
tg_done it_daemon_servers
