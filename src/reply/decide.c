#include "reply/decide.h"

#include <ctype.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/jsonish.h"
#include "data/tree.h"
#include "diag/run.h"
#include "prompt/tool.h"
#include "reply/args.h"

/* Bounds on the search for the decision, so that a long reply full of
 * braces costs at most this much: candidate starts tried, and bytes read
 * by all the tries together. */
#define ATTEMPTS_MAX 10000
#define WORK_MAX ((size_t)64 << 20)

/* Report at sp and keep the first reason in *why. */
#define REJECT(run, why, src, sp, ...) do { \
	if ((why) && !*(why)) \
		*(why) = diag_format(&(run)->arena, __VA_ARGS__); \
	diag_error((run), (src), (sp), __VA_ARGS__); \
} while (0)

static bool
starts(const char *s, size_t n, size_t i, const char *w)
{
	size_t k = strlen(w);

	return i + k <= n && memcmp(s + i, w, k) == 0;
}

size_t
decide_think_ranges(struct arena *a, const char *s, size_t n,
    struct decide_range **out)
{
	VEC(struct decide_range) v = {0};
	size_t i = 0;
	const char *open = "<think>", *close = "</think>";

	/* A reply whose template opened <think> for it: only the close. */
	for (i = 0; i + 8 <= n; i++)
		if (starts(s, n, i, open))
			break;
		else if (starts(s, n, i, close)) {
			struct decide_range r = { 0, i + strlen(close) };

			avec_push(a, &v, r);
			break;
		}
	i = v.n ? v.v[0].end : 0;
	while (i < n) {
		const char *o = NULL;
		size_t k;

		for (k = i; k + 7 <= n; k++)
			if (starts(s, n, k, open)) {
				o = s + k;
				break;
			}
		if (!o)
			break;
		{
			struct decide_range r = { k, n };

			for (i = k + 7; i + 8 <= n; i++)
				if (starts(s, n, i, close)) {
					r.end = i + 8;
					break;
				}
			avec_push(a, &v, r);
			i = r.end;
		}
	}
	*out = v.v;
	return v.n;
}

static bool
in_ranges(const struct decide_range *r, size_t nr, size_t off)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (off >= r[i].off && off < r[i].end)
			return true;
	return false;
}

struct finder {
	struct run *run;
	const struct source *src;
	const struct decide_range *think;
	size_t nthink;
	size_t attempts;
	size_t work;                    /* bytes read by the tries */
	bool failed;                    /* some value did not read */
	struct jsonish_error best;      /* the failure that got furthest */
	size_t best_start;
};

/* The object with "action" in v: v itself, or an array's first. */
static const struct node *
with_action(const struct node *v)
{
	size_t i;

	if (v->kind == NODE_TABLE)
		return tree_get(v, "action") ? v : NULL;
	if (v->kind == NODE_ARRAY)
		for (i = 0; i < v->u.array.n; i++)
			if (v->u.array.items[i]->kind == NODE_TABLE &&
			    tree_get(v->u.array.items[i], "action"))
				return v->u.array.items[i];
	return NULL;
}

/* The first decision in [off, end), or NULL. */
static const struct node *
find_in(struct finder *f, size_t off, size_t end)
{
	const char *s = f->src->text;
	size_t i;

	for (i = off; i < end && f->attempts < ATTEMPTS_MAX &&
	    f->work < WORK_MAX; i++) {
		struct jsonish_error err;
		struct node *v;
		const struct node *d;
		size_t stop;

		if ((s[i] != '{' && s[i] != '[') ||
		    in_ranges(f->think, f->nthink, i))
			continue;
		f->attempts++;
		if (!jsonish_parse(f->run, f->src, i, end, &v, &stop, &err)) {
			f->work += err.off - i;
			if (!f->failed || err.off > f->best.off) {
				f->best = err;
				f->best_start = i;
			}
			f->failed = true;
			continue;
		}
		f->work += stop - i;
		if ((d = with_action(v)))
			return d;
	}
	return NULL;
}

/* Text in Markdown fences, in order: ```lang\n ... ``` and ~~~. */
static const struct node *
find_fenced(struct finder *f)
{
	const char *s = f->src->text;
	size_t n = f->src->len, i = 0;

	while (i < n) {
		size_t open, body, close;
		char c;

		for (open = i; open + 3 <= n; open++)
			if ((starts(s, n, open, "```") ||
			    starts(s, n, open, "~~~")) &&
			    !in_ranges(f->think, f->nthink, open))
				break;
		if (open + 3 > n)
			return NULL;
		c = s[open];
		for (body = open + 3; body < n && s[body] != '\n'; body++)
			;
		for (close = body; close + 3 <= n; close++)
			if (s[close] == c && s[close + 1] == c &&
			    s[close + 2] == c)
				break;
		if (close + 3 > n)
			close = n;      /* an unclosed fence: to the end */
		{
			const struct node *d = find_in(f, body, close);

			if (d)
				return d;
		}
		i = close + 3;
	}
	return NULL;
}

