#!/bin/sh
# it_publish.sh - the published history (history.publish): the pages the
# daemon writes after every judged run, drawn by headless Chromium.
#   the demo       contrib/demo.sh (main: four runs, a pull request: two,
#                  blocked) publishes its history; then, from a fresh store,
#                  one `daemon --once` over the same storage writes the
#                  index and one page per branch, world-readable, whole
#                  (no temporary file left), each page the one `tracegate
#                  history --format html --changes` draws (and a link back)
#   the pictures   Chromium draws the index (the verdicts' colours) and
#                  each branch's page (the charts' colours)
#   names          a branch named with '/', UTF-8 and '<' gets a page whose
#                  file name is one safe segment, linked from the index,
#                  escaped in it
#   a fault        a page that cannot be written: the run is judged all the
#                  same, the log says why; the next judged run writes it
#   S3             with S3 storage (s3rver, which checks signatures),
#                  publish: s3://BUCKET/PREFIX puts the same files there
# $1: the tracegate binary; TG_GEN: the generator.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(pwd)/tests/servers/it_common.sh"
. "$top/tests/servers/s3.sh"
tg_it_run_folder it-publish
browser=""
for b in chromium chromium-browser; do command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }; done

# --- the demo, then one pass from a fresh store
(cd "$top" && DEMO_DIR=$TG_RUN/demo sh contrib/demo.sh "$tg" "$gen") >demo.log 2>&1
tg_eq "contrib/demo.sh runs (it publishes)" 0 "$?"
cd demo || exit 1
tg_check "the demo's published index" test -s published/index.html
rm -rf published tracegate.db tracegate.db-wal tracegate.db-shm state outbox
"$tg" daemon --config tracegate.yaml --once >once.out 2>once.log
tg_eq "one daemon --once over the demo's storage" 0 "$?"
tg_eq "the published folder: the index and one page per branch" \
	"published/demo/llm/faster-attention.html published/demo/llm/main.html published/index.html" \
	"$(find published -type f | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
tg_eq "pages 0644, folders 0755" "644 644 644 755 755" \
	"$(stat -c %a published/index.html published/demo/llm/main.html published/demo/llm/faster-attention.html \
		published/demo published/demo/llm | tr '\n' ' ' | sed 's/ $//')"
tg_eq "the log says what was published" 1 \
	"$(grep -c 'history: 0 branch pages and the index published to .*/published' once.log)"
idx=published/index.html
tg_check "the index links each page" grep -q '<a href="demo/llm/main.html"><code>main</code></a>' $idx
tg_check "  ... and the pull request's branch" \
	grep -q '<a href="demo/llm/faster-attention.html"><code>faster-attention</code></a>' $idx
tg_eq "  ... main: 4 runs, pass; the pull request's: 2 runs, block" "4 pass|2 block" \
	"$(sed -nE 's|.*<code>(main\|faster-attention)</code></a></td><td>llama-train</td><td class="n">([0-9]+)</td>.*>([a-z]+)</span>.*|\2 \3|p' $idx |
		sort -r | tr '\n' '|' | sed 's/|$//')"
for b in main faster-attention; do
	page=published/demo/llm/$b.html
	"$tg" history --config tracegate.yaml --repo demo/llm --branch "$b" --format html --changes --limit 200 -o "cli-$b.html" 2>/dev/null
	tg_check "$b: the page is the one tracegate history draws, with a link to the index" \
		sh -c "grep -v '^<p><a href=\"../../index.html\">' $page | cmp -s - cli-$b.html && grep -c '^<p><a href=\"../../index.html\">' $page | grep -qx 1"
	tg_check "$b: charts (svg) on the page" test "$(grep -c '<svg' $page)" -ge 10
done

