/*
 * The world-info linter (wi.h): what SillyTavern would read without a
 * word but never match, or match other than the author meant.
 */
#include "world/wi.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "world/world.h"

/* An entry's uid and its index, sorted by both: duplicates are next to
 * each other and the first in the file leads its run. */
struct uid_at {
	int64_t uid;
	size_t i;
};

static int
cmp_uid(const void *a, const void *b)
{
	const struct uid_at *x = a, *y = b;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Which entries repeat an earlier entry's uid: dup[i], on the heap. */
static bool *
dup_uids(const struct world *w)
{
	bool *dup = xcalloc(w->n + 1, sizeof(*dup));
	struct uid_at *ix = xcalloc(w->n + 1, sizeof(*ix));
	size_t i;

	for (i = 0; i < w->n; i++) {
		ix[i].uid = w->entries[i].uid;
		ix[i].i = i;
	}
	qsort(ix, w->n, sizeof(*ix), cmp_uid);
	for (i = 1; i < w->n; i++)
		if (ix[i].uid == ix[i - 1].uid)
			dup[ix[i].i] = true;
	free(ix);
	return dup;
}

/* Key k of entry e's primary (pass 0) or secondary keys. */
static void
lint_key(struct run *run, const struct world_entry *e, int pass, size_t k,
    const char *s, bool whole_words)
{
	const struct source *src = run_source(run, e->src);
	const char *t = s;
	char err[256];
	size_t off = 0, n;
	bool is_re;

	while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')
		t++;
	if (!*t) {
		diag_warning(run, src, e->span, *s ? MSG_WI_BLANK_KEY :
		    MSG_WI_EMPTY_KEY, (long long)e->uid, pass ? "secondary" :
		    "primary", k + 1);
		return;
	}
	if (!wi_regex_check(t, err, sizeof(err), &off, &is_re)) {
		diag_warning(run, src, e->span, MSG_WI_BAD_REGEX,
		    (long long)e->uid, diag_shown(run, t, strlen(t)), err,
		    off);
		return;
	}
	n = strlen(t);
	while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t' ||
	    t[n - 1] == '\n'))
		n--;
	if (is_re || !(e->match_whole_words == WORLD_UNSET ? whole_words :
	    e->match_whole_words) || memchr(t, ' ', n))
		return;
	if ((!wi_is_word_byte((unsigned char)t[0]) &&
	    (unsigned char)t[0] < 0x80) ||
	    (!wi_is_word_byte((unsigned char)t[n - 1]) &&
	    (unsigned char)t[n - 1] < 0x80))
		diag_warning(run, src, e->span, MSG_WI_WORD_EDGE,
		    (long long)e->uid, diag_shown(run, t, n));
}

/* Does the comma-separated group list h name group p[0..len)? */
static bool
in_group(const char *h, const char *p, size_t len)
{
	const char *a, *b;

	for (a = h; *a; a = *b ? b + 1 : b) {
		while (*a == ' ')
			a++;
		b = strchr(a, ',');
		if (!b)
			b = a + strlen(a);
		if ((size_t)(b - a) == len && memcmp(a, p, len) == 0)
			return true;
	}
	return false;
}

/* Inclusion groups with one member (quadratic in grouped entries
 * only). */
static void
lone_groups(struct run *run, const struct world *w)
{
	size_t i, j;

	for (i = 0; i < w->n; i++) {
		const char *g = w->entries[i].group, *p, *q;

		for (p = g; *p; p = *q ? q + 1 : q) {
			size_t len, count = 0;

			while (*p == ' ')
				p++;
			q = strchr(p, ',');
			if (!q)
				q = p + strlen(p);
			len = (size_t)(q - p);
			if (len == 0)
				continue;
			for (j = 0; j < w->n && count < 2; j++)
				if (in_group(w->entries[j].group, p, len))
					count++;
			if (count == 1)
				diag_warning(run, run_source(run,
				    w->entries[i].src), w->entries[i].span,
				    MSG_WI_LONE_GROUP,
				    (long long)w->entries[i].uid,
				    diag_shown(run, p, len));
		}
	}
}

void
wi_lint(struct run *run, const struct world *w, bool whole_words)
{
	bool *dup = dup_uids(w);
	size_t i, k;

	for (i = 0; i < w->n; i++) {
		const struct world_entry *e = &w->entries[i];
		int pass;

		if (dup[i])
			diag_warning(run, run_source(run, e->src), e->span,
			    MSG_WI_DUP_UID, (long long)e->uid);
		for (pass = 0; pass < 2; pass++) {
			const struct world_strings *ks = pass ?
			    &e->keysecondary : &e->key;

			for (k = 0; k < ks->n; k++)
				lint_key(run, e, pass, k, ks->v[k],
				    whole_words);
		}
	}
	free(dup);
	lone_groups(run, w);
}
