/*
 * forge.c - the forge interface: kinds and states by name, the client's
 * life cycle, dispatch to the backend, the upsert of the one comment (with
 * its no-duplicate rule), and the text rules every backend shares
 * (descriptions cut at a UTF-8 boundary, marker lines).
 */
#include "forge_impl.h"
#include "../../core/tg.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"github", "gitlab", "gitea", "outbox"};

const char *tg_forge_kind_name(tg_forge_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "unknown";
}

int tg_forge_kind_parse(tg_forge_kind *out, const char *s)
{
	if (s) {
		for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++) {
			if (!strcmp(s, kind_names[i])) {
				*out = (tg_forge_kind)i;
				return 0;
			}
		}
		if (!strcmp(s, "forgejo")) {
			*out = TG_FORGE_GITEA;
			return 0;
		}
	}
	return tg_error_set(TG_EINVAL, "forge kind '%s' is not one of github, gitlab, gitea, forgejo, outbox",
	                    s ? s : "");
}

const char *tg_forge_state_name(tg_forge_state s)
{
	switch (s) {
	case TG_FORGE_PENDING: return "pending";
	case TG_FORGE_SUCCESS: return "success";
	case TG_FORGE_FAILURE: return "failure";
	case TG_FORGE_ERROR: return "error";
	}
	return "unknown";
}

/* ------------------------------------------------------------------ text */

/* Length of the valid UTF-8 sequence at p (n bytes available), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	unsigned cp = c & (0x3f >> (len - 1));
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int tg_forge_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t k = utf8_seq(p + i, len - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

size_t tg_forge_description_limit(tg_forge_kind kind)
{
	switch (kind) {
	case TG_FORGE_GITLAB: return 255;  /* ci_builds.description is a varchar(255) */
	case TG_FORGE_GITEA: return 255;   /* no documented limit; kept short like the others */
	case TG_FORGE_GITHUB:
	case TG_FORGE_OUTBOX: return 140;  /* GitHub's documented limit; the outbox shows what GitHub would */
	}
	return 140;
}

char *tg_forge_trim_description(const char *s, size_t max_chars)
{
	if (!s)
		s = "";
	size_t n = strlen(s);
	/* one line and valid UTF-8: a sanitised copy (never longer than s) */
	char *clean = tg_malloc(n + 1);
	if (!clean)
		return NULL;
	const unsigned char *p = (const unsigned char *)s;
	size_t k = 0, chars = 0;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_seq(p + i, n - i);
		if (!len) {
			clean[k++] = '?';
			i++;
		} else if (len == 1 && (p[i] < 0x20 || p[i] == 0x7f)) {
			clean[k++] = ' ';
			i++;
		} else {
			memcpy(clean + k, p + i, len);
			k += len;
			i += len;
		}
		chars++;
	}
	clean[k] = 0;
	if (chars <= max_chars)
		return clean;
	/* keep max_chars - 3 code points, then "..." */
	size_t keep = max_chars > 3 ? max_chars - 3 : 0, at = 0;
	for (size_t c = 0; c < keep; c++)
		at += utf8_seq((const unsigned char *)clean + at, k - at);
	while (at > 0 && clean[at - 1] == ' ')
		at--;
	if (max_chars < 3) {
		clean[0] = 0;
		return clean;
	}
	memcpy(clean + at, "...", 4);
	return clean;
}

char *tg_forge_cut_utf8(const char *s, size_t max_bytes)
{
	size_t n = strlen(s);
	if (n > max_bytes) {
		n = max_bytes;
		/* back off continuation bytes, then drop a lead byte whose sequence is cut */
		size_t i = n;
		while (i > 0 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
			i--;
		if (i > 0 && (unsigned char)s[i - 1] >= 0xc0) {
			size_t len = utf8_seq((const unsigned char *)s + i - 1, strlen(s) - (i - 1));
			if (!len || i - 1 + len > n)
				n = i - 1;
		}
	}
	char *o = tg_malloc(n + 1);
	if (!o)
		return NULL;
	memcpy(o, s, n);
	o[n] = 0;
	return o;
}

int tg_forge_has_marker_line(const char *body, const char *marker)
{
	size_t ml = strlen(marker);
	if (!body || !ml)
		return 0;
	for (const char *line = body; line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *a = line, *b = line + len;
		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
			b--;
		if ((size_t)(b - a) == ml && !memcmp(a, marker, ml))
			return 1;
		line = end ? end + 1 : NULL;
	}
	return 0;
}

/* ------------------------------------------------------------ life cycle */

static char *dup_or_null(const char *s, int *oom)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*oom = 1;
	return d;
}

