/*
 * tbuild_item: the message lists a build assembles and the items
 * (prompt/item.h) that record what was decided about each piece of text.
 */
#include "tavern/tbuild_int.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/tree.h"
#include "data/yamltree.h"
#include "diag/run.h"
#include "text/macros.h"
#include "prompt/chat.h"
#include "tavern/card.h"
#include "tavern/field.h"
#include "tavern/macro.h"
#include "tavern/preset.h"
#include "tavern/settings.h"
#include "tavern/tchat.h"
#include "tavern/titem.h"

const enum role tb_roles[3] = { ROLE_SYSTEM, ROLE_USER, ROLE_ASSISTANT };

/* The role a file names (a preset prompt's, a card's depth prompt's, a
 * sandbox message's), spelled as names_roles spells it: user or
 * assistant, else system as SillyTavern reads anything else. */
enum role
tb_role_of(const char *s)
{
	int k = s ? names_index(names_roles, s, strlen(s)) : -1;

	return k == ROLE_USER || k == ROLE_ASSISTANT ? (enum role)k :
	    ROLE_SYSTEM;
}

void
tb_push(struct run *run, struct tlist *l, enum role role, const char *name,
    const char *content, const char *id)
{
	struct tmsg m;

	m.role = role;
	m.name = name;
	m.content = content;
	m.id = id;
	m.items = NULL;
	m.nitems = 0;
	m.chat = 0;
	m.chat_item = 0;
	m.real = m.prepared = false;
	if (l->n == l->cap)
		l->v = avec_grow(&run->arena, l->v, &l->cap, l->n, l->n + 1,
		    sizeof(*l->v));
	l->v[l->n++] = m;
}

void
tb_insert_at(struct run *run, struct tlist *l, size_t at, const struct tmsg *m)
{
	if (l->n == l->cap)
		l->v = avec_grow(&run->arena, l->v, &l->cap, l->n, l->n + 1,
		    sizeof(*l->v));
	if (at > l->n)
		at = l->n;
	memmove(&l->v[at + 1], &l->v[at], (l->n - at) * sizeof(*l->v));
	l->v[at] = *m;
	l->n++;
}


/* Room in l for n messages in all, allocated once (lists the size of
 * the chat would otherwise grow by copies left in the arena). */
void
tb_reserve(struct run *run, struct tlist *l, size_t n)
{
	if (n > l->cap)
		l->v = avec_grow(&run->arena, l->v, &l->cap, l->n, n,
		    sizeof(*l->v));
}

/* SillyTavern's server counts a message for a claude name as Claude's
 * tokens of the prompt convertClaudePrompt() makes of it alone,
 * "\n\nHuman: " then "NAME: " if it has a name, then its text; off is
 * what its caller takes off (3 for a message, TokenHandler's; 1 for
 * world info's text, getTokenCountAsync's). */
size_t
tb_claude_tokens(const char *name, const char *text, size_t len, size_t off)
{
	struct buf b = BUF_INIT;
	size_t n;

	buf_puts(&b, "\n\nHuman: ");
	if (name && *name) {
		buf_puts(&b, name);
		buf_puts(&b, ": ");
	}
	buf_put(&b, text, len);
	n = tokenizer_count(TOKENIZER_CLAUDE, b.data, b.len);
	buf_free(&b);
	return n > off ? n - off : 0;
}

/* A SentencePiece model's tokens of the message's values joined by two
 * line breaks (role, text, and name when it has one), less 3: what
 * SillyTavern's server counts for the message alone, less what
 * TokenHandler takes off. */
static size_t
sp_message_tokens(const struct tb *t, const char *role, const char *name,
    const char *text)
{
	struct buf b = BUF_INIT;
	size_t n;

	buf_puts(&b, role ? role : "");
	buf_puts(&b, "\n\n");
	buf_puts(&b, text);
	if (name && *name) {
		buf_puts(&b, "\n\n");
		buf_puts(&b, name);
	}
	n = tokenizer_count(t->tok, b.data, b.len);
	buf_free(&b);
	return n > 3 ? n - 3 : 0;
}

/* What SillyTavern counts for a message: for an OpenAI encoding
 * gpt-3.5-turbo's 3 tokens per message, its role and text, and its name
 * and 1 more when it has one; for a claude name see tb_claude_tokens();
 * for a SentencePiece model sp_message_tokens(). */
