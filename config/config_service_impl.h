/*
 * config_service_impl.h - the keys of the daemon's service to the
 * outside (config_service.c): daemon.listen, its HTTP endpoints, and the
 * history section, where the history pages are published. Shared by
 * config/'s files alone.
 */
#ifndef TG_CONFIG_SERVICE_IMPL_H
#define TG_CONFIG_SERVICE_IMPL_H

#include "config_loader_impl.h"
#include "config_types.h"

/* daemon.listen (node n): "HOST:PORT", "[IPv6]:PORT", ":PORT" or a port
 * alone; an IP address, or localhost (127.0.0.1); no host: 127.0.0.1.
 * Sets c->listen_host and c->listen_port. */
int tg_config_listen_load(const tg_config_loader *L, const yaml_node_t *n, tg_config *c);

/* The history section (n may be NULL: the defaults): publish, a folder or
 * s3://BUCKET/PREFIX (needs storage.s3, loaded before), and runs. */
int tg_config_history_load(const tg_config_loader *L, const yaml_node_t *n, tg_config *c);

#endif