# --- the pictures
# drawn SHOT FILE: a 1280x1600 screenshot of FILE by headless Chromium
drawn() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$TG_RUN/profile" --window-size=1280,1600 --screenshot="$1" "file://$PWD/$2" >>chromium.log 2>&1
}
# colours PNG HEX...: prints the picture's size, and the hex colours of the
# list it lacks ("1280x1600, missing 0969da"; also when it has fewer than 16
# colours: a blank page)
colours() {
	python3 - "$@" <<'EOF'
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
bpp = 3 if ctype == 2 else 4
stride = w * bpp
raw = zlib.decompress(b''.join(idat))
prev, seen = bytearray(stride), set()
for y in range(h):
    f = raw[y * (stride + 1)]
    row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = row[i - bpp] if i >= bpp else 0
        b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
        if f == 1: row[i] = (row[i] + a) & 255
        elif f == 2: row[i] = (row[i] + b) & 255
        elif f == 3: row[i] = (row[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        seen.add(bytes(row[x:x + 3]).hex())
    prev = row
missing = [c for c in sys.argv[2:] if c not in seen]
print('%dx%d%s' % (w, h, ', missing ' + ' '.join(missing) if missing or len(seen) < 16 else ''))
EOF
}
if [ -n "$browser" ] && command -v python3 >/dev/null 2>&1; then
	drawn "$TG_RUN/index.png" $idx
	# the verdicts: block red, pass green
	tg_eq "Chromium draws the index: the verdicts' colours" 1280x1600 "$(colours "$TG_RUN/index.png" cf222e 1a7f37)"
	for b in main faster-attention; do
		drawn "$TG_RUN/$b.png" "published/demo/llm/$b.html"
		# the runs' blue points; on main, the pull requests' purple marks too
		want=0969da
		[ "$b" = main ] && want="$want 8250df"
		tg_eq "Chromium draws $b's page: the charts' colours" 1280x1600 "$(colours "$TG_RUN/$b.png" $want)"
	done
else
	tg_skip "the pictures: no Chromium or python3 (contrib/install-deps.sh --html)"
fi

# --- names: a branch that is anyone's text
odd_sha=$(git -C src rev-parse main)
odd='fix/é<b>'
mkdir -p up-odd && cp main1.pt.trace.json.gz up-odd/rank0.pt.trace.json.gz
"$upload" --dest storage --repo demo/llm --commit "$odd_sha" --branch "$odd" --workload llama-train --run-id odd-1 \
	up-odd/rank0.pt.trace.json.gz >/dev/null
"$tg" daemon --config tracegate.yaml --once >>once.out 2>>once.log
f='published/demo/llm/fix~2F~C3~A9~3Cb~3E.html'
tg_check "a branch '$odd': its page is one safe file name" test -s "$f"
tg_check "  ... linked from the index" grep -qF '<a href="demo/llm/fix~2F~C3~A9~3Cb~3E.html"><code>fix/é&lt;b&gt;</code></a>' $idx
tg_check "  ... its name escaped on its page" grep -qF 'on <code>fix/é&lt;b&gt;</code></h1>' "$f"
tg_eq "  ... no other file, no temporary one" 4 "$(find published -type f | wc -l | tr -d ' ')"

# --- a fault: the folder of the pages is a file now
rm -rf published/demo/llm
printf 'in the way\n' >published/demo/llm
tg_it_up_demo() {
	mkdir -p "up-$2" && cp "$3" "up-$2/rank0.pt.trace.json.gz"
	"$upload" --dest storage --repo demo/llm --commit "$1" --branch main --workload llama-train --run-id "$2" \
		"up-$2/rank0.pt.trace.json.gz" >/dev/null
}
tg_it_up_demo "$odd_sha" again-1 main2.pt.trace.json.gz
"$tg" daemon --config tracegate.yaml --once >>once.out 2>fault.log
tg_eq "a page that cannot be written: the daemon goes on (exit 0)" 0 "$?"
tg_check "  ... the run is judged all the same" grep -q 'job [0-9]*: posted success (pass)' fault.log
tg_check "  ... the log says what and why" \
	grep -q "history: publishing demo/llm main to .*/published: .*published/demo/llm: not a folder (tried again after the next judged run)" fault.log
rm -f published/demo/llm
tg_it_up_demo "$odd_sha" again-2 main3.pt.trace.json.gz
"$tg" daemon --config tracegate.yaml --once >>once.out 2>>once.log
tg_check "  ... the next judged run writes it again" test -s published/demo/llm/main.html
tg_check "no crash or sanitizer report in the logs" sh -c "! grep -qE 'runtime error|AddressSanitizer|LeakSanitizer' once.log fault.log"
cd "$TG_RUN" || exit 1

# --- S3: the same files in a bucket
if [ "${TG_SKIP_SERVERS:-0}" = 1 ] && [ "${CI:-}" != true ]; then
	tg_skip "S3: TG_SKIP_SERVERS=1 (it starts s3rver)"
elif command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && tg_npm_install s3 "$TG_S3RVER_PKG" >/dev/null; then
	s3port=$(tg_free_port)
	(cd "$top" && tg_s3rver_start "$s3port" artifacts) || tg_not_ok "s3rver starts"
	export TG_S3_KEY=${TG_S3RVER_KEYS%%:*} TG_S3_SECRET=${TG_S3RVER_KEYS#*:}
	s3=http://127.0.0.1:$s3port
	sed -e "s|^  local: storage|  s3: {endpoint: \"$s3\", bucket: artifacts, prefix: runs/, access_key: {env: TG_S3_KEY}, secret_key: {env: TG_S3_SECRET}}|" \
		-e 's|^  publish: published.*|  publish: s3://artifacts/pages/history|' -e 's|sqlite: tracegate.db|sqlite: s3.db|' \
		-e 's|state_dir: state|state_dir: s3-state|' demo/tracegate.yaml >s3.yaml
	sha=$(git -C demo/src rev-parse main)
	mkdir -p s3up && cp demo/main1.pt.trace.json.gz s3up/rank0.pt.trace.json.gz
	TRACEGATE_S3_ENDPOINT=$s3 AWS_ACCESS_KEY_ID=$TG_S3_KEY AWS_SECRET_ACCESS_KEY=$TG_S3_SECRET \
		"$upload" --dest s3://artifacts/runs --repo demo/llm --commit "$sha" --branch main --workload llama-train \
		--run-id s3-1 s3up/rank0.pt.trace.json.gz >/dev/null
	"$tg" daemon --config s3.yaml --once >s3.out 2>s3.log
	tg_eq "S3: one daemon --once" 0 "$?"
	code=$(tg_s3_curl "$TG_S3RVER_KEYS" -o s3-index.html -D s3-index.hdr -w '%{http_code}' "$s3/artifacts/pages/history/index.html")
	tg_eq "S3: pages/history/index.html is in the bucket" 200 "$code"
	tg_check "  ... as text/html" grep -qi '^content-type: text/html; charset=utf-8' s3-index.hdr
	tg_check "  ... linking main's page" grep -q '<a href="demo/llm/main.html">' s3-index.html
	code=$(tg_s3_curl "$TG_S3RVER_KEYS" -o s3-main.html -w '%{http_code}' "$s3/artifacts/pages/history/demo/llm/main.html")
	tg_eq "S3: main's page is there too" 200 "$code"
	tg_check "  ... a whole page" sh -c "head -c 15 s3-main.html | grep -qx '<!DOCTYPE html>' && tail -1 s3-main.html | grep -qx '</body></html>'"
	tg_stop s3rver
else
	tg_skip "S3: node, npm or s3rver is not available (contrib/install-deps.sh --servers)"
fi
tg_done it_publish