static size_t
message_tokens(const struct tb *t, const char *role, const char *name,
    const char *text)
{
	size_t n = 3;

	if (t->tok == TOKENIZER_CLAUDE)
		return tb_claude_tokens(name, text, strlen(text), 3);
	if (tokenizer_is_sp(t->tok))
		return sp_message_tokens(t, role, name, text);
	if (role)
		n += tokenizer_count(t->tok, role, strlen(role));
	n += tokenizer_count(t->tok, text, strlen(text));
	if (name && *name)
		n += tokenizer_count(t->tok, name, strlen(name)) + 1;
	return n;
}

size_t
tb_tokens(struct tb *t, struct tmsg *m)
{
	tb_resolve(t, m);
	return message_tokens(t, names_role(m->role), m->name, m->content);
}

/* --- items (prompt/item.h): what was decided about each piece of text --- */

/* The regex scripts that changed the text in the last apply(), or NULL. */
const char *
tb_fired(struct tb *t)
{
	return t->fired;
}


/* A new item with text raw at every stage; its index. */
uint32_t
tb_item_add(struct tb *t, const char *id, enum item_source source,
    enum role role, int64_t depth, const char *raw)
{
	struct item_report *r = t->rep;
	struct item *it;
	size_t k;

	if (r->n == r->cap)
		r->items = avec_grow(&t->run->arena, r->items, &r->cap, r->n,
		    r->n + 1, sizeof(*r->items));
	it = &r->items[r->n];
	memset(it, 0, sizeof(*it));
	it->id = id;
	it->source = source;
	it->role = role;
	it->depth = depth;
	it->message = -1;
	for (k = 0; k < ITEM_NSTAGES; k++)
		it->text[k] = raw ? raw : "";
	return (uint32_t)r->n++;
}

/* Item i's text from stage k on is s (the text before it when equal, so
 * unchanged stages share one string).  The plan's record hook writes
 * the stages of the texts it runs (tbuild_rewrite.c); the build calls
 * this itself only for a text the plan made before its item existed
 * (a message as it entered the chat, a card field substituted once, a
 * text made once for several items) or that strata's profile plan made
 * (its entries). */
void
tb_item_stage(struct tb *t, uint32_t i, enum item_stage k, const char *s)
{
	struct item *it = &t->rep->items[i];
	size_t j;

	if (!s)
		s = "";
	if (k > 0 && strcmp(it->text[k - 1], s) == 0)
		s = it->text[k - 1];
	for (j = k; j < ITEM_NSTAGES; j++)
		it->text[j] = s;
}

/* Item i's text was read at n (NULL: nowhere known). */
void
tb_item_at(struct tb *t, uint32_t i, const struct node *n)
{
	struct item *it = &t->rep->items[i];

	if (!n)
		return;
	it->has_src = true;
	it->src = n->src;
	it->span = n->span;
}

/* Item i is the preset's top-level field key (new_chat_prompt, ...). */
void
tb_item_preset(struct tb *t, uint32_t i, const char *key)
{
	tb_item_at(t, i, tree_get(t->p->root, key));
}

/* Item i is the card's field (its name as the card spells it) read at
 * n, or NULL when the card lacks it.  A PNG card's item points at the
 * PNG file and the field, the decoded text having no file of its own. */
void
tb_item_card(struct tb *t, uint32_t i, const char *field,
    const struct node *n)
{
	struct item *it = &t->rep->items[i];

	it->field = field;
	if (n && !t->card->file->binary) {
		tb_item_at(t, i, n);
		return;
	}
	it->has_src = true;
	it->src = t->card->file->id;
	it->span = span_make(0, 0);
}

/* Item i is left out for reason (note: NULL or more words). */
void
tb_item_out(struct tb *t, uint32_t i, enum entry_status reason,
    const char *note)
{
	t->rep->items[i].reason = reason;
	if (note)
		t->rep->items[i].note = note;
}

/* Item i is empty: as given, or once its macros ran. */
void
tb_item_empty(struct tb *t, uint32_t i)
{
	const char *raw = t->rep->items[i].text[ITEM_STAGE_RAW];

	tb_item_out(t, i, ENTRY_EMPTY, *tb_trim(&t->run->arena, raw) ?
	    "empty after macros" : NULL);
}

void
tb_item_note(struct tb *t, uint32_t i, const char *note)
{
	t->rep->items[i].note = note;
}

/* An item left out before it had any text of its own: its index. */
uint32_t
tb_item_skip(struct tb *t, const char *id, enum item_source source,
    enum role role, int64_t depth, const char *raw,
    enum entry_status reason, const char *note)
{
	uint32_t i = tb_item_add(t, id, source, role, depth, raw);

