/*
 * config_forges.c - the `forges` and `repositories` lists of the
 * configuration: each item's keys, the keys that depend on a forge's kind,
 * unique names, and every repository's reference to a defined forge.
 */
#include "config_forges_impl.h"
#include "config_secret_impl.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ shared */

void tg_config_forge_clear(tg_config_forge *f)
{
	free(f->name);
	free(f->kind);
	free(f->api_url);
	tg_config_secret_clear(&f->token);
	free(f->ca_file);
	free(f->outbox);
	memset(f, 0, sizeof(*f));
}

void tg_config_repo_clear(tg_config_repo *r)
{
	free(r->name);
	free(r->forge);
	free(r->clone_url);
	tg_config_secret_clear(&r->git_token);
	tg_config_strings_free(r->target_branches, r->ntarget_branches);
	free(r->rules);
	tg_config_strings_free(r->workloads, r->nworkloads);
	free(r->status_context);
	free(r->details_url);
	tg_config_strings_free(r->ci_url_prefixes, r->nci_url_prefixes);
	memset(r, 0, sizeof(*r));
}

static int name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
	       c == '-';
}

/* The items of the list n (key names it), which must not be empty. */
static int list_of(const tg_config_loader *L, const yaml_node_t *n, const char *key, const char *what,
                   size_t *count)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return tg_yaml_error(&L->y, n, "%s: expected a list of %s, got %s", key, what, tg_yaml_kind(n));
	*count = tg_yaml_len(n);
	if (!*count)
		return tg_yaml_error(&L->y, n, "%s: empty list (at least one %s is needed)", key,
		                     !strcmp(what, "forges") ? "forge" : "repository");
	return 0;
}

/* ------------------------------------------------------------ forges */

enum { F_NAME, F_KIND, F_API_URL, F_TOKEN, F_CHECK_RUNS, F_TLS_VERIFY, F_CA_FILE, F_OUTBOX, NF };

static const char *const forge_keys[NF] = {"name",       "kind",       "api_url", "token",
                                           "check_runs", "tls_verify", "ca_file", "outbox"};

enum { K_GITHUB, K_GITLAB, K_GITEA, K_FORGEJO, K_OUTBOX, NK };

static const char *const kinds[NK] = {"github", "gitlab", "gitea", "forgejo", "outbox"};

/* A forge's name: [A-Za-z0-9._-]+, unique among the forges before it. */
static int forge_name(const tg_config_loader *L, const yaml_node_t *n, const char *where, tg_config_forge *f,
                      const tg_config_forge *prev, size_t nprev)
{
	char key[160];
	int rc;
	tg_config_keypath(key, sizeof(key), where, "name", 0);
	if ((rc = tg_config_string(&f->name, L, n, key, 0)))
		return rc;
	for (const char *p = f->name; *p; p++)
		if (!name_char(*p))
			return tg_yaml_error(&L->y, n,
			                     "%s: '%s' is not a valid forge name (letters, digits, '.', '_', '-')", key,
			                     TG_YAML_SHOW(f->name));
	for (size_t i = 0; i < nprev; i++)
		if (!strcmp(prev[i].name, f->name))
			return tg_yaml_error(&L->y, n, "%s: duplicate forge name '%s' (first at line %d)", key, f->name,
			                     prev[i].line);
	return 0;
}

/* Keys given for a kind they do not apply to. */
static int not_for_kind(const tg_config_loader *L, const char *where, int kind, const yaml_node_t **kn)
{
	for (int i = F_API_URL; i < NF; i++) {
		if (!kn[i])
			continue;
		if (kind == K_OUTBOX && i != F_OUTBOX)
			return tg_yaml_error(&L->y, kn[i], "%s: '%s' does not apply to kind outbox", where,
			                     forge_keys[i]);
		if (kind != K_OUTBOX && i == F_OUTBOX)
			return tg_yaml_error(&L->y, kn[i], "%s: 'outbox' applies only to kind outbox", where);
		if (kind != K_GITHUB && i == F_CHECK_RUNS)
			return tg_yaml_error(&L->y, kn[i], "%s: 'check_runs' applies only to kind github", where);
	}
	return 0;
}

