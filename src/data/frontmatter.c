#include "data/frontmatter.h"

#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/tree.h"
#include "data/yamltree.h"
#include "diag/run.h"

static size_t
line_end(const char *s, size_t len, size_t i)
{
	const char *nl = i < len ? memchr(s + i, '\n', len - i) : NULL;

	return nl ? (size_t)(nl - s) : len;
}

static bool
is_delim(const char *s, size_t from, size_t to)
{
	if (to > from && s[to - 1] == '\r')
		to--;
	return to - from == 3 && memcmp(s + from, "---", 3) == 0;
}

bool
frontmatter_read(struct run *run, struct source *src, struct frontmatter *fm)
{
	const char *s = src->text;
	size_t len = src->len, bom = utf8_bom(s, len);
	size_t e = line_end(s, len, bom), i;
	struct source *yaml;
	char *copy;

	/* A byte order mark is no part of the text either way. */
	fm->meta = NULL;
	fm->body = bom;
	if (!is_delim(s, bom, e))
		return true;
	for (i = e + 1; i < len; i = e + 1) {
		e = line_end(s, len, i);
		if (is_delim(s, i, e))
			break;
	}
	if (i >= len) {
		diag_error(run, src, span_make(bom, 3),
		    MSG_FRONT_MATTER_UNCLOSED);
		return false;
	}
	copy = arena_strndup(&run->arena, s, i);
	memset(copy, ' ', bom + 3);
	yaml = run_source_mem(run, src->path, copy, i);
	if (!yamltree_parse(run, yaml, &fm->meta))
		return false;
	if (fm->meta->kind == NODE_NULL) {
		fm->meta = NULL;
	} else if (fm->meta->kind != NODE_TABLE) {
		diag_error(run, yaml, fm->meta->span, MSG_FRONT_MATTER_TABLE);
		return false;
	}
	fm->body = e < len ? e + 1 : len;
	return true;
}

const char *
frontmatter_string(struct run *run, const struct frontmatter *fm,
    const char *key, bool *ok)
{
	const struct node *n = fm->meta ? tree_get(fm->meta, key) : NULL;

	if (!n)
		return NULL;
	if (n->kind != NODE_STRING) {
		diag_error(run, run_source(run, n->src), n->span,
		    MSG_WRONG_TYPE, key, "a string",
		    tree_kind_article(n->kind));
		*ok = false;
		return NULL;
	}
	return n->u.str.s;
}
