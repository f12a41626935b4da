# pg.sh - a throw-away PostgreSQL 15 on loopback for the integration tests.
# Sourced, after lib.sh, by tests/it_*.sh (bash):
#
#   tg_pg_start   initdb + pg_ctl start in a new temporary folder; sets
#                 TG_PG_DIR, TG_PG_PORT, TG_PG_PID, TG_PG_PASSWORD and
#                 TG_PG_URL (postgresql://tg:PASSWORD@127.0.0.1:PORT/tgstore)
#   tg_pg_stop    pg_ctl stop (fast), KILL by PID if it lingers, and removes
#                 the folder with the data
#   tg_pg_halt    pg_ctl stop (fast), keeping the data (a database outage)
#   tg_pg_resume  starts the halted server again on the same port
#
# The server listens on 127.0.0.1 only (TCP needs the password:
# scram-sha-256; the socket in TG_PG_DIR is trust, for createdb), with
# fsync off: the data is thrown away. PostgreSQL refuses to run as root, so
# as root the server runs as the system user tgpgtest (created once with
# useradd); otherwise as the caller. Needs postgresql-15
# (contrib/install-deps.sh --servers).
#
# By hand:  bash tests/servers/pg.sh   starts one, prints the URL, and stops
# it when you press Enter.

TG_PG_BIN=${TG_PG_BIN:-/usr/lib/postgresql/15/bin}
TG_PG_USER=${TG_PG_USER:-tgpgtest}

# tg_pg_as CMD... : runs CMD as the server's user.
tg_pg_as() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$TG_PG_USER" -- "$@"
	else
		"$@"
	fi
}

tg_pg_start() {
	if [ ! -x "$TG_PG_BIN/initdb" ] || [ ! -x "$TG_PG_BIN/pg_ctl" ]; then
		tg_log "no PostgreSQL 15 in $TG_PG_BIN (contrib/install-deps.sh --servers)"
		return 1
	fi
	if [ "$(id -u)" -eq 0 ] && ! id -u "$TG_PG_USER" >/dev/null 2>&1; then
		useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$TG_PG_USER" \
			|| { tg_log "useradd $TG_PG_USER failed"; return 1; }
	fi
	TG_PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tg-pg.XXXXXX") || return 1
	[ "$(id -u)" -eq 0 ] && chown "$TG_PG_USER" "$TG_PG_DIR"
	TG_PG_PORT=$(tg_free_port) || { tg_log "no free port"; return 1; }
	TG_PG_PASSWORD="tg-pw-$RANDOM$RANDOM"
	printf '%s\n' "$TG_PG_PASSWORD" > "$TG_PG_DIR/pwfile"
	[ "$(id -u)" -eq 0 ] && chown "$TG_PG_USER" "$TG_PG_DIR/pwfile"
	# -N: no fsync of the new cluster (1.6 s instead of several)
	if ! (cd "$TG_PG_DIR" && tg_pg_as "$TG_PG_BIN/initdb" -D "$TG_PG_DIR/data" -U tg --pwfile="$TG_PG_DIR/pwfile" \
		--auth-local=trust --auth-host=scram-sha-256 -E UTF8 --no-locale -N) > "$TG_PG_DIR/initdb.log" 2>&1; then
		tg_log "initdb failed: $(tail -n 3 "$TG_PG_DIR/initdb.log")"
		return 1
	fi
	rm -f "$TG_PG_DIR/pwfile"
	if ! _tg_pg_ctl_start; then
		tg_log "pg_ctl start failed: $(tail -n 3 "$TG_PG_DIR/server.log" 2>/dev/null)"
		return 1
	fi
	TG_PG_PID=$(head -n 1 "$TG_PG_DIR/data/postmaster.pid")
	if ! (cd "$TG_PG_DIR" && tg_pg_as "$TG_PG_BIN/createdb" -h "$TG_PG_DIR" -p "$TG_PG_PORT" -U tg tgstore) \
		> "$TG_PG_DIR/createdb.log" 2>&1; then
		tg_log "createdb failed: $(cat "$TG_PG_DIR/createdb.log")"
		return 1
	fi
	TG_PG_URL="postgresql://tg:$TG_PG_PASSWORD@127.0.0.1:$TG_PG_PORT/tgstore"
}

_tg_pg_ctl_start() {
	local opts="-c listen_addresses=127.0.0.1 -p $TG_PG_PORT -c unix_socket_directories=$TG_PG_DIR"
	opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	(cd "$TG_PG_DIR" && tg_pg_as "$TG_PG_BIN/pg_ctl" -D "$TG_PG_DIR/data" -l "$TG_PG_DIR/server.log" \
		-o "$opts" -w -t 30 start) > "$TG_PG_DIR/pg_ctl.log" 2>&1
}

tg_pg_halt() {
	[ -n "${TG_PG_DIR:-}" ] && [ -f "$TG_PG_DIR/data/postmaster.pid" ] || return 0
	(cd "$TG_PG_DIR" && tg_pg_as "$TG_PG_BIN/pg_ctl" -D "$TG_PG_DIR/data" -m fast -w -t 10 stop) > /dev/null 2>&1
}

tg_pg_resume() {
	_tg_pg_ctl_start || { tg_log "pg_ctl start failed: $(tail -n 3 "$TG_PG_DIR/server.log" 2>/dev/null)"; return 1; }
	TG_PG_PID=$(head -n 1 "$TG_PG_DIR/data/postmaster.pid")
}

tg_pg_stop() {
	[ -n "${TG_PG_DIR:-}" ] && [ -d "$TG_PG_DIR" ] || return 0
	if [ -f "$TG_PG_DIR/data/postmaster.pid" ]; then
		(cd "$TG_PG_DIR" && tg_pg_as "$TG_PG_BIN/pg_ctl" -D "$TG_PG_DIR/data" -m fast -w -t 10 stop) \
			> /dev/null 2>&1
	fi
	if [ -n "${TG_PG_PID:-}" ] && kill -0 "$TG_PG_PID" 2>/dev/null; then
		kill -KILL "$TG_PG_PID" 2>/dev/null
		for _ in $(seq 1 50); do
			kill -0 "$TG_PG_PID" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -rf "$TG_PG_DIR"
	TG_PG_DIR=
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	# shellcheck source=tests/servers/lib.sh
	. "$(dirname "$0")/lib.sh"
	trap tg_pg_stop EXIT
	tg_pg_start || exit 1
	printf '%s\n' "$TG_PG_URL"
	printf '# data in %s (pid %s); press Enter to stop\n' "$TG_PG_DIR" "$TG_PG_PID" >&2
	read -r _
fi
