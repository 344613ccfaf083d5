/*
 * What a SillyTavern build decided (prompt/item.h), in the debug view
 * and in -f json: each output message's items, every prompt and message
 * with where it came from, its role, position and tokens and why it is
 * in or out, and the text at the four stages (raw, regex-pre, macros,
 * regex-post).  debug --stage NAME prints one stage of every message.
 * The reasons are the build's; these functions only print them.
 */
#include "emit/emit.h"

#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "data/tree.h"
#include "diag/run.h"
#include "diag/source.h"
#include "prompt/chat.h"
#include "prompt/item.h"

static const char *const stage_words[ITEM_NSTAGES] = {
	"as read",
	"after the regex scripts that run before macros",
	"after macro substitution",
	"after the regex scripts that run after macros",
};

const char *
emit_tavern_stage(struct arena *a, const struct chat *c, size_t i, int k)
{
	const struct item_report *r = c->items;
	struct buf b = BUF_INIT;
	const char *s;
	uint32_t j, put = 0;

	if (!r->msg_nitems[i])
		return c->msgs[i].content;
	if (r->msg_nitems[i] == 1)
		return r->items[r->msg_items[i][0]].text[k];
	for (j = 0; j < r->msg_nitems[i]; j++) {
		const struct item *it = &r->items[r->msg_items[i][j]];

		/* its text is in the item it was joined into */
		if (it->joined && k >= ITEM_STAGE_MACROS)
			continue;
		if (put++)
			buf_puts(&b, it->sep ? it->sep : "\n");
		buf_puts(&b, it->text[k]);
	}
	buf_putc(&b, '\0');
	s = arena_strdup(a, b.data);
	buf_free(&b);
	return s;
}

/* s with every line after the first indented by ind spaces. */
static void
put_lines(struct buf *out, const char *s, int ind)
{
	const char *nl;

	for (;;) {
		nl = strchr(s, '\n');
		if (!nl) {
			buf_printf(out, "%s\n", s);
			return;
		}
		buf_printf(out, "%.*s\n%*s", (int)(nl - s), s, ind, "");
		s = nl + 1;
	}
}

void
emit_debug_tavern_items(struct buf *out, const struct chat *c, size_t i)
{
	const struct item_report *r = c->items;
	uint32_t j;

	buf_printf(out, "  %11s  items:", "");
	for (j = 0; j < r->msg_nitems[i]; j++)
		buf_printf(out, "%s %s", j ? "," : "",
		    r->items[r->msg_items[i][j]].id);
	buf_puts(out, r->msg_nitems[i] ? "\n" : " none\n");
}

/* The source of it, or NULL when it has none. */
static const struct source *
item_source(struct run *run, const struct item *it)
{
	return it->has_src ? run_source(run, it->src) : NULL;
}

/* Whether it's place has a line: a text source, and a card field the
 * card has (span.len 0: the card lacks it). */
static bool
has_line(const struct source *s, const struct item *it)
{
	return !s->binary && (!it->field || it->span.len);
}

const char *
emit_tavern_where(struct run *run, const struct item *it)
{
	const struct source *s = item_source(run, it);

	const char *w;

	if (!s)
		return NULL;
	w = has_line(s, it) ? arena_printf(&run->arena, "%s:%u", s->path,
	    source_lineno(s, it->span.off)) : s->path;
	return it->field ? arena_printf(&run->arena, "%s (%s)", w,
	    it->field) : w;
}

struct node *
emit_tavern_source(struct run *run, const struct item *it)
{
	struct arena *a = &run->arena;
	const struct source *s = item_source(run, it);
	struct node *o;

	if (!s)
		return tree_new(a, NODE_NULL, 0, span_make(0, 0));
	o = tree_table(a);
	tree_put(a, o, "file", tree_str(a, s->path));
	tree_put(a, o, "line", has_line(s, it) ? tree_int(a,
	    source_lineno(s, it->span.off)) : tree_new(a, NODE_NULL, 0,
	    span_make(0, 0)));
	if (it->field)
		tree_put(a, o, "field", tree_str(a, it->field));
	return o;
}

