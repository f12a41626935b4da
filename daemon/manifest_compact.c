/*
 * manifest_compact.c - a run's manifest as the store keeps it
 * (manifest.h: tg_manifest_compact): only the fields tracegate reads, as
 * compact JSON that tg_manifest_parse reads back to the same manifest.
 * A manifest may be up to limits.max_manifest_bytes of anyone's JSON, most
 * of it keys tracegate ignores; kept whole, 100 runs of 1 MB manifests
 * made a 101 MB database and every job parsed a megabyte of JSON several
 * times (issue 21). What the signature covers (signature.h) is all in it,
 * so a compacted signed manifest checks as the original did. The SHA-256
 * of the bytes as uploaded is kept too ("uploaded_sha256", a key the
 * parser ignores), so that a manifest rewritten under the same run is
 * still told apart (and logged) without keeping its bytes.
 */
#include "manifest.h"
#include "../util/tg.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Sets key to the string v (skipped when v is NULL); 0 or -1. */
static int put_str(json_t *o, const char *key, const char *v)
{
	return v ? json_object_set_new(o, key, json_string(v)) : 0;
}

static json_t *traces_json(const tg_manifest *m)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < m->ntraces; i++) {
		const tg_manifest_trace *t = &m->traces[i];
		json_t *o = json_object();
		if (!o || put_str(o, "path", t->path) ||
		    (t->rank >= 0 && json_object_set_new(o, "rank", json_integer(t->rank))) ||
		    (t->sha256[0] && put_str(o, "sha256", t->sha256)) || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int tg_manifest_compact(char **out, const tg_manifest *m, const char *uploaded_sha256)
{
	*out = NULL;
	json_t *o = json_object(), *traces = traces_json(m);
	int bad = !o || !traces || put_str(o, "schema", TG_MANIFEST_SCHEMA) || put_str(o, "repo", m->repo) ||
	          put_str(o, "commit", m->commit) || put_str(o, "branch", m->branch) ||
	          (m->pr > 0 && json_object_set_new(o, "pull_request", json_integer(m->pr))) ||
	          put_str(o, "target_branch", m->target_branch) || put_str(o, "workload", m->workload) ||
	          put_str(o, "run_id", m->run_id) || put_str(o, "created_at", m->created_at_text) ||
	          put_str(o, "ci_url", m->ci_url) || put_str(o, "ci_run", m->ci_run) ||
	          put_str(o, "signature", m->signature) || put_str(o, "uploaded_sha256", uploaded_sha256) ||
	          json_object_set(o, "traces", traces);
	json_decref(traces);
	char *s = bad ? NULL : json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!s)
		return tg_error_set(TG_ENOMEM, "out of memory");
	*out = s;
	return 0;
}

int tg_manifest_uploaded_sha256(char hex[65], const char *text)
{
	hex[0] = 0;
	json_t *o = text ? json_loads(text, 0, NULL) : NULL;
	const char *v = json_string_value(json_object_get(o, "uploaded_sha256"));
	int ok = v && strlen(v) == 64;
	if (ok)
		memcpy(hex, v, 65);
	json_decref(o);
	return ok ? 0 : -1;
}
