/*
 * config_secret.c - secrets of the configuration (access keys, tokens, the
 * PostgreSQL URL): never written in the file, but named there as
 * {env: NAME} or {file: PATH} and read at load time.
 *
 * No message ever holds a secret's value: a secret written as a plain
 * string is refused without repeating it, an unknown key of a secret
 * mapping is not repeated either (it may be the value written by mistake,
 * {ghp_...}), and read failures name the variable or the file only.
 * Values are one line (a newline would end an HTTP header early); a file's
 * trailing newlines are stripped. Freed values are wiped first.
 */
#include "config_secret_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECRET_MAX (64 * 1024) /* bytes of a secret file */

void tg_config_secret_clear(tg_config_secret *s)
{
	if (!s)
		return;
	if (s->value) {
		explicit_bzero(s->value, strlen(s->value));
		free(s->value);
	}
	free(s->env);
	free(s->file);
	memset(s, 0, sizeof(*s));
}

/* A secret whose value cannot be read: recorded in L->unread (0, the load
 * goes on) or, without one, the error at node v. */
static int unreadable(const tg_config_loader *L, int code, const yaml_node_t *v, const char *fmt, ...)
{
	char what[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	tg_config_unread *u = L->unread;
	if (!u)
		return tg_yaml_error_code(&L->y, code, v, "%s", what);
	char *more = NULL;
	if (asprintf(&more, "%s%s%zu:%zu: %s", u->text ? u->text : "", u->n ? "; " : "", v->start_mark.line + 1,
	             v->start_mark.column + 1, what) < 0)
		return tg_error_set(TG_ENOMEM, "out of memory");
	free(u->text);
	u->text = more;
	if (!u->n++)
		u->code = code;
	return 0;
}

int tg_config_unread_finish(tg_config_unread *u, const char *file)
{
	int rc = 0;
	if (u->n == 1)
		rc = tg_error_set(u->code, "%s:%s", file, u->text);
	else if (u->n > 1)
		rc = tg_error_set(u->code, "%s: %zu secrets cannot be read: %s", file, u->n, u->text);
	free(u->text);
	memset(u, 0, sizeof(*u));
	return rc;
}

/* [A-Za-z_][A-Za-z0-9_]*, as POSIX shells name variables. */
static int env_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* The value of the variable named by node v. */
static int from_env(const tg_config_loader *L, const yaml_node_t *v, const char *key, tg_config_secret *out)
{
	char ek[192];
	int rc;
	tg_config_keypath(ek, sizeof(ek), key, "env", 0);
	if ((rc = tg_config_string(&out->env, L, v, ek, 0)))
		return rc;
	if (!env_name(out->env))
		return tg_yaml_error(&L->y, v,
		                     "%s: not a valid environment variable name (letters, digits and '_', "
		                     "not starting with a digit)",
		                     ek);
	if ((L->flags & TG_CONFIG_DATABASE_ONLY) && strcmp(key, "database.postgresql"))
		return 0; /* named, not read: the command does not use it */
	const char *val = getenv(out->env);
	if (!val)
		return unreadable(L, TG_EINVAL, v, "%s: environment variable %s is not set", key, out->env);
	if (!*val)
		return unreadable(L, TG_EINVAL, v, "%s: environment variable %s is empty", key, out->env);
	if (strpbrk(val, "\r\n"))
		return unreadable(L, TG_EINVAL, v, "%s: environment variable %s holds more than one line", key,
		                  out->env);
	if (!(out->value = strdup(val)))
		return tg_error_set(TG_ENOMEM, "out of memory");
	return 0;
}

/* Reads at most SECRET_MAX bytes of the regular file path into *buf
 * (NUL-terminated, *len bytes). Returns 0 or a reason (errno's, or one of
 * ours in *why). */
static int slurp(const char *path, char **buf, size_t *len, const char **why)
{
	*buf = NULL;
	*why = NULL;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno;
	struct stat st;
	if (fstat(fd, &st)) {
		int e = errno;
		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		*why = "is not a regular file";
		return -1;
	}
	char *b = tg_malloc(SECRET_MAX + 2);
	if (!b) {
		close(fd);
		return ENOMEM;
	}
	size_t n = 0;
	int err = 0;
	while (n <= SECRET_MAX) {
		ssize_t got = read(fd, b + n, SECRET_MAX + 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = errno;
			break;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (!err && n > SECRET_MAX) {
		*why = "is larger than 64 KiB";
		err = -1;
	}
	if (err) {
		explicit_bzero(b, n);
		free(b);
		return err;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

/* The content of the file named by node v, trailing newlines stripped. */
static int from_file(const tg_config_loader *L, const yaml_node_t *v, const char *key, tg_config_secret *out)
{
	char fk[192];
	char *b = NULL;
	size_t n = 0;
	const char *why;
	int rc;
	tg_config_keypath(fk, sizeof(fk), key, "file", 0);
	if ((rc = tg_config_path(&out->file, L, v, fk)))
		return rc;
	if ((L->flags & TG_CONFIG_DATABASE_ONLY) && strcmp(key, "database.postgresql"))
		return 0; /* named, not read: the command does not use it */
	int err = slurp(out->file, &b, &n, &why);
	if (err == ENOMEM)
		return tg_error_set(TG_ENOMEM, "out of memory");
	if (err && why)
		return unreadable(L, TG_EIO, v, "%s: secret file %s %s", key, out->file, why);
	if (err)
		return unreadable(L, TG_EIO, v, "%s: cannot read secret file %s: %s", key, out->file, strerror(err));
	while (n && (b[n - 1] == '\n' || b[n - 1] == '\r'))
		b[--n] = 0;
	why = !n                  ? "is empty"
	      : memchr(b, 0, n)   ? "contains a NUL byte"
	      : strpbrk(b, "\r\n") ? "holds more than one line"
	                          : NULL;
	if (why) {
		explicit_bzero(b, n);
		free(b);
		return unreadable(L, TG_EIO, v, "%s: secret file %s %s", key, out->file, why);
	}
	out->value = b;
	return 0;
}

int tg_config_secret_load(tg_config_secret *out, const tg_config_loader *L, const yaml_node_t *n, const char *key)
{
	static const char *const keys[] = {"env", "file"};
	const yaml_node_t *kn[2], *v[2];
	int rc;
	memset(out, 0, sizeof(*out));
	if (n->type == YAML_SCALAR_NODE && !tg_yaml_is_null(n))
		return tg_yaml_error(&L->y, n,
		                     "%s: a secret is never written in the configuration: use {env: NAME} or "
		                     "{file: PATH}",
		                     key);
	if (n->type != YAML_MAPPING_NODE)
		return tg_yaml_error(&L->y, n, "%s: expected {env: NAME} or {file: PATH}, got %s", key,
		                     tg_yaml_kind(n));
	if ((rc = tg_yaml_fields(kn, v, &L->y, n, key, keys, 2, TG_YAML_QUIET)))
		return rc;
	if (v[0] && v[1])
		return tg_yaml_error(&L->y, kn[0]->start_mark.index > kn[1]->start_mark.index ? kn[0] : kn[1],
		                     "%s: env and file exclude each other (give one)", key);
	if (v[0])
		return from_env(L, v[0], key, out);
	if (v[1])
		return from_file(L, v[1], key, out);
	return tg_yaml_error(&L->y, n, "%s: expected {env: NAME} or {file: PATH}, got an empty mapping", key);
}
