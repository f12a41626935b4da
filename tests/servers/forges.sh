# forges.sh - the forge test servers, sourced by tests/it_forges.sh (bash):
# pinned prism and GitHub's OpenAPI package, subsets of each forge's
# published OpenAPI description cut to the operations tracegate calls (with
# the gaps the tests found filled: docs/forges.md), and per forge the
# stateful fake (fake-forge.js) behind `prism proxy --errors`, which checks
# every request against the description and every answer of the fake too.
#
#   tg_forges_install             -> TG_FORGES_NPM, the npm folder
#   tg_forges_specs               -> TG_FORGES_SPECS, a folder with github.json and,
#                                    when $TG_SHARED/specs exists, gitlab.json,
#                                    gitea.json and forgejo.json (cached in $TG_CACHE)
#   tg_forge_start NAME KIND SPEC TOKEN PAGE_MAX LINK
#                                 starts fake + prism; sets TG_FORGE_FAKE_<NAME>
#                                 and TG_FORGE_PROXY_<NAME> (ports)
#   tg_forge_wait NAME SECONDS    waits until that prism listens
#   tg_forge_ensure NAME SECONDS KIND SPEC TOKEN PAGE_MAX LINK
#                                 waits; when a server died (a port taken between
#                                 choosing and binding it), starts the pair again
#                                 on other ports, three tries in all
#
# Needs lib.sh sourced and TG_RUN set. Logs: $TG_RUN/fake-NAME.log, prism-NAME.log.

TG_FORGES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TG_FORGES_PKGS="@stoplight/prism-cli@5.14.2 @octokit/openapi@23.0.2 js-yaml@4.1.0"
TG_SHARED=${TG_SHARED:-../shared}

tg_forges_install() {
	# shellcheck disable=SC2086
	TG_FORGES_NPM=$(tg_npm_install forges $TG_FORGES_PKGS) || return 1
	export NODE_PATH=$TG_FORGES_NPM/node_modules
}

# The operations tracegate calls, per forge (METHOD and the spec's path).
TG_GITHUB_OPS=(
	'GET /user'
	'GET /repos/{owner}/{repo}'
	'GET /repos/{owner}/{repo}/pulls/{pull_number}'
	'GET /repos/{owner}/{repo}/commits/{ref}'
	'GET /repos/{owner}/{repo}/collaborators/{username}/permission'
	'GET /repos/{owner}/{repo}/actions/runs/{run_id}'
	'POST /repos/{owner}/{repo}/statuses/{sha}'
	'GET /repos/{owner}/{repo}/issues/{issue_number}/comments'
	'POST /repos/{owner}/{repo}/issues/{issue_number}/comments'
	'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}'
	'GET /repos/{owner}/{repo}/issues/{issue_number}/labels'
	'GET /repos/{owner}/{repo}/issues/{issue_number}/events'
	'GET /repos/{owner}/{repo}/commits/{ref}/check-runs'
	'POST /repos/{owner}/{repo}/check-runs'
	'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}'
)
TG_GITLAB_OPS=(
	'GET /api/v4/user'
	'GET /api/v4/projects/{id}'
	'POST /api/v4/projects/{id}/statuses/{sha}'
	'GET /api/v4/projects/{id}/merge_requests/{merge_request_iid}'
	'GET /api/v4/projects/{id}/pipelines/{pipeline_id}'
	'GET /api/v4/projects/{id}/merge_requests/{merge_request_iid}/notes'
	'POST /api/v4/projects/{id}/merge_requests/{merge_request_iid}/notes'
	'PUT /api/v4/projects/{id}/merge_requests/{merge_request_iid}/notes/{note_id}'
)
TG_GITEA_OPS=(
	'GET /user'
	'GET /repos/{owner}/{repo}'
	'GET /repos/{owner}/{repo}/pulls/{index}'
	'POST /repos/{owner}/{repo}/statuses/{sha}'
	'GET /repos/{owner}/{repo}/issues/{index}/comments'
	'POST /repos/{owner}/{repo}/issues/{index}/comments'
	'PATCH /repos/{owner}/{repo}/issues/comments/{id}'
	'GET /repos/{owner}/{repo}/issues/{index}/labels'
)

# Gaps filled (docs/forges.md says why):
TG_GITLAB_FIXES=(
	# merge-request notes are not in openapi_v2.yaml: written from GitLab's docs
	"--merge=$TG_FORGES_DIR/gitlab-mr-notes.json"
	# the spec says 200; GitLab answers 201 Created
	'--set=/paths/~1api~1v4~1projects~1{id}~1statuses~1{sha}/post/responses/201={"description":"Created (what GitLab answers)","content":{"application/json":{"schema":{"$ref":"#/components/schemas/API_Entities_CommitStatus"}}}}'
	# typed as a string; GitLab sends an array of label names
	'--set=/components/schemas/API_Entities_MergeRequest/properties/labels={"type":"array","items":{"type":"string"}}'
	# typed as strings; GitLab sends the access and notification levels as numbers
	# (10 Guest ... 50 Owner), and a null group_access for a project outside a group
	'--set=/components/schemas/API_Entities_ProjectAccess/properties={"access_level":{"type":"integer"},"notification_level":{"type":"integer"}}'
	'--set=/components/schemas/API_Entities_ProjectWithAccess/properties/permissions/properties/group_access={"nullable":true,"allOf":[{"$ref":"#/components/schemas/API_Entities_GroupAccess"}]}'
	'--set=/components/schemas/API_Entities_GroupAccess/properties={"access_level":{"type":"integer"},"notification_level":{"type":"integer"}}'
)
TG_GITEA_FIXES=(
	--fold-basepath
	# a free string in the spec; Gitea's Go source has these words
	'--set=/definitions/CommitStatusState={"type":"string","enum":["pending","success","error","failure","warning"]}'
	# paging parameters the client sends (checked as integers)
	'--set=/paths/~1api~1v1~1repos~1{owner}~1{repo}~1issues~1{index}~1comments/get/parameters/-={"name":"page","in":"query","type":"integer","minimum":1}'
	'--set=/paths/~1api~1v1~1repos~1{owner}~1{repo}~1issues~1{index}~1comments/get/parameters/-={"name":"limit","in":"query","type":"integer","minimum":1}'
	'--set=/paths/~1api~1v1~1repos~1{owner}~1{repo}~1issues~1{index}~1labels/get/parameters/-={"name":"page","in":"query","type":"integer","minimum":1}'
	'--set=/paths/~1api~1v1~1repos~1{owner}~1{repo}~1issues~1{index}~1labels/get/parameters/-={"name":"limit","in":"query","type":"integer","minimum":1}'
)

