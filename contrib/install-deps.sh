#!/bin/sh
# install-deps.sh - installs the Debian packages tracegate needs, when missing.
#   contrib/install-deps.sh          build and test dependencies
#   contrib/install-deps.sh --bench  also hyperfine and GNU time (make bench)
#   contrib/install-deps.sh --fuzz   also clang and its libFuzzer runtime (make fuzz)
#   contrib/install-deps.sh --html   also Chromium and a font, to draw the HTML report
#                                    headless (make check: tests/cli_html.sh)
#   contrib/install-deps.sh --demo   also git (make demo makes a repository)
#   contrib/install-deps.sh --servers  also what the integration tests start on
#                                    loopback: git (git daemon), PostgreSQL, Node.js
#                                    and npm (S3 and forge fakes; skipped when a node
#                                    is already on the PATH), Ceph's radosgw, and
#                                    valgrind (tests/it_valgrind.sh)
# Runs apt-get only when something is missing; needs root (or sudo) then.
set -eu

pkgs="make gcc pkg-config gzip zlib1g-dev libjansson-dev libcmocka-dev libcurl4-openssl-dev
libgit2-dev libyaml-dev libsqlite3-dev libpq-dev"
for arg in "$@"; do
	case "$arg" in
	--bench) pkgs="$pkgs hyperfine time" ;;
	--fuzz) pkgs="$pkgs clang libclang-rt-14-dev" ;;
	--html) pkgs="$pkgs chromium fonts-dejavu-core" ;;
	--demo) pkgs="$pkgs git" ;;
	--servers)
		pkgs="$pkgs git postgresql ceph-mon ceph-osd radosgw ca-certificates lighttpd lighttpd-mod-openssl openssl sqlite3 valgrind"
		command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
		;;
	--quiet) ;;
	*) echo "install-deps.sh: unknown option $arg" >&2; exit 2 ;;
	esac
done

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "install-deps.sh: installing:$missing"
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
