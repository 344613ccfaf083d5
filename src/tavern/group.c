#include "tavern/group.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/path.h"
#include "base/util.h"
#include "data/tree.h"
#include "diag/run.h"
#include "tavern/card.h"
#include "tavern/field.h"
#include "tavern/tchat.h"

/* --- reading --- */

static bool
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Where member avatar's card is: dir/avatar, else dir/STEM.json. */
static const char *
member_path(struct arena *a, const char *dir, const char *avatar)
{
	const char *p = path_join(a, dir, avatar);

	if (is_file(p))
		return p;
	p = path_join(a, dir, arena_printf(a, "%.*s.json",
	    (int)path_stem_len(avatar), avatar));
	return is_file(p) ? p : NULL;
}

static bool
strings(struct run *run, const struct node *arr, const char *key)
{
	size_t i;

	for (i = 0; arr && i < arr->u.array.n; i++) {
		const struct node *v = arr->u.array.items[i];

		if (v->kind != NODE_STRING) {
			diag_error(run, run_source(run, v->src), v->span,
			    MSG_TAVERN_WRONG_TYPE, arena_printf(&run->arena,
			    "%s[%zu]", key, i), "a string",
			    tree_kind_article(v->kind));
			return false;
		}
	}
	return true;
}

static bool
in_list(const struct node *arr, const char *s)
{
	size_t i;

	for (i = 0; arr && i < arr->u.array.n; i++)
		if (strcmp(arr->u.array.items[i]->u.str.s, s) == 0)
			return true;
	return false;
}

bool
group_read(struct run *run, const char *path, const struct node *named,
    struct group **out)
{
	struct arena *a = &run->arena;
	struct node *root;
	const struct node *members, *disabled, *v;
	struct group *g;
	const char *dir, *cdir;
	int64_t strategy, mode;
	bool ok = true;
	size_t i;

	if (!field_load(run, path, named, "a group", &root))
		return false;
	g = arena_array(a, 1, sizeof(*g));
	g->path = path;
	ok &= field_str(run, root, "name", "", &g->name);
	ok &= field_array(run, root, "members", &members);
	ok &= field_array(run, root, "disabled_members", &disabled);
	ok &= field_int(run, root, "activation_strategy", GROUP_NATURAL,
	    &strategy);
	ok &= field_int(run, root, "generation_mode", GROUP_SWAP, &mode);
	ok &= field_bool(run, root, "allow_self_responses", false,
	    &g->self_responses);
	ok &= field_str(run, root, "generation_mode_join_prefix", "",
	    &g->join_prefix);
	ok &= field_str(run, root, "generation_mode_join_suffix", "",
	    &g->join_suffix);
	if (!ok || !strings(run, members, "members") ||
	    !strings(run, disabled, "disabled_members"))
		return false;
	if (strategy < GROUP_NATURAL || strategy > GROUP_POOLED) {
		v = tree_get(root, "activation_strategy");
		diag_error(run, run_source(run, v->src), v->span,
		    MSG_GROUP_STRATEGY, (long long)strategy);
		ok = false;
	}
	if (mode < GROUP_SWAP || mode > GROUP_APPEND_DISABLED) {
		v = tree_get(root, "generation_mode");
		diag_error(run, run_source(run, v->src), v->span,
		    MSG_GROUP_MODE, (long long)mode);
		ok = false;
	}
	if (!members || !members->u.array.n) {
		v = members ? members : root;
		diag_error(run, run_source(run, v->src), members ? v->span :
		    span_make(v->span.off, 1), MSG_GROUP_NO_MEMBERS);
		return false;
	}
	if (!ok)
		return false;
	g->strategy = (enum group_strategy)strategy;
	g->mode = (enum group_mode)mode;
	/* SillyTavern's data folder: groups/ beside characters/. */
	dir = path_dir(a, path);
	cdir = path_join(a, dir, "../characters");
	if (!is_dir(cdir))
		cdir = dir;
	g->m = arena_array(a, members->u.array.n, sizeof(*g->m));
	for (i = 0; i < members->u.array.n; i++) {
		const struct node *s = members->u.array.items[i];
		struct group_member *m = &g->m[g->n];
		size_t k;

		/* SillyTavern lists a member once (onlyUnique). */
		for (k = 0; k < g->n; k++)
			if (strcmp(g->m[k].avatar, s->u.str.s) == 0)
				break;
		if (k < g->n)
			continue;
		m->avatar = s->u.str.s;
		m->node = s;
		m->muted = in_list(disabled, m->avatar);
		m->path = member_path(a, cdir, m->avatar);
		if (!m->path) {
			diag_error(run, run_source(run, s->src), s->span,
			    MSG_GROUP_NO_CARD, m->avatar,
			    path_join(a, cdir, m->avatar), path_join(a, cdir,
			    arena_printf(a, "%.*s.json",
			    (int)path_stem_len(m->avatar), m->avatar)));
			ok = false;
			continue;
		}
		if (!card_read(run, m->path, NULL, &m->card)) {
			ok = false;
			continue;
		}
		m->name = m->card->name.s;
		g->n++;
	}
	if (!ok)
		return false;
	*out = g;
	return true;
}

