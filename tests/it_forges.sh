#!/usr/bin/env bash
# it_forges.sh - the forge clients and the HTTP client against real HTTP
# servers: per forge a stateful fake behind `prism proxy --errors` with the
# forge's published OpenAPI description (tests/servers/forges.sh). Runs the
# live parts of build/tests/test_forge and test_http, then checks the fakes'
# state (one comment per marker, the state words), that prism found no
# request or answer breaking the descriptions, and that the token is in no
# log; then `tracegate daemon --check`'s forge probe against each fake: the
# token's login, push permission, and a wrong token and a read-only one
# failing by name. Usage: sh tests/it_forges.sh TRACEGATE (tests/run.sh does that;
# TG_BUILD names the build folder). GitLab, Gitea and Forgejo need
# $TG_SHARED/specs (default ../shared); without it they are skipped, saying so.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
tg=${1:-build/tracegate}
tg=$(cd "$(dirname "$tg")" && pwd)/$(basename "$tg")
cd "$(dirname "$0")/.." || exit 2
BUILD=${TG_BUILD:-build}
export TG_SHARED=${TG_SHARED:-../shared}
. tests/servers/lib.sh
. tests/servers/forges.sh

t0=$SECONDS
for b in test_forge test_http; do
	[ -x "$BUILD/tests/$b" ] || { echo "it_forges: $BUILD/tests/$b is missing (make $BUILD/tests/$b)" >&2; exit 2; }
done
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	tg_skip_all "it_forges: node and npm are not installed (contrib/install-deps.sh --servers)"
fi
TG_RUN=$(mktemp -d "${TMPDIR:-/tmp}/tg-it-forges.XXXXXX")
export TG_RUN
trap 'tg_stop_all; [ -n "${TG_KEEP:-}" ] && echo "# kept $TG_RUN" || rm -rf "$TG_RUN"' EXIT
if ! tg_forges_install; then
	tg_skip_all "it_forges: cannot install $TG_FORGES_PKGS into $TG_CACHE (offline?)"
fi
tg_forges_specs || { echo "it_forges: cannot generate the OpenAPI subsets" >&2; exit 1; }

TOKEN=tg-it-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
MARKER='<!-- tracegate:llama-8b-train -->'
SHA=0123456789abcdef0123456789abcdef01234567
forges=(GITHUB)
[ -f "$TG_FORGES_SPECS/gitlab.json" ] && forges+=(GITLAB GITEA FORGEJO) ||
	tg_skip "GitLab, Gitea, Forgejo: $TG_SHARED/specs is absent (set TG_SHARED)"

# name kind spec link: GitLab's fake sends no Link (x-next-page only), Forgejo's
# none either (x-total-count only), so that every paging rule meets a server
declare -A KIND=([GITHUB]=github [GITLAB]=gitlab [GITEA]=gitea [FORGEJO]=gitea)
declare -A LINK=([GITHUB]=1 [GITLAB]=0 [GITEA]=1 [FORGEJO]=0)
declare -A API=([GITHUB]="" [GITLAB]=/api/v4 [GITEA]=/api/v1 [FORGEJO]=/api/v1)
for f in "${forges[@]}"; do
	spec=$TG_FORGES_SPECS/$(tr 'A-Z' 'a-z' <<<"$f").json
	tg_forge_start "$f" "${KIND[$f]}" "$spec" "$TOKEN" 40 "${LINK[$f]}" || { echo "it_forges: cannot start $f" >&2; exit 1; }
done
for f in "${forges[@]}"; do
	spec=$TG_FORGES_SPECS/$(tr 'A-Z' 'a-z' <<<"$f").json
	tg_forge_ensure "$f" 90 "${KIND[$f]}" "$spec" "$TOKEN" 40 "${LINK[$f]}" || { echo "it_forges: $f did not start" >&2; exit 1; }
