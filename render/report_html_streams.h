/*
 * report_html_streams.h - the html report's GPU timeline per stream: one
 * row per (device, stream) across the trace's time, coloured where the
 * stream was busy (computation, communication, memcpy), paler where it was
 * busy for part of a pixel, grey where it was idle; a time axis in ms and a
 * legend. Inline SVG, nothing loaded; drawn by report_html.c.
 */
#ifndef TG_REPORT_HTML_STREAMS_H
#define TG_REPORT_HTML_STREAMS_H

#include "../core/analysis/stream_timeline.h"

#include <stdio.h>

#define TG_HTML_STREAMS_MAX 24 /* rows drawn; more are named in a line under the picture */

/* Writes the picture of s, width px wide, to f (a <svg> element, and a
 * <p> when some streams are left out). Writes nothing for no stream.
 * Borrows s. */
void tg_report_html_streams(FILE *f, const tg_stream_timeline *s, double width);

#endif
