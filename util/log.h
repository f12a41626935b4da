/*
 * log.h - the daemon's log: one line per event on stderr (journald adds its
 * own timestamps under systemd; a terminal gets ours), at a level set from
 * the configuration. Messages never carry secrets: callers log URLs without
 * credentials and errors that were built without them.
 */
#ifndef TG_LOG_H
#define TG_LOG_H

typedef enum tg_log_level { TG_LOG_ERROR = 0, TG_LOG_WARN, TG_LOG_INFO, TG_LOG_DEBUG } tg_log_level;

/* Sets the level below which lines are dropped ("error", "warn", "info",
 * "debug"; anything else leaves it). Process-wide: the daemon's only
 * global state, set once at start. */
void tg_log_set_level(const char *name);

/* Writes "YYYY-mm-ddTHH:MM:SSZ level: message" when level is enabled. */
void tg_log(tg_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