static const char *
position(struct arena *a, const struct item *it)
{
	if (it->place)
		return it->place;
	return it->depth < 0 ? "relative" : arena_printf(a, "in-chat @%lld",
	    (long long)it->depth);
}

void
emit_debug_tavern(struct run *run, const struct chat *c, struct buf *out)
{
	const struct item_report *r = c->items;
	struct arena *a = &run->arena;
	const char *bold = c->color ? "\033[1m" : "",
	    *dim = c->color ? "\033[2m" : "", *warn = c->color ? "\033[33m" :
	    "", *off = c->color ? "\033[0m" : "";
	size_t i, w = 10, ws = 6, nchanged = 0;
	const char **where = arena_alloc(a, (r->n + 1) * sizeof(*where));
	int k;

	for (i = 0; i < r->n; i++) {
		if (strlen(r->items[i].id) > w)
			w = strlen(r->items[i].id);
		where[i] = emit_tavern_where(run, &r->items[i]);
		if (!where[i])
			where[i] = "-";
		if (strlen(where[i]) > ws)
			ws = strlen(where[i]);
	}
	buf_printf(out, "\n%sprompts and messages%s: %zu (generation type "
	    "%s; budget %ld tokens, the prompts use %ld)\n", bold, off, r->n,
	    r->type, r->budget, r->used);
	if (r->speaker)
		buf_printf(out, "group chat: %s\n", r->speaker);
	buf_printf(out, "%stokens: %s%s%s\n", dim, r->tokenizer ?
	    r->tokenizer : "estimated", r->tokenizer ? ", with SillyTavern's "
	    "per-message overhead" : "", off);
	buf_printf(out, "  %s%-*s  %-10s %-9s %-13s %6s  %-*s  in or out%s\n",
	    dim, (int)w, "identifier", "origin", "role", "position", "tokens",
	    (int)ws, "source", off);
	for (i = 0; i < r->n; i++) {
		const struct item *it = &r->items[i];

		buf_printf(out, "  %-*s  %-10s %-9s %-13s ", (int)w, it->id,
		    item_source_name(it->source), names_role(it->role),
		    position(a, it));
		if (it->counted)
			buf_printf(out, "%6zu  ", it->tokens);
		else
			buf_printf(out, "%6s  ", "-");
		buf_printf(out, "%-*s  ", (int)ws, where[i]);
		if (it->reason)
			buf_printf(out, "%sout: %s%s%s%s%s\n", warn,
			    entry_status_name(it->reason), off, it->note ?
			    " (" : "", it->note ? it->note : "", it->note ?
			    ")" : "");
		else if (it->message >= 0)
			buf_printf(out, "message %ld%s%s%s\n", it->message + 1,
			    it->note ? " (" : "", it->note ? it->note : "",
			    it->note ? ")" : "");
		else
			buf_printf(out, "%s\n", it->note ? it->note : "-");
		if (it->text[ITEM_STAGE_RAW] !=
		    it->text[ITEM_STAGE_REGEX_POST])
			nchanged++;
	}
	buf_printf(out, "\n%sstages%s: %zu item%s changed by regex or macros "
	    "(debug --stage NAME prints one stage of every message)\n", bold,
	    off, nchanged, nchanged == 1 ? "" : "s");
	for (i = 0; i < r->n; i++) {
		const struct item *it = &r->items[i];

		if (it->text[ITEM_STAGE_RAW] ==
		    it->text[ITEM_STAGE_REGEX_POST])
			continue;
		buf_printf(out, "  %s (%s", it->id,
		    item_source_name(it->source));
		if (it->message >= 0)
			buf_printf(out, ", message %ld", it->message + 1);
		buf_puts(out, ")\n");
		for (k = 0; k < ITEM_NSTAGES; k++) {
			if (k && it->text[k] == it->text[k - 1])
				continue;
			buf_printf(out, "    %s%-11s%s ", dim,
			    item_stage_name((enum item_stage)k), off);
			put_lines(out, it->text[k], 16);
		}
	}
}

