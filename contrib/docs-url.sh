#!/bin/sh
# docs-url.sh - prints the web address of this clone's docs/ folder on the
# forge it was cloned from, for the link in the pull-request comment's
# footer ("how to read this comment"): the Makefile bakes it in as the
# default of the daemon's daemon.docs_url and of `diff --docs-url`.
#
#   https://github.com/acme/tracegate.git           -> https://github.com/acme/tracegate/blob/HEAD/docs
#   git@gitlab.example:ml/tracegate.git             -> https://gitlab.example/ml/tracegate/blob/HEAD/docs
#   ssh://git@github.com/acme/tracegate             -> https://github.com/acme/tracegate/blob/HEAD/docs
#
# blob/HEAD is the default branch's copy on GitHub and GitLab (which
# redirects it to /-/blob/); Gitea and Forgejo spell it src/branch/main,
# so set daemon.docs_url (or make DOCS_URL=...) there. Prints nothing (and
# exits 0) without an origin it can read: no remote, a local path. A token
# in the remote's address (https://user:TOKEN@host/...) is never printed,
# and only the characters a Markdown link can hold are kept.
top=$(cd "$(dirname "$0")/.." && pwd)
url=$(git -C "$top" remote get-url origin 2>/dev/null) || exit 0
case "$url" in
http://* | https://*)
	rest=${url#*://}
	host=${rest%%/*}
	path=${rest#*/}
	[ "$path" != "$rest" ] || exit 0
	host=${host##*@} # no userinfo
	;;
ssh://*)
	rest=${url#ssh://}
	host=${rest%%/*}
	path=${rest#*/}
	host=${host##*@}
	host=${host%%:*} # no port: the web is on 443
	;;
*@*:*)
	rest=${url#*@}
	host=${rest%%:*}
	path=${rest#*:}
	;;
*) exit 0 ;;
esac
path=${path%/}
path=${path%.git}
[ -n "$host" ] && [ -n "$path" ] || exit 0
out="https://$host/$path/blob/HEAD/docs"
case "$out" in
*[!A-Za-z0-9._~:/%+-]*) exit 0 ;; # nothing that could end a Markdown link or a C string
esac
printf '%s\n' "$out"
