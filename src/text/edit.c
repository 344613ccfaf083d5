#include "text/edit.h"

#include <string.h>

#include "base/arena.h"
#include "diag/run.h"
#include "diag/source.h"

void
edit_begin(struct edit *ed, struct run *run, const struct etext *in)
{
	memset(ed, 0, sizeof(*ed));
	ed->run = run;
	ed->in = in;
	buf_init(&ed->b);
}

void
edit_copy(struct edit *ed, size_t from, size_t to)
{
	const struct etext *in = ed->in;

	if (from >= to)
		return;
	while (ed->cur + 1 < in->nsegs && in->segs[ed->cur + 1].at <= from)
		ed->cur++;
	for (; ed->cur < in->nsegs; ed->cur++) {
		struct seg g = in->segs[ed->cur];
		size_t end = ed->cur + 1 < in->nsegs ?
		    in->segs[ed->cur + 1].at : in->len;
		size_t lo = from > g.at ? from : g.at;

		if (lo >= to)
			break;
		if (g.exact)
			g.span = span_make(g.span.off + (lo - g.at),
			    (end < to ? end : to) - lo);
		g.at = ed->b.len + (lo - from);
		avec_push(&ed->run->arena, &ed->segs, g);
		if (end >= to)
			break;
	}
	buf_put(&ed->b, in->s + from, to - from);
}

void
edit_insert(struct edit *ed, const char *s, size_t len, size_t at, size_t n)
{
	struct seg g;

	if (etext_locate(ed->in, at, n, &g.src, &g.span)) {
		g.at = ed->b.len;
		g.exact = false;
		avec_push(&ed->run->arena, &ed->segs, g);
	}
	buf_put(&ed->b, s, len);
}

void
edit_end(struct edit *ed, struct etext *out)
{
	out->len = ed->b.len;
	out->s = ed->b.len ? arena_adopt(&ed->run->arena, buf_detach(&ed->b)) :
	    "";
	out->segs = ed->segs.v;
	out->nsegs = ed->segs.n;
	buf_free(&ed->b);
}

void
etext_of_source(struct run *run, const struct source *src,
    struct etext *out)
{
	struct seg *g = arena_alloc(&run->arena, sizeof(*g));

	g->at = 0;
	g->src = src->id;
	g->span = span_make(0, src->len);
	g->exact = true;
	out->s = src->text;
	out->len = src->len;
	out->segs = g;
	out->nsegs = 1;
}
