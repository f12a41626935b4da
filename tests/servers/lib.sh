# lib.sh - what the integration tests share to run real servers on loopback:
# pinned npm packages in a cache, free ports, waiting for a server, and
# stopping it by PID. Sourced by tests/servers/*.sh and tests/it_*.sh (bash).
#
#   TG_CACHE   where npm packages are installed once and reused
#              (default: $HOME/.cache/tracegate; CI keeps it between runs)
#   TG_RUN     a folder for this test run's servers (pid files, logs, data);
#              the caller creates it (mktemp -d) and removes it

TG_CACHE=${TG_CACHE:-${HOME:-/tmp}/.cache/tracegate}

tg_log() { printf '# %s\n' "$*" >&2; }

# tg_npm_install NAME PKG@VERSION... : installs the pinned packages into
# $TG_CACHE/npm/NAME once (a stamp file names the package list) and prints
# that folder. Needs node and npm (contrib/install-deps.sh --servers).
tg_npm_install() {
	local name=$1
	shift
	local dir=$TG_CACHE/npm/$name stamp="$*"
	if [ -f "$dir/.tg-stamp" ] && [ "$(cat "$dir/.tg-stamp")" = "$stamp" ]; then
		printf '%s\n' "$dir"
		return 0
	fi
	mkdir -p "$dir" || return 1
	(
		cd "$dir" || exit 1
		[ -f package.json ] || printf '{"name":"tg-%s","private":true}\n' "$name" > package.json
		npm install --no-audit --no-fund --loglevel=error --save-exact "$@" >&2
	) || { tg_log "npm install $* failed"; return 1; }
	printf '%s\n' "$stamp" > "$dir/.tg-stamp"
	printf '%s\n' "$dir"
}

# tg_free_port: prints a TCP port on 127.0.0.1 that nothing listens on.
tg_free_port() {
	local p i
	for i in $(seq 1 200); do
		# below Linux's ephemeral range (32768-60999 by default): a port
		# there may be bound by any outgoing connection meanwhile, and the
		# server's listen then fails with EADDRINUSE
		p=$(( (RANDOM % 20000) + 10000 ))
		if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then
			printf '%s\n' "$p"
			return 0
		fi
	done
	return 1
}

# tg_wait_port PORT TIMEOUT_S PID : waits until 127.0.0.1:PORT accepts a
# connection; fails early when PID dies.
tg_wait_port() {
	local port=$1 t=$2 pid=$3 i
	for i in $(seq 1 $((t * 20))); do
		kill -0 "$pid" 2>/dev/null || return 1
		if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# tg_start NAME CMD... : starts CMD in the background with its output in
# $TG_RUN/NAME.log and its PID in $TG_RUN/NAME.pid; prints the PID.
tg_start() {
	local name=$1
	shift
	"$@" > "$TG_RUN/$name.log" 2>&1 &
	local pid=$!
	printf '%s\n' "$pid" > "$TG_RUN/$name.pid"
	printf '%s\n' "$pid"
}

# tg_stop NAME : stops the server started as NAME by its PID (TERM, then
# KILL after 5 s) and removes the pid file.
tg_stop() {
	local f=$TG_RUN/$1.pid pid i
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		for i in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -f "$f"
}

# tg_stop_all : stops every server of this run (for an EXIT trap).
tg_stop_all() {
	local f
	for f in "$TG_RUN"/*.pid; do
		[ -f "$f" ] || continue
		tg_stop "$(basename "$f" .pid)"
	done
}

# TAP-style checks shared by the integration tests.
TG_PASS=0
TG_FAIL=0
tg_ok() { TG_PASS=$((TG_PASS + 1)); printf 'ok - %s\n' "$1"; }
tg_not_ok() { TG_FAIL=$((TG_FAIL + 1)); printf 'not ok - %s\n' "$1"; shift; [ $# -gt 0 ] && printf '#   %s\n' "$@"; return 0; }
# tg_check WHAT CMD... : ok when CMD succeeds
tg_check() { local what=$1; shift; if "$@"; then tg_ok "$what"; else tg_not_ok "$what"; fi; }
# tg_eq WHAT WANT GOT
tg_eq() { if [ "$2" = "$3" ]; then tg_ok "$1"; else tg_not_ok "$1" "want: $2" "got:  $3"; fi; }
# A suite that cannot run a part of itself (a server or tool missing) says
# so with tg_skip WHY; one that cannot run at all ends with tg_skip_all
# WHY (exit 77). tests/run.sh counts a suite that exits 77 as skipped, not
# passed, and fails on it when CI=true.
TG_SKIP=0
tg_skip() { TG_SKIP=$((TG_SKIP + 1)); printf '# SKIP %s\n' "$*"; }
tg_skip_all() { printf '# SKIP %s\n' "$*"; exit 77; }
# tg_done NAME : prints the summary line; returns 1 on failures, 77 when a
# part was skipped, else 0
tg_done() {
	printf '# %s: %d of %d checks passed' "$1" "$TG_PASS" $((TG_PASS + TG_FAIL))
	[ "$TG_SKIP" -eq 0 ] || printf ', %d part(s) skipped' "$TG_SKIP"
	printf '\n'
	[ "$TG_FAIL" -eq 0 ] || return 1
	[ "$TG_SKIP" -eq 0 ] || return 77
	return 0
}