bool
emit_debug_stage(struct run *run, const struct chat *c, struct buf *out)
{
	enum item_stage k;
	size_t i;
	uint32_t j;
	const struct item_report *r = c->items;

	if (!item_stage_parse(c->stage, &k))
		k = ITEM_STAGE_REGEX_POST;
	buf_printf(out, "stage %s: every message's text %s\n",
	    item_stage_name(k), stage_words[k]);
	for (i = 0; i < c->n; i++) {
		const struct message *m = &c->msgs[i];

		buf_printf(out, "\nmessage %zu: %s%s%s (", i + 1,
		    names_role(m->role), m->name ? " " : "",
		    m->name ? m->name : "");
		for (j = 0; j < r->msg_nitems[i]; j++)
			buf_printf(out, "%s%s", j ? ", " : "",
			    r->items[r->msg_items[i][j]].id);
		buf_puts(out, ")\n");
		buf_puts(out, "  ");
		put_lines(out, emit_tavern_stage(&run->arena, c, i, k), 2);
	}
	return true;
}

/* {"raw": ..., "regex-pre": ..., "macros": ..., "regex-post": ...}. */
static struct node *
stages(struct arena *a, const char *const text[ITEM_NSTAGES])
{
	struct node *o = tree_table(a);
	int k;

	for (k = 0; k < ITEM_NSTAGES; k++)
		tree_put(a, o, item_stage_name((enum item_stage)k),
		    tree_strref(a, text[k], strlen(text[k])));
	return o;
}

void
emit_json_tavern_message(struct arena *a, const struct chat *c, size_t i,
    struct node *o)
{
	const struct item_report *r = c->items;
	const char *text[ITEM_NSTAGES];
	struct node *ids = tree_put(a, o, "items", tree_array(a));
	uint32_t j;
	int k;

	for (j = 0; j < r->msg_nitems[i]; j++)
		tree_push(a, ids, tree_str(a,
		    r->items[r->msg_items[i][j]].id));
	for (k = 0; k < ITEM_NSTAGES; k++)
		text[k] = emit_tavern_stage(a, c, i, k);
	tree_put(a, o, "stages", stages(a, text));
}

const char *
emit_tavern_speaker(const struct chat *c)
{
	return c->items ? c->items->speaker : NULL;
}

struct node *
emit_json_tavern_items(struct run *run, const struct chat *c)
{
	struct arena *a = &run->arena;
	const struct item_report *r = c->items;
	struct node *arr = tree_array(a);
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct item *it = &r->items[i];
		struct node *o = tree_table(a);

		tree_put(a, o, "id", tree_str(a, it->id));
		tree_put(a, o, "origin", tree_str(a,
		    item_source_name(it->source)));
		tree_put(a, o, "source", emit_tavern_source(run, it));
		tree_put(a, o, "role", tree_str(a, names_role(it->role)));
		tree_put(a, o, "position", tree_str(a, it->place ? it->place :
		    it->depth < 0 ? "relative" : "in-chat"));
		if (it->depth >= 0)
			tree_put(a, o, "depth", tree_int(a, it->depth));
		tree_put(a, o, "tokens", it->counted ? tree_int(a,
		    (int64_t)it->tokens) : tree_new(a, NODE_NULL, 0,
		    span_make(0, 0)));
		tree_put(a, o, "message", it->message >= 0 ? tree_int(a,
		    it->message + 1) : tree_new(a, NODE_NULL, 0,
		    span_make(0, 0)));
		tree_put(a, o, "reason", it->reason ? tree_str(a,
		    entry_status_name(it->reason)) : tree_new(a, NODE_NULL, 0,
		    span_make(0, 0)));
		tree_put(a, o, "note", it->note ? tree_str(a, it->note) :
		    tree_new(a, NODE_NULL, 0, span_make(0, 0)));
		tree_put(a, o, "stages", stages(a, it->text));
		tree_push(a, arr, o);
	}
	return arr;
}