/* An http:// or https:// URL. */
static int url(const tg_config_loader *L, const yaml_node_t *n, const char *key, char **out)
{
	int rc;
	if ((rc = tg_config_string(out, L, n, key, 0)))
		return rc;
	const char *host = !strncmp(*out, "https://", 8) ? *out + 8 : !strncmp(*out, "http://", 7) ? *out + 7 : NULL;
	if (!host || !*host || *host == '/')
		return tg_yaml_error(&L->y, n, "%s: '%s' is not an http:// or https:// URL", key, TG_YAML_SHOW(*out));
	return 0;
}

/* 1 when the http:// URL u names a loopback host (127.0.0.0/8, ::1,
 * localhost): a token sent there in clear does not cross a network. */
static int loopback(const char *u)
{
	const char *h = u + 7, *end = h + strcspn(h, "/?#");
	const char *at = memchr(h, '@', (size_t)(end - h));
	if (at)
		h = at + 1;
	size_t n = (size_t)(end - h);
	if (n && *h == '[')
		return n >= 5 && !strncmp(h, "[::1]", 5) && (n == 5 || h[5] == ':');
	size_t hl = strcspn(h, ":/?#");
	if (hl > n)
		hl = n;
	if (hl == 9 && !strncasecmp(h, "localhost", 9))
		return 1;
	unsigned a, b, c, d;
	char tail;
	char ip[64];
	if (hl >= sizeof(ip))
		return 0;
	memcpy(ip, h, hl);
	ip[hl] = 0;
	return sscanf(ip, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) == 4 && a == 127 && b < 256 && c < 256 && d < 256;
}

static int load_forge(const tg_config_loader *L, const yaml_node_t *map, const char *where, tg_config_forge *f,
                      const tg_config_forge *prev, size_t nprev)
{
	const yaml_node_t *kn[NF], *v[NF];
	char key[160];
	int rc, kind = 0;
	f->line = (int)map->start_mark.line + 1;
	f->tls_verify = 1;
	if ((rc = tg_config_mapping(L, map, where, 0)))
		return rc;
	if ((rc = tg_yaml_fields(kn, v, &L->y, map, where, forge_keys, NF, 0)))
		return rc;
	if (!v[F_NAME])
		return tg_yaml_error(&L->y, map, "%s: missing 'name'", where);
	if ((rc = forge_name(L, v[F_NAME], where, f, prev, nprev)))
		return rc;
	if (!v[F_KIND])
		return tg_yaml_error(&L->y, map, "%s: missing 'kind' (github, gitlab, gitea, forgejo or outbox)",
		                     where);
	if ((rc = tg_yaml_keyword(&kind, &L->y, v[F_KIND], tg_config_keypath(key, sizeof(key), where, "kind", 0),
	                          "a kind", "kind", kinds, NK)))
		return rc;
	if (!(f->kind = strdup(kind == K_FORGEJO ? "gitea" : kinds[kind])))
		return tg_error_set(TG_ENOMEM, "out of memory");
	if ((rc = not_for_kind(L, where, kind, kn)))
		return rc;
	if (kind == K_OUTBOX) {
		if (!v[F_OUTBOX])
			return tg_yaml_error(&L->y, map, "%s: missing 'outbox' (the folder of an outbox forge)", where);
		return tg_config_path(&f->outbox, L, v[F_OUTBOX],
		                      tg_config_keypath(key, sizeof(key), where, "outbox", 0));
	}
	if (!v[F_API_URL])
		return tg_yaml_error(&L->y, map, "%s: missing 'api_url' (required for kind %s)", where, kinds[kind]);
	if (!v[F_TOKEN])
		return tg_yaml_error(&L->y, map, "%s: missing 'token' (required for kind %s)", where, kinds[kind]);
	if ((rc = url(L, v[F_API_URL], tg_config_keypath(key, sizeof(key), where, "api_url", 0), &f->api_url)))
		return rc;
	if (!strncmp(f->api_url, "http://", 7) && !loopback(f->api_url))
		return tg_yaml_error(
			&L->y, v[F_API_URL],
			"%s: '%s' would send the token in clear: use https:// (http:// only to 127.0.0.1, ::1 "
			"or localhost)",
			key, TG_YAML_SHOW(f->api_url));
	if (v[F_CHECK_RUNS] && (rc = tg_yaml_bool(&f->check_runs, &L->y, v[F_CHECK_RUNS],
	                                          tg_config_keypath(key, sizeof(key), where, "check_runs", 0))))
		return rc;
	if (v[F_TLS_VERIFY] && (rc = tg_yaml_bool(&f->tls_verify, &L->y, v[F_TLS_VERIFY],
	                                          tg_config_keypath(key, sizeof(key), where, "tls_verify", 0))))
		return rc;
	if (v[F_CA_FILE] && (rc = tg_config_path(&f->ca_file, L, v[F_CA_FILE],
	                                         tg_config_keypath(key, sizeof(key), where, "ca_file", 0))))
		return rc;
	return tg_config_secret_load(&f->token, L, v[F_TOKEN], tg_config_keypath(key, sizeof(key), where, "token", 0));
}