static char *printf_dup(int *oom, const char *fmt, const char *a)
{
	size_t n = strlen(fmt) + strlen(a) + 1;
	char *s = malloc(n);
	if (!s) {
		*oom = 1;
		return NULL;
	}
	snprintf(s, n, fmt, a);
	return s;
}

int tg_forge_new(tg_forge **out, const tg_forge_opts *o)
{
	*out = NULL;
	if (!o || (unsigned)o->kind > TG_FORGE_OUTBOX)
		return tg_error_set(TG_EINVAL, "forge: no options or an unknown kind");
	const char *name = o->name && *o->name ? o->name : tg_forge_kind_name(o->kind);
	if (o->kind == TG_FORGE_OUTBOX) {
		if (!o->outbox_dir || !*o->outbox_dir)
			return tg_error_set(TG_EINVAL, "%s: an outbox forge needs a folder", name);
	} else {
		if (!o->api_url || !*o->api_url)
			return tg_error_set(TG_EINVAL, "%s: no api_url", name);
		if (strncmp(o->api_url, "https://", 8) && strncmp(o->api_url, "http://", 7))
			return tg_error_set(TG_EINVAL, "%s: api_url must start with https:// or http://", name);
		if (!o->token || !*o->token)
			return tg_error_set(TG_EINVAL, "%s: no token", name);
		if (strpbrk(o->token, "\r\n"))
			return tg_error_set(TG_EINVAL, "%s: the token has a line break", name);
	}
	tg_forge *f = tg_calloc(1, sizeof(*f));
	if (!f)
		return TG_ENOMEM;
	int oom = 0;
	f->kind = o->kind;
	f->check_runs = o->check_runs;
	f->outbox_echo = o->outbox_echo;
	f->name = dup_or_null(name, &oom);
	f->outbox_dir = dup_or_null(o->outbox_dir, &oom);
	f->token = dup_or_null(o->token, &oom);
	if (o->api_url) {
		f->api = dup_or_null(o->api_url, &oom);
		for (size_t n = f->api ? strlen(f->api) : 0; n > 0 && f->api[n - 1] == '/'; n--)
			f->api[n - 1] = 0;
	}
	size_t h = 0;
	switch (o->kind) {
	case TG_FORGE_GITHUB:
		f->ops = &tg_forge_github_ops;
		f->headers[h++] = "Accept: application/vnd.github+json";
		f->headers[h++] = "X-GitHub-Api-Version: 2022-11-28";
		f->auth_header = printf_dup(&oom, "Authorization: Bearer %s", o->token);
		break;
	case TG_FORGE_GITLAB:
		f->ops = &tg_forge_gitlab_ops;
		f->headers[h++] = "Accept: application/json";
		f->auth_header = printf_dup(&oom, "PRIVATE-TOKEN: %s", o->token);
		break;
	case TG_FORGE_GITEA:
		f->ops = &tg_forge_gitea_ops;
		f->headers[h++] = "Accept: application/json";
		f->auth_header = printf_dup(&oom, "Authorization: token %s", o->token);
		break;
	case TG_FORGE_OUTBOX:
		f->ops = &tg_forge_outbox_ops;
		break;
	}
	if (f->auth_header)
		f->headers[h++] = f->auth_header;
	f->headers[h] = NULL;
	for (size_t i = 0; i < h; i++)
		f->headers_json[i] = f->headers[i];
	f->headers_json[h] = "Content-Type: application/json";
	f->headers_json[h + 1] = NULL;
	if (oom) {
		tg_forge_free(f);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	if (o->kind != TG_FORGE_OUTBOX) {
		int rc = tg_http_new(&f->http, &o->http);
		if (rc) {
			tg_forge_free(f);
			return rc;
		}
	}
	*out = f;
	return 0;
}

static void wipe_free(char *s)
{
	if (!s)
		return;
	volatile char *v = s;
	while (*v)
		*v++ = 0;
	free(s);
}

void tg_forge_free(tg_forge *f)
{
	if (!f)
		return;
	tg_http_free(f->http);
	wipe_free(f->token);
	wipe_free(f->auth_header);
	free(f->name);
	free(f->api);
	free(f->outbox_dir);
	free(f);
}

tg_forge_kind tg_forge_get_kind(const tg_forge *f)
{
	return f->kind;
}

/* --------------------------------------------------------------- calls */

static int repo_ok(const tg_forge *f, const char *repo)
{
	if (!repo || !*repo || !strchr(repo, '/') || strlen(repo) > 512)
		return tg_error_set(TG_EINVAL, "%s: repository '%s' is not owner/name", f->name, repo ? repo : "");
	return 0;
}

int tg_forge_post_status(tg_forge *f, const tg_forge_status *s)
{
	if (!s)
		return tg_error_set(TG_EINVAL, "%s: no status", f->name);
	int rc = repo_ok(f, s->repo);
	if (rc)
		return rc;
	if (!s->sha || !*s->sha || strlen(s->sha) > 64 || strspn(s->sha, "0123456789abcdefABCDEF") != strlen(s->sha))
		return tg_error_set(TG_EINVAL, "%s: '%s' is not a commit id", f->name, s->sha ? s->sha : "");
	if ((unsigned)s->state > TG_FORGE_ERROR)
		return tg_error_set(TG_EINVAL, "%s: unknown status state %d", f->name, (int)s->state);
	if (!s->context || !*s->context || !tg_forge_utf8_valid(s->context, strlen(s->context)))
		return tg_error_set(TG_EINVAL, "%s: a status needs a context (UTF-8)", f->name);
	if (s->target_url && !tg_forge_utf8_valid(s->target_url, strlen(s->target_url)))
		return tg_error_set(TG_EINVAL, "%s: target_url is not UTF-8", f->name);
	return f->ops->post_status(f, s);
}

static int comment_ok(const tg_forge *f, const tg_forge_comment *c)
{
	int rc;
	if (!c)
		return tg_error_set(TG_EINVAL, "%s: no comment", f->name);
	if ((rc = repo_ok(f, c->repo)))
		return rc;
	if (c->pr <= 0)
		return tg_error_set(TG_EINVAL, "%s: %s: pull request number %lld", f->name, c->repo, (long long)c->pr);
	if (!c->marker || !*c->marker || strpbrk(c->marker, "\r\n"))
		return tg_error_set(TG_EINVAL, "%s: the comment marker must be one non-empty line", f->name);
	if (!c->body)
		return tg_error_set(TG_EINVAL, "%s: no comment body", f->name);
	size_t n = strlen(c->body);
	if (n > TG_FORGE_MAX_BODY)
		return tg_error_set(TG_EINVAL, "%s: %s#%lld: the comment has %zu bytes, more than %u", f->name, c->repo,
		                    (long long)c->pr, n, TG_FORGE_MAX_BODY);
	if (!tg_forge_utf8_valid(c->body, n) || !tg_forge_utf8_valid(c->marker, strlen(c->marker)))
		return tg_error_set(TG_EINVAL, "%s: %s#%lld: the comment is not valid UTF-8", f->name, c->repo,
		                    (long long)c->pr);
	if (!tg_forge_has_marker_line(c->body, c->marker))
		return tg_error_set(TG_EINVAL, "%s: %s#%lld: the comment body lacks its marker line %s", f->name, c->repo,
		                    (long long)c->pr, c->marker);
	return 0;
}

int tg_forge_upsert_comment(int64_t *id, int *created, tg_forge *f, const tg_forge_comment *c)
{
	if (id)
		*id = 0;
	if (created)
		*created = 0;
	int rc = comment_ok(f, c);
	if (rc)
		return rc;
	int64_t found = 0;
	if ((rc = f->ops->find_comment(f, c, &found)))
		return rc;
	if (found) {
		rc = f->ops->update_comment(f, c, found);
		if (rc != TG_ENOTFOUND) {
			if (!rc && id)
				*id = found;
			return rc;
		}
		found = 0; /* deleted since the search: make a new one */
	}
	/* Create; when that may have taken effect, look before the one more try. */
	for (int attempt = 0; attempt < 2; attempt++) {
		int64_t nid = 0;
		int ambiguous = 0;
		rc = f->ops->create_comment(f, c, &nid, &ambiguous);
		if (!rc) {
			found = nid;
			break;
		}
		if (!ambiguous || attempt == 1)
			return rc;
		char why[1024];
		snprintf(why, sizeof(why), "%s", tg_error_last());
		int rc2 = f->ops->find_comment(f, c, &found);
		if (rc2)
			return tg_error_set(rc2, "%s (after a create that may have worked: %s)", tg_error_last(), why);
		if (found)
			break; /* the ambiguous create did work */
	}
	if (id)
		*id = found;
	if (created)
		*created = 1;
	return 0;
}

void tg_forge_pr_clear(tg_forge_pr *p)
{
	free(p->base);
	memset(p, 0, sizeof(*p));
}

int tg_forge_pr_get(tg_forge_pr *out, tg_forge *f, const char *repo, int64_t pr)
{
	memset(out, 0, sizeof(*out));
	int rc = repo_ok(f, repo);
	if (rc)
		return rc;
	if (pr <= 0)
		return tg_error_set(TG_EINVAL, "%s: %s: pull request number %lld", f->name, repo, (long long)pr);
	if (!f->ops->pr_get)
		return tg_error_set(TG_EINVAL, "%s: a %s forge cannot tell what pull request %s#%lld is", f->name,
		                    tg_forge_kind_name(f->kind), repo, (long long)pr);
	rc = f->ops->pr_get(f, repo, pr, out);
	if (rc)
		tg_forge_pr_clear(out);
	return rc;
}

int tg_forge_author_can_write(char **login, int *can, tg_forge *f, const char *repo, const char *sha)
{
	*login = NULL;
	*can = 0;
	int rc = repo_ok(f, repo);
	if (rc)
		return rc;
	if (!f->ops->author_can_write)
		return tg_error_set(TG_EINVAL, "%s: a %s forge cannot tell who may write to %s", f->name,
		                    tg_forge_kind_name(f->kind), repo);
	size_t n = 0;
	while (sha && ((sha[n] >= '0' && sha[n] <= '9') || (sha[n] >= 'a' && sha[n] <= 'f')))
		n++;
	if (!sha || n != 40 || sha[n])
		return tg_error_set(TG_EINVAL, "%s: not a commit: %.48s", f->name, sha ? sha : "(null)");
	rc = f->ops->author_can_write(f, repo, sha, login, can);
	if (rc) {
		free(*login);
		*login = NULL;
		*can = 0;
	}
	return rc;
}

int tg_forge_pr_labels(tg_forge_label **out, size_t *n, tg_forge *f, const char *repo, int64_t pr)
{
	*out = NULL;
	*n = 0;
	int rc = repo_ok(f, repo);
	if (rc)
		return rc;
	if (pr <= 0)
		return tg_error_set(TG_EINVAL, "%s: %s: pull request number %lld", f->name, repo, (long long)pr);
	rc = f->ops->labels(f, repo, pr, out, n);
	if (rc) {
		tg_forge_labels_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

void tg_forge_labels_free(tg_forge_label *l, size_t n)
{
	for (size_t i = 0; l && i < n; i++) {
		free(l[i].name);
		free(l[i].by);
	}
	free(l);
}
