# git.sh - git servers on loopback for the integration tests (bash, after
# lib.sh; $TG_RUN must exist):
#   tg_git_daemon_start BASE        git daemon (git://) serving every repository
#                                   under BASE, receive-pack on so that tests can push
#   tg_git_http_start BASE USERFILE git http-backend (smart HTTP) behind lighttpd:
#                                   /git/REPO open, /auth/REPO behind basic auth with
#                                   the "user:password" lines of USERFILE
#   tg_git_have_lighttpd            0 when lighttpd is installed
# Each start sets TG_GIT_PORT (or TG_GIT_HTTP_PORT) and keeps the server a
# child of the calling shell (call it directly, not in $(...), so that
# tg_stop git-daemon / tg_stop git-http reap it at once).

tg_git_daemon_start() {
	local base=$1 port
	port=$(tg_free_port) || return 1
	tg_start git-daemon git daemon --reuseaddr --listen=127.0.0.1 --port="$port" \
		--base-path="$base" --export-all --enable=receive-pack "$base" > /dev/null
	if ! tg_wait_port "$port" 10 "$(cat "$TG_RUN/git-daemon.pid")"; then
		tg_log "git daemon did not start: $(cat "$TG_RUN/git-daemon.log")"
		return 1
	fi
	TG_GIT_PORT=$port
}

tg_git_lighttpd() {
	command -v lighttpd 2>/dev/null || { [ -x /usr/sbin/lighttpd ] && echo /usr/sbin/lighttpd; }
}

tg_git_have_lighttpd() {
	[ -n "$(tg_git_lighttpd)" ] && [ -x /usr/lib/git-core/git-http-backend ]
}

tg_git_http_start() {
	local base=$1 users=$2 port conf=$TG_RUN/lighttpd.conf
	port=$(tg_free_port) || return 1
	cat > "$conf" <<CONF
server.modules = ( "mod_alias", "mod_cgi", "mod_setenv", "mod_auth", "mod_authn_file" )
server.bind = "127.0.0.1"
server.port = $port
server.document-root = "$base"
server.errorlog = "$TG_RUN/git-http-error.log"
alias.url = ( "/git/" => "/usr/lib/git-core/git-http-backend/",
              "/auth/" => "/usr/lib/git-core/git-http-backend/" )
\$HTTP["url"] =~ "^/(git|auth)/" {
	cgi.assign = ( "" => "" )
	setenv.add-environment = ( "GIT_PROJECT_ROOT" => "$base", "GIT_HTTP_EXPORT_ALL" => "1" )
}
auth.backend = "plain"
auth.backend.plain.userfile = "$users"
auth.require = ( "/auth/" => ( "method" => "basic", "realm" => "git", "require" => "valid-user" ) )
CONF
	tg_start git-http "$(tg_git_lighttpd)" -D -f "$conf" > /dev/null
	if ! tg_wait_port "$port" 10 "$(cat "$TG_RUN/git-http.pid")"; then
		tg_log "lighttpd did not start: $(cat "$TG_RUN/git-http.log" "$TG_RUN/git-http-error.log" 2>/dev/null)"
		return 1
	fi
	TG_GIT_HTTP_PORT=$port
}
