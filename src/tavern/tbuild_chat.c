/*
 * tbuild_chat: the chat history as messages and the in-chat injections
 * at their depths.
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
#include "prompt/inchat.h"
#include "tavern/card.h"
#include "tavern/field.h"
#include "tavern/macro.h"
#include "tavern/preset.h"
#include "tavern/settings.h"
#include "tavern/tchat.h"
#include "tavern/titem.h"

/* --- history --- */

/* U+00C0..U+00FF after NFD with the combining marks removed ('_': no
 * ASCII letter), for names in COMPLETION mode. */
static const char latin1_base[] =
    "AAAAAA_CEEEEIIII_NOOOOO__UUUUY__aaaaaa_ceeeeiiii_nooooo__uuuuy_y";

/* Chat message i's content: its item's regex-post stage (the result
 * world info made when same, else its own call at its depth), with the
 * name prefix names_behavior asks for, no '\r'. */
static const char *
chat_content(struct tb *t, size_t i, uint32_t it, bool same)
{
	const struct tchat_msg *m = &t->chat.msgs[i];
	struct arena *a = &t->run->arena;
	struct tb_text x;
	const char *s;

	tb_text_init(&x, TB_PROMPT, it);
	x.place = tb_placement(m);
	/* On continue the message continued has depth -1. */
	x.depth = (int)(t->chat.n - 1 - i) - t->rx_shift;
	x.chat = same ? (long)i : -1;
	s = tb_rewrite(t, &x, ITEM_STAGE_REGEX_POST, ITEM_STAGE_REGEX_POST,
	    m->text);

	switch (t->p->names) {
	case PRESET_NAMES_DEFAULT:
		/* In a group every message but the user's has its name. */
		if ((t->grp && strcmp(m->name, t->user_name)) ||
		    (m->force_avatar && strcmp(m->name, t->user_name) &&
		    !m->narrator))
			s = arena_printf(a, "%s: %s", m->name, s);
		break;
	case PRESET_NAMES_CONTENT:
		if (!m->narrator)
			s = arena_printf(a, "%s: %s", m->name, s);
		break;
	case PRESET_NAMES_NONE:
	case PRESET_NAMES_COMPLETION:
		break;
	}
	return tb_strip_cr(a, s);
}

/* The content of m, made now if tb_history() left it for later. */
void
tb_resolve(struct tb *t, struct tmsg *m)
{
	if (!m->content)
		m->content = chat_content(t, m->chat, m->chat_item, true);
}

/*
 * A message of the history as the prompt takes it: its macros run again
 * (SillyTavern prepares every chat message and in-chat injection as a
 * prompt), once.
 */
void
tb_prepare(struct tb *t, struct tmsg *m)
{
	tb_resolve(t, m);
	if (m->prepared || !(m->real || (m->id && strcmp(m->id,
	    "injection") == 0)))
		return;
	m->content = tb_sub(t, m->content);
	m->prepared = true;
}

/* The completion name of a speaker: [A-Za-z0-9_]{1,64}, else sanitised;
 * NULL for none. */
const char *
tb_completion_name(struct arena *a, const char *name)
{
	char *c, *w;
	const char *p = name;
	uint32_t cp;

	if (!name || !*name)
		return NULL;
	c = w = arena_strdup(a, name);
	while (*p && w - c < 64) {
		size_t k = utf8_decode(p, strlen(p), &cp);

		if (k == 0)
			k = 1;
		*w++ = cp < 128 && (isalnum((int)cp) || cp == '_') ?
		    (char)cp : cp >= 0xc0 && cp <= 0xff ?
		    latin1_base[cp - 0xc0] : '_';
		p += k;
	}
	*w = '\0';
	return c;
}

void
tb_history(struct tb *t, struct tlist *out)
{
	struct arena *a = &t->run->arena;
	size_t i, n = t->chat.n;
	/* On continue the message continued has depth -1. */
	int shift = 1 + t->rx_shift;

	tb_reserve(t->run, out, out->n + n);
	for (i = 0; i < n; i++) {
		const struct tchat_msg *m = &t->chat.msgs[i];
		enum role role = m->narrator ? ROLE_SYSTEM : m->is_user ?
		    ROLE_USER : ROLE_ASSISTANT;
		const char *name = t->p->names == PRESET_NAMES_COMPLETION ?
		    tb_completion_name(a, m->name) : NULL;
		bool greeting = !tb_chat_given(t->in) && i == 0 &&
		    !m->is_user;
		/* tb_world_info() made (or left for later) this same call. */
		bool same = n == t->nrx && shift - 1 == t->rx_shift &&
		    t->rx_text[i] == m->text;
		uint32_t it = tb_item_add(t, arena_printf(a, "chat#%zu", i),
		    greeting ? ITEM_SOURCE_CARD : ITEM_SOURCE_CHAT, role,
		    (int64_t)(n - 1 - i), t->craw[i]);

		if (greeting)
			tb_item_card(t, it, t->greeting_field,
			    t->greeting_node);
		else
			tb_item_at(t, it, m->node);
		/* The stages it went through as it entered the chat
		 * (tb_stored()); regex-post follows in chat_content(). */
		tb_item_stage(t, it, ITEM_STAGE_REGEX_PRE, t->cpre[i]);
		if (t->rep->items[it].text[ITEM_STAGE_REGEX_PRE] !=
		    t->rep->items[it].text[ITEM_STAGE_RAW])
			t->rep->items[it].by[ITEM_STAGE_REGEX_PRE] =
			    t->cpre_by[i];
		tb_item_stage(t, it, ITEM_STAGE_MACROS, m->text);
		if (m->thinking) {
			struct item *ti = &t->rep->items[it];

			ti->thinking = m->thinking->thinking;
			ti->thinking_src = m->thinking->thinking_src;
			ti->thinking_span = m->thinking->thinking_span;
		}
		if (greeting)
			tb_item_note(t, it, "the card's greeting: a new chat");
		if (same && !t->rx_out[i]) {
			tb_push_item(t, out, role, name, NULL, NULL, it);
			out->v[out->n - 1].chat = i;
			out->v[out->n - 1].chat_item = it;
			out->v[out->n - 1].real = true;
			continue;
		}
		tb_push_item(t, out, role, name, chat_content(t, i, it, same),
		    NULL, it);
		out->v[out->n - 1].real = true;
	}
}

