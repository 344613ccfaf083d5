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
#include "data/json.h"
#include "profile/profile.h"
#include "prompt/item.h"
#include "text/tokenizer.h"

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

/* The provider a model name belongs to, by its family's prefix, or
 * NULL.  Open models that Ollama serves (gpt-oss, gemma) are no
 * provider's own. */
static const char *
family(const char *m)
{
	static const char *const openai[] = { "gpt-3.5", "gpt-4", "gpt-5",
		"chatgpt-", "o1", "o3", "o4", NULL };
	size_t i;

	for (i = 0; openai[i]; i++)
		if (strncmp(m, openai[i], strlen(openai[i])) == 0 &&
		    (openai[i][0] != 'o' || m[2] == '\0' || m[2] == '-'))
			return "OpenAI";
	if (strncmp(m, "claude-", 7) == 0)
		return "Anthropic";
	if (strncmp(m, "gemini-", 7) == 0)
		return "Google";
	return NULL;
}

/*
 * A model of another provider than the format's is a warning: the
 * request would fail.  Chat Completions and Responses are spoken by
 * many providers' compatible endpoints, so only the native formats
 * are checked.
 */
static void
other_provider(struct run *run, const struct chat *c, const char *format)
{
	const struct node *n = c->profile ? c->profile->model.node : NULL;
	struct source *s = n ? run_source(run, n->src) : NULL;
	const char *fam = family(c->model), *to;
	enum out_format f;

	if (!names_format_parse(format, &f))
		return;
	switch (f) {
	case FORMAT_ANTHROPIC: to = "Anthropic"; break;
	case FORMAT_GEMINI: to = "Google"; break;
	case FORMAT_OLLAMA: to = "Ollama"; break;
	default: return;
	}
	if (!fam || strcmp(fam, to) == 0)
		return;
	if (s)
		diag_warning(run, s, n->span, MSG_MODEL_OTHER_PROVIDER,
		    c->model, strcmp(fam, "OpenAI") == 0 ? "an OpenAI" :
		    strcmp(fam, "Anthropic") == 0 ? "an Anthropic" : "a Google",
		    format, to);
	else
		diag_plain(run, DIAG_WARNING, MSG_MODEL_OTHER_PROVIDER,
		    c->model, strcmp(fam, "OpenAI") == 0 ?
		    "an OpenAI" : strcmp(fam, "Anthropic") == 0 ?
		    "an Anthropic" : "a Google", format, to);
}

