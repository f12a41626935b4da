#!/bin/sh
# it_git.sh - daemon/git/git.c against real servers on loopback: builds a
# repository with the git CLI (main with a merge, a feature branch with a
# Tracegate-Accept trailer), serves it with git daemon and, when lighttpd is
# installed, with git http-backend (open, behind basic auth, and over TLS
# with a self-signed certificate when lighttpd has TLS), and runs
# build/tests/test_git with the URLs and the answers the git CLI gives.
# The test binary checks those answers, then pushes commits to the daemon
# and sees the mirror fetch them on demand.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/servers/lib.sh
. tests/servers/git.sh

bin=${TG_BUILD:-build}/tests/test_git
if [ ! -x "$bin" ]; then
	echo "it_git: $bin is missing (make $bin)" >&2
	exit 1
fi
if ! command -v git >/dev/null 2>&1; then
	tg_skip_all "it_git: git is not installed (contrib/install-deps.sh --servers)"
fi

TG_RUN=$(mktemp -d /tmp/tg-it-git-XXXXXX)
trap 'tg_stop_all; rm -rf "$TG_RUN"' EXIT
start=$(date +%s)

# A repository with a known shape, nobody's git configuration involved.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.com
export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.com
work=$TG_RUN/work
srv=$TG_RUN/srv
n=0
commit() {
	n=$((n + 1))
	GIT_AUTHOR_DATE="@$((1700000000 + n * 60)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + n * 60)) +0000" \
		git -C "$work" commit -q --allow-empty -m "$1"
}
git init -q -b main "$work"
commit m1
commit m2
git -C "$work" branch feature
commit m3
git -C "$work" checkout -q -b side
commit s1
commit s2
git -C "$work" checkout -q main
n=$((n + 1))
GIT_AUTHOR_DATE="@$((1700000000 + n * 60)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + n * 60)) +0000" \
	git -C "$work" merge -q --no-ff -m "Merge branch 'side'" side
commit m5
git -C "$work" checkout -q feature
commit f1
commit "$(printf 'gemm: a larger tile\n\nSlower alone, faster end to end.\n\nTracegate-Accept: gemm: the new tile size wins end to end')"
mkdir -p "$srv"
git clone -q --bare "$work" "$srv/repo.git"

export TG_TEST_GIT_MAIN TG_TEST_GIT_FEATURE TG_TEST_GIT_FORK TG_TEST_GIT_FIRST
TG_TEST_GIT_MAIN=$(git -C "$srv/repo.git" rev-parse main)
TG_TEST_GIT_FEATURE=$(git -C "$srv/repo.git" rev-parse feature)
TG_TEST_GIT_FORK=$(git -C "$srv/repo.git" merge-base feature main)
TG_TEST_GIT_FIRST=$(git -C "$srv/repo.git" rev-list --first-parent main | tr '\n' ' ')
tg_eq "the fixture: main's first parents skip the merged side branch" 5 "$(echo $TG_TEST_GIT_FIRST | wc -w)"

if tg_git_daemon_start "$srv"; then
	tg_ok "git daemon is up on port $TG_GIT_PORT"
	export TG_TEST_GIT_URL=git://127.0.0.1:$TG_GIT_PORT/repo.git
else
	tg_not_ok "git daemon is up"
fi

if tg_git_have_lighttpd; then
	token=tg-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	printf 'x-access-token:%s\n' "$token" > "$TG_RUN/users"
	pem=""
	if tg_git_have_lighttpd_tls; then
		mkdir -p "$TG_RUN/tls"
		tg_git_make_cert "$TG_RUN/tls" && pem=$TG_RUN/tls
		tg_check "a self-signed certificate for 127.0.0.1" test -n "$pem"
	else
		tg_skip "https: lighttpd's TLS module is not installed (apt-get install lighttpd-mod-openssl)"
	fi
	if tg_git_http_start "$srv" "$TG_RUN/users" "$pem"; then
		export TG_TEST_GIT_HTTP_URL=http://127.0.0.1:$TG_GIT_HTTP_PORT/git/repo.git
		export TG_TEST_GIT_HTTP_AUTH_URL=http://127.0.0.1:$TG_GIT_HTTP_PORT/auth/repo.git
		export TG_TEST_GIT_HTTP_TOKEN=$token
		if [ -n "$TG_GIT_HTTPS_PORT" ]; then
			export TG_TEST_GIT_HTTPS_URL=https://127.0.0.1:$TG_GIT_HTTPS_PORT/git/repo.git
			export TG_TEST_GIT_HTTPS_CA=$pem/cert.pem
			tg_eq "https serves main (git ls-remote with the CA)" "$TG_TEST_GIT_MAIN" \
				"$(GIT_SSL_CAINFO=$pem/cert.pem git ls-remote "$TG_TEST_GIT_HTTPS_URL" refs/heads/main | cut -f1)"
		fi
		tg_eq "smart HTTP serves main (git ls-remote)" "$TG_TEST_GIT_MAIN" \
			"$(git ls-remote "$TG_TEST_GIT_HTTP_URL" refs/heads/main | cut -f1)"
		tg_check "smart HTTP refuses /auth/ without the token" \
			sh -c "! GIT_TERMINAL_PROMPT=0 git ls-remote '$TG_TEST_GIT_HTTP_AUTH_URL' >/dev/null 2>&1"
	else
		tg_not_ok "lighttpd with git http-backend is up"
	fi
else
	tg_skip "smart HTTP: lighttpd is not installed (apt-get install lighttpd)"
fi

if "$bin" > "$TG_RUN/test_git.out" 2>&1; then
	tg_ok "test_git against the live servers"
else
	tg_not_ok "test_git against the live servers" "$(grep -v '^\[ *\(RUN\|OK\) *\]' "$TG_RUN/test_git.out" | tail -40)"
fi
grep -E '^\[ +(OK|SKIPPED|FAILED) +\] test_live|^SKIPPED|token: |untrusted: ' "$TG_RUN/test_git.out" |
	awk '!seen[$0]++ { print "# " $0 }'
want_skipped=0
[ -n "${TG_TEST_GIT_HTTP_URL:-}" ] || want_skipped=2
[ -n "${TG_TEST_GIT_HTTPS_URL:-}" ] || want_skipped=$((want_skipped + 1))
tg_eq "the live tests ran (skipped: none, or those lighttpd's absence rules out)" "$want_skipped" \
	"$(grep '^\[  SKIPPED \] test_live' "$TG_RUN/test_git.out" | sort -u | wc -l)"
tg_check "the pushed branch reached the daemon's repository" \
	sh -c "git -C '$srv/repo.git' for-each-ref 'refs/heads/live-*' | grep -q ."
tg_check "the pushed pull-request head reached the daemon's repository" \
	sh -c "git -C '$srv/repo.git' for-each-ref 'refs/pull/' | grep -q ."

tg_stop git-daemon
tg_stop git-http
echo "# it_git: $(( $(date +%s) - start )) s"
tg_done it_git
