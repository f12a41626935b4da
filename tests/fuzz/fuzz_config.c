/*
 * fuzz_config.c - libFuzzer target for the configuration loader (config/)
 * and its duration and size parsers.
 *
 * Input: the YAML text, given to tg_config_load_mem. Secrets resolve: the
 * variable TG_FUZZ_SECRET is set, and relative paths are resolved against
 * a temporary folder that holds the secret file "token", so that the seeds
 * in tests/fuzz/corpus/config/ ({env: TG_FUZZ_SECRET}, {file: token}) load
 * completely. The same input, as a C string, also goes through
 * tg_config_parse_duration and tg_config_parse_size.
 *
 * Beyond the sanitizers, the target aborts when the library breaks one of
 * its documented promises:
 *   - a failure returns TG_EFORMAT, TG_EIO, TG_EINVAL or TG_ENOMEM, leaves
 *     *out NULL, and one message line that starts with the input's name;
 *   - no message holds a secret's value (unless the input itself does);
 *   - a loaded configuration is complete: one storage, one database, at
 *     least one forge and one repository, every forge with what its kind
 *     needs, unique names, every repository's forge_ptr its named forge,
 *     the values in their documented ranges.
 *
 * Build and run: make fuzz FUZZ_TARGETS=config FUZZ_SECONDS=60
 * (build-fuzz/fuzz_config).
 */
#include "../../config/config.h"
#include "../../util/tg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME "<fuzz>"
#define ENV_SECRET "env-secret-of-the-fuzzer-7f3a"
#define FILE_SECRET "file-secret-of-the-fuzzer-91c2"

#define CHECK(cond)                                                                       \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "fuzz_config: %s:%d: broken promise: %s\n", __FILE__, \
			        __LINE__, #cond);                                                 \
			abort();                                                          \
		}                                                                         \
	} while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void) { return "print_stacktrace=1"; }

static char dir[] = "/tmp/tg-fuzz-config-XXXXXX";
static char token_path[64];

static void cleanup(void)
{
	unlink(token_path);
	rmdir(dir);
}