tg_forges_specs() {
	local key sub=$TG_FORGES_DIR/subset-spec.js
	key=$( { cat "$sub" "$TG_FORGES_DIR/gitlab-mr-notes.json" "${BASH_SOURCE[0]}"; echo "$TG_FORGES_PKGS";
		ls -l "$TG_SHARED/specs" 2>/dev/null; } | sha256sum | cut -c1-16)
	TG_FORGES_SPECS=$TG_CACHE/forge-specs/$key
	[ -f "$TG_FORGES_SPECS/.done" ] && return 0
	mkdir -p "$TG_FORGES_SPECS" || return 1
	local gh=$TG_FORGES_NPM/node_modules/@octokit/openapi/generated/api.github.com.json pids=() p rc=0
	node "$sub" "$gh" "$TG_FORGES_SPECS/github.json" --vnd-alias "${TG_GITHUB_OPS[@]}" & pids+=($!)
	if [ -d "$TG_SHARED/specs" ]; then
		node "$sub" "$TG_SHARED/specs/gitlab-openapi_v2-converted-to-openapi3.yaml.gz" "$TG_FORGES_SPECS/gitlab.json" \
			"${TG_GITLAB_FIXES[@]}" "${TG_GITLAB_OPS[@]}" & pids+=($!)
		node "$sub" "$TG_SHARED/specs/gitea-1.15-swagger.v1.json.gz" "$TG_FORGES_SPECS/gitea.json" \
			"${TG_GITEA_FIXES[@]}" "${TG_GITEA_OPS[@]}" & pids+=($!)
		node "$sub" "$TG_SHARED/specs/forgejo-11.0.3-swagger.v1.json.gz" "$TG_FORGES_SPECS/forgejo.json" \
			"${TG_GITEA_FIXES[@]}" "${TG_GITEA_OPS[@]}" & pids+=($!)
	fi
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	[ $rc -eq 0 ] && touch "$TG_FORGES_SPECS/.done"
	return $rc
}

# Two distinct free ports into the named variables.
tg_forge_ports() {
	local a b
	a=$(tg_free_port) || return 1
	for _ in 1 2 3 4 5; do
		b=$(tg_free_port) || return 1
		[ "$b" != "$a" ] && break
	done
	printf -v "$1" '%s' "$a"
	printf -v "$2" '%s' "$b"
}

tg_forge_start() { # NAME KIND SPEC TOKEN PAGE_MAX LINK
	local name=$1 kind=$2 spec=$3 token=$4 pmax=$5 link=$6 fp pp
	tg_forge_ports fp pp || return 1
	printf -v "TG_FORGE_FAKE_$name" '%s' "$fp"
	printf -v "TG_FORGE_PROXY_$name" '%s' "$pp"
	FAKE_TOKEN=$token FAKE_PAGE_MAX=$pmax FAKE_LINK=$link FAKE_SPEC=$spec \
		tg_start "fake-$name" node "$TG_FORGES_DIR/fake-forge.js" "$kind" "$fp" "http://127.0.0.1:$pp" >/dev/null
	# --errors: invalid requests are refused (422/400) instead of forwarded, and
	# answers of the fake that break the description become 500s
	tg_start "prism-$name" "$TG_FORGES_NPM/node_modules/.bin/prism" proxy -h 127.0.0.1 -p "$pp" --errors \
		"$spec" "http://127.0.0.1:$fp" >/dev/null
}

tg_forge_wait() { # NAME SECONDS
	local fp pp
	fp=TG_FORGE_FAKE_$1
	pp=TG_FORGE_PROXY_$1
	tg_wait_port "${!fp}" "$2" "$(cat "$TG_RUN/fake-$1.pid")" &&
		tg_wait_port "${!pp}" "$2" "$(cat "$TG_RUN/prism-$1.pid")"
}

tg_forge_ensure() { # NAME SECONDS KIND SPEC TOKEN PAGE_MAX LINK
	local name=$1 t=$2 try
	shift 2
	for try in 1 2 3; do
		tg_forge_wait "$name" "$t" && return 0
		tg_log "$name: the fake or prism did not come up (try $try):"
		tail -3 "$TG_RUN/fake-$name.log" "$TG_RUN/prism-$name.log" 2>/dev/null | sed 's/^/#   /' >&2
		tg_stop "prism-$name"
		tg_stop "fake-$name"
		[ "$try" -lt 3 ] && { tg_forge_start "$name" "$@" || return 1; }
	done
	return 1
}