/* The in-chat message of pieces v[0..n) (one depth, order and role):
 * the prompts' texts joined with "\n", then, at injection_order 100,
 * the extension prompts of that depth and role; false when both are
 * empty. */
static bool
inject_message(struct tb *t, const struct inj *pm, size_t npm,
    const struct inchat_piece *v, size_t n, struct tmsg *m)
{
	struct arena *a = &t->run->arena;
	struct buf b = BUF_INIT;
	const char *e = "", *pmtext;
	uint32_t *pi = arena_array(a, n + 1, sizeof(*pi)), npi = 0, nei = 0;
	const uint32_t *ei = NULL;
	size_t k;

	for (k = 0; k < n && v[k].index < npm; k++) {
		if (b.len)
			buf_putc(&b, '\n');
		buf_puts(&b, pm[v[k].index].content);
		pi[npi++] = pm[v[k].index].item;
	}
	buf_putc(&b, '\0');
	pmtext = tb_trim(a, b.data);
	buf_free(&b);
	if (k < n)
		e = tb_trim(a, tb_ext_collect(t, EXT_IN_CHAT, v[0].depth,
		    t->ext[v[k].index - npm].role, &ei, &nei));
	if (!*pmtext && !*e)
		return false;
	memset(m, 0, sizeof(*m));
	m->role = v[0].role;
	m->items = tb_items_cat(t, *pmtext ? pi : NULL, *pmtext ? npi : 0,
	    ei, *e ? nei : 0);
	m->nitems = (*pmtext ? npi : 0) + (*e ? nei : 0);
	m->id = "injection";
	m->content = *pmtext && *e ? arena_printf(a, "%s\n%s", pmtext, e) :
	    *pmtext ? pmtext : e;
	return true;
}

/*
 * The in-chat prompts pm[0..npm) and the in-chat extension prompts into
 * the history, as prompt/inchat.h places them: SillyTavern's order in a
 * depth is injection_order, then role assistant, user, system (the
 * extension prompts at order 100); depths beyond 0..10000 are never
 * placed.  The messages are made from the newest back, the order
 * SillyTavern inserts them in, so their macros run in its order.
 */
void
tb_inject(struct tb *t, struct tlist *hist, const struct inj *pm, size_t npm)
{
	static const int rank[] = { [ROLE_ASSISTANT] = 0, [ROLE_USER] = 1,
		[ROLE_SYSTEM] = 2, [ROLE_DEVELOPER] = 3, [ROLE_TOOL] = 3 };
	static const struct inchat_rules rules = { rank };
	struct arena *a = &t->run->arena;
	struct inchat_piece *v = arena_array(a, npm + t->next + 1,
	    sizeof(*v));
	struct inchat_slot *s;
	struct tmsg *made;
	bool *have;
	struct tlist out = { NULL, 0, 0 };
	size_t n = 0, ns, i;

	for (i = 0; i < npm + t->next; i++) {
		const struct ext *x = i < npm ? NULL : &t->ext[i - npm];

		if (x && x->position != EXT_IN_CHAT)
			continue;
		v[n].depth = x ? x->depth : pm[i].depth;
		if (v[n].depth < 0 || v[n].depth > 10000)
			continue;
		v[n].order = x ? 100 : pm[i].order;
		v[n].role = x ? tb_roles[x->role] : pm[i].role;
		v[n++].index = i;
	}
	if (!n)
		return;
	s = inchat_place(a, v, n, hist->n, &rules, &ns);
	made = arena_array(a, ns, sizeof(*made));
	have = arena_array(a, ns, sizeof(*have));
	for (i = ns; i > 0; i--)
		have[i - 1] = s[i - 1].inject && inject_message(t, pm, npm,
		    v + s[i - 1].first, s[i - 1].n, &made[i - 1]);
	tb_reserve(t->run, &out, ns);
	for (i = 0; i < ns; i++)
		if (!s[i].inject)
			tb_push_m(t->run, &out, &hist->v[s[i].msg]);
		else if (have[i])
			tb_push_m(t->run, &out, &made[i]);
	*hist = out;
}
