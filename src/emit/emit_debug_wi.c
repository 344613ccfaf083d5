/*
 * The debug view's world-info section, for a SillyTavern build: every
 * entry the engine considered, in activation-priority order, with its
 * book, uid, comment and outcome (the wording of `strata wi`, from
 * world/wi_show.c) and where the entry was read (world.json:LINE), the
 * budget used of the budget available, and the timed-effects state a
 * session would save.
 */
#include "emit/emit.h"

#include "base/buf.h"
#include "data/json.h"
#include "diag/run.h"
#include "diag/source.h"
#include "prompt/chat.h"
#include "world/wi.h"

void
emit_debug_wi(struct run *run, const struct chat *c, struct buf *out,
    const char *bold, const char *off)
{
	const struct wi_result *r = c->world_info;
	size_t i;

	if (!r)
		return;
	buf_printf(out, "\n%sworld info%s: %zu considered, %zu activated; ",
	    bold, off, r->nrecords, r->nactivated);
	wi_result_summary(out, r);
	buf_putc(out, '\n');
	for (i = 0; i < r->nrecords; i++) {
		const struct world_entry *e = r->records[i].entry;
		const struct source *s = e ? run_source(run, e->src) : NULL;

		wi_record_describe(out, &r->records[i], true);
		if (!s || s->binary || !out->len ||
		    out->data[out->len - 1] != '\n')
			continue;
		out->len--;
		buf_printf(out, "  %s:%u\n", s->path,
		    source_lineno(s, e->span.off));
	}
	buf_puts(out, "  timedWorldInfo: ");
	json_write(out, wi_timed_to_node(&run->arena, &r->timed), -1);
	buf_putc(out, '\n');
}
