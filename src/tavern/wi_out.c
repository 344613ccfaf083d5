/*
 * wi_out: the world-info engine's output, the records in activation
 * order and the text of each prompt slot (before and after the card,
 * the Author's Note, @depth, example messages, outlets).
 */
#include "tavern/wi_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "diag/run.h"

static const char *
join_rev(struct arena *a, const char **v, size_t n, bool reverse)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			buf_putc(&b, '\n');
		buf_puts(&b, v[reverse ? n - 1 - i : i]);
	}
	buf_putc(&b, '\0');
	return arena_adopt(a, buf_detach(&b));
}

/* SillyTavern's stringFormat(wi_format, text): every {0} replaced. */
static const char *
wi_format(struct arena *a, const char *fmt, const char *text)
{
	struct buf b = BUF_INIT;
	const char *p, *q;
	size_t k;

	if (!*text)
		return "";
	if (!fmt)
		fmt = "{0}";
	for (p = fmt; *p && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'); p++)
		;
	if (!*p)
		return text;
	for (p = fmt; (q = strstr(p, "{0}")) != NULL; p = q + 3) {
		buf_put(&b, p, (size_t)(q - p));
		buf_puts(&b, text);
	}
	buf_puts(&b, p);
	buf_putc(&b, '\0');
	(void)k;
	return arena_adopt(a, buf_detach(&b));
}

void
wi_output(struct engine *g, struct wi_result *out)
{
	struct arena *a = &g->run->arena;
	struct item **v, **tmp;
	const char **bef, **aft, **ant, **anb;
	size_t n = 0, i, j, nbef = 0, naft = 0, nant = 0, nanb = 0;
	const char ***dtexts;
	size_t *dn;
	int64_t *dkey;          /* each depth group's depth ?? 4 */

	v = xcalloc(g->n + 1, sizeof(*v));
	tmp = xcalloc(g->n + 1, sizeof(*tmp));
	out->activated = arena_array(a, g->n + 1, sizeof(*out->activated));
	for (i = 0; i < g->n; i++)
		if (g->rec[i].activated)
			out->activated[g->rec[i].order_index] = &g->rec[i];
	for (i = 0; i < g->n; i++)
		if (g->rec[i].activated)
			out->nactivated++;
	for (i = 0; i < out->nactivated; i++)
		v[n++] = &g->items[out->activated[i] - g->rec];
	wi_sort_desc(v, n, tmp);
	bef = arena_array(a, n + 1, sizeof(*bef));
	aft = arena_array(a, n + 1, sizeof(*aft));
	ant = arena_array(a, n + 1, sizeof(*ant));
	anb = arena_array(a, n + 1, sizeof(*anb));
	out->em_top = arena_array(a, n + 1, sizeof(*out->em_top));
	out->em_bottom = arena_array(a, n + 1, sizeof(*out->em_bottom));
	out->depth = arena_array(a, n + 1, sizeof(*out->depth));
	out->outlets = arena_array(a, n + 1, sizeof(*out->outlets));
	dtexts = xcalloc(n + 1, sizeof(*dtexts));
	dn = xcalloc(n + 1, sizeof(*dn));
	dkey = xcalloc(n + 1, sizeof(*dkey));
	for (i = 0; i < n; i++) {
		struct item *it = v[i];
		struct wi_record *r = &g->rec[it - g->items];
		const char *c = r->content ? r->content : "";

		if (*c && g->in->regex)
			c = g->in->regex(g->in->regex_ctx, c,
			    it->e->position == WORLD_DEPTH ? it->e->depth :
			    WI_NO_DEPTH);
		if (!c || !*c) {
			r->reason = r->content && *r->content ?
			    WI_REGEX_EMPTY : WI_EMPTY;
			continue;
		}
		switch (it->e->position) {
		case WORLD_BEFORE:
			bef[nbef++] = c;
			break;
		case WORLD_AFTER:
			aft[naft++] = c;
			break;
		case WORLD_AN_TOP:
			ant[nant++] = c;
			break;
		case WORLD_AN_BOTTOM:
			anb[nanb++] = c;
			break;
		case WORLD_DEPTH:
			/* Grouped by (depth ?? 4, role); the group keeps the
			 * depth of the entry that opened it. */
			for (j = 0; j < out->ndepth; j++)
				if (dkey[j] == it->e->depth &&
				    out->depth[j].role == it->e->role)
					break;
			if (j == out->ndepth) {
				dkey[j] = it->e->depth;
				out->depth[j].depth = it->e->depth_at;
				out->depth[j].role = it->e->role;
				dtexts[j] = xcalloc(n + 1, sizeof(**dtexts));
				out->ndepth++;
			}
			dtexts[j][dn[j]++] = c;
			break;
		case WORLD_EM_TOP:
			/* prepended one by one: descending order */
			out->em_top[out->nem_top++] = c;
			break;
		case WORLD_EM_BOTTOM:
			out->em_bottom[out->nem_bottom++] = c;
			break;
		case WORLD_OUTLET:
			if (!*it->e->outlet_name)
				break;
			for (j = 0; j < out->noutlets; j++)
				if (strcmp(out->outlets[j].name,
				    it->e->outlet_name) == 0)
					break;
			if (j == out->noutlets) {
				out->outlets[j].name = it->e->outlet_name;
				out->outlets[j].text = c;
				out->noutlets++;
			} else {
				out->outlets[j].text = arena_printf(a,
				    "%s\n%s", out->outlets[j].text, c);
			}
			break;
		default:
			break;
		}
	}
	/* Prepending in a descending walk gives ascending order. */
	out->before = join_rev(a, bef, nbef, true);
	out->after = join_rev(a, aft, naft, true);
	out->an_top = join_rev(a, ant, nant, true);
	out->an_bottom = join_rev(a, anb, nanb, true);
	for (j = 0; j < out->ndepth; j++) {
		out->depth[j].text = join_rev(a, dtexts[j], dn[j], true);
		free(dtexts[j]);
	}
	/* EM-bottom entries are appended in ascending order. */
	for (i = 0; i < out->nem_bottom / 2; i++) {
		const char *t = out->em_bottom[i];

		out->em_bottom[i] = out->em_bottom[out->nem_bottom - 1 - i];
		out->em_bottom[out->nem_bottom - 1 - i] = t;
	}
	out->before_formatted = wi_format(a, g->s->wi_format, out->before);
	out->after_formatted = wi_format(a, g->s->wi_format, out->after);
	free(dtexts);
	free(dn);
	free(dkey);
	free(v);
	free(tmp);
}

const char *
wi_author_note(struct arena *a, const struct wi_result *r, const char *note)
{
	char *s = arena_printf(a, "%s\n%s\n%s", r->an_top, note, r->an_bottom);
	size_t n = strlen(s);

	if (n > 0 && s[n - 1] == '\n')
		s[--n] = '\0';
	if (s[0] == '\n')
		s++;
	return s;
}
