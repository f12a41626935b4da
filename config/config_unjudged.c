/*
 * config_unjudged.c - a repository's on_unjudged (config_forges_impl.h):
 * what the daemon posts for a run it could not judge (docs/config.md,
 * docs/daemon.md "The status"). Fail closed: every state that is not a
 * judgement posts pending unless the operator chose otherwise, so no
 * commit status says success (and no check run neutral) for something
 * that did not pass a judgement.
 *
 *   on_unjudged: pending                  # every kind
 *   on_unjudged:                          # or per kind, the others pending
 *     no_baseline: success
 *     not_comparable: failure
 */
#include "config.h"
#include "config_forges_impl.h"

#include <stdio.h>
#include <string.h>

static const char *const kinds[TG_UNJUDGED_KINDS] = {"no_baseline", "baseline_unusable", "not_comparable",
                                                     "inconclusive", "waiting"};
static const char *const posts[] = {"pending", "success", "failure"};

const char *tg_config_unjudged_name(tg_unjudged_kind k)
{
	return (unsigned)k < TG_UNJUDGED_KINDS ? kinds[k] : "unjudged";
}

/* One state word (pending, success, failure) into *out. */
static int post_word(tg_unjudged_post *out, const tg_config_loader *L, const yaml_node_t *n, const char *key)
{
	int i = 0;
	int rc = tg_yaml_keyword(&i, &L->y, n, key, "a state", "state", posts, sizeof(posts) / sizeof(posts[0]));
	if (!rc)
		*out = (tg_unjudged_post)i;
	return rc;
}

int tg_config_on_unjudged_load(const tg_config_loader *L, const yaml_node_t *n, const char *where, tg_config_repo *r)
{
	char key[200];
	tg_config_keypath(key, sizeof(key), where, "on_unjudged", 0);
	if (n->type == YAML_SCALAR_NODE) {
		tg_unjudged_post all;
		int rc = post_word(&all, L, n, key);
		for (int k = 0; !rc && k < TG_UNJUDGED_KINDS; k++)
			r->on_unjudged[k] = all;
		return rc;
	}
	if (n->type != YAML_MAPPING_NODE)
		return tg_yaml_error(&L->y, n, "%s: expected a state (pending, success, failure) or a mapping of kinds to "
		                     "states, got %s", key, tg_yaml_kind(n));
	const yaml_node_t *kn[TG_UNJUDGED_KINDS], *v[TG_UNJUDGED_KINDS];
	int rc;
	if ((rc = tg_config_mapping(L, n, key, 0)) ||
	    (rc = tg_yaml_fields(kn, v, &L->y, n, key, kinds, TG_UNJUDGED_KINDS, 0)))
		return rc;
	for (int k = 0; k < TG_UNJUDGED_KINDS; k++) {
		char sub[260];
		if (v[k] && (rc = post_word(&r->on_unjudged[k], L, v[k], tg_config_keypath(sub, sizeof(sub), key, kinds[k], 0))))
			return rc;
	}
	return 0;
}