/* The secret variable and the folder with the secret file. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("TG_FUZZ_SECRET", ENV_SECRET, 1);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(token_path, sizeof(token_path), "%s/token", dir);
	FILE *f = fopen(token_path, "w");
	CHECK(f != NULL);
	fputs(FILE_SECRET "\n", f);
	fclose(f);
	atexit(cleanup);
	return 0;
}

static int contains(const uint8_t *data, size_t size, const char *s)
{
	return memmem(data, size, s, strlen(s)) != NULL;
}

static void check_error(int rc, const uint8_t *data, size_t size)
{
	const char *msg = tg_error_last();
	CHECK(rc == TG_EFORMAT || rc == TG_EIO || rc == TG_EINVAL || rc == TG_ENOMEM);
	CHECK(tg_error_last_code() == rc);
	CHECK(strncmp(msg, NAME ":", strlen(NAME ":")) == 0);
	CHECK(strchr(msg, '\n') == NULL && strchr(msg, '\r') == NULL);
	if (!contains(data, size, ENV_SECRET))
		CHECK(strstr(msg, ENV_SECRET) == NULL);
	if (!contains(data, size, FILE_SECRET))
		CHECK(strstr(msg, FILE_SECRET) == NULL);
}

static int is_secret_value(const char *v) { return v && (!strcmp(v, ENV_SECRET) || !strcmp(v, FILE_SECRET)); }

static void check_secret(const tg_config_secret *s, int present)
{
	if (!present) {
		CHECK(!s->env && !s->file && !s->value);
		return;
	}
	CHECK((s->env != NULL) != (s->file != NULL));
	CHECK(s->value && *s->value && !strpbrk(s->value, "\r\n"));
	if (s->file && !strcmp(s->file, token_path))
		CHECK(!strcmp(s->value, FILE_SECRET));
	if (s->env && !strcmp(s->env, "TG_FUZZ_SECRET"))
		CHECK(is_secret_value(s->value));
}

static void check_config(const tg_config *c)
{
	static const char *const kinds[] = {"github", "gitlab", "gitea", "outbox"};
	const tg_config_storage *s = &c->storage;
	CHECK(!strcmp(c->path, NAME));
	CHECK((s->local != NULL) != (s->s3_endpoint != NULL));
	if (s->local)
		CHECK(*s->local && !s->s3_bucket && !s->s3_prefix && !s->s3_region);
	else
		CHECK(s->s3_bucket && *s->s3_bucket && s->s3_prefix && s->s3_region && *s->s3_region);
	check_secret(&s->s3_access_key, s->s3_endpoint != NULL);
	check_secret(&s->s3_secret_key, s->s3_endpoint != NULL);
	CHECK(s->tls_verify == 0 || s->tls_verify == 1);
	CHECK(s->poll_interval_ms > 0);
	CHECK((c->sqlite != NULL) != (c->postgresql.value != NULL));
	check_secret(&c->postgresql, c->sqlite == NULL);

	CHECK(c->nforges >= 1 && c->forges);
	for (size_t i = 0; i < c->nforges; i++) {
		const tg_config_forge *f = &c->forges[i];
		size_t k = 0;
		while (k < 4 && strcmp(f->kind, kinds[k]))
			k++;
		CHECK(k < 4);
		CHECK(f->name && *f->name && f->line >= 1);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(c->forges[j].name, f->name));
		int outbox = k == 3;
		CHECK(outbox == (f->outbox != NULL));
		CHECK(outbox == (f->api_url == NULL));
		check_secret(&f->token, !outbox);
		CHECK(!f->check_runs || k == 0);
		CHECK(f->tls_verify == 0 || f->tls_verify == 1);
	}
	CHECK(c->nrepos >= 1 && c->repos);
	for (size_t i = 0; i < c->nrepos; i++) {
		const tg_config_repo *r = &c->repos[i];
		CHECK(r->name && strchr(r->name, '/') && r->line >= 1);
		CHECK(tg_config_find_repo(c, r->name) == r);
		CHECK(r->forge_ptr >= c->forges && r->forge_ptr < c->forges + c->nforges);
		CHECK(!strcmp(r->forge_ptr->name, r->forge));
		CHECK(r->clone_url && *r->clone_url);
		CHECK(r->ntarget_branches >= 1 && r->target_branches);
		for (size_t j = 0; j < r->ntarget_branches; j++)
			CHECK(r->target_branches[j] && *r->target_branches[j]);
		CHECK((r->workloads == NULL) == (r->nworkloads == 0));
		CHECK(r->baseline_depth >= 1 && r->baseline_depth <= 10000);
		CHECK(r->status_context && *r->status_context);
		if (r->git_token.env || r->git_token.file)
			check_secret(&r->git_token, 1);
	}
	CHECK(c->state_dir && c->tmp_dir && c->log_level);
	CHECK(c->lease_ms > 0 && c->max_attempts >= 1 && c->history_points >= 1);
	CHECK(c->max_trace_bytes > 0 && c->max_ratio >= 1 && c->max_manifest_bytes > 0);
	CHECK(c->max_traces >= 1 && c->max_comment_bytes > 0);
	CHECK(c->http_timeout_ms > 0 && c->http_connect_timeout_ms > 0 && c->http_backoff_ms > 0);
	CHECK(c->http_max_wait_ms > 0 && c->http_retries >= 1);
	CHECK(c->retention_runs_ms >= 0);
}

/* The input as a duration and as a size. */
static void check_values(const uint8_t *data, size_t size)
{
	char s[128];
	if (size >= sizeof(s))
		return;
	memcpy(s, data, size);
	s[size] = 0;
	int64_t ms = -1;
	uint64_t bytes;
	int rc = tg_config_parse_duration(&ms, s);
	if (rc == 0)
		CHECK(ms >= 0);
	else
		CHECK(rc == TG_EINVAL && tg_error_last()[0] == '\'');
	rc = tg_config_parse_size(&bytes, s);
	if (rc)
		CHECK(rc == TG_EINVAL && tg_error_last()[0] == '\'');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_values(data, size);
	tg_config *c = (tg_config *)1;
	int rc = tg_config_load_mem(&c, (const char *)data, size, NAME, dir);
	if (rc) {
		CHECK(c == NULL);
		check_error(rc, data, size);
		return 0;
	}
	CHECK(c != NULL);
	check_config(c);
	tg_config_free(c);
	return 0;
}
