/*
 * connect.c - the daemon's connections to its rooms, made from the
 * configuration (daemon_impl.h): the job store, the artifact storage and
 * the forges, at start (daemon.c) and again in a job's child process
 * (budget.c, tg_daemon_reopen), which must not share a connection with the
 * daemon.
 */
#include "daemon_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void http_opts(tg_http_opts *h, const tg_config *c, int tls_verify, const char *ca_file)
{
	memset(h, 0, sizeof(*h));
	h->ca_file = ca_file;
	h->insecure = !tls_verify;
	h->timeout_ms = (long)c->http_timeout_ms;
	h->connect_timeout_ms = (long)c->http_connect_timeout_ms;
	h->max_attempts = c->http_retries;
	h->backoff_ms = (long)c->http_backoff_ms;
	h->max_wait_ms = (long)c->http_max_wait_ms;
}

int tg_daemon_open_storage(tg_daemon *d)
{
	const tg_config_storage *s = &d->cfg->storage;
	if (s->local)
		return tg_storage_local_new(&d->storage, s->local);
	tg_s3_opts o;
	memset(&o, 0, sizeof(o));
	o.endpoint = s->s3_endpoint;
	o.bucket = s->s3_bucket;
	o.region = s->s3_region;
	o.access_key = s->s3_access_key.value;
	o.secret_key = s->s3_secret_key.value;
	http_opts(&o.http, d->cfg, s->tls_verify, s->ca_file);
	return tg_storage_s3_new(&d->storage, &o, s->s3_prefix);
}

int tg_daemon_open_forges(tg_daemon *d)
{
	const tg_config *c = d->cfg;
	d->forges = tg_calloc(c->nforges ? c->nforges : 1, sizeof(tg_forge *));
	if (!d->forges)
		return TG_ENOMEM;
	for (size_t i = 0; i < c->nforges; i++) {
		const tg_config_forge *f = &c->forges[i];
		tg_forge_opts o;
		memset(&o, 0, sizeof(o));
		int rc = tg_forge_kind_parse(&o.kind, f->kind);
		if (rc)
			return tg_error_set(rc, "%s: forge %s: unknown kind '%s'", c->path, f->name, f->kind);
		o.name = f->name;
		o.api_url = f->api_url;
		o.token = f->token.value;
		o.outbox_dir = f->outbox;
		o.outbox_echo = d->o.outbox_echo;
		o.check_runs = f->check_runs;
		http_opts(&o.http, c, f->tls_verify, f->ca_file);
		if ((rc = tg_forge_new(&d->forges[i], &o)))
			return tg_error_set(rc, "forge %s: %s", f->name, tg_error_last());
	}
	return 0;
}

/* The job store the configuration names: "sqlite:<path>" or PostgreSQL's
 * URL. */
int tg_daemon_open_store(tg_daemon *d)
{
	const tg_config *cfg = d->cfg;
	char *sq = NULL;
	if (cfg->sqlite && asprintf(&sq, "sqlite:%s", cfg->sqlite) < 0)
		return tg_error_set(TG_ENOMEM, "out of memory");
	int rc = tg_store_open(&d->store, sq ? sq : cfg->postgresql.value);
	free(sq);
	return rc;
}

int tg_daemon_reopen(tg_daemon *d)
{
	d->daemons.store = d->store;
	d->daemons.storage = d->storage;
	d->daemons.forges = d->forges;
	d->store = NULL;
	d->storage = NULL;
	d->forges = NULL;
	int rc = tg_daemon_open_store(d);
	if (!rc && d->cfg->storage.signing_key.value)
		tg_store_set_trusted_only(d->store, 1);
	if (!rc)
		rc = tg_daemon_open_storage(d);
	if (!rc)
		rc = tg_daemon_open_forges(d);
	return rc;
}
