#!/bin/sh
# tracegate-upload.sh - uploads a CI run's traces and its manifest to the
# artifact storage the tracegate daemon watches (README.md, "Storage
# layout"; the manifest's JSON Schema is docs/manifest.schema.json): the
# traces first, manifest.json LAST, so that the daemon never sees a
# half-uploaded run.
#
#   tracegate-upload.sh --dest DEST --repo OWNER/REPO --commit SHA --branch BRANCH
#                       [--pr N --target-branch BRANCH] --workload NAME --run-id ID
#                       [--ci-url URL] [--ci-run ID] [--require-signature] TRACE...
#
#   DEST  a local folder (/srv/artifacts), or s3://BUCKET[/PREFIX] with
#         TRACEGATE_S3_ENDPOINT (https://s3.eu-west-1.amazonaws.com), AWS_REGION
#         (default us-east-1), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the
#         environment. S3 uploads use curl's SigV4 (curl >= 7.75). A PUT is
#         retried on what is transient (timeouts, connection refused, 408,
#         429, 5xx such as 503 SlowDown) up to TRACEGATE_UPLOAD_RETRIES times
#         (default 5, backing off from 1 s), never on 403 or 404; a failure
#         shows S3's error code and message.
#
#   TRACEGATE_SIGNING_KEY  when set, the manifest is signed with it
#         (HMAC-SHA256 over its canonical text and each trace's sha256; see
#         docs/security.md). Only the CI jobs of the target branches may hold
#         it: never give it to a job that runs a pull request's code. A
#         branch's run (no --pr) uploaded without it gets a warning on
#         stderr: a daemon with storage.signing_key judges such a run but
#         never makes it a baseline. --require-signature turns that into an
#         error before anything is uploaded (exit 2): give it in the target
#         branches' jobs, so that a key missing from their environment fails
#         the job instead of silently leaving the branch without baselines.
#
#   --ci-run ID  the CI run that uploads (GitHub Actions: github.run_id;
#         GitLab: CI_PIPELINE_ID; with --pr the default is $GITHUB_RUN_ID, else
#         $CI_PIPELINE_ID, when set). The daemon asks the forge whether that
#         run ran on the pull request's head and pools a pull request's runs
#         only with runs of the same confirmed CI run (docs/security.md).
#
# Every trace entry carries its sha256: the daemon keeps the manifest as it
# first sees it and refuses a trace changed after that.
# Traces named like rank3.* (or *rank_3*) get that rank; others get their
# position. Needs only a POSIX shell, curl and sha256sum (coreutils).
set -eu

die() { echo "tracegate-upload: $*" >&2; exit 2; }

dest= repo= commit= branch= pr= target= workload= run_id= ci_url= ci_run= require_sig=
while [ $# -gt 0 ]; do
	case "$1" in
	--dest) dest=$2; shift 2 ;;
	--repo) repo=$2; shift 2 ;;
	--commit) commit=$2; shift 2 ;;
	--branch) branch=$2; shift 2 ;;
	--pr) pr=$2; shift 2 ;;
	--target-branch) target=$2; shift 2 ;;
	--workload) workload=$2; shift 2 ;;
	--run-id) run_id=$2; shift 2 ;;
	--ci-url) ci_url=$2; shift 2 ;;
	--ci-run) ci_run=$2; shift 2 ;;
	--require-signature) require_sig=1; shift ;;
	--help|-h) sed -n '2,$ { /^#/!q; p; }' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ -n "$dest" ] && [ -n "$repo" ] && [ -n "$commit" ] && [ -n "$branch" ] && [ -n "$workload" ] && [ -n "$run_id" ] \
	|| die "--dest, --repo, --commit, --branch, --workload and --run-id are required"
