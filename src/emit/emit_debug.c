/*
 * The debug view for a person: for each output message, every entry that
 * reached it (priority, key, layer, role, scope, bytes, estimated tokens,
 * source path:line), then every entry that did not, with its reason.
 * Colour only on a terminal, and never when NO_COLOR is set.
 */
#include "emit/emit.h"

#include "profile/profile.h"

#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "prompt/chat.h"
#include "diag/run.h"
#include "diag/source.h"
#include "base/util.h"

struct colors {
	const char *bold, *dim, *warn, *off;
};

static const char *
where(struct run *run, char *buf, size_t size, bool has, uint32_t src,
    struct span sp)
{
	struct source *s = has ? run_source(run, src) : NULL;

	if (!s)
		return "-";
	snprintf(buf, size, "%s:%u", s->path, source_lineno(s, sp.off));
	return buf;
}

/* The status as a reason to leave an entry out. */
static const char *
reason(enum entry_status s)
{
	return s == ENTRY_MISSING ? "missing context" : entry_status_name(s);
}

/* Pad a UTF-8 string to width columns (code points). */
static void
pad(struct buf *out, const char *s, size_t width)
{
	size_t n = utf8_count(s, strlen(s));

	buf_puts(out, s);
	while (n++ < width)
		buf_putc(out, ' ');
}

bool
emit_debug(struct run *run, const struct chat *c, struct buf *out)
{
	struct colors st = { "", "", "", "" };
	char loc[4096];
	size_t i, k, keyw = 12, excluded = 0;

	if (emit_color(STDOUT_FILENO)) {
		st.bold = "\033[1m";
		st.dim = "\033[2m";
		st.warn = "\033[33m";
		st.off = "\033[0m";
	}
	for (i = 0; i < c->stack.nall; i++) {
		size_t n = utf8_count(c->stack.all[i]->key,
		    strlen(c->stack.all[i]->key));

		if (n > keyw)
			keyw = n;
	}
	buf_printf(out, "%sprofile%s %s  format %s  model %s  style %s\n",
	    st.bold, st.off, c->profile->src->path,
	    names_format(c->format), c->model ? c->model : "-",
	    names_style(c->profile->style));
	buf_printf(out, "%stokens are estimates: a CJK character counts "
	    "as one, other text as one per four characters%s\n", st.dim,
	    st.off);
	for (i = 0; i < c->n; i++) {
		const struct message *m = &c->msgs[i];

		buf_printf(out, "\n%smessage %zu: %s%s%s (%s)  %zu bytes  "
		    "~%zu tokens%s\n", st.bold, i + 1,
		    names_role(m->role), m->name ? " " : "",
		    m->name ? m->name : "", m->origin, m->len,
		    emit_tokens(m->content, m->len), st.off);
		if (m->nentries) {
			buf_printf(out, "  %s%11s  ", st.dim, "priority");
			pad(out, "key", keyw);
			buf_printf(out, "  %-8s %-9s %-7s %8s %7s  source%s\n",
			    "layer", "role", "scope", "bytes", "~tokens",
			    st.off);
		}
		for (k = 0; k < m->nentries; k++) {
			const struct entry *e = m->entries[k];

			if (e->base)
				buf_printf(out, "  %11s  ", "base");
			else
				buf_printf(out, "  %11d  ", e->priority);
			pad(out, e->key, keyw);
			buf_printf(out, "  %-8s %-9s %-7s %8zu %7zu  %s\n",
			    e->layer, names_role(e->role),
			    names_scope(e->scope), e->len,
			    emit_tokens(e->content, e->len),
			    where(run, loc, sizeof(loc), e->has_src, e->src,
			    e->span));
		}
		if (!m->nentries || !strcmp(m->origin, "turn")) {
			size_t len = m->len;

			if (!strcmp(m->origin, "turn") && m->has_src)
				len = m->span.len;
			if (m->has_src || strcmp(m->origin, "turn"))
				buf_printf(out, "  %11s  %s(%s)%s %zu bytes "
				    "from %s\n", "", st.dim,
				    strcmp(m->origin, "turn") ?
				    "history message" : "user text", st.off,
				    len, where(run, loc, sizeof(loc),
				    m->has_src, m->src, m->span));
		}
	}
	for (i = 0; i < c->stack.nall; i++)
		if (c->stack.all[i]->status != ENTRY_ACTIVE)
			excluded++;
	buf_printf(out, "\n%snot included%s: %zu\n", st.bold, st.off,
	    excluded);
	for (i = 0; i < c->stack.nall; i++) {
		const struct entry *e = c->stack.all[i];

		if (e->status == ENTRY_ACTIVE)
			continue;
		buf_puts(out, "  ");
		pad(out, e->key, keyw);
		buf_printf(out, "  %-8s %s%-16s%s %s\n", e->layer, st.warn,
		    reason(e->status), st.off, where(run, loc, sizeof(loc),
		    e->has_src, e->src, e->span));
	}
	return true;
}
