#!/bin/sh
# it_trust.sh - who the daemon trusts (docs/security.md), end to end: the
# attacker's upload (anyone who can write to the storage: every
# pull-request job holds the upload key), the daemon's --once run, and what
# it posted (the outbox forge), recorded (the history) and logged.
#   the upload script and the daemon agree on the signature (key from the environment)
#   a forged baseline: an unsigned run at a main commit, slow, created_at 2099
#       -> not a baseline, not in main's history, nothing posted on main's commit
#          (and the log never says "posted" for it);
#          the real +30 % regression of the next pull request still blocks
#   a signed manifest whose branch was edited, or whose trace was swapped -> untrusted / error
#   a signed run of a branch that is not a target branch -> untrusted
#   target_branch outside target_branches -> no baseline (not another branch's history)
#   ci_url outside ci_url_prefixes -> no link (a phishing link otherwise)
#   a token in clone_url -> never in a status, comment, the database, the state folder or the log
#   a self-approving commit trailer -> ignored (off by default; on: the forge must confirm write access)
#   a workload name and trace text with markup, mentions, references, URLs -> inert
#   no signing key -> the daemon says at start that anyone can forge baselines
# $1: the tracegate binary; TG_GEN: the generator.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"
. "$top/tests/servers/git.sh"
tg_it_run_folder it-trust

git init -q src
echo a > src/a && git -C src add a && git -C src commit -qm base
main1=$(git -C src rev-parse HEAD)
echo b >> src/a && git -C src commit -qam "main: second"
main2=$(git -C src rev-parse HEAD)
git -C src checkout -qb slow "$main2"
echo s >> src/a && git -C src commit -qam "attention: 30 % slower"
slow=$(git -C src rev-parse HEAD)
git -C src checkout -qb feat "$main2"
echo f >> src/a && git -C src commit -qam "feature"
feat=$(git -C src rev-parse HEAD)
git -C src checkout -qb selfok "$main2"
echo t >> src/a && git -C src commit -qam "attention: slower, approved by myself

Tracegate-Accept: sdpa-forward: trust me"
selfok=$(git -C src rev-parse HEAD)
git -C src checkout -q --orphan lonely && git -C src commit -qm "no shared history"
lonely=$(git -C src rev-parse HEAD)
git -C src checkout -q main
git clone -q --bare src repo.git

G="--steps 8 --seq 4096 --layers 2 --noise 1"
"$gen" $G --seed 1 -o base.json.gz
"$gen" $G --seed 2 --sdpa-scale 1.3 -o slow.json.gz
"$gen" $G --seed 3 -o fine.json.gz
mkdir -p storage

export TG_SIGNING_KEY='s3cret "signing" key \ with spaces'
secret=ghp_TOKENthatMustNeverLeak0123456789
clone_url="file://$TG_RUN/repo.git"
if tg_git_have_lighttpd; then
	printf 'x-access-token:%s\n' "$secret" > users
	mkdir -p gitroot && cp -r repo.git gitroot/llm.git
	tg_git_http_start "$TG_RUN/gitroot" "$TG_RUN/users" && clone_url="http://x-access-token:$secret@127.0.0.1:$TG_GIT_HTTP_PORT/auth/llm.git"
