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

/* Chat message i's content from its regexed text s: the regex-post stage
 * of its item, the name prefix names_behavior asks for, no '\r'. */
static const char *
chat_content(struct tb *t, size_t i, uint32_t it, const char *s)
{
	const struct tchat_msg *m = &t->chat.msgs[i];
	struct arena *a = &t->run->arena;

	tb_item_stage(t, it, ITEM_STAGE_REGEX_POST, s);
	/* s is the cached call's (tb_rx_at()) or the one just made */
	if (t->rep->items[it].text[ITEM_STAGE_REGEX_POST] !=
	    t->rep->items[it].text[ITEM_STAGE_MACROS])
		t->rep->items[it].by[ITEM_STAGE_REGEX_POST] = t->rx_out &&
		    i < t->nrx && s == t->rx_out[i] ? t->rx_by[i] : tb_fired(t);
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
		m->content = chat_content(t, m->chat, m->chat_item,
		    tb_rx_at(t, m->chat));
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
		tb_push_item(t, out, role, name, chat_content(t, i, it, same ?
		    t->rx_out[i] : tb_regex(t, tb_placement(m), true,
		    (int)(n - i) - shift, m->text)), NULL, it);
		out->v[out->n - 1].real = true;
	}
}

void
tb_inject(struct tb *t, struct tlist *hist, const struct inj *pm, size_t npm)
{
	struct tlist rev = { NULL, 0, 0 };
	int64_t *depths;
	size_t nd = 0, i, j, total = 0;

	/* Each depth gets at most one message per role. */
	tb_reserve(t->run, &rev, hist->n + 3 * (npm + t->next) + 1);
	depths = arena_array(&t->run->arena, npm + t->next + 1,
	    sizeof(*depths));
	for (i = 0; i < npm + t->next; i++) {
		int64_t d;

		if (i < npm)
			d = pm[i].depth;
		else if (t->ext[i - npm].position == EXT_IN_CHAT)
			d = t->ext[i - npm].depth;
		else
			continue;
		if (d < 0 || d > 10000)
			continue;
		for (j = 0; j < nd && depths[j] != d; j++)
			;
		if (j == nd)
			depths[nd++] = d;
	}
	/* ascending depths */
	for (i = 1; i < nd; i++)
		for (j = i; j > 0 && depths[j - 1] > depths[j]; j--) {
			int64_t x = depths[j];

			depths[j] = depths[j - 1];
			depths[j - 1] = x;
		}
	for (i = hist->n; i > 0; i--)
		tb_push_m(t->run, &rev, &hist->v[i - 1]);
	for (i = 0; i < nd; i++) {
		int64_t d = depths[i], *orders, prev;
		size_t no = 0, k;

		orders = arena_array(&t->run->arena, npm + 2,
		    sizeof(*orders));
		orders[no++] = 100;
		for (j = 0; j < npm; j++) {
			if (pm[j].depth != d)
				continue;
			for (k = 0; k < no && orders[k] != pm[j].order; k++)
				;
			if (k == no)
				orders[no++] = pm[j].order;
		}
		/* descending orders */
		for (j = 1; j < no; j++)
			for (k = j; k > 0 && orders[k - 1] < orders[k]; k--) {
				prev = orders[k];
				orders[k] = orders[k - 1];
				orders[k - 1] = prev;
			}
		for (j = 0; j < no; j++) {
			struct tmsg group[3] = {{0}};
			size_t ng = 0, r, at;

			for (r = 0; r < 3; r++) {
				struct buf b = BUF_INIT;
				const char *e, *pmtext;
				uint32_t *pi = arena_array(&t->run->arena,
				    npm + 1, sizeof(*pi)), npi = 0, nei = 0;
				const uint32_t *ei = NULL;

				for (k = 0; k < npm; k++) {
					if (pm[k].depth != d || pm[k].order !=
					    orders[j] || pm[k].role !=
					    tb_roles[r])
						continue;
					if (b.len)
						buf_putc(&b, '\n');
					buf_puts(&b, pm[k].content);
					pi[npi++] = pm[k].item;
				}
				buf_putc(&b, '\0');
				pmtext = tb_trim(&t->run->arena, b.data);
				buf_free(&b);
				e = orders[j] == 100 ? tb_trim(&t->run->arena,
				    tb_ext_collect(t, EXT_IN_CHAT, d, (int)r,
				    &ei, &nei)) : "";
				if (!*pmtext && !*e)
					continue;
				group[ng].role = tb_roles[r];
				group[ng].name = NULL;
				group[ng].items = tb_items_cat(t, *pmtext ? pi :
				    NULL, *pmtext ? npi : 0, ei, *e ? nei : 0);
				group[ng].nitems = (*pmtext ? npi : 0) +
				    (*e ? nei : 0);
				group[ng].id = "injection";
				group[ng].content = *pmtext && *e ?
				    arena_printf(&t->run->arena, "%s\n%s",
				    pmtext, e) : *pmtext ? pmtext : e;
				ng++;
			}
			at = (size_t)d + total;
			for (r = 0; r < ng; r++)
				tb_insert_at(t->run, &rev, at + r, &group[r]);
			total += ng;
		}
	}
	hist->n = 0;
	tb_reserve(t->run, hist, rev.n);
	for (i = rev.n; i > 0; i--)
		tb_push_m(t->run, hist, &rev.v[i - 1]);
}
