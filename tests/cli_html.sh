#!/bin/sh
# cli_html.sh - `tracegate report --format html`: the page on stdout and
# in -o FILE, its charts (the GPU timeline per stream among them), several
# traces in one page, and the page as headless
# Chromium draws it (a screenshot that is a real picture with the charts'
# colours in it). Chromium comes from contrib/install-deps.sh --html.
# Usage: sh tests/cli_html.sh TRACEGATE (from the repository root)
set -u
TG=$1
SAMPLE=tests/fixtures/sample.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
count() { grep -o "$1" "$2" | wc -l | tr -d ' '; } # occurrences of a pattern in a file

# ------------------------------------------------------------ the page
mkdir -p "$tmp/out"
"$TG" report "$SAMPLE" --format html -o "$tmp/out/report.html" >"$tmp/stdout" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && [ ! -s "$tmp/stdout" ]; then
	ok "report --format html -o FILE exits 0, quietly"
else
	not_ok "report --format html -o FILE" "exit $rc: $(head -c 300 "$tmp/err")"
fi
page=$tmp/out/report.html
if [ -s "$page" ]; then ok "report.html written"; else not_ok "report.html written" "missing"; fi
if [ "$(head -c 15 "$page" 2>/dev/null)" = "<!DOCTYPE html>" ] && tail -1 "$page" | grep -q '^</html>$'; then
	ok "a whole HTML5 document"
else
	not_ok "a whole HTML5 document" "$(head -c 100 "$page" 2>/dev/null)"
fi
n=$(count '<svg' "$page")
[ "$n" -eq 4 ] && ok "four charts" || not_ok "four charts" "$n <svg"
# the GPU timeline per stream (issue 23): the sample's two streams, busy
# 245 of 775 us (31.6 %) and 75 (9.7 %), their bins drawn as rects
grep -q '<svg class="chart" role="img" aria-label="GPU timeline per stream"' "$page" \
	&& grep -q '<g><title>GPU 0, stream 7: busy 31.6 % of 0.775 ms, 7 events</title>' "$page" \
	&& grep -q '<g><title>GPU 0, stream 8: busy 9.7 % of 0.775 ms, 2 events</title>' "$page" \
	&& [ "$(grep -o 'fill-opacity="[0-9.]*"' "$page" | wc -l)" -gt 10 ] \
	&& ok "the GPU timeline per stream: two rows, busy 31.6 % and 9.7 %" \
	|| not_ok "the GPU timeline per stream" "$(grep -o '<g><title>GPU [^<]*' "$page")"
if grep -q 'https\?://' "$page"; then not_ok "self-contained" "$(grep -o '.\{30\}https\?://.\{30\}' "$page" | head -1)"; else ok "self-contained"; fi
grep -q '<td class="s">busy_time</td><td class="n">0.265</td>' "$page" && ok "busy 0.265 ms" || not_ok "busy 0.265 ms" "not in the page"
for t in gpu_timeline ops_summary_by_category ops_summary kernel_summary short_kernel_histogram; do
	grep -q "<code>$t</code>" "$page" && ok "table $t" || not_ok "table $t" "not in the page"
done

"$TG" report "$SAMPLE" --format html >"$tmp/stdout.html" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ] && cmp -s "$tmp/stdout.html" "$page"; then
	ok "stdout gives the same page"
else
	not_ok "stdout gives the same page" "exit $rc: $(head -c 300 "$tmp/err")"
fi
mkdir -p "$tmp/two"
"$TG" report "$SAMPLE" tests/fixtures/tiny.json --format html -o "$tmp/two/report.html" >/dev/null 2>"$tmp/err"
rc=$?
two=$tmp/two/report.html
if [ "$rc" -eq 0 ] && [ "$(count '<svg' "$two")" -eq 8 ] && grep -q '<h2>Across ranks</h2>' "$two" &&
	grep -q '<h2>tests/fixtures/tiny.json</h2>' "$two" && [ "$(find "$tmp/two" -type f | wc -l)" -eq 1 ]; then
	ok "two traces and the across-ranks tables in one page"
else
	not_ok "two traces in one page" "exit $rc: $(head -c 300 "$tmp/err")"