[ $# -gt 0 ] || die "no trace given"
case "$repo" in */*/*|/*|*/|*..*) die "--repo must be owner/repo" ;; */*) ;; *) die "--repo must be owner/repo" ;; esac
case "$commit" in *[!0-9a-fA-F]*) die "--commit must be 40 hexadecimal digits" ;; esac
[ ${#commit} -eq 40 ] || die "--commit must be 40 hexadecimal digits"
commit=$(printf '%s' "$commit" | tr A-F a-f)
# workload and run id: [A-Za-z0-9._-]{1,64}, as the daemon requires
for v in "$workload" "$run_id"; do
	case "$v" in
	""|*[!A-Za-z0-9._-]*) die "'$v': use letters, digits, '.', '_' and '-' only" ;;
	.|..) die "'$v' is not a name" ;;
	esac
	[ ${#v} -le 64 ] || die "'$v': at most 64 characters"
done
for v in "$repo" "$branch" "$target" "$ci_url"; do
	case "$v" in *[[:cntrl:]]*) die "control characters are not allowed in --repo, --branch, --target-branch or --ci-url" ;; esac
done
[ -z "$pr" ] || echo "$pr" | grep -Eq '^[1-9][0-9]*$' || die "--pr must be a positive number"
# unsigned: refused with --require-signature, and a branch's run (the kind
# that becomes a baseline) warned about, before anything is uploaded
if [ -z "${TRACEGATE_SIGNING_KEY:-}" ]; then
	[ -z "$require_sig" ] || die "--require-signature: TRACEGATE_SIGNING_KEY is not set (or empty): nothing uploaded"
	[ -n "$pr" ] || echo "tracegate-upload: warning: run of branch $branch uploaded without TRACEGATE_SIGNING_KEY:" \
		"a daemon with storage.signing_key judges it but never makes it a baseline nor posts on its commit" \
		"(--require-signature makes this an error)" >&2
fi
# the CI run of a pull request's upload: GitHub Actions, else GitLab
[ -n "$ci_run" ] || [ -z "$pr" ] || ci_run=${GITHUB_RUN_ID:-${CI_PIPELINE_ID:-}}
[ -z "$ci_run" ] || echo "$ci_run" | grep -Eq '^[A-Za-z0-9._-]{1,64}$' || die "--ci-run must be 1 to 64 of letters, digits, '.', '_', '-'"

# JSON string escaping for the manifest (backslash, quote, control characters)
json() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' | tr -d '\000-\010\012-\037'; }

prefix="$repo/$commit/$workload/$run_id"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
entries= traces_sig=
i=0
for t in "$@"; do
	[ -f "$t" ] || die "$t: no such file"
	name=$(basename "$t")
	echo "$name" | grep -Eq '^[A-Za-z0-9._-]+$' || die "$t: rename the trace to letters, digits, '.', '_', '-'"
	[ "$name" != manifest.json ] || die "a trace cannot be called manifest.json"
	rank=$(echo "$name" | sed -nE 's/.*rank_?([0-9]+).*/\1/p' | sed -E 's/^0+([0-9])/\1/')
	[ -n "$rank" ] || rank=$i
	sum=$(sha256sum "$t" | cut -d' ' -f1)
	if [ -n "${TRACEGATE_SIGNING_KEY:-}" ]; then
		traces_sig="${traces_sig:-}trace=$sum $rank $name
"
	fi
	entries="$entries${entries:+, }{\"path\": \"$name\", \"rank\": $rank${sum:+, \"sha256\": \"$sum\"}}"
	i=$((i + 1))
