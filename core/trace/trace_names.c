/*
 * trace_names.c - what the reader decides once per distinct name of a trace
 * (trace_impl.h, tg_trace_finish_names): the TG_NAME_* flags (a
 * communication kernel, a copy done by a kernel, the HTA kernel class),
 * handed out by tg_trace_name_flags. A kernel's class is computed here,
 * where the trace is read, so that the trace model (trace.c) needs neither
 * kernel_class.c nor categorize.c and the analyses look the class up
 * instead of matching names per event. tg_kernel_class_of (kernel_class.h)
 * lives here too, beside the flags it reads: kernel_class.c, which this file
 * calls, must not call back (tests/cycles.sh).
 *
 * Computed on first use, not for every atom at the end of the read: most
 * atoms are argument values and op names nobody asks about, and a kernel's
 * name is long (3 kB templates) and matched against many words, so that
 * the pass over every atom was 3.5 M instructions of a serial stage of
 * an h200-dev report (865 atoms). The report's parts ask from two threads
 * at once: each flag byte is read and written whole with relaxed atomics,
 * NAME_KNOWN set with it, and two threads that compute the same byte at
 * once store the same value.
 */
#include "trace_impl.h"
#include "categorize.h"
#include "kernel_class.h"

#define NAME_KNOWN 0x80 /* the byte holds the atom's flags (bits 0-3) */

int tg_trace_finish_names(tg_trace *t)
{
	size_t n = tg_atoms_count(t->atoms);
	t->name_flags = tg_calloc(n ? n : 1, 1);
	if (!t->name_flags)
		return TG_ENOMEM;
	t->nname_flags = n;
	t->key_stream = tg_trace_key(t, "stream");
	t->key_device = tg_trace_key(t, "device");
	return 0;
}

uint8_t tg_trace_name_flags(const tg_trace *t, uint32_t atom)
{
	if (atom >= t->nname_flags)
		return 0;
	uint8_t f = __atomic_load_n(&t->name_flags[atom], __ATOMIC_RELAXED);
	if (f & NAME_KNOWN)
		return (uint8_t)(f & ~NAME_KNOWN);
	const char *s = tg_atoms_str(t->atoms, atom);
	f = (uint8_t)((tg_kernel_is_comm(s) ? TG_NAME_COMM : 0) | (tg_kernel_is_copy(s) ? TG_NAME_COPY : 0) |
	              tg_kernel_class(s, TG_KIND_KERNEL) << TG_NAME_CLASS_SHIFT);
	__atomic_store_n(&t->name_flags[atom], (uint8_t)(f | NAME_KNOWN), __ATOMIC_RELAXED);
	return f;
}

/* kernel_class.h's: here, beside the flags it reads, so that kernel_class.c
 * (which this file calls) does not call back into this file. */
tg_kernel_type tg_kernel_class_of(const tg_trace *t, const tg_event *e)
{
	if (e->kind != TG_KIND_KERNEL)
		return tg_kernel_class(tg_trace_str(t, e->name), e->kind);
	return (tg_kernel_type)((tg_trace_name_flags(t, e->name) & TG_NAME_CLASS_MASK) >> TG_NAME_CLASS_SHIFT);
}
