#!/bin/sh
# it_mermaid.sh - the Mermaid history charts of the pull-request comment
# (daemon/comment.c), parsed and drawn by Mermaid itself: mmdc
# (@mermaid-js/mermaid-cli, which runs mermaid.js in headless Chromium, the
# same library GitHub and GitLab render the comment with) draws each
# ```mermaid block of a comment the daemon posted, and the picture is
# checked: one plotted line per `line` of the block, in the palette's
# colours, with the title and the "this PR" point.
#
# A daemon run as in it_daemon.sh: three main runs (the history), then a
# pull request 8 % slower on attention (blocked: a chart of sdpa-forward,
# and one of each other rule that warns or blocks).
#
# Skipped (exit 77), saying why, without mmdc or Chromium. mmdc is not in
# Debian and its npm install is ~500 MB (contrib/install-deps.sh --mermaid
# installs it into $TG_MERMAID_DIR, default ~/.cache/tracegate/mermaid, with
# the system Chromium instead of Puppeteer's download).
# $1: the tracegate binary; TG_GEN: the generator; TG_MMDC: an mmdc to use.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"
mmdc=${TG_MMDC:-}
[ -n "$mmdc" ] || mmdc=$(command -v mmdc 2>/dev/null || true)
cached=${TG_MERMAID_DIR:-${HOME:-/nonexistent}/.cache/tracegate/mermaid}/node_modules/.bin/mmdc
[ -n "$mmdc" ] || { [ -x "$cached" ] && mmdc=$cached; }
[ -n "$mmdc" ] || tg_skip_all "it_mermaid: no mmdc (@mermaid-js/mermaid-cli) on the PATH, in TG_MMDC or at $cached: contrib/install-deps.sh --mermaid installs it (npm, ~500 MB)"
chromium=${TG_CHROMIUM:-$(command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null || true)}
[ -n "$chromium" ] || tg_skip_all "it_mermaid: no Chromium for mmdc to draw with (contrib/install-deps.sh --html installs it)"
tg_it_run_folder it-mermaid
git init -q src
mains=""
for i in 1 2 3; do
	echo "m$i" >> src/a && git -C src add a && git -C src commit -qm "main $i"
	mains="$mains $(git -C src rev-parse HEAD)"
done
git -C src checkout -qb slow
echo s >> src/a && git -C src commit -qam "attention: slower"
slow=$(git -C src rev-parse HEAD)
git -C src checkout -q main
git clone -q --bare src repo.git

G="--steps 8 --seq 4096 --layers 2 --noise 1"
for i in 1 2 3; do "$gen" $G --seed "$i" -o "base$i.json.gz"; done
"$gen" $G --seed 9 --sdpa-scale 1.08 -o slow.json.gz
mkdir -p storage
cat > tracegate.yaml <<EOF
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
  - name: acme/llm
    forge: outbox
    clone_url: file://$TG_RUN/repo.git
daemon:
  state_dir: state
  lease: 2s
EOF
up() { tg_it_up "$@"; }
once() { tg_it_once; }
i=0
for sha in $mains; do i=$((i + 1)); up "$sha" main "m$i" "base$i.json.gz"; once; done
up "$slow" slow pr1 slow.json.gz 7
once
c=$(find outbox -name 'comment-*.md' | head -1)
tg_check "the pull request got a comment" test -n "$c"
[ -n "$c" ] || { tg_done it_mermaid; exit 1; }

# each ```mermaid block into its own file
awk '/^```mermaid$/ { n++; f = sprintf("chart%d.mmd", n); inb = 1; next }
     /^```$/ && inb { inb = 0; close(f); next }
     inb { print > f }' "$c"
n=$(ls chart*.mmd 2>/dev/null | wc -l | tr -d ' ')
tg_check "the comment has Mermaid charts ($n: one per failing rule; sdpa-forward blocks)" \
	sh -c "[ '$n' -ge 1 ] && grep -q '^    title \"sdpa-forward: ' chart*.mmd"

printf '{"executablePath": "%s", "args": ["--no-sandbox", "--disable-gpu"]}\n' "$chromium" > puppeteer.json
draw() { "$mmdc" -p puppeteer.json -q -i "$1" -o "$2" > "$2.log" 2>&1; }
for m in chart*.mmd; do
	svg=${m%.mmd}.svg
	if draw "$m" "$svg" && [ -s "$svg" ]; then
		tg_ok "$m: Mermaid parses and draws it"
	else
		tg_not_ok "$m: Mermaid parses and draws it" "$(head -5 "$svg.log")" "$(cat "$m")"
		continue
	fi
	lines=$(grep -c '^    line \[' "$m")
	tg_eq "$m: one plotted line per line statement (series, threshold, noise band)" \
		"$lines" "$(grep -o 'class="line-plot-[0-9]*"' "$svg" | sort -u | wc -l | tr -d ' ')"
	tg_eq "$m: four lines (the runs, the threshold, the band's two edges)" 4 "$lines"
	tg_check "$m: the runs drawn in the palette's blue, the threshold in red" \
		sh -c "grep -q 'stroke=\"#0550ae\"' '$svg' && grep -q 'stroke=\"#cf222e\"' '$svg'"
	rule=$(sed -n 's/^    title "\([^:]*\):.*/\1/p' "$m")
	tg_check "$m: the title ($rule) and the pull request's point are drawn" \
		sh -c "[ -n '$rule' ] && grep -q '>$rule: ' '$svg' && grep -q '>this PR<' '$svg'"
	tg_eq "$m: one x label per main run and the pull request" 4 \
		"$(sed -n 's/^    x-axis \[\(.*\)\]$/\1/p' "$m" | tr ',' '\n' | wc -l | tr -d ' ')"
done
# the check is not vacuous: Mermaid refuses a broken chart
sed 's/^    x-axis \[\(.*\)\]$/    x-axis [\1/' chart1.mmd > broken.mmd
if draw broken.mmd broken.svg; then
	tg_not_ok "a broken chart (an x-axis without its ']') is refused by Mermaid"
else
	tg_check "a broken chart (an x-axis without its ']') is refused by Mermaid" grep -q "Parse error" broken.svg.log
fi
tg_done it_mermaid