const char *
group_names(struct run *run, const struct group *g, bool muted_too)
{
	struct buf b = BUF_INIT;
	const char *r;
	size_t i;

	for (i = 0; i < g->n; i++) {
		if (!muted_too && g->m[i].muted)
			continue;
		if (b.len)
			buf_puts(&b, ", ");
		buf_puts(&b, g->m[i].name);
	}
	buf_putc(&b, '\0');
	r = arena_strdup(&run->arena, b.data);
	buf_free(&b);
	return r;
}

/* --- who speaks --- */

/* A draw in [0, 1) (splitmix64). */
static double
draw(uint64_t *rng)
{
	uint64_t z = (*rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static size_t
pick(uint64_t *rng, size_t n)
{
	size_t k = (size_t)(draw(rng) * (double)n);

	return k < n ? k : n - 1;
}

static bool
word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The next \w+ word at or after *p: its start, its length in *n (0 at
 * the end); *p moves past it. */
static const char *
next_word(const char **p, size_t *n)
{
	const char *s;

	while (**p && !word_char(**p))
		(*p)++;
	s = *p;
	while (**p && word_char(**p))
		(*p)++;
	*n = (size_t)(*p - s);
	return s;
}

/* Does name hold word w (w's n bytes) as one of its \w+ words, compared
 * without ASCII case (SillyTavern's extractAllWords)? */
static bool
has_word(const char *name, const char *w, size_t n)
{
	const char *p = name, *s;
	size_t k;

	while (*p) {
		s = next_word(&p, &k);
		if (k == n && n && strncasecmp(s, w, n) == 0)
			return true;
	}
	return false;
}

static const char *
avatar_of(const struct tchat_msg *m)
{
	const struct node *v = m->node ? tree_get(m->node,
	    "original_avatar") : NULL;

	return v && v->kind == NODE_STRING ? v->u.str.s : NULL;
}

static long
by_avatar(const struct group *g, const char *avatar)
{
	size_t i;

	for (i = 0; avatar && i < g->n; i++)
		if (strcmp(g->m[i].avatar, avatar) == 0)
			return (long)i;
	return -1;
}

/* activateSwipe: the author of the last reply (the newest one with an
 * original_avatar when the chat ends with the user's message or a
 * system one, a member at random when there is none). */
static long
last_author(const struct group *g, const struct tchat *c, bool system,
    uint64_t *rng)
{
	const struct tchat_msg *last;
	size_t i;

	if (!c->nall)
		return -1;
	last = &c->all[c->nall - 1];
	if (last->is_user || (!system && last->hidden) || last->narrator) {
		for (i = c->nall; i > 0; i--) {
			const struct tchat_msg *m = &c->all[i - 1];

			if (m->is_user || (!system && m->hidden) ||
			    m->narrator)
				continue;
			if (avatar_of(m))
				return by_avatar(g, avatar_of(m));
		}
		return (long)pick(rng, g->n);
	}
	if (avatar_of(last))
		return by_avatar(g, avatar_of(last));
	for (i = 0; i < g->n; i++)
		if (strcmp(g->m[i].name, last->name) == 0)
			return (long)i;
	return -1;
}

/* activateNaturalOrder's first pick among the members not muted. */
static long
natural(struct arena *a, const struct group *g, const struct tchat *c,
    const char *typed, uint64_t *rng, const char **why)
{
	const struct tchat_msg *last = c->nall ? &c->all[c->nall - 1] : NULL;
	bool input = typed && *typed;
	const char *text = input ? typed : last && !last->hidden ?
	    last->text : "";
	const char *banned = !input && last && !last->is_user ? last->name :
	    NULL;
	size_t non = 0, *chatty, nchatty = 0, i, k;
	const char *p = text;
	long first = -1;

	if (g->self_responses)
		banned = NULL;
	/* Named in the text, word by word. */
	while (*p) {
		size_t n;
		const char *s = next_word(&p, &n);

		for (i = 0; n && i < g->n; i++) {
			if (g->m[i].muted || (banned &&
			    strcmp(g->m[i].name, banned) == 0))
				continue;
			if (has_word(g->m[i].name, s, n)) {
				*why = "named in the message";
				return (long)i;
			}
		}
	}
	/* By talkativeness, in shuffled order. */
	{
		size_t *order = arena_array(a, g->n + 1, sizeof(*order));

		for (i = 0; i < g->n; i++)
			if (!g->m[i].muted)
				order[non++] = i;
		for (i = non; i > 1; i--) {
			size_t j = pick(rng, i), tmp = order[i - 1];

			order[i - 1] = order[j];
			order[j] = tmp;
		}
		chatty = order;
		for (k = 0; k < non; k++) {
			const struct group_member *m = &g->m[order[k]];
			double roll = draw(rng);
			double talk = card_talkativeness(m->card);

			if (banned && strcmp(m->name, banned) == 0)
				continue;
			if (first < 0 && talk >= roll)
				first = (long)order[k];
			if (talk > 0)
				chatty[nchatty++] = order[k];
		}
		if (first >= 0) {
			*why = "chosen by its talkativeness";
			return first;
		}
		*why = "drawn at random (no member was chosen by "
		    "talkativeness)";
		if (nchatty)
			return (long)chatty[pick(rng, nchatty)];
		for (i = 0, non = 0; i < g->n; i++)
			if (!g->m[i].muted)
				order[non++] = i;
		return non ? (long)order[pick(rng, non)] : -1;
	}
}

/* activatePooledOrder: one who has not spoken since the user did. */
static long
pooled(struct arena *a, const struct group *g, const struct tchat *c,
    const char *typed, uint64_t *rng)
{
	bool input = typed && *typed;
	size_t i, n = 0, *pool;
	const struct tchat_msg *last = c->nall ? &c->all[c->nall - 1] : NULL;
	const char *la;

	{
		bool *said = arena_array(a, g->n + 1, sizeof(*said));
		size_t *cand = arena_array(a, g->n + 1, sizeof(*cand));
		for (i = c->nall; !input && i > 0; i--) {
			const struct tchat_msg *m = &c->all[i - 1];
			long k;

			if (m->is_user)
				break;
			if (m->hidden || m->narrator)
				continue;
			if ((k = by_avatar(g, avatar_of(m))) >= 0)
				said[k] = true;
		}
		for (i = 0; i < g->n; i++)
			if (!g->m[i].muted && !said[i])
				cand[n++] = i;
		if (n)
			return (long)cand[pick(rng, n)];
		la = last && !last->is_user ? avatar_of(last) : NULL;
		for (i = 0; i < g->n; i++) {
			if (g->m[i].muted)
				continue;
			cand[n++] = i;
		}
		pool = cand;
		if (la && n > 1) {
			size_t w = 0;

			for (i = 0; i < n; i++)
				if (strcmp(g->m[cand[i]].avatar, la))
					cand[w++] = cand[i];
			n = w;
		}
		return n ? (long)pool[pick(rng, n)] : -1;
	}
}

static long
by_name(const struct group *g, const char *s)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (strcmp(g->m[i].name, s) == 0)
			return (long)i;
	for (i = 0; i < g->n; i++)
		if (strcmp(g->m[i].avatar, s) == 0 ||
		    (path_stem_len(g->m[i].avatar) == strlen(s) &&
		    strncmp(g->m[i].avatar, s, strlen(s)) == 0))
			return (long)i;
	for (i = 0; i < g->n; i++)
		if (strcasecmp(g->m[i].name, s) == 0)
			return (long)i;
	return -1;
}

bool
group_pick(struct run *run, const struct group *g, const char *speaker,
    const struct tchat *chat, const char *typed, const char *type,
    uint64_t *rng, struct group_pick *out)
{
	const char *why = NULL;
	long k = -1;
	size_t i, non = 0;

	for (i = 0; i < g->n; i++)
		non += !g->m[i].muted;
	if (speaker) {
		if ((k = by_name(g, speaker)) < 0) {
			diag_plain(run, DIAG_ERROR, MSG_GROUP_SPEAKER, speaker,
			    g->path, group_names(run, g, true));
			return false;
		}
		why = "--speaker";
	} else if (strcmp(type, "swipe") == 0 ||
	    strcmp(type, "continue") == 0) {
		k = last_author(g, chat, false, rng);
		why = "the author of the last reply";
		if (k < 0) {
			diag_plain(run, DIAG_ERROR, MSG_GROUP_NO_AUTHOR, type,
			    g->path);
			return false;
		}
	} else if (strcmp(type, "quiet") == 0) {
		k = last_author(g, chat, true, rng);
		why = "the author of the last reply";
		if (k < 0) {
			k = 0;
			why = "the first member";
		}
	} else if (strcmp(type, "impersonate") == 0) {
		k = (long)pick(rng, g->n);
		why = "drawn at random (impersonate)";
	} else if (!non) {
		diag_plain(run, DIAG_ERROR, MSG_GROUP_ALL_MUTED, g->path);
		return false;
	} else if (g->strategy == GROUP_LIST) {
		for (i = 0; g->m[i].muted; i++)
			;
		k = (long)i;
		why = "the first member not muted (list order)";
	} else if (g->strategy == GROUP_NATURAL) {
		k = natural(&run->arena, g, chat, typed, rng, &why);
	} else if (g->strategy == GROUP_POOLED) {
		k = pooled(&run->arena, g, chat, typed, rng);
		why = "drawn from those who have not spoken since the user "
		    "(pooled order)";
	} else if (typed && *typed) {
		diag_plain(run, DIAG_ERROR, MSG_GROUP_MANUAL, g->path);
		return false;
	} else {
		size_t n = pick(rng, non);

		for (i = 0; i < g->n; i++)
			if (!g->m[i].muted && n-- == 0)
				break;
		k = (long)i;
		why = "drawn at random (manual order, no message typed)";
	}
	if (k < 0) {
		diag_plain(run, DIAG_ERROR, MSG_GROUP_ALL_MUTED, g->path);
		return false;
	}
	out->speaker = (size_t)k;
	out->why = why;
	return true;
}
