#!/bin/sh
# cli_comment_screenshot.sh - contrib/comment_screenshot.sh draws the
# comment's ```mermaid blocks as pictures (issue 23: they were shown as
# code): with mmdc each block becomes its SVG in the page; a block mmdc
# cannot draw stays code with a line saying so; without mmdc the picture is
# made all the same and a line says the charts are code and how to get
# mmdc. A stand-in mmdc (a script writing a magenta square) checks the
# wiring anywhere; the real one (MMDC, the PATH or
# ~/.cache/tracegate/mermaid), when installed, checks that Mermaid's chart
# is what shows (its palette's blue in the picture; without it a comment
# line says so, it_mermaid.sh being Mermaid's own test). Skipped, saying
# so, without cmark-gfm, Chromium or python3.
# Usage: sh tests/cli_comment_screenshot.sh TRACEGATE (unused)
set -u
. "$(dirname "$0")/tap.sh"
shot=$(cd "$(dirname "$0")/.." && pwd)/contrib/comment_screenshot.sh
if ! command -v cmark-gfm >/dev/null 2>&1 || ! { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; } ||
	! command -v python3 >/dev/null 2>&1; then
	skip "comment_screenshot.sh" "cmark-gfm, chromium or python3 is missing (contrib/install-deps.sh --html)"
	tap_exit
fi
tap_tmp
cat >"$tmp/c.md" <<'EOF'
### tracegate: sdpa-forward is 8.0 % slower

```mermaid
%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "#0550ae, #cf222e, #6e7781, #6e7781"}}}}%%
xychart-beta
    title "sdpa-forward: kernel_time (ms per step)"
    x-axis [m1, m2, m3, "this PR"]
    y-axis "ms" 1.0 --> 1.4
    line [1.10, 1.12, 1.11, 1.20]
    line [1.16, 1.16, 1.16, 1.16]
    line [1.08, 1.08, 1.08, 1.08]
    line [1.14, 1.14, 1.14, 1.14]
```

| rule | change |
| --- | --- |
| sdpa-forward | +8.0 % |
EOF
# pixels PNG RGB [TOLERANCE]: how many pixels of the picture have that
# colour (each channel within TOLERANCE, default 0)
pixels() {
	python3 - "$1" "$2" "${3:-0}" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
want = bytes(int(sys.argv[2][i:i + 2], 16) for i in (0, 2, 4))
tol = int(sys.argv[3])
near = lambda px: all(abs(px[k] - want[k]) <= tol for k in range(3))
pos, idat = 8, []
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat.append(body)
    pos += 12 + n
bpp = 3 if ctype == 2 else 4
stride = w * bpp
raw = zlib.decompress(b''.join(idat))
prev, count = bytearray(stride), 0
for y in range(h):
    f = raw[y * (stride + 1)]
    row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: row[i] = (row[i] + a) & 255
        elif f == 2: row[i] = (row[i] + b) & 255
        elif f == 3: row[i] = (row[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    count += sum(1 for x in range(0, stride, bpp) if near(row[x:x + 3]))
    prev = row
print(count)
PY
}

# without mmdc: the picture all the same, one line saying the chart is code
MMDC=none sh "$shot" "$tmp/c.md" "$tmp/none.png" 1000x700 2>"$tmp/none.err"
rc=$?
check "without mmdc: exit 0, a picture" "exit $rc: $(cat "$tmp/none.err")" sh -c "[ $rc -eq 0 ] && [ -s '$tmp/none.png' ]"
check "without mmdc: one line saying the chart is code and how to get mmdc" "$(cat "$tmp/none.err")" \
	[ "$(cat "$tmp/none.err")" = "comment_screenshot.sh: 1 Mermaid chart(s) shown as code: mmdc is not installed (contrib/install-deps.sh --mermaid installs it, or set MMDC)" ]

# a stand-in mmdc: -i IN -o OUT, writes a magenta square as the chart
cat >"$tmp/mmdc" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do case "$1" in -i) in=$2; shift 2 ;; -o) out=$2; shift 2 ;; *) shift ;; esac; done
grep -q '^xychart-beta$' "$in" || { echo "Parse error" >&2; exit 1; }
printf '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><rect width="300" height="200" fill="#ff00ff"/></svg>\n' > "$out"
EOF
chmod +x "$tmp/mmdc"
MMDC=$tmp/mmdc sh "$shot" "$tmp/c.md" "$tmp/drawn.png" 1000x700 2>"$tmp/drawn.err"
rc=$?
n=$(pixels "$tmp/drawn.png" ff00ff)
check "with mmdc: the chart is drawn in the page ($n magenta pixels), quietly" "exit $rc: $(cat "$tmp/drawn.err")" \
	sh -c "[ $rc -eq 0 ] && [ '$n' -gt 40000 ] && [ ! -s '$tmp/drawn.err' ]"
check "without mmdc: no such picture in the page" "$(pixels "$tmp/none.png" ff00ff) magenta pixels" \
	[ "$(pixels "$tmp/none.png" ff00ff)" -eq 0 ]
sed 's/^xychart-beta$/xychart-bogus/' "$tmp/c.md" >"$tmp/bad.md"
MMDC=$tmp/mmdc sh "$shot" "$tmp/bad.md" "$tmp/bad.png" 1000x700 2>"$tmp/bad.err"
rc=$?
check "a chart mmdc cannot draw stays code, saying why" "exit $rc: $(cat "$tmp/bad.err")" \
	sh -c "[ $rc -eq 0 ] && [ -s '$tmp/bad.png' ] && grep -qx 'comment_screenshot.sh: Mermaid chart 1 shown as code: mmdc failed: Parse error' '$tmp/bad.err'"

# the real Mermaid, when it is installed (the chart as the daemon writes it,
# daemon/comment.c: the runs' line in the palette's blue)
real=$(command -v mmdc 2>/dev/null || true)
cached=${TG_MERMAID_DIR:-${HOME:-/nonexistent}/.cache/tracegate/mermaid}/node_modules/.bin/mmdc
[ -n "$real" ] || { [ -x "$cached" ] && real=$cached; } || true
if [ -n "$real" ]; then
	MMDC=$real sh "$shot" "$tmp/c.md" "$tmp/real.png" 1000x700 2>"$tmp/real.err"
	rc=$?
	n=$(pixels "$tmp/real.png" 0550ae 40)
	check "Mermaid draws the chart: its lines in the palette's blue ($n pixels), quietly" \
		"exit $rc: $(cat "$tmp/real.err")" sh -c "[ $rc -eq 0 ] && [ '$n' -gt 100 ] && [ ! -s '$tmp/real.err' ]"
else
	# (not a skip: the wiring is checked above, Mermaid itself by it_mermaid.sh)
	echo "# no mmdc here: the real Mermaid drawing is not tried (contrib/install-deps.sh --mermaid)"
fi
tap_exit
