/*
 * git.c - a repository's history for the baseline search, with libgit2 on a
 * bare mirror (see git.h). The mirror is cloned into "<mirror>.tmp" and
 * renamed into place, so that a clone killed halfway never looks like a
 * mirror; the next open removes the leftover and clones again.
 *
 * Secrets: a token (opts or the URL's userinfo) reaches libgit2 only through
 * the credentials callback. libgit2 is given http(s) URLs without userinfo,
 * so neither its messages nor the mirror's config hold the token, and every
 * message is scrubbed of the secrets once more before it is set.
 */
#include "git_impl.h"
#include "../../util/tg.h"
#include "../../util/util.h"

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define REMOTE "origin"

/* Branches, tags and the forges' pull/merge-request heads, each to the same
 * name in the mirror. A source with no such refs (a plain git server has no
 * refs/pull/) matches nothing; that is not an error. */
static const char *const REFSPECS[] = {
	"+refs/heads/*:refs/heads/*",
	"+refs/tags/*:refs/tags/*",
	"+refs/pull/*/head:refs/pull/*/head",
	"+refs/merge-requests/*/head:refs/merge-requests/*/head",
};
#define NREFSPECS (sizeof(REFSPECS) / sizeof(REFSPECS[0]))

/* ------------------------------------------------------------ library */

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static int lib_rc;

/* libgit2 is initialised once per process and never shut down: other
 * threads may hold repositories at any time. */
static void lib_init(void)
{
	lib_rc = git_libgit2_init();
	if (lib_rc >= 0)
		git_libgit2_opts(GIT_OPT_SET_USER_AGENT, "tracegate/" TG_VERSION);
}

int tg_git_init(void)
{
	pthread_once(&lib_once, lib_init);
	return lib_rc < 0 ? tg_error_set(TG_EIO, "libgit2 init: %s", tg_git_errmsg()) : 0;
}

static pthread_mutex_t ca_lock = PTHREAD_MUTEX_INITIALIZER;
static char *ca_current;

/* Points libgit2's TLS at ca_file (process-wide in libgit2: the last file
 * given wins for every mirror). */
static int set_ca_file(const char *ca_file)
{
	int rc = 0;
	pthread_mutex_lock(&ca_lock);
	if (!ca_current || strcmp(ca_current, ca_file) != 0) {
		char *copy = strdup(ca_file);
		if (!copy) {
			rc = tg_error_set(TG_ENOMEM, "out of memory");
		} else if (git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, ca_file, NULL) < 0) {
			const git_error *e = git_error_last();
			rc = tg_error_set(TG_EIO, "ca_file %s: %s", ca_file,
			                  e && e->message ? e->message : "cannot be loaded");
			free(copy);
		} else {
			free(ca_current);
			ca_current = copy;
		}
	}
	pthread_mutex_unlock(&ca_lock);
	return rc;
}

/* ------------------------------------------------------------ messages */

const char *tg_git_errmsg(void)
{
	const git_error *e = git_error_last();
	return e && e->message && *e->message ? e->message : "unknown libgit2 error";
}

int tg_git_errcode(int err)
{
	const git_error *e = git_error_last();
	if (err == GIT_ENOTFOUND)
		return TG_ENOTFOUND;
	if (e && e->klass == GIT_ERROR_NOMEMORY)
		return TG_ENOMEM;
	return TG_EIO;
}

/* Replaces every occurrence of secret in buf (of size cap) with "***". */
static void scrub(char *buf, size_t cap, const char *secret)
{
	if (!secret || !*secret)
		return;
	size_t sl = strlen(secret);
	char *p = buf;
	while ((p = strstr(p, secret)) != NULL) {
		size_t at = (size_t)(p - buf);
		if (cap - at < 4) { /* no room for the stars: cut the message here */
			*p = '\0';
			break;
		}
		size_t tail = strlen(p + sl) + 1, room = cap - at - 3;
		if (tail > room)
			tail = room;
		memmove(p + 3, p + sl, tail);
		p[3 + tail - 1] = '\0';
		memcpy(p, "***", 3);
		p += 3;
	}
}

