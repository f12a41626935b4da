/*
 * cmd_daemon.c - `tracegate daemon --config FILE [--once | --check
 * [--offline]]`: --once and --check exclude each other and --offline goes
 * with --check, as the option table says (TG_OPT_EXCLUSIVE, TG_OPT_NEEDS).
 */
#include "../rules/rules.h"
#include "cli.h"
#include "commands.h"
#include "../daemon/daemon.h"
#include "../util/log.h"

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct daemon_args {
	char *config;
	int once, check, offline;
};

static const tg_opt_spec daemon_opts[] = {
	{TG_OPT_VALUE, "config", 0, "FILE", offsetof(struct daemon_args, config), NULL, NULL,
	 TG_OPT_REQUIRED | TG_OPT_IN_USAGE, "the configuration (docs/daemon.md)", NULL},
	{TG_OPT_SWITCH, "once", 0, NULL, offsetof(struct daemon_args, once), NULL, NULL, TG_OPT_IN_USAGE,
	 "handle what is in storage now, then exit", NULL},
	{TG_OPT_SWITCH, "check", 0, NULL, offsetof(struct daemon_args, check), NULL, NULL, TG_OPT_IN_USAGE,
	 "validate the configuration and every rules file, then try what the daemon talks to: the database, the "
	 "storage listing, each repository's forge (who the token is, and that it may post statuses) and git "
	 "remote; one line per check, then exit (not with --once)",
	 NULL},
	{TG_OPT_SWITCH, "offline", 0, NULL, offsetof(struct daemon_args, offline), NULL, NULL, TG_OPT_IN_USAGE,
	 "with --check: the files only, no connection (the systemd unit's ExecStartPre: the network may not be up "
	 "yet)",
	 NULL},
	{.kind = TG_OPT_EXCLUSIVE, .name = "once check"},
	{.kind = TG_OPT_NEEDS, .name = "offline check"},
	{.kind = TG_OPT_END},
};

const tg_opt_command tg_cmd_daemon_opts = {
	"daemon", NULL,
	"Watches the artifact storage named in the configuration, analyses every new run, compares it with its "
	"baseline, judges it with the repository's rules and posts the verdict to the forge (a commit status and "
	"one pull-request comment); every run's numbers go to the history (tracegate history).",
	"Exit codes: 0 success, 1 the daemon cannot start (the job store, the state folder or the storage folder "
	"unreachable, another daemon on the state folder; with --check: an endpoint unreachable or a token "
	"refused), 2 usage or configuration error. Once started, it keeps running through faults (storage, store "
	"or forge unreachable, disk full) and retries.",
	daemon_opts};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* --check: the configuration and each repository's rules load; unless
 * offline, what the daemon talks to answers (check.c). */
static int check(const tg_config *c, int offline)
{
	for (size_t i = 0; i < c->nrepos; i++) {
		if (!c->repos[i].rules)
			continue;
		tg_rules *r;
		if (tg_rules_load_file(&r, c->repos[i].rules)) {
			/* where the file is named (the config's line and key), then
			 * what is wrong with it (its own file:line:column) */
			tg_cli_error("%s:%d: repositories[%zu].rules (%s): %s", c->path, c->repos[i].line, i,
			             c->repos[i].name, tg_error_last());
			return TG_EXIT_USAGE;
		}
		tg_rules_free(r);
	}
	if (!offline) {
		printf("%s: connectivity:\n", c->path);
		char failed[512];
		int nf = tg_daemon_check_connect(stdout, failed, sizeof(failed), c);
		fflush(stdout);
		if (nf) {
			tg_cli_error("%s: %d connectivity check%s failed: %s", c->path, nf, nf == 1 ? "" : "s", failed);
			return 1;
		}
	}
	printf("%s: ok: %s storage, %s store, %zu forge%s, %zu repositor%s\n", c->path,
	       c->storage.local ? "local" : "s3", c->sqlite ? "sqlite" : "postgresql", c->nforges,
	       c->nforges == 1 ? "" : "s", c->nrepos, c->nrepos == 1 ? "y" : "ies");
	return TG_EXIT_OK;
}

int tg_cmd_daemon(int argc, char **argv)
{
	struct daemon_args a = {0};
	int exit_code;
	if (tg_opt_parse_cli(&exit_code, &tg_cmd_daemon_opts, &a, argc, argv))
		return exit_code;
	const char *config = a.config;
	int once = a.once, check_only = a.check, offline = a.offline;
	tg_config *cfg;
	if (tg_config_load_file(&cfg, config)) {
		tg_cli_error("%s", tg_error_last());
		return TG_EXIT_USAGE;
	}
	if (check_only) {
		int rc = check(cfg, offline);
		tg_config_free(cfg);
		return rc;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* a file-size limit (ulimit -f, systemd's LimitFSIZE=) must make a
	 * write fail with EFBIG, reported like a full disk, not kill the daemon */
	signal(SIGXFSZ, SIG_IGN);
	tg_daemon_opts o = {once, &stop_flag, stdout};
	tg_daemon *d;
	int nrc = tg_daemon_new(&d, cfg, &o);
	if (nrc) {
		/* the store, the state folder or the storage folder unreachable is
		 * not a usage error: 1, so that a service manager starts the
		 * daemon again later (systemd: Restart=on-failure) */
		tg_cli_error("%s", tg_error_last());
		return nrc == TG_EIO ? 1 : TG_EXIT_USAGE;
	}
	int rc = tg_daemon_run(d);
	if (rc)
		tg_log(TG_LOG_ERROR, "stopping: %s", tg_error_last());
	else if (stop_flag)
		tg_log(TG_LOG_INFO, "stopped by a signal");
	tg_daemon_free(d);
	return rc ? 1 : TG_EXIT_OK;
}
