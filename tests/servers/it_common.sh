# it_common.sh - the opening the daemon's integration tests share, sourced
# by tests/it_*.sh (bash; from the repository root, the suite's arguments
# still in "$@") after their `exec bash` line:
#   tg      the tracegate binary ($1), as an absolute path
#   gen     the trace generator ($TG_GEN, default build/tg-gen), absolute
#   top     the repository root
#   upload  contrib/ci/tracegate-upload.sh, as CI jobs call it
#   lib.sh  sourced (servers on loopback, tg_stop_all)
#   git     git with a fixed author and main as the default branch
# and tg_it_run_folder NAME, the folder of one run of the suite.
set -u
tg=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
gen=${TG_GEN:-build/tg-gen}
gen=$(cd "$(dirname "$gen")" && pwd)/$(basename "$gen")
top=$(pwd)
upload=$top/contrib/ci/tracegate-upload.sh
. "$top/tests/servers/lib.sh"

git() { command git -c user.name=tester -c user.email=tester@tracegate.invalid -c init.defaultBranch=main "$@"; }

# tg_it_run_folder NAME: TG_RUN (exported) is a new folder under $TMPDIR,
# the current directory from now on; at exit the servers stop
# (tg_stop_all) and the folder is removed, or kept and named when TG_KEEP
# is set. A suite with more to clean up sets its own trap after this.
tg_it_run_folder() {
	TG_RUN=$(mktemp -d "${TMPDIR:-/tmp}/tg-$1.XXXXXX") || exit 1
	export TG_RUN
	trap 'tg_stop_all; [ -n "${TG_KEEP:-}" ] && echo "# kept $TG_RUN" || rm -rf "$TG_RUN"' EXIT
	cd "$TG_RUN" || exit 1
}

# tg_it_up COMMIT BRANCH RUN TRACE [PR] [WORKLOAD]: uploads TRACE as run
# RUN of acme/llm (workload train unless given) into the local storage/
# folder with contrib/ci/tracegate-upload.sh, as a CI job does; with PR,
# as that pull request into main. What the script says on stderr (its
# warning about an unsigned branch run) goes to upload.log.
tg_it_up() {
	mkdir -p "u-$3" && cp "$4" "u-$3/rank0.pt.trace.json.gz"
	"$upload" --dest storage --repo acme/llm --commit "$1" --branch "$2" ${5:+--pr $5 --target-branch main} \
		--workload "${6:-train}" --run-id "$3" "u-$3/rank0.pt.trace.json.gz" >/dev/null 2>>upload.log
}

# tg_it_once: one pass of the daemon over tracegate.yaml (--once), its
# output appended to out.log and daemon.log.
tg_it_once() { "$tg" daemon --config tracegate.yaml --once >>out.log 2>>daemon.log; }
