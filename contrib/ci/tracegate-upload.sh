#!/bin/sh
# tracegate-upload.sh - uploads a CI run's traces and its manifest to the
# artifact storage the tracegate daemon watches (DESIGN.md, "Artifact
# storage contract"): the traces first, manifest.json LAST, so that the
# daemon never sees a half-uploaded run.
#
#   tracegate-upload.sh --dest DEST --repo OWNER/REPO --commit SHA --branch BRANCH
#                       [--pr N --target-branch BRANCH] --workload NAME --run-id ID
#                       [--ci-url URL] TRACE...
#
#   DEST  a local folder (/srv/artifacts), or s3://BUCKET[/PREFIX] with
#         TRACEGATE_S3_ENDPOINT (https://s3.eu-west-1.amazonaws.com), AWS_REGION
#         (default us-east-1), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the
#         environment. S3 uploads use curl's SigV4 (curl >= 7.75).
#
# Traces named like rank3.* (or *rank_3*) get that rank; others get their
# position. Needs only a POSIX shell, curl and sha256sum (coreutils).
set -eu

die() { echo "tracegate-upload: $*" >&2; exit 2; }

dest= repo= commit= branch= pr= target= workload= run_id= ci_url=
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
	--help|-h) sed -n '2,20p' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ -n "$dest" ] && [ -n "$repo" ] && [ -n "$commit" ] && [ -n "$branch" ] && [ -n "$workload" ] && [ -n "$run_id" ] \
	|| die "--dest, --repo, --commit, --branch, --workload and --run-id are required"
[ $# -gt 0 ] || die "no trace given"
case "$repo" in */*/*|/*|*/|*..*) die "--repo must be owner/repo" ;; */*) ;; *) die "--repo must be owner/repo" ;; esac
echo "$commit" | grep -Eq '^[0-9a-fA-F]{40}$' || die "--commit must be 40 hexadecimal digits"
for v in "$workload" "$run_id"; do
	echo "$v" | grep -Eq '^[A-Za-z0-9._-]+$' || die "'$v': use letters, digits, '.', '_' and '-' only"
	case "$v" in .|..) die "'$v' is not a name" ;; esac
done
[ -z "$pr" ] || echo "$pr" | grep -Eq '^[1-9][0-9]*$' || die "--pr must be a positive number"

# JSON string escaping for the manifest (backslash, quote, control characters)
json() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' | tr -d '\000-\010\012-\037'; }

prefix="$repo/$commit/$workload/$run_id"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
entries=
i=0
for t in "$@"; do
	[ -f "$t" ] || die "$t: no such file"
	name=$(basename "$t")
	echo "$name" | grep -Eq '^[A-Za-z0-9._-]+$' || die "$t: rename the trace to letters, digits, '.', '_', '-'"
	[ "$name" != manifest.json ] || die "a trace cannot be called manifest.json"
	rank=$(echo "$name" | sed -nE 's/.*rank_?([0-9]+).*/\1/p')
	[ -n "$rank" ] || rank=$i
	entries="$entries${entries:+, }{\"path\": \"$name\", \"rank\": $rank}"
	i=$((i + 1))
done
{
	printf '{"schema": "tracegate.run/1", "repo": "%s", "commit": "%s", "branch": "%s",' \
		"$(json "$repo")" "$commit" "$(json "$branch")"
	[ -z "$pr" ] || printf ' "pull_request": %s,' "$pr"
	[ -z "$target" ] || printf ' "target_branch": "%s",' "$(json "$target")"
	printf ' "workload": "%s", "run_id": "%s",' "$workload" "$run_id"
	printf ' "created_at": "%s",' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	[ -z "$ci_url" ] || printf ' "ci_url": "%s",' "$(json "$ci_url")"
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
	put() { # FILE KEY
		sum=$(sha256sum "$1" | cut -d' ' -f1)
		# curl 7.88 signs x-amz-content-sha256 only when given; never chunked: -T sends a length
		curl -sS --fail-with-body --retry 5 --retry-all-errors \
			--aws-sigv4 "aws:amz:$region:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
			-H "x-amz-content-sha256: $sum" -H "Content-Type: application/octet-stream" \
			-T "$1" "$TRACEGATE_S3_ENDPOINT/$bucket/$2" -o /dev/null \
			|| die "upload of $2 failed"
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
