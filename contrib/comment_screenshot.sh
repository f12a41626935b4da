#!/bin/sh
# comment_screenshot.sh - draws a pull-request comment the way a forge shows
# it: Markdown rendered by cmark-gfm with GitHub's extensions (tables,
# autolinks, strikethrough, the tag filter), raw HTML kept (GitHub keeps
# <details>, <span title>, <code>, <pre>), each ```mermaid block drawn as
# GitHub and GitLab draw it (by Mermaid: mmdc), in a page styled like
# GitHub's, screenshotted by headless Chromium.
#   contrib/comment_screenshot.sh COMMENT.md OUT.png [WIDTHxHEIGHT]
# Needs cmark-gfm and chromium (contrib/install-deps.sh --html). The
# Mermaid charts need mmdc (@mermaid-js/mermaid-cli: $MMDC, else mmdc on the
# PATH, else ~/.cache/tracegate/mermaid, where contrib/install-deps.sh
# --mermaid puts it); without it the charts stay code, and this says so on
# stderr (the picture is made all the same).
set -eu
md=$1
png=$2
size=${3:-1100x2200}
command -v cmark-gfm >/dev/null 2>&1 || { echo "comment_screenshot.sh: cmark-gfm is not installed (contrib/install-deps.sh --html)" >&2; exit 2; }
browser=""
for b in chromium chromium-browser; do
	command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
done
[ -n "$browser" ] || { echo "comment_screenshot.sh: chromium is not installed (contrib/install-deps.sh --html)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# mmdc: $MMDC ("none": do without), the PATH, or install-deps.sh --mermaid's
mmdc=${MMDC:-}
[ -n "$mmdc" ] || mmdc=$(command -v mmdc 2>/dev/null || true)
cached=${TG_MERMAID_DIR:-${HOME:-/nonexistent}/.cache/tracegate/mermaid}/node_modules/.bin/mmdc
[ -n "$mmdc" ] || { [ -x "$cached" ] && mmdc=$cached; } || true
[ "$mmdc" != none ] || mmdc=""

# each ```mermaid block drawn into chartN.svg and replaced by the picture;
# a block mmdc cannot draw stays code, with a line on stderr
nblocks=$(grep -c '^```mermaid$' "$md" || true)
cp "$md" "$tmp/comment.md"
if [ "$nblocks" -gt 0 ] && [ -z "$mmdc" ]; then
	echo "comment_screenshot.sh: $nblocks Mermaid chart(s) shown as code: mmdc is not installed" \
		"(contrib/install-deps.sh --mermaid installs it, or set MMDC)" >&2
elif [ "$nblocks" -gt 0 ]; then
	awk -v dir="$tmp" '/^```mermaid$/ { n++; f = sprintf("%s/chart%d.mmd", dir, n); inb = 1; next }
	     /^```$/ && inb { inb = 0; close(f); next }
	     inb { print > f }' "$md"
	printf '{"executablePath": "%s", "args": ["--no-sandbox", "--disable-gpu"]}\n' "$(command -v "$browser")" \
		> "$tmp/puppeteer.json"
	i=0
	while [ "$i" -lt "$nblocks" ]; do
		i=$((i + 1))
		if "$mmdc" -p "$tmp/puppeteer.json" -q -i "$tmp/chart$i.mmd" -o "$tmp/chart$i.svg" \
			>"$tmp/mmdc$i.log" 2>&1 && [ -s "$tmp/chart$i.svg" ]; then
			: >"$tmp/drawn$i"
		else
			echo "comment_screenshot.sh: Mermaid chart $i shown as code: mmdc failed: $(tail -1 "$tmp/mmdc$i.log")" >&2
		fi
	done
	awk -v dir="$tmp" '/^```mermaid$/ { n++; inb = 1; drawn = (system("test -e " dir "/drawn" n) == 0)
	                                     if (drawn) { printf "<img src=\"chart%d.svg\" alt=\"Mermaid chart %d\">\n", n, n; next } }
	     inb && /^```$/ { inb = 0; if (drawn) next }
	     !(inb && drawn) { print }' "$md" >"$tmp/comment.md"
fi
{
	cat <<'HEAD'
<!doctype html><html><head><meta charset="utf-8"><style>
body{font-family:-apple-system,"Segoe UI","DejaVu Sans",Helvetica,Arial,sans-serif;font-size:14px;line-height:1.5;color:#1f2328;margin:16px 24px;max-width:1040px}
table{border-collapse:collapse;display:block;overflow:auto;margin:8px 0}
th,td{border:1px solid #d1d9e0;padding:4px 10px}th{background:#f6f8fa}
code{background:#eff1f3;border-radius:4px;padding:1px 4px;font-size:85%;font-family:"DejaVu Sans Mono",monospace}
pre{background:#f6f8fa;padding:12px;overflow:auto;font-size:12px;font-family:"DejaVu Sans Mono",monospace}
h3,h4{margin:18px 0 6px}details{margin:6px 0}summary{cursor:pointer;color:#0969da}img{max-width:100%}
</style></head><body>
HEAD
	cmark-gfm --unsafe -e table -e autolink -e strikethrough -e tagfilter "$tmp/comment.md"
	echo "</body></html>"
} >"$tmp/comment.html"
w=${size%x*}
h=${size#*x}
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$tmp/profile" --window-size="$w,$h" --screenshot="$png" \
	"file://$tmp/comment.html" >"$tmp/chromium.log" 2>&1 || { tail -3 "$tmp/chromium.log" >&2; exit 1; }
[ -s "$png" ] || { echo "comment_screenshot.sh: no picture" >&2; exit 1; }
