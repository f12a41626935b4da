# s3.sh - S3 servers on loopback for the integration tests (bash; sourced
# by tests/it_s3.sh after tests/servers/lib.sh). Two servers, one contract:
#
#   s3rver    @20minutes/s3rver 4.0.4 (npm, pinned): checks SigV4 signatures,
#             pages with DES-encrypted base64 continuation tokens. Fast
#             (~0.6 s), but lenient: accepts chunked uploads and wrong
#             payload hashes.
#   radosgw   Ceph radosgw 16.2 (Debian packages ceph-mon ceph-osd radosgw,
#             from contrib/install-deps.sh --servers) on a throw-away
#             cluster: 1 mon, 1 memstore OSD, auth none, no mgr, everything
#             under $TG_RUN/ceph, bound to 127.0.0.1. The faithful one:
#             checks signatures and payload hashes, 411 on chunked uploads,
#             continuation tokens that are plain key names. ~2 s to start.
#
# Recipes follow ../shared/notes/infra.md (1b, 1c, 7b). Each start function
# prints nothing on success and leaves its PIDs where tg_s3_stop_all finds
# them; every process is stopped by PID, never by name.

TG_S3RVER_PKG=@20minutes/s3rver@4.0.4
TG_S3RVER_KEYS=S3RVER:S3RVER       # hard-coded in s3rver
TG_RGW_KEYS=TGTESTKEY:TGTESTSECRET # made at start with radosgw-admin

# tg_s3rver_start PORT BUCKET : installs s3rver into the npm cache (once),
# starts it as server "s3rver" with its data in $TG_RUN/s3rver-data, the
# bucket created at start, and waits until it listens.
tg_s3rver_start() {
	local port=$1 bucket=$2 mods pid
	mods=$(tg_npm_install s3 "$TG_S3RVER_PKG") || return 1
	pid=$(NODE_OPTIONS=--openssl-legacy-provider tg_start s3rver \
		node tests/servers/s3rver.js "$mods" "$port" "$TG_RUN/s3rver-data" "$bucket")
	if ! tg_wait_port "$port" 30 "$pid"; then
		tg_log "s3rver did not start; its log:"
		sed 's/^/#   /' "$TG_RUN/s3rver.log" >&2
		tg_stop s3rver
		return 1
	fi
}

# tg_rgw_missing : prints what radosgw needs and this machine lacks
# (nothing when it can run).
tg_rgw_missing() {
	local b missing=""
	for b in ceph-mon ceph-osd radosgw radosgw-admin ceph ceph-authtool monmaptool uuidgen curl; do
		command -v "$b" >/dev/null 2>&1 || missing="$missing $b"
	done
	printf '%s' "${missing# }"
}

# A signed request with curl (for the setup and the server-behaviour
# checks of it_s3.sh, not for the client under test). curl 7.88 needs the
# x-amz-content-sha256 header given (infra.md, 1e).
tg_s3_curl() { # KEYS(ACCESS:SECRET) curl-args...
	local keys=$1
	shift
	curl -s --aws-sigv4 "aws:amz:us-east-1:s3" --user "$keys" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}

# tg_rgw_port : prints a port P for tg_rgw_start such that P and P+1 are
# free, below the kernel's ephemeral range: the cluster's daemons open many
# outgoing connections while it starts, and one of them may otherwise take
# the port between this check and radosgw's bind (seen once in 20 starts).
tg_rgw_port() {
	local lo p i
	lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null) || lo=32768
	[ "${lo:-0}" -gt 12000 ] || lo=32768
	for i in $(seq 1 200); do
		p=$((10000 + RANDOM % (lo - 10002)))
		if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && ! (exec 3<>/dev/tcp/127.0.0.1/$((p + 1))) 2>/dev/null; then
			printf '%s\n' "$p"
			return 0
		fi
	done
	return 1
}