static const char *
kind_words(const struct node *n)
{
	switch (n->kind) {
	case NODE_TABLE: return "an object";
	case NODE_ARRAY: return "an array";
	case NODE_STRING: return "a string";
	case NODE_INT: case NODE_FLOAT: return "a number";
	case NODE_BOOL: return "a boolean";
	default: break;
	}
	return "null";
}

/* The action's value, trimmed and in lower case, in the arena. */
static char *
action_word(struct arena *a, const struct node *v)
{
	const char *s = v->u.str.s;
	size_t n = v->u.str.len, i;
	char *w;

	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	w = arena_strndup(a, s, n);
	for (i = 0; i < n; i++)
		w[i] = (char)tolower((unsigned char)w[i]);
	return w;
}

static const struct tool *
find_tool(const struct tool_list *tools, const char *name)
{
	size_t i;

	for (i = 0; i < tools->n; i++)
		if (strcmp(tools->items[i]->name, name) == 0)
			return tools->items[i];
	return NULL;
}

/* " (did you mean 'x'?)" or "; known tools: a, b", in the arena. */
static const char *
tool_hint(struct arena *a, const struct tool_list *tools, const char *name)
{
	struct buf b = BUF_INIT;
	const char *r, *best = NULL;
	size_t i, bestd = 3;

	for (i = 0; i < tools->n; i++) {
		size_t d = str_distance(name, tools->items[i]->name, 2);

		if (d < bestd) {
			bestd = d;
			best = tools->items[i]->name;
		}
	}
	if (best) {
		buf_printf(&b, " (did you mean '%s'?)", best);
	} else if (tools->n == 0) {
		buf_puts(&b, "; the profile defines no tools");
	} else {
		buf_puts(&b, "; the profile's tools are");
		for (i = 0; i < tools->n; i++)
			buf_printf(&b, "%s %s", i ? "," : "",
			    tools->items[i]->name);
	}
	r = arena_strndup(a, b.data, b.len);
	buf_free(&b);
	return r;
}

/* Point every node of v (read from a copy) at span sp of source src. */
static void
retag(struct node *v, uint32_t src, struct span sp)
{
	size_t i;

	v->src = src;
	v->span = sp;
	if (v->kind == NODE_TABLE)
		for (i = 0; i < v->u.table.n; i++) {
			v->u.table.items[i].keysrc = src;
			v->u.table.items[i].keyspan = sp;
			retag(v->u.table.items[i].value, src, sp);
		}
	else if (v->kind == NODE_ARRAY)
		for (i = 0; i < v->u.array.n; i++)
			retag(v->u.array.items[i], src, sp);
}

/* args: an object, a string holding one, or absent (read as {}). */
static const struct node *
read_args(struct run *run, const struct source *src, const struct node *obj,
    const char **why)
{
	const struct node *args = tree_get(obj, "args");
	struct jsonish_error err;
	struct node *v;
	size_t stop, k;

	if (!args)
		return tree_table(&run->arena);
	if (args->kind == NODE_TABLE)
		return args;
	/* "args": "{\"city\": \"Beijing\"}" -- a model that quoted the
	 * object: read the string, if all of it is one object. */
	if (args->kind == NODE_STRING) {
		struct source *inner = run_source_mem(run, src->path,
		    args->u.str.s, args->u.str.len);

		for (k = 0; k < inner->len && isspace((unsigned char)
		    inner->text[k]); k++)
			;
		if (jsonish_parse(run, inner, k, inner->len, &v, &stop,
		    &err) && v->kind == NODE_TABLE) {
			while (stop < inner->len &&
			    isspace((unsigned char)inner->text[stop]))
				stop++;
			if (stop == inner->len) {
				/* Messages point at the string as written. */
				retag(v, src->id, args->span);
				return v;
			}
		}
	}
	REJECT(run, why, src, args->span, MSG_DECIDE_ARGS_TYPE,
	    kind_words(args));
	return NULL;
}

static bool
check_finish(struct run *run, const struct source *src,
    const struct node *obj, struct decision *d)
{
	const struct node *m = tree_get(obj, "message");

	if (!m) {
		REJECT(run, &d->why, src, obj->span, MSG_DECIDE_NO_MESSAGE);
		return false;
	}
	if (m->kind != NODE_STRING) {
		REJECT(run, &d->why, src, m->span, MSG_DECIDE_MESSAGE_TYPE,
		    kind_words(m));
		return false;
	}
	d->action = DECIDE_FINISH;
	d->message = m->u.str.s;
	d->message_len = m->u.str.len;
	return true;
}

