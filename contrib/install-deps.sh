#!/bin/sh
# install-deps.sh - installs the Debian packages tracegate needs, when missing.
#   contrib/install-deps.sh          build and test dependencies (python3-torch: tests/cli_replay.sh
#                                    runs the replay scripts under it; GNU time: tests/cli_report.sh
#                                    bounds a deep trace's peak memory)
#   contrib/install-deps.sh --bench  also hyperfine and GNU time (make bench)
#   contrib/install-deps.sh --fuzz   also clang and its libFuzzer runtime (make fuzz)
#   contrib/install-deps.sh --html   also Chromium, a font and cmark-gfm, to draw the HTML report
#                                    and the comment headless (tests/cli_html.sh,
#                                    tests/cli_comment.sh, contrib/comment_screenshot.sh)
#   contrib/install-deps.sh --demo   also git (make demo makes a repository)
#   contrib/install-deps.sh --servers  also what the integration tests start on
#                                    loopback: git (git daemon), PostgreSQL, Node.js
#                                    and npm (S3 and forge fakes; skipped when a node
#                                    is already on the PATH), Ceph's radosgw,
#                                    valgrind (tests/it_valgrind.sh) and promtool
#                                    (prometheus: tests/it_endpoints.sh checks /metrics)
#   contrib/install-deps.sh --mermaid  also mmdc (@mermaid-js/mermaid-cli, npm) drawing with the
#                                    system Chromium, for tests/it_mermaid.sh (the comment's
#                                    Mermaid charts through Mermaid itself). Opt-in: ~500 MB of
#                                    node_modules and ~45 s, into $TG_MERMAID_DIR (default
#                                    ~/.cache/tracegate/mermaid); make check does not ask for it
# Runs apt-get only when something is missing; needs root (or sudo) then.
set -eu
mermaid=0

# mmdc into $TG_MERMAID_DIR (--mermaid), unless it is there: Puppeteer's
# own browser download is skipped (the system Chromium draws).
mermaid_install() {
	[ "$mermaid" = 1 ] || return 0
	dir=${TG_MERMAID_DIR:-${HOME:-/root}/.cache/tracegate/mermaid}
	[ -x "$dir/node_modules/.bin/mmdc" ] && return 0
	echo "install-deps.sh: installing @mermaid-js/mermaid-cli@11 with npm into $dir (~500 MB), for tests/it_mermaid.sh"
	mkdir -p "$dir"
	PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix "$dir" --no-audit --no-fund --loglevel=error @mermaid-js/mermaid-cli@11 >/dev/null
}

# Each group: its packages and why they are needed, said before anything
# is installed.
groups="build"
pkgs_build="make gcc pkg-config gzip zlib1g-dev libisal-dev libjansson-dev libcmocka-dev libcurl4-openssl-dev
libgit2-dev libyaml-dev libsqlite3-dev libpq-dev libmicrohttpd-dev libssl-dev"
why_build="to build tracegate and its unit tests (compiler, and the libraries it links: curl, libcrypto (SHA-256, HMAC), libgit2, jansson, libyaml, SQLite, libpq, libmicrohttpd (the daemon's health and metrics endpoints), zlib, ISA-L (inflates gzip traces 3x as fast as zlib; make ISAL=0 builds without it), cmocka)"
groups="$groups test"
pkgs_test="python3-torch time"
why_test="tests/cli_replay.sh runs the PyTorch scripts \`tracegate replay\` writes (Debian's torch, on the CPU); GNU time measures the peak memory tests/cli_report.sh bounds (a deep trace's report)"
for arg in "$@"; do
	case "$arg" in
	--bench) groups="$groups bench"; pkgs_bench="hyperfine time valgrind"; why_bench="make bench times the reader and the daemon, and counts instructions (callgrind) to judge that cost stays linear in size" ;;
	--fuzz) groups="$groups fuzz"; pkgs_fuzz="clang libclang-rt-14-dev"; why_fuzz="make fuzz builds libFuzzer targets with clang" ;;
	--html) groups="$groups html"; pkgs_html="chromium fonts-dejavu-core fonts-noto-color-emoji cmark-gfm"
		why_html="tests/cli_html.sh draws the HTML report in headless Chromium and checks the picture; contrib/comment_screenshot.sh renders the pull-request comment with cmark-gfm (GitHub's Markdown) and draws it" ;;
	--demo) groups="$groups demo"; pkgs_demo="git"; why_demo="make demo makes a git repository" ;;
	--servers)
		if [ "${TG_SKIP_SERVERS:-0}" = 1 ] && [ "${CI:-}" != true ]; then
			echo "install-deps.sh: TG_SKIP_SERVERS=1: not installing the servers the integration tests start (their suites are skipped)"
			continue
		fi
		groups="$groups servers"
		pkgs_servers="git postgresql ceph-mon ceph-osd radosgw ca-certificates lighttpd lighttpd-mod-openssl openssl sqlite3 valgrind procps prometheus"
		command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || pkgs_servers="$pkgs_servers nodejs npm"
		why_servers="the integration tests start real servers on 127.0.0.1: PostgreSQL, Ceph radosgw (S3), git daemon, lighttpd (TLS), the Node.js forge fakes; valgrind checks the daemon; the sqlite3 shell and procps's pgrep look into the daemon's database and at its job processes (it_budget.sh, it_faults.sh); promtool (prometheus) checks the daemon's /metrics (tests/it_endpoints.sh). A local run can skip them: TG_SKIP_SERVERS=1 make check (CI=true never skips)"
		;;
	--mermaid) groups="$groups mermaid"; mermaid=1; pkgs_mermaid="chromium fonts-dejavu-core"
		command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || pkgs_mermaid="$pkgs_mermaid nodejs npm"
		why_mermaid="tests/it_mermaid.sh draws the comment's Mermaid charts with mmdc, which runs mermaid.js in this Chromium" ;;
	--quiet) ;;
	*) echo "install-deps.sh: unknown option $arg" >&2; exit 2 ;;
	esac
done

missing=""
report=""
for g in $groups; do
	eval "gp=\$pkgs_$g why=\$why_$g"
	gm=""
	for p in $gp; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
			gm="$gm $p"
		fi
	done
	[ -n "$gm" ] || continue
	missing="$missing$gm"
	report="$report
  -$gm
    why: $why"
done
if [ -z "$missing" ]; then
	mermaid_install
	exit 0
fi

n=$(echo $missing | wc -w)
echo "install-deps.sh: installing $n missing Debian packages with apt-get (as root), and why:$report"
if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "install-deps.sh: missing packages:$missing; run as root: apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
mermaid_install