fi
conf() { # SIGNING(yes|no)
	cat <<EOF
storage:
  local: storage
  poll_interval: 1s
$([ "$1" = yes ] && echo "  signing_key: {env: TG_SIGNING_KEY}")
database:
  sqlite: tracegate.db
forges:
  - name: outbox
    kind: outbox
    outbox: outbox
repositories:
  - name: acme/llm
    forge: outbox
    clone_url: $clone_url
    ci_url_prefixes: [https://ci.example/jobs/]
daemon:
  state_dir: state
  lease: 2s
  max_attempts: 2
EOF
}
conf yes > tracegate.yaml
conf no > nokey.yaml
sed 's|    ci_url_prefixes:|    accept_trailers: true\n    ci_url_prefixes:|' tracegate.yaml > trailers.yaml

# up COMMIT BRANCH RUN TRACE [PR [TARGET]]: an upload as a CI job does it
# (signed when TRACEGATE_SIGNING_KEY is in the environment)
up() {
	mkdir -p "u-$3" && cp "$4" "u-$3/rank0.pt.trace.json.gz"
	"$upload" --dest storage --repo acme/llm --commit "$1" --branch "$2" ${5:+--pr $5 --target-branch ${6:-main}} \
		--workload train --run-id "$3" --ci-url "${CI_URL:-https://ci.example/jobs/$3}" "u-$3/rank0.pt.trace.json.gz" \
		>/dev/null 2>>upload.log
}
manifest() { echo "storage/acme/llm/$1/train/$2/manifest.json"; }
once() { tg_it_once; }
status_of() { grep "\"sha\": *\"$1\"" outbox/statuses.log 2>/dev/null | tail -1 | sed -E 's/.*"state": *"([a-z]+)".*/\1/'; }
nstatus() { grep -c "\"sha\": *\"$1\"" outbox/statuses.log 2>/dev/null || true; }
hist_commits() { "$tg" history --config tracegate.yaml --repo acme/llm --branch main --metric gpu_busy_ms --format csv | cut -d, -f5 | grep -E '^[0-9a-f]{40}$' | sort -u | tr '\n' ' '; }
trusted_of() { sqlite3 tracegate.db "select trusted from runs where run_id = '$1'"; }

tg_check "config with storage.signing_key: --check" "$tg" daemon --config tracegate.yaml --check

# 1. the upload script signs; the daemon agrees (the key from the environment on both sides)
TRACEGATE_SIGNING_KEY=$TG_SIGNING_KEY up "$main1" main m1 base.json.gz
tg_check "upload: the manifest carries a signature" grep -q '"signature": "hmac-sha256:[0-9a-f]\{64\}"' "$(manifest "$main1" m1)"
tg_check "upload: each trace its sha256" grep -q '"sha256": "[0-9a-f]\{64\}"' "$(manifest "$main1" m1)"
once
tg_eq "signed main run: trusted in the store" 1 "$(trusted_of m1)"
tg_check "signed main run: logged as signed" grep -q "new run acme/llm@${main1:0:12} train m1 (job [0-9]*, signed)" daemon.log
tg_eq "signed main run: status posted (pending: no baseline yet)" pending "$(status_of "$main1")"
tg_eq "signed main run: in main's history" "$main1 " "$(hist_commits)"

# 2. the attack: an unsigned run planted at main2 (the merge-base of the next
#    pull request), "branch": "main", slow, from the future, with a phishing link
CI_URL=https://evil.example/login up "$main2" main forged slow.json.gz
tg_check "forged run: the upload script warned that it is unsigned" grep -q "^tracegate-upload: warning: run of branch main uploaded without TRACEGATE_SIGNING_KEY" upload.log
sed -i 's/"created_at": "[^"]*"/"created_at": "2099-01-01T00:00:00Z"/' "$(manifest "$main2" forged)"
once
tg_eq "forged run: untrusted" 0 "$(trusted_of forged)"
tg_eq "forged run: nothing posted on main's commit" 0 "$(nstatus "$main2")"
tg_check "forged run: the log says so" grep -q "unsigned run of no pull request: judged, nothing posted" daemon.log
fj=$(sqlite3 tracegate.db "select id from runs where run_id = 'forged'")
tg_check "forged run: its last line says nothing was posted" grep -q "job $fj: done ([a-z]*), nothing posted$" daemon.log
tg_eq "forged run: no line says it posted" "" "$(grep "job $fj: posted" daemon.log)"
tg_eq "forged run: not in main's history" "$main1 " "$(hist_commits)"
now=$(date +%s)
rt=$(sqlite3 tracegate.db "select run_time from runs where run_id = 'forged'")
tg_check "forged run: created_at 2099 does not put it ahead (run_time <= now)" test "$rt" -le "$((now + 5))"
# the real regression: the pull request's baseline walks past the forged run to main1
up "$slow" slow pr5 slow.json.gz 5
once
tg_eq "PR with a real +30 % SDPA regression: blocked" failure "$(status_of "$slow")"
c5=$(find outbox -path '*pr-5*' -name 'comment-*.md' | head -1)
tg_check "PR: the baseline is main1 (signed), one commit before the merge-base main2 (forged), not main2" \
	grep -q "^| source | <code>${main1:0:7}</code> on <code>main</code> (1 commit before the merge-base <code>${main2:0:7}</code>), run <code>m1</code>, .* | <code>${slow:0:7}</code> (pull request 5, " "$c5"
tg_eq "history html: the unsigned pull request's run is not drawn on main's page" 0 \
	"$("$tg" history --config tracegate.yaml --repo acme/llm --branch main --format html | grep -c 'class="pr"')"
tg_check "PR: the unsigned run still gets its comment" test -s "$c5"

# 3. a signed run edited after signing: branch changed, or the trace swapped
git -C src checkout -qb m3 "$main2" && echo m3 >> src/a && git -C src commit -qam m3 && m3=$(git -C src rev-parse HEAD)
git -C src push -q "$TG_RUN/repo.git" m3 2>/dev/null; [ -d gitroot ] && git -C src push -q "$TG_RUN/gitroot/llm.git" m3 2>/dev/null
git -C src checkout -q main
TRACEGATE_SIGNING_KEY=$TG_SIGNING_KEY up "$m3" m3 edited fine.json.gz
sed -i 's/"branch": "m3"/"branch": "main"/' "$(manifest "$m3" edited)"
TRACEGATE_SIGNING_KEY=$TG_SIGNING_KEY up "$m3" main swapped fine.json.gz
cp slow.json.gz "storage/acme/llm/$m3/train/swapped/rank0.pt.trace.json.gz"
once
tg_eq "signed manifest with its branch edited: untrusted" 0 "$(trusted_of edited)"
tg_check "edited: the log says the signature does not match" grep -q "edited/manifest.json: untrusted: the signature does not match" daemon.log
tg_eq "signed manifest with its trace swapped: error status" error "$(status_of "$m3")"
tg_check "swapped: the status names the trace and its sha256" grep -q '"description":"cannot judge: rank0.pt.trace.json.gz: does not match the sha256 its manifest gives' outbox/statuses.log
tg_eq "neither is in main's history" "$main1 " "$(hist_commits)"

# 4. signed, but not a target branch's run (a feature branch's job was given the key)
TRACEGATE_SIGNING_KEY=$TG_SIGNING_KEY up "$feat" feat featrun fine.json.gz
once
tg_eq "signed run of a feature branch: untrusted" 0 "$(trusted_of featrun)"
tg_eq "signed run of a feature branch: nothing posted (no pull request)" 0 "$(nstatus "$feat")"

# 5. the target branch comes from a list: a run naming another one gets no baseline
up "$feat" feat pr6 fine.json.gz 6 release
once
tg_check "target_branch outside target_branches: no baseline" sh -c "grep '\"sha\": *\"$feat\"' outbox/statuses.log | tail -1 | grep -q 'no baseline: the target branch release is not one of'"

# 6. ci_url: a link only under ci_url_prefixes
tg_check "ci_url under the prefix: the status links it" grep -q '"target_url":"https://ci.example/jobs/pr5"' outbox/statuses.log
tg_check "ci_url elsewhere: never a link" sh -c "! grep -q 'evil.example' outbox/statuses.log"
tg_check "ci_url under the prefix: the comment's source row links the CI run" \
	grep -q '^| source | .* | <code>[0-9a-f]\{7\}</code> (pull request 5, <code>slow</code>), run <code>pr5</code>, <a href="https://ci.example/jobs/pr5">CI</a> |$' "$c5"
tg_check "ci_url elsewhere: no link in any comment" sh -c "! grep -rq 'evil.example/login' outbox --include='comment-*.md'"

# 7. a token in clone_url: a pull request that shares no history with main
#    makes the daemon name the repository
up "$lonely" lonely pr7 fine.json.gz 7
once
tg_check "no shared history: the status says so" grep -q "share no history in" outbox/statuses.log
tg_check "clone_url's token: not in statuses or comments" sh -c "! grep -rq '$secret' outbox"
tg_check "clone_url's token: not in the database" sh -c "! grep -aq '$secret' tracegate.db*"
tg_check "clone_url's token: not in the state folder" sh -c "! grep -rq '$secret' state"
tg_check "clone_url's token: not in the log" sh -c "! grep -q '$secret' daemon.log out.log"
if [ -d gitroot ]; then
	tg_check "clone_url's userinfo is shown without it" grep -q "share no history in http://127.0.0.1:$TG_GIT_HTTP_PORT/auth/llm.git" outbox/statuses.log
else
	tg_log "lighttpd missing: the clone_url has no token to leak (file://)"
fi

# 8. markup injection: a workload name that ends the marker and mentions a team
#    (a hand-written manifest: the upload script refuses such a name), and
#    trace text with a mention, a reference and a URL
tg_check "upload script: refuses a workload that is not [A-Za-z0-9._-]" sh -c "! '$upload' --dest storage --repo acme/llm --commit $feat --branch feat --workload 'w x' --run-id r fine.json.gz 2>/dev/null"
tg_check "upload script: refuses a run id of 65 characters" sh -c "! '$upload' --dest storage --repo acme/llm --commit $feat --branch feat --workload w --run-id $(printf 'r%.0s' $(seq 1 65)) fine.json.gz 2>/dev/null"
evil='w --> <img src=x onerror=alert(1)> @org-team'
mkdir -p "storage/acme/llm/$feat/$evil/r1"
cp fine.json.gz "storage/acme/llm/$feat/$evil/r1/rank0.pt.trace.json.gz"
printf '{"schema": "tracegate.run/1", "repo": "acme/llm", "commit": "%s", "branch": "feat", "pull_request": 8, "target_branch": "main", "workload": "%s", "run_id": "r1", "traces": [{"path": "rank0.pt.trace.json.gz"}]}\n' \
	"$feat" "$evil" > "storage/acme/llm/$feat/$evil/r1/manifest.json"
zcat slow.json.gz | sed 's/aten::_flash_attention_forward/aten::sdpa @org\/team #12 https:\/\/evil.example\/x www.evil.example/' | gzip > evilops.json.gz
up "$feat" feat pr9 evilops.json.gz 9
once
c8=$(find outbox -path '*pr-8*' -name 'comment-*.md' | head -1)
c9=$(find outbox -path '*pr-9*' -name 'comment-*.md' | head -1)
# storage refuses a folder that is no workload name ([A-Za-z0-9._-]{1,64},
# docs/security.md "Storage and limits"): nothing is posted for it at all
tg_check "workload injection: the run is refused, nothing posted on pull request 8" sh -c "[ -z '$c8' ]"
tg_check "workload injection: no status names the workload" sh -c "! grep -q 'org-team' outbox/statuses.log"
tg_check "workload injection: no <img> tag" sh -c "! grep -q '<img' '$c8'"
tg_check "workload injection: no live mention" sh -c "! grep -q '@org' '$c8'"
tg_check "workload injection: the status context holds no markup" sh -c "! grep -o '\"context\":\"[^\"]*\"' outbox/statuses.log | grep -q '<img'"
tg_check "trace text: the op is in the comment" grep -q "aten::sdpa" "$c9"
tg_check "trace text: no live mention" sh -c "! grep -q '@org' '$c9'"
tg_check "trace text: no live #12 reference" sh -c "! grep -q '#12' '$c9'"
tg_check "trace text: no autolinked URL" sh -c "! grep -Eq 'https://evil|www\.evil' '$c9'"

# 9. self-approval: the PR author's own Tracegate-Accept trailer, with
#    accept_trailers on: the forge must confirm write access (the outbox cannot)
up "$selfok" selfok pr11 slow.json.gz 11
"$tg" daemon --config trailers.yaml --once >>out.log 2>>daemon.log
tg_eq "self-approving trailer (accept_trailers on, write access unconfirmed): still blocked" failure "$(status_of "$selfok")"
c11=$(find outbox -path '*pr-11*' -name 'comment-*.md' | head -1)
tg_check "self-approving trailer: the comment says it was ignored" grep -q "Ignored: a Tracegate-Accept trailer of tester .*does not confirm write access" "$c11"

# 10. without a key: said at start
"$tg" daemon --config nokey.yaml --once >/dev/null 2>nokey.log
tg_check "no signing key: the daemon warns that anyone can forge baselines" grep -q "no storage.signing_key: every run is trusted, so anyone who can upload to .* can forge baselines" nokey.log

tg_check "no crash or sanitizer report in the logs" sh -c "! grep -Eq 'runtime error|AddressSanitizer|LeakSanitizer' daemon.log"
tg_done it_trust