done
# the HTTP client's own fake: no prism, pages of 2, no token check
for try in 1 2 3; do
	hp=$(tg_free_port)
	FAKE_PAGE_MAX=2 tg_start fake-http node tests/servers/fake-forge.js github "$hp" "http://127.0.0.1:$hp" >/dev/null
	tg_wait_port "$hp" 20 "$(cat "$TG_RUN/fake-http.pid")" && break
	tg_log "the HTTP fake did not come up (try $try): $(tail -2 "$TG_RUN/fake-http.log")"
	tg_stop fake-http
	[ "$try" -eq 3 ] && { echo "it_forges: the HTTP fake did not start" >&2; exit 1; }
done
tg_log "servers up in $((SECONDS - t0)) s: ${forges[*]}"

# ------------------------------------------------------------- the clients
export TG_IT_TOKEN=$TOKEN TG_TEST_HTTP_URL=http://127.0.0.1:$hp
for f in "${forges[@]}"; do
	fp=TG_FORGE_FAKE_$f
	pp=TG_FORGE_PROXY_$f
	export "TG_IT_${f}_URL=http://127.0.0.1:${!pp}${API[$f]}" "TG_IT_${f}_FAKE=http://127.0.0.1:${!fp}"
done
"$BUILD/tests/test_forge" >"$TG_RUN/test_forge.out" 2>&1
rc=$?
for f in "${forges[@]}"; do
	lc=$(tr 'A-Z' 'a-z' <<<"$f")
	if grep -q "^\[       OK \] test_live_$lc\$" "$TG_RUN/test_forge.out"; then tg_ok "$f: test_forge live run"
	else tg_not_ok "$f: test_forge live run" "$(grep -A3 "RUN.*test_live_$lc" "$TG_RUN/test_forge.out" | head -c 1500)"; fi
done
tg_eq "test_forge exit status (all 25 tests)" 0 "$rc"
"$BUILD/tests/test_http" >"$TG_RUN/test_http.out" 2>&1
rc=$?
tg_eq "test_http exit status" 0 "$rc"
tg_eq "test_http live tests ran (none skipped)" 0 "$(grep -c 'SKIPPED \]' "$TG_RUN/test_http.out")"
[ "$rc" -eq 0 ] || sed -n '/FAILED\|ERROR/,+3p' "$TG_RUN/test_http.out" | head -20 | sed 's/^/#   /'

# -------------------------------------------------------- the fakes' state
# Prints one line of facts per question about the state JSON on stdin.
facts() { # MARKER KIND
	node -e '
const [marker, kind] = process.argv.slice(1);
let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
  const st = JSON.parse(s);
  const has = (b) => (b || "").split(/\r?\n/).some((l) => l.trim() === marker);
  const on = (pr) => st.comments.filter((c) => c.pr === pr);
  const out = [];
  out.push("states " + st.statuses.filter((x) => x.context === "tracegate/it").map((x) => x.state).join(" "));
  for (const pr of [7, 8, 9, 10]) {
    const c = on(pr), m = c.filter((x) => has(x.body));
    out.push(`pr${pr} ${c.length} comments, ${m.length} with the marker: ${JSON.stringify(m.map((x) => x.body.split("\n")[1]))}`);
  }
  const posts = st.requests.filter((r) => r.method === "POST" && /\/9\/(comments|notes)$/.test(r.path));
  out.push("posts-pr9 " + posts.map((r) => r.status).join(" "));
  const codes = st.requests.filter((r) => /statuses/.test(r.path)).map((r) => String(r.status));
  out.push("status answers " + codes.filter((c, i) => !(c === "201" && codes[i - 1] === "201"))
    .map((c) => (c === "201" ? "201*" : c)).join(" "));
  out.push("retry statuses " + st.statuses.filter((x) => x.context === "tracegate/retry").length);
  const runs = st.check_runs.filter((r) => r.name === "tracegate/checks");
  out.push("check runs " + runs.map((r) => `${r.status}/${r.conclusion}`).join(" "));
  out.push("unauthorized " + st.requests.filter((r) => r.status === 401).length);
  console.log(out.join("\n"));
});' "$1" "$2"
}
declare -A PROBE=([github]=/repos/a/b/issues/1/comments [gitlab]=/projects/a%2Fb/merge_requests/1/notes
	[gitea]=/repos/a/b/issues/1/comments)