int tg_config_forges_load(const tg_config_loader *L, const yaml_node_t *n, tg_config *c)
{
	size_t count;
	int rc;
	if ((rc = list_of(L, n, "forges", "forges", &count)))
		return rc;
	if (!(c->forges = tg_calloc(count, sizeof(*c->forges))))
		return TG_ENOMEM;
	for (size_t i = 0; i < count; i++) {
		char where[32];
		c->nforges = i + 1; /* zeroed forges are safe to free */
		tg_config_keypath(where, sizeof(where), "forges", NULL, (long)i);
		if ((rc = load_forge(L, tg_yaml_item(&L->y, n, i), where, &c->forges[i], c->forges, i)))
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------------ repositories */

enum {
	R_NAME,
	R_FORGE,
	R_CLONE_URL,
	R_GIT_TOKEN,
	R_TARGET_BRANCHES,
	R_RULES,
	R_WORKLOADS,
	R_BASELINE_DEPTH,
	R_STATUS_CONTEXT,
	R_DETAILS_URL,
	R_CI_URL_PREFIXES,
	R_ACCEPT_TRAILERS,
	R_RUNS_PER_COMMIT,
	R_ON_UNJUDGED,
	NR
};

static const char *const repo_keys[NR] = {"name",      "forge",          "clone_url",      "git_token",
                                          "target_branches", "rules",   "workloads",      "baseline_depth",
                                          "status_context",  "details_url", "ci_url_prefixes", "accept_trailers",
                                          "runs_per_commit", "on_unjudged"};

/* owner/repo: two or more segments of [A-Za-z0-9._-] (GitLab groups nest),
 * none "." or ".." (the name is a path in the artifact storage). */
static int valid_repo_name(const char *s)
{
	int segments = 0;
	while (*s) {
		const char *seg = s;
		while (*s && name_char(*s))
			s++;
		size_t len = (size_t)(s - seg);
		if (!len || (len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
			return 0;
		segments++;
		if (*s == '/' && s[1])
			s++;
		else if (*s)
			return 0;
	}
	return segments >= 2;
}

/* A details_url template: only {repo}, {commit}, {workload}, {run_id}. */
static int details_url(const tg_config_loader *L, const yaml_node_t *n, const char *key, char **out)
{
	static const char *const names[] = {"{repo}", "{commit}", "{workload}", "{run_id}"};
	int rc;
	if ((rc = tg_config_string(out, L, n, key, 0)))
		return rc;
	for (const char *p = strchr(*out, '{'); p; p = strchr(p + 1, '{')) {
		const char *end = strchr(p, '}');
		if (!end)
			return tg_yaml_error(&L->y, n, "%s: '{' without a closing '}'", key);
		size_t len = (size_t)(end - p) + 1, i = 0;
		while (i < 4 && !(strlen(names[i]) == len && !strncmp(p, names[i], len)))
			i++;
		if (i == 4) {
			char ph[64];
			snprintf(ph, sizeof(ph), "%.*s", len < 40 ? (int)len : 40, p);
			return tg_yaml_error(&L->y, n,
			                     "%s: unknown placeholder '%s' (expected {repo}, {commit}, {workload}, "
			                     "{run_id})",
			                     key, TG_YAML_SHOW(ph));
		}
	}
	return 0;
}

/* The repository's forge: one of c->forges by name. */
static int repo_forge(const tg_config_loader *L, const yaml_node_t *n, const char *where, tg_config_repo *r,
                      const tg_config *c)
{
	char key[160], list[256];
	size_t len = 0;
	int rc;
	tg_config_keypath(key, sizeof(key), where, "forge", 0);
	if ((rc = tg_config_string(&r->forge, L, n, key, 0)))
		return rc;
	for (size_t i = 0; i < c->nforges; i++)
		if (!strcmp(c->forges[i].name, r->forge)) {
			r->forge_ptr = &c->forges[i];
			return 0;
		}
	list[0] = 0;
	for (size_t i = 0; i < c->nforges && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", c->forges[i].name);
	return tg_yaml_error(&L->y, n, "%s: no forge named '%s' (defined: %s)", key, TG_YAML_SHOW(r->forge), list);
}

/* The repository's name: present, owner/repo, not one of the nprev before it. */
static int repo_name(const tg_config_loader *L, const yaml_node_t *map, const yaml_node_t *n, const char *where,
                     tg_config_repo *r, const tg_config *c, size_t nprev)
{
	char key[160];
	int rc;
	if (!n)
		return tg_yaml_error(&L->y, map, "%s: missing 'name' (owner/repo)", where);
	tg_config_keypath(key, sizeof(key), where, "name", 0);
	if ((rc = tg_config_string(&r->name, L, n, key, 0)))
		return rc;
	if (!valid_repo_name(r->name))
		return tg_yaml_error(&L->y, n,
		                     "%s: '%s' is not owner/repo (segments of letters, digits, '.', '_', "
		                     "'-'; not . or ..)",
		                     key, TG_YAML_SHOW(r->name));
	for (size_t i = 0; i < nprev; i++)
		if (!strcmp(c->repos[i].name, r->name))
			return tg_yaml_error(&L->y, n, "%s: duplicate repository '%s' (first at line %d)", key, r->name,
			                     c->repos[i].line);
	return 0;
}

/* target_branches (n), or [main] when absent (n NULL). */
static int repo_target_branches(const tg_config_loader *L, const yaml_node_t *n, const char *where, tg_config_repo *r)
{
	char key[160];
	if (n)
		return tg_config_strings(&r->target_branches, &r->ntarget_branches, L, n,
		                         tg_config_keypath(key, sizeof(key), where, "target_branches", 0), "branch");
	if (!(r->target_branches = tg_calloc(1, sizeof(char *))) || !(r->target_branches[0] = strdup("main"))) {
		free(r->target_branches);
		r->target_branches = NULL;
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	r->ntarget_branches = 1;
	return 0;
}

/* runs_per_commit (1-8) and baseline_depth (1-10000), each when present. */
static int repo_counts(const tg_config_loader *L, const yaml_node_t *runs_n, const yaml_node_t *depth_n,
                       const char *where, tg_config_repo *r)
{
	char key[160];
	uint64_t v;
	int rc;
	if (runs_n) {
		if ((rc = tg_config_uint(&v, L, runs_n,
		                         tg_config_keypath(key, sizeof(key), where, "runs_per_commit", 0), 1, 8)))
			return rc;
		r->runs_per_commit = (int)v;
	}
	if (depth_n) {
		if ((rc = tg_config_uint(&v, L, depth_n,
		                         tg_config_keypath(key, sizeof(key), where, "baseline_depth", 0), 1, 10000)))
			return rc;
		r->baseline_depth = (int)v;
	}
	return 0;
}

/* ci_url_prefixes: each https://HOST/..., so that a prefix ends at a path
 * ("https://ci.example" would let "https://ci.example.evil/" through). */
static int repo_ci_url_prefixes(const tg_config_loader *L, const yaml_node_t *n, const char *where, tg_config_repo *r)
{
	char key[160];
	int rc;
	tg_config_keypath(key, sizeof(key), where, "ci_url_prefixes", 0);
	if ((rc = tg_config_strings(&r->ci_url_prefixes, &r->nci_url_prefixes, L, n, key, "prefix")))
		return rc;
	for (size_t i = 0; i < r->nci_url_prefixes; i++) {
		const char *p = r->ci_url_prefixes[i];
		const char *host = !strncmp(p, "https://", 8) ? p + 8 : NULL;
		if (!host || !strchr(host, '/') || strchr(host, '@'))
			return tg_yaml_error(&L->y, n,
			                     "%s: '%s' must be https://HOST/... (a host and "
			                     "a path, no userinfo)",
			                     key, TG_YAML_SHOW(p));
	}
	return 0;
}

static int load_repo(const tg_config_loader *L, const yaml_node_t *map, const char *where, tg_config_repo *r,
                     const tg_config *c, size_t nprev)
{
	const yaml_node_t *kn[NR], *v[NR];
	char key[160];
	int rc;
	r->line = (int)map->start_mark.line + 1;
	r->baseline_depth = 50;
	r->runs_per_commit = 1;
	if ((rc = tg_config_mapping(L, map, where, 0)))
		return rc;
	if ((rc = tg_yaml_fields(kn, v, &L->y, map, where, repo_keys, NR, 0)))
		return rc;
	if ((rc = repo_name(L, map, v[R_NAME], where, r, c, nprev)))
		return rc;
	if (!v[R_FORGE])
		return tg_yaml_error(&L->y, map, "%s: missing 'forge' (the name of one of the forges)", where);
	if ((rc = repo_forge(L, v[R_FORGE], where, r, c)))
		return rc;
	if (!v[R_CLONE_URL])
		return tg_yaml_error(&L->y, map, "%s: missing 'clone_url'", where);
	if ((rc = tg_config_string(&r->clone_url, L, v[R_CLONE_URL],
	                           tg_config_keypath(key, sizeof(key), where, "clone_url", 0), 0)))
		return rc;
	if ((rc = repo_target_branches(L, v[R_TARGET_BRANCHES], where, r)))
		return rc;
	if (v[R_RULES] &&
	    (rc = tg_config_path(&r->rules, L, v[R_RULES], tg_config_keypath(key, sizeof(key), where, "rules", 0))))
		return rc;
	if (v[R_WORKLOADS] &&
	    (rc = tg_config_strings(&r->workloads, &r->nworkloads, L, v[R_WORKLOADS],
	                            tg_config_keypath(key, sizeof(key), where, "workloads", 0), "workload")))
		return rc;
	if ((rc = repo_counts(L, v[R_RUNS_PER_COMMIT], v[R_BASELINE_DEPTH], where, r)))
		return rc;
	if (v[R_STATUS_CONTEXT])
		rc = tg_config_string(&r->status_context, L, v[R_STATUS_CONTEXT],
		                      tg_config_keypath(key, sizeof(key), where, "status_context", 0), 0);
	else if (!(r->status_context = strdup("tracegate")))
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	if (rc)
		return rc;
	if (v[R_DETAILS_URL] &&
	    (rc = details_url(L, v[R_DETAILS_URL], tg_config_keypath(key, sizeof(key), where, "details_url", 0),
	                      &r->details_url)))
		return rc;
	if (v[R_CI_URL_PREFIXES] && (rc = repo_ci_url_prefixes(L, v[R_CI_URL_PREFIXES], where, r)))
		return rc;
	if (v[R_ACCEPT_TRAILERS] &&
	    (rc = tg_yaml_bool(&r->accept_trailers, &L->y, v[R_ACCEPT_TRAILERS],
	                       tg_config_keypath(key, sizeof(key), where, "accept_trailers", 0))))
		return rc;
	if (v[R_ON_UNJUDGED] && (rc = tg_config_on_unjudged_load(L, v[R_ON_UNJUDGED], where, r)))
		return rc;
	if (v[R_GIT_TOKEN])
		return tg_config_secret_load(&r->git_token, L, v[R_GIT_TOKEN],
		                             tg_config_keypath(key, sizeof(key), where, "git_token", 0));
	return 0;
}

int tg_config_repos_load(const tg_config_loader *L, const yaml_node_t *n, tg_config *c)
{
	size_t count;
	int rc;
	if ((rc = list_of(L, n, "repositories", "repositories", &count)))
		return rc;
	if (!(c->repos = tg_calloc(count, sizeof(*c->repos))))
		return TG_ENOMEM;
	for (size_t i = 0; i < count; i++) {
		char where[40];
		c->nrepos = i + 1;
		tg_config_keypath(where, sizeof(where), "repositories", NULL, (long)i);
		if ((rc = load_repo(L, tg_yaml_item(&L->y, n, i), where, &c->repos[i], c, i)))
			return rc;
	}
	return 0;
}
