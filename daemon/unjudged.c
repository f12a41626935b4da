/*
 * unjudged.c - what a run that is not a judgement posts (daemon_impl.h:
 * tg_daemon_unjudged_state; docs/config.md, "on_unjudged"): the state the
 * repository's operator chose for its kind, pending when they chose
 * nothing. Fail closed: only a judgement that passed is a success unless
 * the operator says otherwise.
 */
#include "daemon_impl.h"

tg_forge_state tg_daemon_unjudged_state(const tg_config_repo *r, tg_unjudged_kind k)
{
	switch ((unsigned)k < TG_UNJUDGED_KINDS ? r->on_unjudged[k] : TG_UNJUDGED_PENDING) {
	case TG_UNJUDGED_SUCCESS: return TG_FORGE_SUCCESS;
	case TG_UNJUDGED_FAILURE: return TG_FORGE_FAILURE;
	default: return TG_FORGE_PENDING;
	}
}