int tg_git_fail(const tg_git *g, int code, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (g) {
		scrub(buf, sizeof(buf), g->secret);
		scrub(buf, sizeof(buf), g->url_secret);
	}
	size_t len = strlen(buf);
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t')
			buf[i] = ' ';
	while (len && buf[len - 1] == ' ')
		buf[--len] = '\0';
	return tg_error_set(code, "%s", buf);
}

/* ------------------------------------------------------------ URLs */

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/* A copy of the n bytes at s with %XX decoded. */
static char *pct_decode(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) &&
		    isxdigit((unsigned char)s[i + 2])) {
			*o++ = (char)(hexval((unsigned char)s[i + 1]) * 16 + hexval((unsigned char)s[i + 2]));
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

/* Fills g->url, g->shown_url and, for http(s) userinfo, g->user and
 * g->secret (unless opts gave a token) and g->url_secret. */
static int url_split(tg_git *g, const char *url)
{
	const char *sep = strstr(url, "://");
	const char *auth = sep ? sep + 3 : NULL;
	const char *at = NULL;
	if (auth) {
		size_t alen = strcspn(auth, "/?#");
		for (const char *p = auth; p < auth + alen; p++)
			if (*p == '@')
				at = p;
	}
	if (!at) {
		g->url = strdup(url);
		g->shown_url = strdup(url);
		return g->url && g->shown_url ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	}
	size_t scheme_len = (size_t)(auth - url);
	size_t len = scheme_len + strlen(at + 1);
	g->shown_url = malloc(len + 1);
	if (!g->shown_url)
		return tg_error_set(TG_ENOMEM, "out of memory");
	memcpy(g->shown_url, url, scheme_len);
	strcpy(g->shown_url + scheme_len, at + 1);

	int http = !strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8);
	g->url = strdup(http ? g->shown_url : url);
	if (!g->url)
		return tg_error_set(TG_ENOMEM, "out of memory");

	/* the password, or for http(s) a user alone (a token as the user) */
	const char *colon = memchr(auth, ':', (size_t)(at - auth));
	const char *raw_secret = colon ? colon + 1 : http ? auth : at;
	size_t raw_len = (size_t)(at - raw_secret);
	if (raw_len) {
		g->url_secret = strndup(raw_secret, raw_len);
		if (!g->url_secret)
			return tg_error_set(TG_ENOMEM, "out of memory");
	}
	if (http && !g->secret) {
		size_t ulen = colon ? (size_t)(colon - auth) : (size_t)(at - auth);
		g->user = pct_decode(auth, ulen);
		g->secret = colon ? pct_decode(colon + 1, (size_t)(at - colon - 1)) : strdup("");
		if (!g->user || !g->secret)
			return tg_error_set(TG_ENOMEM, "out of memory");
	}
	return 0;
}

/* The folder a local clone URL names (a path, or file://PATH), or NULL
 * for a remote one (scheme://, or scp-like host:path). */
static const char *local_path_of(const char *url)
{
	if (!strncasecmp(url, "file://", 7))
		return url + 7;
	if (strstr(url, "://"))
		return NULL;
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');
	if (colon && (!slash || colon < slash))
		return NULL; /* git@host:owner/repo.git */
	return url;
}

/* TG_EIO with "git URL: no such repository" when url is a local path
 * that does not exist (libgit2 says "unsupported URL protocol" for a plain
 * path it cannot find), else 0. */
static int check_local(const tg_git *g)
{
	const char *path = local_path_of(g->url);
	struct stat st;
	if (!path || !stat(path, &st) || errno != ENOENT)
		return 0;
	return tg_git_fail(g, TG_EIO, "git %s: no such repository (%s does not exist)", g->shown_url, path);
}

/* ------------------------------------------------------------ callbacks */

/* Basic auth for http(s): the token once per network call; a second ask
 * means the server refused it. */