fi
# the page gets the mode any new file gets (0666 less the umask), not
# mkstemp's 0600: with umask 022 the team reads it, with 077 nobody else
for m in 022:644 077:600 002:664; do
	mask=${m%%:*} want=${m#*:}
	(umask "$mask" && "$TG" report "$SAMPLE" --format html -o "$tmp/mode$mask.html" >/dev/null 2>"$tmp/err")
	got=$(stat -c %a "$tmp/mode$mask.html" 2>/dev/null)
	[ "$got" = "$want" ] && ok "report.html under umask $mask is $want" ||
		not_ok "report.html under umask $mask" "mode ${got:-missing}, not $want: $(head -c 200 "$tmp/err")"
done
"$TG" report --help | grep -q 'text|md|csv|json|html' && ok "help names html" || not_ok "help names html" "no"

# ------------------------------------------------------------ the picture
if [ ! -s "$page" ]; then
	not_ok "chromium screenshot" "no page to draw"
	exit 1
fi
browser=""
find_browser() {
	for b in chromium chromium-browser; do
		if command -v "$b" >/dev/null 2>&1; then browser=$b; return; fi
	done
}
find_browser
if [ -z "$browser" ]; then
	contrib/install-deps.sh --html >&2
	find_browser
fi
if [ -z "$browser" ]; then
	not_ok "chromium" "not installed, and contrib/install-deps.sh --html could not install it"
	exit 1
fi
shot=$tmp/report.png
abs=$(cd "$tmp/out" && pwd)/report.html
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$tmp/profile" --window-size=1280,2000 --screenshot="$shot" \
	"file://$abs" >"$tmp/chromium.log" 2>&1
rc=$?
size=$(wc -c <"$shot" 2>/dev/null || echo 0)
if [ "$rc" -eq 0 ] && [ "$size" -gt 10240 ]; then
	ok "chromium screenshot ($size bytes)"
else
	not_ok "chromium screenshot" "exit $rc, $size bytes: $(tail -3 "$tmp/chromium.log")"
fi
# the PNG signature, then the IHDR chunk: width and height, big-endian
set -- $(od -An -tu1 -N24 "$shot" 2>/dev/null)
if [ $# -eq 24 ] && [ "$2-$3-$4" = "80-78-71" ] && [ "${13}-${14}-${15}-${16}" = "73-72-68-82" ]; then
	width=$(( ${17} * 16777216 + ${18} * 65536 + ${19} * 256 + ${20} ))
	height=$(( ${21} * 16777216 + ${22} * 65536 + ${23} * 256 + ${24} ))
	[ "$width" -eq 1280 ] && [ "$height" -eq 2000 ] && ok "PNG of 1280x2000" || not_ok "PNG size" "${width}x$height"
else
	not_ok "PNG header" "not a PNG"
fi
# not blank: the charts' colours are drawn (Python's zlib decodes the PNG)
if command -v python3 >/dev/null 2>&1; then
	python3 - "$shot" >"$tmp/py.log" 2>&1 <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
pos, idat = 8, []
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat.append(body)
    pos += 12 + n
if depth != 8 or ctype not in (2, 6):
    sys.exit('unexpected PNG type %d/%d' % (depth, ctype))
bpp = 3 if ctype == 2 else 4
stride = w * bpp
raw = zlib.decompress(b''.join(idat))
prev, colours = bytearray(stride), set()
for y in range(min(h, 1200)):  # the charts are at the top
    f = raw[y * (stride + 1)]
    row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 1:
        for i in range(bpp, stride):
            row[i] = (row[i] + row[i - bpp]) & 255
    elif f == 2:
        row = bytearray((a + b) & 255 for a, b in zip(row, prev))
    elif f == 3:
        for i in range(stride):
            row[i] = (row[i] + ((row[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
    elif f == 4:
        for i in range(stride):
            a, b = (row[i - bpp] if i >= bpp else 0), prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        colours.add(bytes(row[x:x + 3]))
    prev = row
want = {'0072b2': 'the blue of computation and op categories', '009e73': 'the green of the top kernels',
        'e69f00': 'the orange of exposed memcpy'}
missing = [v for k, v in want.items() if bytes.fromhex(k) not in colours]
if len(colours) < 16 or missing:
    sys.exit('%d colours; missing %s' % (len(colours), ', '.join(missing) or 'nothing'))
print('%d colours' % len(colours))
EOF
	if [ $? -eq 0 ]; then ok "screenshot shows the charts ($(cat "$tmp/py.log"))"; else not_ok "screenshot shows the charts" "$(tail -1 "$tmp/py.log")"; fi
else
	skip "screenshot shows the charts" "no python3"
fi
if [ -n "${TG_HTML_SHOT:-}" ]; then
	cp "$shot" "$TG_HTML_SHOT" && echo "# screenshot kept at $TG_HTML_SHOT"
fi

tap_exit