done
created=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# HMAC-SHA256 (RFC 2104) of file $1 under TRACEGATE_SIGNING_KEY, in hex,
# with sha256sum alone: the key never appears on a command line (printf
# is a shell builtin), so other processes cannot read it from /proc.
octal() { # hex digits on stdin (or $1) -> printf escapes, each byte XOR $2
	rest=$1 out=
	while [ -n "$rest" ]; do
		b=${rest%"${rest#??}"}
		rest=${rest#??}
		out="$out$(printf '\\%03o' $((0x$b ^ $2)))"
	done
	printf '%s' "$out"
}
hmac_sha256() {
	khex=$(printf '%s' "$TRACEGATE_SIGNING_KEY" | od -An -v -tx1 | tr -d ' \n')
	[ ${#khex} -le 128 ] || khex=$(printf '%s' "$TRACEGATE_SIGNING_KEY" | sha256sum | cut -c1-64)
	while [ ${#khex} -lt 128 ]; do khex="${khex}00"; done
	ipad=$(octal "$khex" 54) # 0x36
	opad=$(octal "$khex" 92) # 0x5c
	inner=$({ printf "$ipad"; cat "$1"; } | sha256sum | cut -c1-64)
	{ printf "$opad"; printf "$(octal "$inner" 0)"; } | sha256sum | cut -c1-64
}

signature=
if [ -n "${TRACEGATE_SIGNING_KEY:-}" ]; then
	# the canonical text (docs/security.md, daemon/signature.h)
	{
		printf 'tracegate.sig/1\nrepo=%s\ncommit=%s\nbranch=%s\npull_request=%s\n' "$repo" "$commit" "$branch" "$pr"
		printf 'target_branch=%s\nworkload=%s\nrun_id=%s\ncreated_at=%s\nci_url=%s\n' \
			"$target" "$workload" "$run_id" "$created" "$ci_url"
		printf '%s' "$traces_sig"
	} > "$tmp/canonical"
	signature="hmac-sha256:$(hmac_sha256 "$tmp/canonical")"
fi
{
	printf '{"schema": "tracegate.run/1", "repo": "%s", "commit": "%s", "branch": "%s",' \
		"$(json "$repo")" "$commit" "$(json "$branch")"
	[ -z "$pr" ] || printf ' "pull_request": %s,' "$pr"
	[ -z "$target" ] || printf ' "target_branch": "%s",' "$(json "$target")"
	printf ' "workload": "%s", "run_id": "%s",' "$workload" "$run_id"
	printf ' "created_at": "%s",' "$created"
	[ -z "$ci_url" ] || printf ' "ci_url": "%s",' "$(json "$ci_url")"
	[ -z "$ci_run" ] || printf ' "ci_run": "%s",' "$ci_run"
	[ -z "$signature" ] || printf ' "signature": "%s",' "$signature"
	printf ' "traces": [%s]}\n' "$entries"
} > "$tmp/manifest.json"

case "$dest" in
s3://*)
	: "${TRACEGATE_S3_ENDPOINT:?set TRACEGATE_S3_ENDPOINT}" "${AWS_ACCESS_KEY_ID:?}" "${AWS_SECRET_ACCESS_KEY:?}"
	region=${AWS_REGION:-us-east-1}
	rest=${dest#s3://}
	bucket=${rest%%/*}
	sub=
	[ "$rest" = "$bucket" ] || sub=${rest#*/}
	sub=${sub%/}
	# put FILE KEY: one PUT, retried on what is transient (a timeout,
	# connection refused, 408, 429, 500, 502, 503 SlowDown, 504: curl's
	# --retry with --retry-connrefused, backing off from 1 s) and not on what
	# is not (403, 404: retrying a wrong secret changes nothing). S3's
	# answer goes to a file curl can truncate before each retry (not
	# /dev/null: "Failed to truncate file"), and on failure its error code
	# and message are shown.
	put() {
		sum=$(sha256sum "$1" | cut -d' ' -f1)
		# curl 7.88 signs x-amz-content-sha256 only when given; never chunked: -T sends a length
		rc=0
		code=$(curl -sS --retry "${TRACEGATE_UPLOAD_RETRIES:-5}" --retry-connrefused --retry-max-time 120 \
			--aws-sigv4 "aws:amz:$region:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
			-H "x-amz-content-sha256: $sum" -H "Content-Type: application/octet-stream" \
			-T "$1" "$TRACEGATE_S3_ENDPOINT/$bucket/$2" -o "$tmp/answer" -w '%{http_code}' 2>"$tmp/curl.err") || rc=$?
		if [ "$rc" -ne 0 ]; then
			die "upload of $2 failed: $(tail -1 "$tmp/curl.err" | sed 's/^curl: //')"
		fi
		case "$code" in
		2??) ;;
		*)
			# <Error><Code>SlowDown</Code><Message>...</Message></Error>
			s3code=$(sed -n 's:.*<Code>\([^<]*\)</Code>.*:\1:p' "$tmp/answer" | head -1)
			s3msg=$(sed -n 's:.*<Message>\([^<]*\)</Message>.*:\1:p' "$tmp/answer" | head -1)
			die "upload of $2 failed: HTTP $code ${s3code:-(no S3 error code)}${s3msg:+: $s3msg}" ;;
		esac
	}
	for t in "$@"; do put "$t" "${sub:+$sub/}$prefix/$(basename "$t")"; done
	put "$tmp/manifest.json" "${sub:+$sub/}$prefix/manifest.json"
	echo "tracegate-upload: s3://$bucket/${sub:+$sub/}$prefix/manifest.json"
	;;
*)
	[ -d "$dest" ] || die "$dest: no such folder"
	mkdir -p "$dest/$prefix"
	for t in "$@"; do
		cp "$t" "$dest/$prefix/.$(basename "$t").tmp"
		mv "$dest/$prefix/.$(basename "$t").tmp" "$dest/$prefix/$(basename "$t")"
	done
	cp "$tmp/manifest.json" "$dest/$prefix/.manifest.json.tmp"
	mv "$dest/$prefix/.manifest.json.tmp" "$dest/$prefix/manifest.json"
	echo "tracegate-upload: $dest/$prefix/manifest.json"
	;;
esac