static int cred_cb(git_credential **out, const char *url, const char *user_from_url,
                   unsigned int allowed, void *payload)
{
	(void)url;
	(void)user_from_url;
	tg_git *g = payload;
	if (!(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT))
		return GIT_PASSTHROUGH;
	if (!g->secret) {
		git_error_set_str(GIT_ERROR_NET, "the server asks for credentials and no token is configured");
		return GIT_EAUTH;
	}
	if (g->cred_tries++ > 0) {
		git_error_set_str(GIT_ERROR_NET, "authentication refused (check the token)");
		return GIT_EAUTH;
	}
	return git_credential_userpass_plaintext_new(out, g->user, g->secret);
}

/* TLS: libgit2's verdict stands unless the mirror is insecure (tests). */
static int cert_cb(git_cert *cert, int valid, const char *host, void *payload)
{
	(void)cert;
	(void)valid;
	(void)host;
	const tg_git *g = payload;
	return g->insecure ? 0 : GIT_PASSTHROUGH;
}

static void fetch_opts_init(tg_git *g, git_fetch_options *fo)
{
	git_fetch_options_init(fo, GIT_FETCH_OPTIONS_VERSION);
	fo->callbacks.credentials = cred_cb;
	fo->callbacks.certificate_check = cert_cb;
	fo->callbacks.payload = g;
	fo->prune = GIT_FETCH_PRUNE;
	fo->update_fetchhead = 0;
	fo->download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE; /* the tags refspec fetches them all */
	fo->proxy_opts.type = GIT_PROXY_AUTO;               /* http.proxy, https_proxy, no_proxy */
	g->cred_tries = 0;
}

/* libgit2 1.5 leaks pcre2 match data (~20 KiB) for every config entry that
 * an insteadOf scan does not match (fixed in 1.6, libgit2 #6382), and
 * git_remote_lookup and remote creation scan: remotes are therefore made
 * with GIT_REMOTE_CREATE_SKIP_INSTEADOF, and fetches use an anonymous one. */
static int remote_new(git_remote **out, git_repository *repo, const char *name, const char *url,
                      const char *fetchspec)
{
	git_remote_create_options o;
	git_remote_create_options_init(&o, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	o.repository = repo;
	o.name = name;
	o.fetchspec = fetchspec;
	o.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	return git_remote_create_with_opts(out, url, &o);
}

/* The clone's "origin", with the branches' refspec: the clone fetches the
 * branches, and mirror_fetch the rest before the clone is moved into
 * place. (The other refspecs stay out of the config: git_remote_add_fetch
 * matches a regex against each refspec already there, and leaks.) */
static int create_origin(git_remote **out, git_repository *repo, const char *name, const char *url,
                         void *payload)
{
	(void)payload;
	return remote_new(out, repo, name, url, REFSPECS[0]);
}

/* Fetches every refspec of the mirror into repo from g->url, pruning. */
static int mirror_fetch(tg_git *g, git_repository *repo)
{
	git_remote *remote = NULL;
	git_fetch_options fo;
	fetch_opts_init(g, &fo);
	git_strarray specs = {(char **)REFSPECS, NREFSPECS};
	int err = remote_new(&remote, repo, NULL, g->url, NULL);
	if (!err)
		err = git_remote_fetch(remote, &specs, &fo, "tracegate: fetch");
	git_remote_free(remote);
	if (err < 0)
		return tg_git_fail(g, tg_git_errcode(err) == TG_ENOMEM ? TG_ENOMEM : TG_EIO, "fetch from %s: %s",
		                   g->shown_url, tg_git_errmsg());
	return 0;
}

/* ------------------------------------------------------------ files */

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* rm -rf path (absent is fine). */
static int rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* mkdir -p of the folder that holds path (util.h; mode 0777, the umask
 * applies). 0, or -1 with errno set. */
static int mkdir_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return 0;
	char *dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -1;
	int rc = tg_util_mkdir_p(NULL, 0, dir, 0777);
	int e = errno;
	free(dir);
	errno = e;
	return rc;
}

