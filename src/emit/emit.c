#include "emit/emit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/hash.h"
#include "base/buf.h"
#include "prompt/chat.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/tree.h"
#include "base/util.h"
#include "profile/profile.h"

/* The FNV-1a 64 prime (hash.h has the offset basis). */
#define FNV_PRIME UINT64_C(0x100000001b3)

emit_fn *
emit_for(enum out_format f)
{
	switch (f) {
	case FORMAT_OPENAI:
		return emit_openai;
	case FORMAT_ANTHROPIC:
		return emit_anthropic;
	case FORMAT_GEMINI:
		return emit_gemini;
	case FORMAT_MESSAGES:
		return emit_messages;
	case FORMAT_TEXT:
		return emit_text;
	case FORMAT_RESPONSES:
		return emit_responses;
	case FORMAT_OLLAMA:
		return emit_ollama;
	case FORMAT_PROMPT:
		return emit_prompt;
	case FORMAT_SYSTEM:
		return emit_system;
	case FORMAT_USER:
		return emit_user;
	case FORMAT_REVIEW:
		return emit_review;
	case FORMAT_JSON:
		break;
	}
	return emit_json;
}

bool
emit_model(struct run *run, const struct chat *c, const char *format,
    const char **model)
{
	const struct node *out = tree_get(c->profile->root, "output");
	const struct member *key = tree_member(c->profile->root, "output", 6);

	*model = c->model;
	if (c->model && *c->model)
		return true;
	/* Point at [output] when there is one; else there is no place.  A
	 * key written before its table's span (YAML's "output:", whose
	 * mapping starts at its first key) is the better place. */
	if (out && key && key->keysrc == out->src &&
	    key->keyspan.off < out->span.off)
		diag_error(run, run_source(run, key->keysrc), key->keyspan,
		    MSG_NO_MODEL, format);
	else if (out)
		diag_error(run, run_source(run, out->src), out->span,
		    MSG_NO_MODEL, format);
	else
		diag_plain(run, DIAG_ERROR, MSG_NO_MODEL, format);
	return false;
}

const char *
emit_system_text(struct run *run, const struct chat *c, size_t *len)
{
	struct buf b = BUF_INIT;
	const char *s;
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct message *m = &c->msgs[i];

		if (strcmp(m->origin, "system") && strcmp(m->origin,
		    "developer"))
			break;
		if (b.len)
			buf_puts(&b, "\n\n");
		buf_put(&b, m->content, m->len);
	}
	*len = b.len;
	if (!b.len)
		return NULL;
	s = arena_strndup(&run->arena, b.data, b.len);
	buf_free(&b);
	return s;
}

struct node *
emit_openai_messages(struct run *run, const struct chat *c)
{
	struct arena *a = &run->arena;
	struct node *msgs = tree_array(a);
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct message *m = &c->msgs[i];
		struct node *o = tree_table(a);

		tree_put(a, o, "role", tree_str(a, names_role(m->role)));
		tree_put(a, o, "content", tree_strref(a, m->content, m->len));
		if (m->name)
			tree_put(a, o, "name", tree_str(a, m->name));
		tree_push(a, msgs, o);
	}
	return msgs;
}

/* json_write() only reads the parameters node: the const is cast away
 * for the tree's sake. */
struct node *
emit_tool(struct arena *a, const struct tool *t, const char *schema_key)
{
	struct node *o = tree_table(a);

	tree_put(a, o, "name", tree_str(a, t->name));
	tree_put(a, o, "description", tree_str(a, t->description));
	tree_put(a, o, schema_key, (struct node *)t->parameters);
	return o;
}

const char *
emit_where(struct run *run, bool has, uint32_t src, struct span sp)
{
	struct source *s = has ? run_source(run, src) : NULL;

	if (!s)
		return NULL;
	return arena_printf(&run->arena, "%s:%u", s->path,
	    source_lineno(s, sp.off));
}

size_t
emit_first_turn(const struct chat *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->msgs[i].origin, "system") &&
		    strcmp(c->msgs[i].origin, "developer"))
			break;
	return i;
}

/* Scripts written without spaces, where a character is about a token. */
static bool
cjk(uint32_t c)
{
	return (c >= 0x2e80 && c <= 0x9fff) ||  /* radicals .. CJK ideographs */
	    (c >= 0xac00 && c <= 0xd7af) ||     /* Hangul syllables */
	    (c >= 0xf900 && c <= 0xfaff) ||     /* compatibility ideographs */
	    (c >= 0xff00 && c <= 0xffef) ||     /* full-width forms */
	    (c >= 0x20000 && c <= 0x3ffff);     /* extension planes */
}

size_t
emit_tokens(const char *s, size_t len)
{
	size_t i = 0, k, wide = 0, other = 0;
	uint32_t c;

	while (i < len) {
		k = utf8_decode(s + i, len - i, &c);
		if (k == 0) {
			k = 1;
			c = 0xfffd;
		}
		if (cjk(c))
			wide++;
		else
			other++;
		i += k;
	}
	return wide + (other + 3) / 4;
}

uint64_t
emit_fingerprint(const char *role, const char *s, size_t len)
{
	/* the role and its NUL, then the content */
	uint64_t h = hash_fnv1a64(HASH_FNV_INIT, role, strlen(role) + 1);

	return hash_fnv1a64(h, s, len);
}

uint64_t
emit_fingerprint_fold(uint64_t f, uint64_t h)
{
	return (f ^ h) * FNV_PRIME;
}

bool
emit_color(int fd, const char *when)
{
	const char *nc = getenv("NO_COLOR");

	if (when && strcmp(when, "always") == 0)
		return true;
	if (when && strcmp(when, "never") == 0)
		return false;
	return isatty(fd) && !(nc && *nc);
}

bool
emit_check(struct run *run, const struct chat *c)
{
	struct node *scratch = tree_table(&run->arena);
	const char *model;
	bool ok = true;

	if (c->format == FORMAT_OPENAI || c->format == FORMAT_ANTHROPIC ||
	    c->format == FORMAT_RESPONSES || c->format == FORMAT_OLLAMA)
		ok = emit_model(run, c, names_format(c->format), &model);
	return emit_params(run, c, c->format, scratch,
	    tree_table(&run->arena)) && ok;
}