# tg_rgw_start PORT BUCKET : a one-node Ceph cluster under $TG_RUN/ceph with
# radosgw on 127.0.0.1:PORT (the mon on PORT+1), a user with the keys of
# TG_RGW_KEYS, and BUCKET. On failure it stops what it started, says why
# and returns 1.
tg_rgw_start() {
	local port=$1 bucket=$2 d=$TG_RUN/ceph mport=$(($1 + 1)) fsid osd_uuid i c L
	mkdir -p "$d"/run "$d"/log "$d"/mon.a "$d"/osd.0 "$d"/rgw.a "$d"/crash || return 1
	L=$d/log/setup.log
	fsid=$(uuidgen)
	cat > "$d/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$mport
public network = 127.0.0.0/8
ms bind msgr2 = false
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = 268435456
# one mon: no need to batch paxos proposals (1 s each by default; radosgw
# makes ~10 pool and mon operations at start: 15 s -> 2 s)
paxos propose interval = 0.01
paxos min wait = 0.001
mon cluster log file = $d/log/cluster.\$channel.log
crash dir = $d/crash
run dir = $d/run
log file = $d/log/\$name.log
admin socket = $d/run/\$name.asok
pid file = $d/run/\$name.pid
keyring = $d/keyring
[mon.a]
mon data = $d/mon.a
[osd.0]
osd data = $d/osd.0
# the CRUSH entry is made below, before the OSD starts: with auth off, its
# own on-start update races the monmap and sometimes kills it ("wrong fsid")
osd crush update on start = false
osd class update on start = false
[client.rgw.a]
rgw data = $d/rgw.a
rgw frontends = beast endpoint=127.0.0.1:$port
EOF
	local C=(-c "$d/ceph.conf")
	# With auth off, a client may send its command before it has the monmap;
	# the mon then refuses it ("handle_command on fsid 0000... != <fsid>",
	# EPERM). Seen about one start in ten: the ceph commands here are
	# idempotent, so they are tried again.
	_ceph_retry() {
		local k
		for k in 1 2 3 4 5; do
			timeout 30 "$@" >>"$L" 2>&1 && return 0
			sleep 0.3
		done
		return 1
	}
	_rgw_fail() { tg_log "radosgw: $1; see $d/log"; tail -n 5 "$L" 2>/dev/null | sed 's/^/#   /' >&2; tg_rgw_stop; return 1; }
	{ ceph-authtool --create-keyring "$d/keyring" --gen-key -n mon. --cap mon 'allow *' &&
		ceph-authtool "$d/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' &&
		monmaptool --create --addv a "[v1:127.0.0.1:$mport]" --fsid "$fsid" "$d/monmap" &&
		ceph-mon "${C[@]}" --mkfs -i a --monmap "$d/monmap" --keyring "$d/keyring"; } >>"$L" 2>&1 ||
		{ _rgw_fail "mon --mkfs failed"; return 1; }
	# each daemon forks into the background and writes run/NAME.pid
	ceph-mon "${C[@]}" -i a >>"$L" 2>&1 || { _rgw_fail "ceph-mon failed"; return 1; }
	osd_uuid=$(uuidgen)
	_ceph_retry ceph "${C[@]}" osd new "$osd_uuid" || { _rgw_fail "the mon does not answer"; return 1; }
	_ceph_retry ceph "${C[@]}" osd crush add osd.0 1.0 root=default || { _rgw_fail "crush add failed"; return 1; }
	ceph-osd "${C[@]}" -i 0 --mkfs --osd-uuid "$osd_uuid" >>"$L" 2>&1 || { _rgw_fail "ceph-osd --mkfs failed"; return 1; }
	ceph-osd "${C[@]}" -i 0 >>"$L" 2>&1 || { _rgw_fail "ceph-osd failed"; return 1; }
	radosgw "${C[@]}" -n client.rgw.a >>"$L" 2>&1 || { _rgw_fail "radosgw failed"; return 1; }
	c=000
	for ((i = 0; i < 300; i++)); do
		c=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/" || true)
		[ "$c" = 200 ] && break
		[ -f "$d/run/client.rgw.a.pid" ] && ! kill -0 "$(cat "$d/run/client.rgw.a.pid")" 2>/dev/null && break
		sleep 0.1
	done
	[ "$c" = 200 ] || { _rgw_fail "radosgw does not answer on port $port"; return 1; }
	_ceph_retry radosgw-admin "${C[@]}" -n client.admin user create --uid=tgtest --display-name=tgtest \
		--access-key="${TG_RGW_KEYS%%:*}" --secret-key="${TG_RGW_KEYS#*:}" ||
		_ceph_retry radosgw-admin "${C[@]}" -n client.admin user info --uid=tgtest ||
		{ _rgw_fail "radosgw-admin user create failed"; return 1; }
	c=$(tg_s3_curl "$TG_RGW_KEYS" -o /dev/null -w '%{http_code}' -X PUT "http://127.0.0.1:$port/$bucket")
	[ "$c" = 200 ] || { _rgw_fail "creating the bucket got HTTP $c"; return 1; }
}

# tg_rgw_stop : stops the cluster of tg_rgw_start by the PIDs its daemons
# wrote: radosgw first (it hangs when the OSD goes first), then OSD and mon.
# The cluster is disposable (memstore, a temp dir), so each daemon gets 1 s
# to exit on TERM before KILL: a clean stop takes 2-6 s under load.
tg_rgw_stop() {
	_rgw_stop_pids client.rgw.a
	_rgw_stop_pids osd.0 mon.a
}

_rgw_stop_pids() { # NAME... : TERM them, 1 s for all to exit, then KILL
	local d=$TG_RUN/ceph n pid i alive pids=()
	for n in "$@"; do
		[ -f "$d/run/$n.pid" ] || continue
		pid=$(cat "$d/run/$n.pid")
		rm -f "$d/run/$n.pid"
		kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
	done
	# up to 1 s on TERM, then KILL; KILL is asynchronous too: up to 3 s more
	for ((i = 0; i < 80; i++)); do
		alive=0
		for pid in "${pids[@]}"; do
			kill -0 "$pid" 2>/dev/null || continue
			alive=1
			[ "$i" -eq 20 ] && kill -KILL "$pid" 2>/dev/null
		done
		[ "$alive" -eq 0 ] && break
		sleep 0.05
	done
	return 0
}

# tg_s3_stop_all : stops every S3 server of this run (for an EXIT trap).
tg_s3_stop_all() {
	tg_rgw_stop
	tg_stop_all
}