/* ------------------------------------------------------------ open */

/* Makes a fresh clone look like `git clone --mirror`: HEAD on the source's
 * default branch rather than an unborn one, no refs/remotes/ (the clone
 * points refs/remotes/origin/HEAD at it). Cosmetic: errors are ignored. */
static void tidy_head(git_repository *repo)
{
	git_reference *ref = NULL;
	if (git_reference_lookup(&ref, repo, "refs/remotes/" REMOTE "/HEAD") < 0)
		return;
	if (git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC)
		git_repository_set_head(repo, git_reference_symbolic_target(ref));
	git_reference_delete(ref);
	git_reference_free(ref);
}

/* Clones into "<mirror>.tmp" (removing a leftover first) and renames. */
static int clone_mirror(tg_git *g)
{
	size_t len = strlen(g->path);
	char *tmp = malloc(len + 5);
	if (!tmp)
		return tg_error_set(TG_ENOMEM, "out of memory");
	memcpy(tmp, g->path, len);
	memcpy(tmp + len, ".tmp", 5);
	int rc = 0;
	git_repository *repo = NULL;
	if (rm_rf(tmp) != 0) {
		rc = tg_git_fail(g, TG_EIO, "cannot remove the interrupted clone %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (mkdir_parent(g->path) != 0) {
		rc = tg_git_fail(g, TG_EIO, "cannot create the folder of mirror %s: %s", g->path, strerror(errno));
		goto out;
	}
	if ((rc = check_local(g)))
		goto out;
	git_clone_options co;
	git_clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
	co.bare = 1;
	co.remote_cb = create_origin;
	fetch_opts_init(g, &co.fetch_opts);
	int err = git_clone(&repo, g->url, tmp, &co);
	if (err < 0) {
		rc = tg_git_fail(g, TG_EIO, "clone of %s: %s", g->shown_url, tg_git_errmsg());
		git_repository_free(repo);
		repo = NULL;
		rm_rf(tmp);
		goto out;
	}
	rc = mirror_fetch(g, repo);
	tidy_head(repo);
	git_repository_free(repo);
	repo = NULL;
	if (rc) {
		rm_rf(tmp);
		goto out;
	}
	if (rename(tmp, g->path) != 0) {
		rc = tg_git_fail(g, TG_EIO, "cannot move the clone of %s to %s: %s", g->shown_url, g->path,
		                 strerror(errno));
		rm_rf(tmp);
	}
out:
	free(tmp);
	return rc;
}

/* Opens the mirror at g->path and points its origin at g->url (the URL
 * may have changed in the configuration since the clone). */
static int open_mirror(tg_git *g)
{
	if (git_repository_open_bare(&g->repo, g->path) < 0)
		return tg_git_fail(g, TG_EIO, "mirror %s of %s: %s", g->path, g->shown_url, tg_git_errmsg());
	git_config *cfg = NULL;
	git_buf cur = {0};
	int err = git_repository_config(&cfg, g->repo);
	if (!err) {
		int got = git_config_get_string_buf(&cur, cfg, "remote." REMOTE ".url");
		if (got == GIT_ENOTFOUND || (!got && strcmp(cur.ptr, g->url) != 0))
			err = git_config_set_string(cfg, "remote." REMOTE ".url", g->url);
		else
			err = got;
	}
	git_buf_dispose(&cur);
	git_config_free(cfg);
	if (err < 0)
		return tg_git_fail(g, TG_EIO, "mirror %s: remote %s: %s", g->path, g->shown_url, tg_git_errmsg());
	return 0;
}

static void wipe_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

int tg_git_open(tg_git **out, const char *clone_url, const char *mirror_path, const tg_git_opts *opts)
{
	if (!out)
		return tg_error_set(TG_EINVAL, "git: no place for the result");
	*out = NULL;
	if (!clone_url || !*clone_url)
		return tg_error_set(TG_EINVAL, "git: no clone URL");
	if (!mirror_path || !*mirror_path)
		return tg_error_set(TG_EINVAL, "git: no mirror path");
	pthread_once(&lib_once, lib_init);
	if (lib_rc < 0)
		return tg_error_set(TG_EIO, "libgit2 init: %s", tg_git_errmsg());

	tg_git *g = tg_calloc(1, sizeof(*g));
	if (!g)
		return TG_ENOMEM;
	int rc = 0;
	g->insecure = opts && opts->insecure;
	if (opts && opts->token && *opts->token) {
		g->user = strdup(opts->username && *opts->username ? opts->username : "x-access-token");
		g->secret = strdup(opts->token);
		if (!g->user || !g->secret) {
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			goto fail;
		}
	}
	if ((rc = url_split(g, clone_url)) != 0)
		goto fail;
	g->path = strdup(mirror_path);
	if (!g->path) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t n = strlen(g->path); n > 1 && g->path[n - 1] == '/'; n--)
		g->path[n - 1] = '\0';
	if (opts && opts->ca_file && (rc = set_ca_file(opts->ca_file)) != 0)
		goto fail;

	struct stat st;
	if (stat(g->path, &st) != 0) {
		if (errno != ENOENT) {
			rc = tg_git_fail(g, TG_EIO, "mirror %s: %s", g->path, strerror(errno));
			goto fail;
		}
		if ((rc = clone_mirror(g)) != 0)
			goto fail;
	}
	if ((rc = open_mirror(g)) != 0)
		goto fail;
	*out = g;
	return 0;
fail:
	tg_git_free(g);
	return rc;
}