static bool
check_tool(struct run *run, const struct source *src, const struct node *obj,
    const struct tool_list *tools, struct decision *d)
{
	const struct node *name = tree_get(obj, "tool");
	const struct tool *t = NULL;
	bool ok = true;

	if (!name) {
		REJECT(run, &d->why, src, obj->span, MSG_DECIDE_NO_TOOL);
		return false;
	}
	if (name->kind != NODE_STRING) {
		REJECT(run, &d->why, src, name->span, MSG_DECIDE_TOOL_TYPE,
		    kind_words(name));
		return false;
	}
	if (name->u.str.len == 0) {
		REJECT(run, &d->why, src, name->span, MSG_DECIDE_NO_TOOL);
		return false;
	}
	if (tools && !(t = find_tool(tools, name->u.str.s))) {
		REJECT(run, &d->why, src, name->span, MSG_DECIDE_UNKNOWN_TOOL,
		    diag_shown(run, name->u.str.s, name->u.str.len),
		    tool_hint(&run->arena, tools, name->u.str.s));
		ok = false;
	}
	d->action = DECIDE_TOOL;
	d->tool = name->u.str.s;
	if (!(d->args = read_args(run, src, obj, &d->why)))
		return false;
	if (t && ok && !args_check(run, src, t->name, t->parameters, d->args,
	    &d->why))
		ok = false;
	return ok;
}

/* Say why nothing was found: the reading that got furthest, else that
 * there was no decision at all. */
static void
report_none(struct finder *f, struct decision *d)
{
	struct run *run = f->run;
	const struct source *src = f->src;

	if (f->failed && f->best.truncated) {
		REJECT(run, &d->why, src, span_make(f->best.off, 0),
		    MSG_DECIDE_TRUNCATED);
		if (f->best.has_open)
			diag_note(run, src, span_make(f->best.open, 1),
			    MSG_DECIDE_OPENED_HERE);
		return;
	}
	if (f->failed) {
		REJECT(run, &d->why, src, span_make(f->best.off, 0),
		    MSG_DECIDE_BAD_JSON, f->best.why);
		if (f->best.truncated && f->best.has_open)
			diag_note(run, src, span_make(f->best.open, 1),
			    MSG_DECIDE_OPENED_HERE);
		return;
	}
	REJECT(run, &d->why, src, span_make(0, 0), MSG_DECIDE_NO_JSON);
}

bool
decide_parse(struct run *run, const struct source *src,
    const struct tool_list *tools, struct decision *d)
{
	struct finder f = { run, src, NULL, 0, 0, 0, false, {0}, 0 };
	const struct node *obj, *action;
	struct decide_range *think;
	size_t i;
	char *word;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < src->len && isspace((unsigned char)src->text[i]); i++)
		;
	if (i == src->len) {
		REJECT(run, &d->why, src, span_make(0, 0), MSG_DECIDE_EMPTY);
		return false;
	}
	f.nthink = decide_think_ranges(&run->arena, src->text, src->len,
	    &think);
	f.think = think;
	obj = find_fenced(&f);
	if (!obj)
		obj = find_in(&f, 0, src->len);
	if (!obj) {
		if (f.nthink && think[f.nthink - 1].end == src->len &&
		    !f.failed && think[f.nthink - 1].off <= i)
			REJECT(run, &d->why, src, span_make(i, 7),
			    MSG_DECIDE_ALL_THINKING);
		else
			report_none(&f, d);
		return false;
	}
	action = tree_get(obj, "action");
	if (action->kind != NODE_STRING) {
		REJECT(run, &d->why, src, action->span, MSG_DECIDE_ACTION_TYPE,
		    kind_words(action));
		return false;
	}
	word = action_word(&run->arena, action);
	if (strcmp(word, "finish") == 0)
		return check_finish(run, src, obj, d);
	if (strcmp(word, "tool") == 0)
		return check_tool(run, src, obj, tools, d);
	REJECT(run, &d->why, src, action->span, MSG_DECIDE_UNKNOWN_ACTION,
	    diag_shown(run, action->u.str.s, action->u.str.len));
	return false;
}

struct node *
decide_tree(struct arena *a, const struct decision *d)
{
	struct node *t = tree_table(a);

	if (d->action == DECIDE_FINISH) {
		tree_put(a, t, "action", tree_str(a, "finish"));
		tree_put(a, t, "message", tree_strref(a, d->message,
		    d->message_len));
	} else {
		tree_put(a, t, "action", tree_str(a, "tool"));
		tree_put(a, t, "tool", tree_str(a, d->tool));
		tree_put(a, t, "args", (struct node *)d->args);
	}
	return t;
}

struct node *
decide_error_tree(struct arena *a, const char *why, const struct source *src)
{
	struct node *t = tree_table(a);

	tree_put(a, t, "action", tree_str(a, "error"));
	tree_put(a, t, "error", tree_str(a, why ? why : "unreadable"));
	tree_put(a, t, "raw", tree_strref(a, src->text, src->len));
	return t;
}
