/*
 * The review format: every part of the request, one field per line, for
 * people and for diffs in CI.  Each line is "PATH: VALUE" with a stable
 * PATH (profile, target, model, max_tokens, params.KEY...,
 * messages[I].role/name/content, tools[I].name/description/usage_hint/
 * strict/parameters.KEY...), in that order.  A text of one line up to
 * 72 bytes follows its colon; a longer one, or one of several lines,
 * follows "PATH: |" as a block whose lines are indented by two spaces
 * (an empty line stays empty).  Other values are compact JSON; tables
 * and arrays are flattened, one leaf per line (KEY, [I], and ["KEY"] for
 * a key that is not a plain word), "{}" and "[]" for empty ones.
 */
#include "emit/emit.h"

#include "profile/profile.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "data/json.h"
#include "data/tree.h"
#include "prompt/chat.h"
#include "prompt/tool.h"

#define REVIEW_INLINE 72

static void
text(struct buf *out, const char *path, const char *s, size_t len)
{
	const char *end = s + len, *nl;

	if (len <= REVIEW_INLINE && !memchr(s, '\n', len)) {
		buf_printf(out, "%s: ", path);
		buf_put(out, s, len);
		buf_putc(out, '\n');
		return;
	}
	buf_printf(out, "%s: |\n", path);
	for (;;) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (nl != s)
			buf_puts(out, "  ");
		buf_put(out, s, (size_t)((nl ? nl : end) - s));
		buf_putc(out, '\n');
		if (!nl)
			break;
		s = nl + 1;
	}
}

/* A key as a path component: ".key", or ["key"] when not a word. */
static void
component(struct buf *path, const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char c = key[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-'))
			break;
	}
	if (len && i == len) {
		buf_putc(path, '.');
		buf_put(path, key, len);
	} else {
		buf_putc(path, '[');
		json_write_string(path, key, len);
		buf_putc(path, ']');
	}
}

static void
leaves(struct buf *out, struct buf *path, const struct node *n)
{
	size_t mark = path->len, i;

	if (n->kind == NODE_TABLE && n->u.table.n) {
		for (i = 0; i < n->u.table.n; i++) {
			const struct member *m = &n->u.table.items[i];

			component(path, m->key, m->keylen);
			leaves(out, path, m->value);
			path->len = mark;
			path->data[mark] = '\0';
		}
		return;
	}
	if (n->kind == NODE_ARRAY && n->u.array.n) {
		for (i = 0; i < n->u.array.n; i++) {
			buf_printf(path, "[%zu]", i);
			leaves(out, path, n->u.array.items[i]);
			path->len = mark;
			path->data[mark] = '\0';
		}
		return;
	}
	buf_put(out, path->data, path->len);
	buf_puts(out, ": ");
	json_write(out, n, -1);
	buf_putc(out, '\n');
}

static void
flatten(struct buf *out, const char *prefix, const struct node *n)
{
	struct buf path = BUF_INIT;

	buf_puts(&path, prefix);
	leaves(out, &path, n);
	buf_free(&path);
}

static void
tool(struct buf *out, size_t i, const struct tool *t)
{
	char p[64];

	snprintf(p, sizeof(p), "tools[%zu].name", i);
	text(out, p, t->name, strlen(t->name));
	snprintf(p, sizeof(p), "tools[%zu].description", i);
	text(out, p, t->description, strlen(t->description));
	if (t->usage_hint) {
		snprintf(p, sizeof(p), "tools[%zu].usage_hint", i);
		text(out, p, t->usage_hint, strlen(t->usage_hint));
	}
	if (t->strict)
		buf_printf(out, "tools[%zu].strict: %s\n", i,
		    t->strict->u.b ? "true" : "false");
	snprintf(p, sizeof(p), "tools[%zu].parameters", i);
	flatten(out, p, t->parameters);
}

bool
emit_review(struct run *run, const struct chat *c, struct buf *out)
{
	const struct profile *p = c->profile;
	char path[64];
	size_t i;

	(void)run;
	text(out, "profile", p->src->path, strlen(p->src->path));
	buf_printf(out, "target: %s\n", names_format(p->has_output &&
	    p->output != FORMAT_REVIEW ? p->output : FORMAT_OPENAI));
	buf_printf(out, "model: %s\n", c->model ? c->model : "-");
	if (c->max_tokens)
		buf_printf(out, "max_tokens: %lld\n",
		    (long long)c->max_tokens);
	if (c->params)
		flatten(out, "params", c->params);
	for (i = 0; i < c->n; i++) {
		const struct message *m = &c->msgs[i];

		buf_printf(out, "messages[%zu].role: %s\n", i,
		    names_role(m->role));
		if (m->name)
			buf_printf(out, "messages[%zu].name: %s\n", i,
			    m->name);
		snprintf(path, sizeof(path), "messages[%zu].content", i);
		text(out, path, m->content, m->len);
	}
	for (i = 0; i < c->tools.n; i++)
		tool(out, i, c->tools.items[i]);
	return true;
}