int tg_git_ls_remote(size_t *nrefs, const char *clone_url, const tg_git_opts *opts)
{
	*nrefs = 0;
	if (!clone_url || !*clone_url)
		return tg_error_set(TG_EINVAL, "git: no clone URL");
	pthread_once(&lib_once, lib_init);
	if (lib_rc < 0)
		return tg_error_set(TG_EIO, "libgit2 init: %s", tg_git_errmsg());
	tg_git *g = tg_calloc(1, sizeof(*g));
	if (!g)
		return TG_ENOMEM;
	int rc = 0;
	git_remote *remote = NULL;
	g->insecure = opts && opts->insecure;
	if (opts && opts->token && *opts->token) {
		g->user = strdup(opts->username && *opts->username ? opts->username : "x-access-token");
		g->secret = strdup(opts->token);
		if (!g->user || !g->secret) {
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			goto out;
		}
	}
	if ((rc = url_split(g, clone_url)) != 0)
		goto out;
	if ((opts && opts->ca_file && (rc = set_ca_file(opts->ca_file)) != 0) || (rc = check_local(g)) != 0)
		goto out;
	git_fetch_options fo;
	fetch_opts_init(g, &fo);
	const git_remote_head **heads;
	size_t n = 0;
	int err = remote_new(&remote, NULL, NULL, g->url, NULL);
	if (!err)
		err = git_remote_connect(remote, GIT_DIRECTION_FETCH, &fo.callbacks, &fo.proxy_opts, NULL);
	if (!err)
		err = git_remote_ls(&heads, &n, remote);
	if (err)
		rc = tg_git_fail(g, tg_git_errcode(err) == TG_ENOMEM ? TG_ENOMEM : TG_EIO, "git %s: %s", g->shown_url,
		                 tg_git_errmsg());
	else
		*nrefs = n;
out:
	if (remote)
		git_remote_disconnect(remote);
	git_remote_free(remote);
	tg_git_free(g);
	return rc;
}

void tg_git_free(tg_git *g)
{
	if (!g)
		return;
	git_repository_free(g->repo);
	free(g->url);
	free(g->shown_url);
	free(g->path);
	free(g->user);
	wipe_free(g->secret);
	wipe_free(g->url_secret);
	free(g);
}

/* ------------------------------------------------------------ fetch */

int tg_git_fetch(tg_git *g)
{
	if (!g)
		return tg_error_set(TG_EINVAL, "git: no mirror");
	return mirror_fetch(g, g->repo);
}
