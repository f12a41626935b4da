#!/bin/sh
# demo.sh - `make demo`: the daemon's whole loop on the embedded default.
#
# In a fresh folder (build/demo): a git repository with a main branch and a
# pull-request branch; traces for both written by the project's generator
# (tests/gen: a transformer training step; the pull request's attention
# kernels 8 % slower); uploaded to a local storage folder with the CI upload
# script; then `tracegate daemon --once` with SQLite and the outbox forge
# (which writes each status and comment as a file and prints the comment).
# The first pass records main's run (no baseline yet); the second judges the
# pull request against it and blocks.
set -eu
tg=$(cd "$(dirname "${1:-./tracegate}")" && pwd)/$(basename "${1:-./tracegate}")
gen=$(cd "$(dirname "${2:-build/tg-gen}")" && pwd)/$(basename "${2:-build/tg-gen}")
upload=$(pwd)/contrib/ci/tracegate-upload.sh
demo=$(pwd)/build/demo
rm -rf "$demo"
mkdir -p "$demo/storage" "$demo/src"
cd "$demo"

# bold headings on a terminal only: a log or a pipe gets plain text
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
	say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
	say() { printf '\n== %s\n' "$*"; }
fi

say "a repository: main, and a pull-request branch with one more commit"
git() { command git -c user.name=demo -c user.email=demo@tracegate.invalid -c init.defaultBranch=main "$@"; }
git init -q src
echo "model = 'llama'" > src/train.py
git -C src add train.py
git -C src commit -qm "train: the baseline"
base_sha=$(git -C src rev-parse HEAD)
git -C src checkout -qb faster-attention
echo "attention = 'new kernel'" >> src/train.py
git -C src commit -qam "attention: a new kernel (slower, as it turns out)"
pr_sha=$(git -C src rev-parse HEAD)
git -C src checkout -q main
git clone -q --bare src repo.git
echo "main $base_sha, pull request #1 $pr_sha"

say "profile both (tg-gen: 8 training steps, 1 % noise; the pull request's attention x1.08)"
"$gen" --train --steps 8 --seq 4096 --noise 1 --seed 1 -o main.pt.trace.json.gz
"$gen" --train --steps 8 --seq 4096 --noise 1 --seed 2 --sdpa-scale 1.08 -o pr.pt.trace.json.gz
ls -l main.pt.trace.json.gz pr.pt.trace.json.gz | awk '{print "  " $NF ": " $5 " bytes"}'

cat > tracegate.yaml <<EOF
# the embedded default: local storage, SQLite, the outbox forge
storage:
  local: storage
  poll_interval: 1s
database:
  sqlite: tracegate.db
forges:
  - name: outbox
    kind: outbox
    outbox: outbox
repositories:
  - name: demo/llm
    forge: outbox
    clone_url: file://$demo/repo.git
    target_branches: [main]
daemon:
  state_dir: state
EOF
"$tg" daemon --config tracegate.yaml --check

say "CI on main uploads its trace (traces first, manifest last)"
mkdir -p up-main && cp main.pt.trace.json.gz up-main/rank0.pt.trace.json.gz
"$upload" --dest storage --repo demo/llm --commit "$base_sha" --branch main \
	--workload llama-train --run-id ci-1 up-main/rank0.pt.trace.json.gz

say "tracegate daemon --once: main's run has no baseline yet; its numbers go to the history"
"$tg" daemon --config tracegate.yaml --once 2>daemon-1.log || { cat daemon-1.log; exit 1; }
sed 's/^/  /' daemon-1.log

say "CI on the pull request uploads its trace"
mkdir -p up-pr && cp pr.pt.trace.json.gz up-pr/rank0.pt.trace.json.gz
"$upload" --dest storage --repo demo/llm --commit "$pr_sha" --branch faster-attention \
	--pr 1 --target-branch main --workload llama-train --run-id ci-2 up-pr/rank0.pt.trace.json.gz

say "tracegate daemon --once: the pull request against main"
"$tg" daemon --config tracegate.yaml --once >comment-echo.md 2>daemon-2.log || { cat daemon-2.log; exit 1; }
sed 's/^/  /' daemon-2.log

say "the pull-request comment the outbox forge received (up to its <details> tables)"
comment=$(find outbox -name 'comment-*.md' | head -1)
sed '/^<details>/,$d' "$comment"
echo "  ... (the full comment, with every table in <details>: $demo/$comment)"

say "the commit statuses the forge received (outbox/statuses.log)"
sed -E 's/.*"sha": *"(.{12})[^"]*".*"state": *"([a-z]+)".*"description": *"([^"]*)".*/  \1  \2: \3/' outbox/statuses.log

say "tracegate history --config tracegate.yaml --repo demo/llm --branch main --metric 'rule:*'"
"$tg" history --config tracegate.yaml --repo demo/llm --branch main --metric 'rule:*'
"$tg" history --config tracegate.yaml --repo demo/llm --branch main --format html -o history.html
"$tg" report main.pt.trace.json.gz --format html -o report.html >/dev/null

verdict=$(grep -c '"state": *"failure"' outbox/statuses.log || true)
if [ "$verdict" -ge 1 ]; then
	say "verdict: BLOCKED (the pull request's SDPA kernels are 8 % slower)"
else
	say "verdict: not blocked?! see $demo"
	exit 1
fi
echo "Everything is in $demo: storage/, outbox/, tracegate.db, state/."
say "what to try next"
cat <<NEXT
  the pull-request comment:   $demo/$comment
  the perf report of main:    $demo/report.html   (open it in a browser)
  the branch's history page:  $demo/history.html
  compare the two traces:     $tg diff $demo/main.pt.trace.json.gz $demo/pr.pt.trace.json.gz
  one metric's history:       $tg history --config $demo/tracegate.yaml --repo demo/llm --branch main --metric gpu_busy
  run it for real:            README.md, "Deploying it: S3, PostgreSQL and a forge"
NEXT
