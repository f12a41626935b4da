#!/bin/sh
# cli_daemon_check.sh - `tracegate daemon --check` tries what the daemon
# talks to and names what failed: every endpoint dead on 127.0.0.1 (a port
# nothing listens on) fails each check by name, exit 1, in seconds; the
# same files with --offline pass (the files alone are valid); a reachable
# set (local storage, SQLite, an outbox, a file:// git repository) passes.
# Usage: sh tests/cli_daemon_check.sh TRACEGATE (from the repository root)
set -u
TG=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"

# a port nothing listens on: bound, then closed
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null || echo 9)
export TG_CHECK_S3_KEY=AKIAEXAMPLE TG_CHECK_S3_SECRET=secret TG_CHECK_GH=ghp_example TG_CHECK_DB="postgresql://tg@127.0.0.1:$dead/tg?connect_timeout=3"
cat > "$tmp/dead.yaml" <<YAML
storage:
  s3:
    endpoint: "http://127.0.0.1:$dead"
    bucket: traces
    region: us-east-1
    access_key: {env: TG_CHECK_S3_KEY}
    secret_key: {env: TG_CHECK_S3_SECRET}
database:
  postgresql: {env: TG_CHECK_DB}
forges:
  - name: gh
    kind: github
    api_url: "http://127.0.0.1:$dead/api/v3"
    token: {env: TG_CHECK_GH}
repositories:
  - name: acme/llm
    forge: gh
    clone_url: "http://127.0.0.1:$dead/acme/llm.git"
daemon:
  state_dir: $tmp/state
http:
  connect_timeout: 2s
  timeout: 5s
YAML
t0=$(date +%s)
"$TG" daemon --config "$tmp/dead.yaml" --check >"$tmp/out" 2>"$tmp/err"
rc=$?
t1=$(date +%s)
check "dead endpoints: exit 1" "exit $rc: $(cat "$tmp/err")" [ "$rc" -eq 1 ]
check "dead endpoints: within 30 s (no retries)" "$((t1 - t0)) s" [ $((t1 - t0)) -lt 30 ]
for what in "database" "storage" "forge gh (acme/llm)" "git acme/llm"; do
	check "dead endpoints: $what fails, by name" "$(cat "$tmp/out")" grep -q "^  FAIL  $what: " "$tmp/out"
done
check "dead endpoints: the storage line names the endpoint" "$(grep storage "$tmp/out")" \
	grep -q "^  FAIL  storage: .*127.0.0.1:$dead" "$tmp/out"
check "dead endpoints: the forge line names the URL" "$(grep forge "$tmp/out")" \
	grep -q "^  FAIL  forge gh (acme/llm): GET http://127.0.0.1:$dead/api/v3/user: " "$tmp/out"
check "dead endpoints: nothing said ok" "$(cat "$tmp/out")" sh -c "! grep -q '^  ok' '$tmp/out'"
check "dead endpoints: one error line naming the four" "$(cat "$tmp/err")" \
	grep -qx "tracegate: $tmp/dead.yaml: 4 connectivity checks failed: database, storage, forge gh (acme/llm), git acme/llm" "$tmp/err"
check "dead endpoints: no secret in the output" "$(cat "$tmp/out" "$tmp/err")" \
	sh -c "! grep -q 'ghp_example\|AKIAEXAMPLE\|=secret' '$tmp/out' '$tmp/err'"

"$TG" daemon --config "$tmp/dead.yaml" --check --offline >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--check --offline: the files alone pass" "exit $rc: $(cat "$tmp/err")" [ "$rc" -eq 0 ]
check "--check --offline: no connectivity line" "$(cat "$tmp/out")" sh -c "! grep -q 'connectivity' '$tmp/out'"
"$TG" daemon --config "$tmp/dead.yaml" --offline >/dev/null 2>"$tmp/err"
rc=$?
check "--offline without --check: usage error" "exit $rc" [ "$rc" -eq 2 ]

# everything reachable
if command -v git >/dev/null 2>&1; then
	git init -q --bare "$tmp/repo.git" 2>/dev/null
	git -C "$tmp/repo.git" symbolic-ref HEAD refs/heads/main
	mkdir -p "$tmp/storage"
	cat > "$tmp/live.yaml" <<YAML
storage:
  local: $tmp/storage
database:
  sqlite: $tmp/tg.db
forges:
  - name: outbox
    kind: outbox
    outbox: $tmp/outbox
repositories:
  - name: acme/llm
    forge: outbox
    clone_url: file://$tmp/repo.git
daemon:
  state_dir: $tmp/state
YAML
	"$TG" daemon --config "$tmp/live.yaml" --check >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "reachable: exit 0" "exit $rc: $(cat "$tmp/err")" [ "$rc" -eq 0 ]
	check "reachable: four checks ok" "$(cat "$tmp/out")" [ "$(grep -c '^  ok  ' "$tmp/out")" -eq 4 ]
	check "reachable: the summary line" "$(tail -1 "$tmp/out")" \
		grep -q "^$tmp/live.yaml: ok: local storage, sqlite store, 1 forge, 1 repository$" "$tmp/out"
	# a clone_url that does not exist, as a path: "no such repository"
	# (libgit2 alone said "unsupported URL protocol")
	sed "s|clone_url: file://$tmp/repo.git|clone_url: $tmp/nope.git|" "$tmp/live.yaml" > "$tmp/nope.yaml"
	"$TG" daemon --config "$tmp/nope.yaml" --check >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "missing clone_url path: exit 1, 'no such repository'" "exit $rc: $(grep git "$tmp/out")" \
		sh -c "[ $rc -eq 1 ] && grep -qx '  FAIL  git acme/llm: git $tmp/nope.git: no such repository ($tmp/nope.git does not exist)' '$tmp/out'"
	# a rules path that does not exist: the config's line and key, then the file
	sed "s|    forge: outbox|    forge: outbox\n    rules: $tmp/rules/llm.yaml|" "$tmp/live.yaml" > "$tmp/rules.yaml"
	line=$(grep -n -- '- name: acme/llm' "$tmp/rules.yaml" | cut -d: -f1)
	want="tracegate: $tmp/rules.yaml:$line: repositories[0].rules (acme/llm): $tmp/rules/llm.yaml: cannot open: No such file or directory"
	for mode in "--check --offline" "--once"; do
		"$TG" daemon --config "$tmp/rules.yaml" $mode >"$tmp/out" 2>"$tmp/err"
		rc=$?
		check "missing rules file ($mode): exit 2, one line with the config's line and key" \
			"exit $rc: $(cat "$tmp/err")" sh -c "[ $rc -eq 2 ] && [ \"\$(cat '$tmp/err')\" = '$want' ]"
	done
else
	echo "ok - reachable endpoints # SKIP no git"
fi
[ "$fails" -eq 0 ]