	tb_item_out(t, i, reason, note);
	return i;
}

/* The items of a and then b, in a new array. */
const uint32_t *
tb_items_cat(struct tb *t, const uint32_t *a, uint32_t na, const uint32_t *b,
    uint32_t nb)
{
	uint32_t *v;

	if (!na)
		return b;
	if (!nb)
		return a;
	v = arena_array(&t->run->arena, (size_t)na + nb, sizeof(*v));
	memcpy(v, a, na * sizeof(*v));
	memcpy(v + na, b, nb * sizeof(*v));
	return v;
}

/* Message m is item i. */
void
tb_holds(struct tb *t, struct tmsg *m, uint32_t i)
{
	uint32_t *v = arena_array(&t->run->arena, 1, sizeof(*v));

	v[0] = i;
	m->items = v;
	m->nitems = 1;
}

/* The last message of l is item i. */
void
tb_last_holds(struct tb *t, struct tlist *l, uint32_t i)
{
	tb_holds(t, &l->v[l->n - 1], i);
}

/* tb_push() for a message that is one item. */
void
tb_push_item(struct tb *t, struct tlist *l, enum role role, const char *name,
    const char *content, const char *id, uint32_t item)
{
	tb_push(t->run, l, role, name, content, id);
	tb_last_holds(t, l, item);
}

/* tb_push() of a copy of m, its items with it. */
void
tb_push_m(struct run *run, struct tlist *l, const struct tmsg *m)
{
	tb_push(run, l, m->role, m->name, m->content, m->id);
	l->v[l->n - 1].items = m->items;
	l->v[l->n - 1].nitems = m->nitems;
	l->v[l->n - 1].chat = m->chat;
	l->v[l->n - 1].chat_item = m->chat_item;
	l->v[l->n - 1].real = m->real;
	l->v[l->n - 1].prepared = m->prepared;
}

/* Count m's tokens, and give each of its items its own count. */
size_t
tb_count(struct tb *t, struct tmsg *m)
{
	size_t c = tb_tokens(t, m), k;

	for (k = 0; k < m->nitems; k++) {
		struct item *it = &t->rep->items[m->items[k]];

		it->counted = true;
		it->tokens = m->nitems == 1 ? c : message_tokens(t,
		    names_role(m->role), NULL,
		    it->text[ITEM_STAGE_REGEX_POST]);
	}
	return c;
}

/* A world-info example entry: its text, trimmed, without the <START>
 * line it usually opens with (the block gets exactly one). */
const char *
tb_em_block(struct arena *a, const char *s)
{
	s = tb_trim(a, s);
	if (strncasecmp(s, "<START>", 7) == 0)
		s = tb_trim(a, s + 7);
	return s;
}

/* s through the macros stage alone (a text no item records). */
const char *
tb_sub(struct tb *t, const char *s)
{
	return tb_sub_as(t, NULL, s);
}

const char *
tb_sub_as(struct tb *t, const char *asset, const char *s)
{
	struct tb_text x;

	tb_text_init(&x, TB_MACROS, TB_NO_ITEM);
	x.asset = asset;
	return tb_rewrite(t, &x, ITEM_STAGE_MACROS, ITEM_STAGE_MACROS, s);
}

const char *
tb_prompt_asset(struct tb *t, const char *id)
{
	return arena_printf(&t->run->arena, "preset '%s', prompt '%s'",
	    t->in->preset ? t->in->preset : "(default)", id);
}

/* JavaScript's String.prototype.trim (ASCII whitespace and NBSP). */
const char *
tb_trim(struct arena *a, const char *s)
{
	size_t n;

	while (*s && (isspace((unsigned char)*s) ||
	    strncmp(s, "\xc2\xa0", 2) == 0))
		s += isspace((unsigned char)*s) ? 1 : 2;
	n = strlen(s);
	while (n && (isspace((unsigned char)s[n - 1]) || (n >= 2 &&
	    strncmp(s + n - 2, "\xc2\xa0", 2) == 0)))
		n -= isspace((unsigned char)s[n - 1]) ? 1 : 2;
	return arena_strndup(a, s, n);
}

const char *
tb_strip_cr(struct arena *a, const char *s)
{
	char *r, *w;
	const char *p;

	if (!strchr(s, '\r'))
		return s;
	r = w = arena_strdup(a, s);
	for (p = r; *p; p++)
		if (*p != '\r')
			*w++ = *p;
	*w = '\0';
	return r;
}
