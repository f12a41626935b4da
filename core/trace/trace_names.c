/*
 * trace_names.c - what the reader decides once per distinct name of a trace
 * (trace_impl.h, tg_trace_finish_names): the TG_NAME_* flags (a
 * communication kernel, a copy done by a kernel, the HTA kernel class),
 * handed out by tg_trace_name_flags. A kernel's class is computed here,
 * where the trace is read, so that the trace model (trace.c) needs neither
 * kernel_class.c nor categorize.c and the analyses look the class up
 * instead of matching names per event.
 */
#include "trace_impl.h"
#include "categorize.h"
#include "kernel_class.h"

int tg_trace_finish_names(tg_trace *t)
{
	size_t n = tg_atoms_count(t->atoms);
	t->name_flags = tg_calloc(n ? n : 1, 1);
	if (!t->name_flags)
		return TG_ENOMEM;
	for (size_t a = 0; a < n; a++) {
		const char *s = tg_atoms_str(t->atoms, (uint32_t)a);
		t->name_flags[a] = (uint8_t)((tg_kernel_is_comm(s) ? TG_NAME_COMM : 0) |
		                             (tg_kernel_is_copy(s) ? TG_NAME_COPY : 0) |
		                             tg_kernel_class(s, TG_KIND_KERNEL) << TG_NAME_CLASS_SHIFT);
	}
	t->nname_flags = n;
	return 0;
}
