#!/bin/sh
# it_valgrind.sh - valgrind memcheck on the paths users run most, on the
# optimised build (make check SAN=1 covers ASan + UBSan; this catches what
# they do not: uninitialised reads, leaks in the optimised code, bugs that
# hide behind the sanitizers' allocator). Each command must exit with its
# normal code and valgrind must report no error and no definite or
# indirect leak (--error-exitcode=99):
#   report   text, md, csv, json, html of tests/fixtures/sample.json (plain
#            JSON) and of a small generated trace (gzip: the inflate thread)
#   diff     text, md, json of two small generated traces with a regression
#            (attention 8 % slower: exit 1) and a divergence (an extra op)
#   daemon   --once on local storage + SQLite + the outbox + a file:// git
#            repository: a baseline run on main; then a pull request that
#            blocks beside a run with a corrupt trace (error status); then
#            the pull request fixed (the comment edited); history
# Suppressions: tests/valgrind.supp (each with its reason).
# $1: the tracegate binary; TG_GEN: the generator.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	tg_skip_all "it_valgrind: valgrind is not installed (contrib/install-deps.sh --servers)"
fi
if grep -qa __asan_init "$tg"; then
	echo "# it_valgrind: not applicable: $tg is built with AddressSanitizer (make check SAN=1), which valgrind cannot run; the plain make check runs it"
	exit 0
fi
TG_RUN=$(mktemp -d "${TMPDIR:-/tmp}/tg-it-valgrind.XXXXXX")
trap '[ -n "${TG_KEEP:-}" ] && echo "# kept $TG_RUN" || rm -rf "$TG_RUN"' EXIT
cd "$TG_RUN"
t_start=$(date +%s)

n=0
# vg NAME WANT_RC CMD...: CMD under memcheck, its stdout in NAME.out, its
# stderr and valgrind's report in NAME.vg; ok when it exits with WANT_RC
vg() {
	local name=$1 want=$2 rc
	shift 2
	n=$((n + 1))
	valgrind --tool=memcheck --trace-children=yes --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=99 --num-callers=30 --suppressions="$top/tests/valgrind.supp" \
		"$@" >"$name.out" 2>"$name.vg"
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -q 'ERROR SUMMARY: 0 errors' "$name.vg"; then
		tg_ok "valgrind: $name (exit $rc, no error)"
	else
		tg_not_ok "valgrind: $name: exit $rc (want $want)" \
			"$(grep -E '^==[0-9]+== ' "$name.vg" | grep -vE 'Memcheck|Copyright|Using Valgrind|Command:|^==[0-9]+== $' | head -40)"
	fi
}

# --- traces: small (a few hundred kB of JSON), so that memcheck stays fast
G="--steps 8 --seq 4096 --layers 2 --noise 1"
"$gen" --steps 4 --layers 2 --seq 1024 -o small.json.gz
"$gen" $G --seed 1 -o base.json.gz
"$gen" $G --seed 2 --sdpa-scale 1.08 --extra-op aten::gelu -o slow.json.gz
"$gen" $G --seed 3 -o fine.json.gz

# --- report: every format, plain JSON and gzip
for f in text md csv json html; do
	vg "report-sample-$f" 0 "$tg" report "$top/tests/fixtures/sample.json" --format "$f" -o "rep-sample-$f"
	vg "report-gzip-$f" 0 "$tg" report small.json.gz --format "$f" -o "rep-gzip-$f"
done
tg_check "report: the csv tables are there" test -s rep-gzip-csv/gpu_timeline.csv -a -s rep-gzip-csv/SDPA_fwd.csv
tg_check "report: the html page is there" grep -q '</html>' rep-gzip-html
vg report-stdout 0 "$tg" report small.json.gz
tg_check "report to stdout: the GPU timeline" grep -q '^computation_time' report-stdout.out

# --- diff: a regression and a divergence (blocked: exit 1), and a pass
for f in text md json; do
	vg "diff-$f" 1 "$tg" diff base.json.gz slow.json.gz --rules "$top/contrib/rules/default.yaml" --format "$f"
done
tg_check "diff: blocks on sdpa-forward" grep -q 'block: sdpa-forward' diff-text.out
tg_check "diff: finds where the trees diverge" grep -q 'Where the call trees diverge' diff-text.out
vg diff-pass 0 "$tg" diff base.json.gz fine.json.gz --format md -o diff-pass.md
tg_check "diff -o: written" grep -q 'tracegate: pass' diff-pass.md

# --- daemon --once: local storage, SQLite, the outbox, git over file://
git init -q src
echo a > src/a && git -C src add a && git -C src commit -qm base
main1=$(git -C src rev-parse HEAD)
git -C src checkout -qb slow
echo s >> src/a && git -C src commit -qam slower
slow=$(git -C src rev-parse HEAD)
echo f >> src/a && git -C src commit -qam fixed
fixed=$(git -C src rev-parse HEAD)
git -C src checkout -q main
git clone -q --bare src repo.git
mkdir -p storage
cat > tracegate.yaml <<EOF
storage: {local: storage, poll_interval: 1s}
database: {sqlite: tracegate.db}
forges:
  - {name: outbox, kind: outbox, outbox: outbox}
repositories:
  - {name: acme/llm, forge: outbox, clone_url: "file://$TG_RUN/repo.git", on_unjudged: {no_baseline: success}}
daemon: {state_dir: state}
EOF
up() { tg_it_up "$@"; }
status_of() { grep "\"sha\":\"$1\"" outbox/statuses.log 2>/dev/null | grep "\"context\":\"tracegate/${2:-train}\"" |
	tail -1 | sed -E 's/.*"state":"([a-z]+)".*/\1/'; }

up "$main1" main m1 base.json.gz
vg daemon-baseline 0 "$tg" daemon --config tracegate.yaml --once
tg_eq "daemon: the baseline run: success (no baseline, on_unjudged: success)" success "$(status_of "$main1")"
up "$slow" slow pr1 slow.json.gz 5
printf '{"traceEvents": [{"ph": "X", "name": "k", "ts": ' | gzip > bad.json.gz
up "$slow" slow bad1 bad.json.gz 5 infer
vg daemon-pr 0 "$tg" daemon --config tracegate.yaml --once
tg_eq "daemon: the pull request blocks" failure "$(status_of "$slow")"
tg_eq "daemon: the corrupt trace: error status" error "$(status_of "$slow" infer)"
tg_eq "daemon: two comments (train, infer)" 2 "$(find outbox -name 'comment-*.md' | wc -l | tr -d ' ')"
up "$fixed" slow pr2 fine.json.gz 5
vg daemon-fixed 0 "$tg" daemon --config tracegate.yaml --once
tg_eq "daemon: the fixed pull request passes" success "$(status_of "$fixed")"
tg_eq "daemon: still two comments (edited)" 2 "$(find outbox -name 'comment-*.md' | wc -l | tr -d ' ')"
vg history 0 "$tg" history --config tracegate.yaml --repo acme/llm --branch main --format json

tg_log "it_valgrind: $n commands under memcheck in $(($(date +%s) - t_start)) s"
tg_done it_valgrind