bool
emit_model(struct run *run, const struct chat *c, const char *format,
    const char **model)
{
	const struct node *out = tree_get(c->profile->root, "output");
	const struct member *key = tree_member(c->profile->root, "output", 6);

	*model = c->model;
	if (c->model && *c->model) {
		other_provider(run, c, format);
		return true;
	}
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

		if (m->origin != ORIGIN_SYSTEM && m->origin != ORIGIN_DEVELOPER)
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

void
emit_cannot(struct run *run, const struct chat *c, size_t i,
    const char *provider, const char *what)
{
	const struct message *m = &c->msgs[i];
	struct source *s = m->has_src ? run_source(run, m->src) : NULL;

	diag_error(run, s, s ? m->span : span_make(0, 0), MSG_PROVIDER_CANNOT,
	    names_role(m->role), i + 1, provider, what);
}

bool
emit_empty(const struct message *m)
{
	size_t k;

	if (m->len)
		return false;
	if (m->x && (m->x->ncalls || m->x->call_id))
		return false;
	for (k = 0; m->x && k < m->x->nparts; k++)
		if (m->x->parts[k].kind != PART_TEXT ||
		    m->x->parts[k].len)
			return false;
	return true;
}

struct node *
emit_data_url(struct arena *a, const struct part *p)
{
	if (p->url)
		return tree_strref(a, p->data, p->len);
	return tree_str(a, arena_printf(a, "data:%s;base64,%.*s",
	    p->media_type ? p->media_type : "application/octet-stream",
	    (int)p->len, p->data));
}

const char *
emit_url_type(const char *url, size_t len)
{
	static const char *const ext[][2] = {
		{ "jpg", "image/jpeg" }, { "jpeg", "image/jpeg" },
		{ "png", "image/png" }, { "webp", "image/webp" },
		{ "gif", "image/gif" }, { "pdf", "application/pdf" },
	};
	size_t end = 0, dot, k, j;

	while (end < len && url[end] != '?' && url[end] != '#')
		end++;
	for (dot = end; dot > 0 && url[dot - 1] != '.' &&
	    url[dot - 1] != '/'; dot--)
		;
	if (dot == 0 || url[dot - 1] != '.')
		return NULL;
	for (k = 0; k < sizeof(ext) / sizeof(ext[0]); k++) {
		if (strlen(ext[k][0]) != end - dot)
			continue;
		for (j = 0; j < end - dot; j++)
			if ((url[dot + j] | 0x20) != ext[k][0][j])
				break;
		if (j == end - dot)
			return ext[k][1];
	}
	return NULL;
}

const struct node *
emit_replay(const struct message *m, const char *provider)
{
	const struct node *n;

	if (!m->x || !m->x->replay)
		return NULL;
	n = tree_get(m->x->replay, provider);
	return n && n->kind == NODE_ARRAY && n->u.array.n ? n : NULL;
}

const char *
emit_reasoning_fate(const struct chat *c, const struct message *m)
{
	const struct message_extra *x = m->x;
	bool text = x && x->reasoning;

	if (!x || (!x->reasoning && !x->replay))
		return NULL;
	switch (c->format) {
	case FORMAT_ANTHROPIC:
		if (emit_replay(m, "anthropic") && x->ncalls)
			return "sent back: its signed thinking blocks, before "
			    "the tool calls";
		if (emit_replay(m, "anthropic"))
			return "left out: Anthropic needs the signed thinking "
			    "blocks only of a turn that made tool calls";
		return "left out: Anthropic takes back only signed thinking "
		    "blocks";
	case FORMAT_RESPONSES:
		if (emit_replay(m, "responses"))
			return "sent back: its reasoning items, in order (with "
			    "the reply's own items, as they came)";
		return "left out: the Responses API takes back only its own "
		    "reasoning items";
	case FORMAT_GEMINI:
		if (emit_replay(m, "gemini"))
			return "sent back: its parts with their thought "
			    "signatures";
		return "left out: Gemini takes back only parts with their "
		    "thought signatures";
	case FORMAT_OLLAMA:
		if (text)
			return "sent back as the message's thinking";
		return "left out: Ollama takes reasoning only as text";
	case FORMAT_OPENAI:
		return "left out: Chat Completions never takes "
		    "reasoning_content back";
	default:
		return "left out: this format has no place for it";
	}
}

struct node *
emit_args_text(struct arena *a, const struct node *args)
{
	struct buf b = BUF_INIT;
	struct node *n;

	json_write(&b, args, -1);
	n = tree_strn(a, b.data ? b.data : "{}", b.len ? b.len : 2);
	buf_free(&b);
	return n;
}

/* OpenAI's message name: ^[a-zA-Z0-9_-]{1,64}$. */
static bool
openai_name(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return n >= 1 && n <= 64;
}

struct node *
emit_openai_message(struct run *run, const struct chat *c, size_t *ip,
    struct arena *a)
{
	size_t i = (*ip)++, k;
	const struct message *m = &c->msgs[i];
	const struct message_extra *x = m->x;
	struct node *o = tree_table(a), *parts, *calls;

	tree_put(a, o, "role", tree_str(a, names_role(m->role)));
	if (x && x->nparts) {
		parts = tree_put(a, o, "content", tree_array(a));
		for (k = 0; k < x->nparts; k++) {
			const struct part *p = &x->parts[k];
			struct node *q = tree_table(a), *in;

			if (p->kind == PART_TEXT) {
				tree_put(a, q, "type", tree_str(a, "text"));
				tree_put(a, q, "text", tree_strref(a, p->data,
				    p->len));
			} else if (m->role != ROLE_USER) {
				emit_cannot(run, c, i, "openai", p->kind ==
				    PART_IMAGE ? "an image here (only in a "
				    "user message)" : "a file here (only in a "
				    "user message)");
				return NULL;
			} else if (p->kind == PART_IMAGE) {
				tree_put(a, q, "type", tree_str(a,
				    "image_url"));
				in = tree_put(a, q, "image_url", tree_table(a));
				tree_put(a, in, "url", emit_data_url(a, p));
			} else if (p->url) {
				emit_cannot(run, c, i, "openai",
				    "a file by URL (only its bytes)");
				return NULL;
			} else {
				tree_put(a, q, "type", tree_str(a, "file"));
				in = tree_put(a, q, "file", tree_table(a));
				if (p->filename)
					tree_put(a, in, "filename", tree_str(a,
					    p->filename));
				tree_put(a, in, "file_data",
				    emit_data_url(a, p));
			}
			tree_push(a, parts, q);
		}
	} else if (x && x->ncalls && !m->len) {
		tree_put(a, o, "content", tree_new(a, NODE_NULL, 0,
		    span_make(0, 0)));
	} else {
		tree_put(a, o, "content", tree_strref(a, m->content, m->len));
	}
	if (m->name) {
		if (c->format == FORMAT_OPENAI && !openai_name(m->name)) {
			struct source *s = m->has_src ? run_source(run,
			    m->src) : NULL;

			diag_error(run, s, s ? m->span : span_make(0, 0),
			    MSG_PROVIDER_NAME, names_role(m->role), i + 1,
			    "openai", diag_shown(run, m->name,
			    strlen(m->name)), "^[a-zA-Z0-9_-]{1,64}$");
			return NULL;
		}
		tree_put(a, o, "name", tree_str(a, m->name));
	}
	if (x && x->ncalls) {
		calls = tree_put(a, o, "tool_calls", tree_array(a));
		for (k = 0; k < x->ncalls; k++) {
			struct node *q = tree_table(a), *fn;

			tree_put(a, q, "id", tree_str(a, x->calls[k].id));
			tree_put(a, q, "type", tree_str(a, "function"));
			fn = tree_put(a, q, "function", tree_table(a));
			tree_put(a, fn, "name", tree_str(a,
			    x->calls[k].name));
			tree_put(a, fn, "arguments", emit_args_text(a,
			    x->calls[k].args));
			tree_push(a, calls, q);
		}
	}
	if (x && x->call_id)
		tree_put(a, o, "tool_call_id", tree_str(a, x->call_id));
	if (x && x->flag)
		tree_put(a, o, x->flag, tree_bool(a, true));
	return o;
}

void
emit_extra_text(struct buf *out, const struct message *m)
{
	const struct message_extra *x = m->x;
	struct buf b = BUF_INIT;
	size_t k;

	for (k = 0; x && k < x->nparts; k++) {
		const struct part *p = &x->parts[k];

		if (p->kind == PART_TEXT)
			continue;
		buf_printf(out, "[%s", p->kind == PART_IMAGE ? "image" :
		    "file");
		if (p->media_type)
			buf_printf(out, " %s", p->media_type);
		if (p->filename)
			buf_printf(out, " %s", p->filename);
		if (p->url)
			buf_printf(out, " %.*s]\n", (int)p->len, p->data);
		else
			buf_printf(out, ", %zu bytes of base64]\n", p->len);
	}
	for (k = 0; x && k < x->ncalls; k++) {
		buf_reset(&b);
		json_write(&b, x->calls[k].args, -1);
		buf_printf(out, "[tool call %s: %s %.*s]\n", x->calls[k].id,
		    x->calls[k].name, (int)b.len, b.data ? b.data : "");
	}
	buf_free(&b);
}

/* Every so many bytes, the scratch arena of emit_write() starts over. */
#define SCRATCH_BYTES (1u << 20)

/*
 * The output of a big array is estimated as it goes: when less than
 * SCRATCH_BYTES of room is left, room for the rest at the rate so far
 * (bytes written per byte of content plus a per-message allowance),
 * and a little more, so the buffer is not doubled past the output.
 */
static void
room_for_rest(struct buf *out, size_t start, const struct chat *c,
    size_t from, size_t i, size_t done_content, size_t all_content)
{
	size_t left, written = out->len - start;
	double rate;

	if (out->cap - out->len >= SCRATCH_BYTES || i >= c->n)
		return;
	left = all_content - done_content + 32 * (c->n - i);
	rate = (double)written / (double)(done_content + 32 * (i - from));
	buf_reserve_exact(out, (size_t)(rate * (double)left * 1.02) +
	    SCRATCH_BYTES);
}

/*
 * The common message of OpenAI's shape -- a role and its text, no name,
 * parts or calls -- written straight out, byte for byte as
 * json_write_level() writes the tree emit_openai_message() would build
 * for it, at level with indent 2: a history of a million such messages
 * builds no tree at all.
 */
/* A newline and n spaces at p, which has room; past them. */
static char *
indent(char *p, size_t n)
{
	*p++ = '\n';
	memset(p, ' ', n);
	return p + n;
}

static void
write_plain(struct buf *out, const struct message *m, int level)
{
	const char *role = names_role(m->role);
	size_t in = 2 * (size_t)level, rlen = strlen(role);
	char *p;

	buf_reserve(out, 2 * in + rlen + 30);
	p = out->data + out->len;
	*p++ = '{';
	p = indent(p, in + 2);
	memcpy(p, "\"role\": \"", 9);
	memcpy(p + 9, role, rlen);
	p += 9 + rlen;
	*p++ = '"';
	*p++ = ',';
	p = indent(p, in + 2);
	memcpy(p, "\"content\": ", 11);
	out->len = (size_t)(p + 11 - out->data);
	json_write_string(out, m->content, m->len);
	buf_reserve(out, in + 2);
	p = indent(out->data + out->len, in);
	*p++ = '}';
	*p = '\0';
	out->len = (size_t)(p - out->data);
}

static bool
write_items(struct run *run, const struct chat *c, size_t from,
    emit_item_fn *item, struct buf *out, int level, size_t all)
{
	struct arena scratch;
	size_t i = from, n = 0, start = out->len, done = 0, k;
	bool ok = true;

	arena_init(&scratch);
	buf_putc(out, '[');
	while (i < c->n) {
		size_t prev = i;
		const struct message *m = &c->msgs[i];
		struct node *o = NULL;

		if (item == emit_openai_message && !m->x && !m->name)
			i++;
		else if ((o = item(run, c, &i, &scratch)) == NULL) {
			ok = false;
			break;
		}
		for (k = prev; k < i; k++)
			done += c->msgs[k].len;
		if (n++)
			buf_putc(out, ',');
		buf_put(out, "\n        ", 1 + 2 * (size_t)(level + 1));
		if (o)
			json_write_level(out, o, 2, level + 1);
		else
			write_plain(out, m, level + 1);
		if (scratch.total > SCRATCH_BYTES) {
			arena_free(&scratch);
			arena_init(&scratch);
		}
		room_for_rest(out, start, c, from, i, done, all);
	}
	if (n)
		buf_put(out, "\n        ", 1 + 2 * (size_t)level);
	buf_putc(out, ']');
	arena_free(&scratch);
	return ok;
}

bool
emit_write(struct run *run, const struct chat *c, const struct node *body,
    const struct node *hole, size_t from, emit_item_fn *item,
    struct buf *out)
{
	size_t i, all = 0;
	bool ok = true;

	for (i = from; i < c->n; i++)
		all += c->msgs[i].len;
	buf_reserve_exact(out, all + 32 * (c->n - from));
	if (body == hole) {
		ok = write_items(run, c, from, item, out, 0, all);
		buf_putc(out, '\n');
		return ok;
	}
	buf_putc(out, '{');
	for (i = 0; i < body->u.table.n && ok; i++) {
		const struct member *m = &body->u.table.items[i];

		buf_puts(out, i ? ",\n  " : "\n  ");
		json_write_string(out, m->key, m->keylen);
		buf_puts(out, ": ");
		if (m->value == hole)
			ok = write_items(run, c, from, item, out, 1, all);
		else
			json_write_level(out, m->value, 2, 1);
	}
	buf_puts(out, body->u.table.n ? "\n}\n" : "}\n");
	return ok;
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
emit_where_in(struct run *run, struct arena *a, uint32_t src, struct span sp)
{
	struct source *s = run_source(run, src);

	if (!s)
		return NULL;
	return arena_printf(a, "%s:%u", s->path, source_lineno(s, sp.off));
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
		if (c->msgs[i].origin != ORIGIN_SYSTEM &&
		    c->msgs[i].origin != ORIGIN_DEVELOPER)
			break;
	return i;
}

size_t
emit_tokens(const char *s, size_t len)
{
	return tokenizer_estimate(s, len);
}

void
emit_counter_init(struct emit_counter *k, const struct chat *c)
{
	enum tokenizer_kind kind;

	k->exact = false;
	k->kind = 0;
	if (c->dialect == DIALECT_TAVERN && c->items->tokenizer &&
	    tokenizer_by_name(c->items->tokenizer, &kind)) {
		k->exact = true;
		k->kind = (int)kind;
	} else if (c->dialect != DIALECT_TAVERN &&
	    tokenizer_model_known(c->model)) {
		k->exact = true;
		k->kind = (int)tokenizer_for_model(c->model);
	}
}

size_t
emit_count(const struct emit_counter *k, const char *s, size_t len)
{
	if (!k->exact)
		return emit_tokens(s, len);
	return tokenizer_count((enum tokenizer_kind)k->kind, s, len);
}

const char *
emit_counter_name(const struct emit_counter *k)
{
	return k->exact ? tokenizer_name((enum tokenizer_kind)k->kind) :
	    "estimate";
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