declare -A AUTH=([github]="Authorization: Bearer " [gitlab]="PRIVATE-TOKEN: " [gitea]="Authorization: token ")
declare -A STATUS=([github]=/repos/a/b/statuses/$SHA [gitlab]=/projects/a%2Fb/statuses/$SHA [gitea]=/repos/a/b/statuses/$SHA)
fact() { grep "^$1 " "$TG_RUN/facts-$f.txt"; }
declare -A WORDS=([GITHUB]="pending success failure error" [GITLAB]="running success failed failed"
	[GITEA]="pending success failure error" [FORGEJO]="pending success failure error")
for f in "${forges[@]}"; do
	fp=TG_FORGE_FAKE_$f
	pp=TG_FORGE_PROXY_$f
	curl -s "http://127.0.0.1:${!fp}/_fake/state" >"$TG_RUN/state-$f.json"
	facts "$MARKER" "${KIND[$f]}" <"$TG_RUN/state-$f.json" >"$TG_RUN/facts-$f.txt" 2>&1
	tg_eq "$f: statuses in the forge's words" "states ${WORDS[$f]}" "$(fact states)"
	tg_eq "$f: one comment, edited in place" 'pr7 1 comments, 1 with the marker: ["## second run"]' "$(fact pr7)"
	tg_eq "$f: one comment among 150 others over 4 pages, edited" \
		'pr8 151 comments, 1 with the marker: ["## on a busy pull request, edited"]' "$(fact pr8)"
	tg_eq "$f: a create answered 502 (but done) is not repeated" 'pr9 1 comments, 1 with the marker: ["## after a 502"]' "$(fact pr9)"
	tg_eq "$f: that create was sent once" "posts-pr9 502" "$(fact posts-pr9)"
	tg_eq "$f: a marker posted first by someone else is not edited; the bot's own is" \
		"pr10 2 comments, 2 with the marker: [\"hijacked\",\"## the bot's own, edited\"]" "$(fact pr10)"
	tg_eq "$f: 500 then success, 429 (Retry-After) then success" "status answers 201* 500 201* 429 201*" "$(fact 'status answers')"
	tg_eq "$f: two retried statuses, each stored once" "retry statuses 2" "$(fact 'retry statuses')"
	tg_eq "$f: every request carried the token" "unauthorized 0" "$(fact unauthorized)"
	probe=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${!fp}${API[$f]}${PROBE[${KIND[$f]}]}")
	tg_eq "$f: ... and the fake refuses a request without it" 401 "$probe"
	[ "$f" = GITHUB ] && tg_eq "$f: one check run, created then completed" "check runs completed/failure" "$(fact 'check runs')"
	errs=$(grep -c '✖' "$TG_RUN/prism-$f.log")
	tg_eq "$f: prism found no request or answer breaking the description" 0 "$errs"
	[ "$errs" -eq 0 ] || grep '✖' "$TG_RUN/prism-$f.log" | head -5 | cut -c1-400 | sed 's/^/#   /'
	tg_check "$f: prism saw the calls" grep -q "POST .*statuses" "$TG_RUN/prism-$f.log"
	# the validator is armed: a state word the forge does not know never reaches the fake
	bogus=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
		-H "${AUTH[${KIND[$f]}]}$TOKEN" -d '{"state":"bogus","context":"x","name":"x"}' \
		"http://127.0.0.1:${!pp}${API[$f]}${STATUS[${KIND[$f]}]}")
	tg_check "$f: prism refuses state \"bogus\" (HTTP $bogus)" test "$bogus" = 422 -o "$bogus" = 400
done

