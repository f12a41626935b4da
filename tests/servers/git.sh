# git.sh - git servers on loopback for the integration tests (bash, after
# lib.sh; $TG_RUN must exist):
#   tg_git_daemon_start BASE        git daemon (git://) serving every repository
#                                   under BASE, receive-pack on so that tests can push
#   tg_git_http_start BASE USERFILE git http-backend (smart HTTP) behind lighttpd:
#                                   /git/REPO open, /auth/REPO behind basic auth with
#                                   the "user:password" lines of USERFILE
#                                   [PEM: also https (TG_GIT_HTTPS_PORT) with the
#                                   certificate and key in PEM, when lighttpd has TLS]
#   tg_git_have_lighttpd            0 when lighttpd is installed
#   tg_git_have_lighttpd_tls        0 when lighttpd's TLS module is installed too
#   tg_git_make_cert DIR            a self-signed certificate for 127.0.0.1 in
#                                   DIR/cert.pem (key in DIR/key.pem)
# Each start sets TG_GIT_PORT (or TG_GIT_HTTP_PORT) and keeps the server a
# child of the calling shell (call it directly, not in $(...), so that
# tg_stop git-daemon / tg_stop git-http reap it at once).

tg_git_daemon_start() {
	local base=$1 port
	port=$(tg_free_port) || return 1
	# git's binary, not it_common.sh's git() function: tg_start would run a
	# function in a subshell whose PID it records, so tg_stop killed the
	# subshell and left git daemon running (one a make check)
	tg_start git-daemon "$(type -P git)" daemon --reuseaddr --listen=127.0.0.1 --port="$port" \
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

tg_git_have_lighttpd_tls() {
	tg_git_have_lighttpd && [ -f /usr/lib/lighttpd/mod_openssl.so ] && command -v openssl >/dev/null 2>&1
}

tg_git_make_cert() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
		-subj /CN=127.0.0.1 -addext "subjectAltName=DNS:127.0.0.1,IP:127.0.0.1" \
		-keyout "$1/key.pem" -out "$1/cert.pem" 2>/dev/null
}

tg_git_http_start() {
	local base=$1 users=$2 pem=${3:-} port tport="" tls="" conf=$TG_RUN/lighttpd.conf
	local mods='"mod_alias", "mod_cgi", "mod_setenv", "mod_auth", "mod_authn_file"'
	port=$(tg_free_port) || return 1
	if [ -n "$pem" ]; then
		tport=$(tg_free_port) || return 1
		mods="$mods, \"mod_openssl\""
		tls=$(printf '$SERVER["socket"] == "127.0.0.1:%s" {\n\tssl.engine = "enable"\n\tssl.pemfile = "%s"\n\tssl.privkey = "%s"\n}' \
			"$tport" "$pem/cert.pem" "$pem/key.pem")
	fi
	cat > "$conf" <<CONF
server.modules = ( $mods )
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
$tls
CONF
	tg_start git-http "$(tg_git_lighttpd)" -D -f "$conf" > /dev/null
	if ! tg_wait_port "$port" 10 "$(cat "$TG_RUN/git-http.pid")"; then
		tg_log "lighttpd did not start: $(cat "$TG_RUN/git-http.log" "$TG_RUN/git-http-error.log" 2>/dev/null)"
		return 1
	fi
	TG_GIT_HTTP_PORT=$port
	TG_GIT_HTTPS_PORT=$tport
}