# ---------------------------------------------------- daemon --check's probe
# `tracegate daemon --check` against each fake through prism: the token's
# identity (GET /user) and what it may do on the repository (GitHub, Gitea:
# permissions.push; GitLab: access level); a wrong token and a token without
# push fail by name, with the reason.
git init -q --bare "$TG_RUN/probe.git" && git -C "$TG_RUN/probe.git" symbolic-ref HEAD refs/heads/main
mkdir -p "$TG_RUN/probe-storage"
probe_conf() { # FORGE REPO TOKEN_VARIABLE
	local pp=TG_FORGE_PROXY_$1
	cat <<YAML
storage:
  local: $TG_RUN/probe-storage
database:
  sqlite: $TG_RUN/probe.db
forges:
  - name: $(tr 'A-Z' 'a-z' <<<"$1")
    kind: ${KIND[$1]}
    api_url: http://127.0.0.1:${!pp}${API[$1]}
    token: {env: $3}
repositories:
  - name: $2
    forge: $(tr 'A-Z' 'a-z' <<<"$1")
    clone_url: file://$TG_RUN/probe.git
daemon:
  state_dir: $TG_RUN/probe-state
YAML
}
probe() { # FORGE REPO TOKEN_VARIABLE NAME: exit status, then the forge line
	probe_conf "$1" "$2" "$3" >"$TG_RUN/probe-$4.yaml"
	"$tg" daemon --config "$TG_RUN/probe-$4.yaml" --check >"$TG_RUN/probe-$4.out" 2>"$TG_RUN/probe-$4.err"
	echo "exit $? $(grep "forge " "$TG_RUN/probe-$4.out")"
}
export TG_IT_BAD_TOKEN=tg-it-wrong-token
declare -A LOWPERM=([github]="may not write to the repository (permissions.push is false): it cannot post statuses"
	[gitlab]="access level 20 (statuses need Developer, 30)"
	[gitea]="may not write to the repository (permissions.push is false): it cannot post statuses")
for f in "${forges[@]}"; do
	fp=TG_FORGE_FAKE_$f
	pp=TG_FORGE_PROXY_$f
	lc=$(tr 'A-Z' 'a-z' <<<"$f")
	api=http://127.0.0.1:${!pp}${API[$f]}
	curl -s -X POST -d '{"repo":"acme/readonly","push":false}' "http://127.0.0.1:${!fp}/_fake/seed" >/dev/null
	tg_eq "$f: --check passes against the fake, naming the token's login" \
		"exit 0   ok    forge $lc (acme/llm): ${KIND[$f]} $api: the token of tracegate-bot is accepted and may post statuses" \
		"$(probe "$f" acme/llm TG_IT_TOKEN ok-$lc)"
	tg_eq "$f: --check with a wrong token fails, saying the token was refused" \
		"exit 1   FAIL  forge $lc (acme/llm): GET $api/user: 401: the token was refused (expired, revoked or wrong)" \
		"$(probe "$f" acme/llm TG_IT_BAD_TOKEN bad-$lc)"
	tg_eq "$f: --check with a token that may not push fails, saying so" \
		"exit 1   FAIL  forge $lc (acme/readonly): the token of tracegate-bot on acme/readonly: ${LOWPERM[${KIND[$f]}]}" \
		"$(probe "$f" acme/readonly TG_IT_TOKEN ro-$lc)"
	tg_check "$f: --check's error line names the failed check" \
		grep -qx "tracegate: $TG_RUN/probe-ro-$lc.yaml: 1 connectivity check failed: forge $lc (acme/readonly)" \
		"$TG_RUN/probe-ro-$lc.err"
	# (the bogus status above is the one ✖ expected; the probe's are GETs)
	errs=$(grep '✖' "$TG_RUN/prism-$f.log" | grep -c '\] get ')
	tg_eq "$f: prism found no probe request or answer breaking the description" 0 "$errs"
	[ "$errs" -eq 0 ] || grep '✖' "$TG_RUN/prism-$f.log" | grep '\] get ' | head -5 | cut -c1-400 | sed 's/^/#   /'
	tg_check "$f: prism saw the probe" grep -q "get ${API[$f]}/\(repos/acme/readonly\|projects/acme%2Freadonly\) " "$TG_RUN/prism-$f.log"
done

# ------------------------------------------------------------------ secrets
leaks=$(grep -rlF --include='*.log' --include='*.out' --include='*.txt' -- "$TOKEN" "$TG_RUN" | tr '\n' ' ')
tg_eq "the token is in no log, no test output" "" "$leaks"
tg_log "it_forges took $((SECONDS - t0)) s"
tg_done it_forges
