/*
 * wi_scan: the scan buffer and key matching (SillyTavern's
 * WorldInfoBuffer and matchKeys).
 *
 * The buffer for an entry is never built as one string for plain keys:
 * it is a list of segments (the joined messages, newest first, whose
 * first d messages are a prefix; the card texts; the inject buffer; the
 * recursion texts), each indexed once by its JavaScript word runs
 * ([A-Za-z0-9_]+) with the offset of the first occurrence.  A whole-word
 * key made only of word characters is then one hash lookup per segment;
 * other plain keys are a memmem() per segment.  Regex keys see the real
 * joined string, built on demand and cached for the last shape asked.
 */
#define _GNU_SOURCE             /* memmem */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "world/wi.h"

#include <locale.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "base/arena.h"
#include "base/buf.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "base/util.h"
#include "text/jsregex.h"

#define MAX_SCAN_DEPTH 1000
#define REGEX_MATCH_LIMIT 200000
#define REGEX_DEPTH_LIMIT 20000

struct wi_key {
	const char *text;       /* after macros, trimmed */
	const char *cmp;        /* lower-cased unless case-sensitive */
	size_t len;
	pcre2_code *re;         /* a /pattern/flags key; else NULL */
	struct jsregex_prefix pre;      /* where a match of re can begin */
	bool has_pre;
	bool blank;             /* only whitespace: matches everything */
	bool words;             /* only word bytes: an index lookup */
	bool spaced;            /* holds whitespace: substring match */
	/* The last scan, so that a recursion pass searches only the text
	 * new to it: valid for c_depth and c_with_rec, with the first
	 * c_nrec recursion segments searched. */
	bool c_valid, c_hit, c_with_rec;
	bool c_dead;            /* a regex that hit its limit: no match */
	size_t c_depth, c_nrec, c_index;
	enum wi_where c_where;
};

/* Word-run index of one text: word -> offset of its first occurrence.
 * One slot holds all a probe reads, and the table grows with the
 * distinct words, so that it stays small enough to stay in cache. */
struct wslot {
	uint32_t off;           /* offset + 1; 0 = empty */
	uint32_t len;
	uint32_t hash;
};

struct windex {
	struct wslot *slots;
	size_t cap, n;          /* cap: a power of two, at least 2 n */
};

/* Texts longer than this get a 4-gram filter before memmem(). */
#define GRAM_MIN_TEXT 4096
#define GRAM_BITS 20

struct segment {
	const char *raw, *low;
	size_t rawlen, lowlen;
	struct windex iraw, ilow;
	bool built_raw, built_low;
	uint64_t *graw, *glow;  /* bit set of the text's 4-byte grams */
};

struct wi_scan {
	struct run *run;
	const struct wi_input *in;
	const struct wi_settings *s;
	locale_t loc;
	/* Messages: one segment; prefix ends for d messages. */
	struct segment msgs;
	size_t *end_raw, *end_low;      /* [0..nmsg]: end of the first d */
	size_t nmsg;
	struct segment card[WORLD_MATCH__COUNT];
	struct segment *inject;
	size_t ninject;
	struct segment *rec;
	int *rec_pass;
	size_t nrec, caprec;
	int64_t skew;
	bool with_recursion;
	pcre2_match_context *mctx;
	pcre2_match_data *md;
	/* the joined buffer for regex keys, and what it was built for */
	struct buf joined;
	int64_t j_depth;
	unsigned j_mask;
	size_t j_nrec;
	bool j_valid, j_with_rec;
	size_t j_starts[3 + WORLD_MATCH__COUNT];
	pcre2_code **codes;     /* to free */
	size_t ncodes, capcodes;
};

bool
wi_is_word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

bool
wi_is_js_space(uint32_t cp)
{
	return (cp >= 9 && cp <= 13) || cp == ' ' || cp == 0xA0 ||
	    cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
	    cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
	    cp == 0x3000 || cp == 0xFEFF;
}

/* JavaScript's trim(): whitespace and line terminators at both ends. */
static const char *
js_trim(const char *s, size_t *len)
{
	size_t n = *len, k;
	uint32_t cp;

	while (n > 0 && (k = utf8_decode(s, n, &cp)) && wi_is_js_space(cp)) {
		s += k;
		n -= k;
	}
	while (n > 0) {
		size_t back = 1;

		while (back < n && back < 4 &&
		    ((unsigned char)s[n - back] & 0xC0) == 0x80)
			back++;
		if ((k = utf8_decode(s + n - back, back, &cp)) != back ||
		    !wi_is_js_space(cp))
			break;
		n -= back;
	}
	*len = n;
	return s;
}

/* Simple Unicode lower-casing (towlower in C.UTF-8); ASCII without it. */
static char *
lower(struct wi_scan *sc, const char *s, size_t n, size_t *outlen)
{
	struct buf b = BUF_INIT;
	size_t i = 0, k;
	uint32_t cp;
	char enc[4];
	bool ascii = true;

	for (k = 0; k < n; k++)
		if ((unsigned char)s[k] >= 0x80) {
			ascii = false;
			break;
		}
	if (ascii || sc->loc == (locale_t)0) {
		char *o = arena_alloc(&sc->run->arena, n + 1);

		for (k = 0; k < n; k++)
			o[k] = (s[k] >= 'A' && s[k] <= 'Z') ? (char)(s[k] +
			    32) : s[k];
		*outlen = n;
		return o;
	}
	buf_reserve(&b, n + 1);
	while (i < n) {
		/* A run of ASCII at once: most text, even with some
		 * curly quotes in it. */
		for (k = i; k < n && (unsigned char)s[k] < 0x80; k++)
			;
		if (k > i) {
			size_t j;

			buf_reserve(&b, k - i + 1);
			for (j = i; j < k; j++)
				b.data[b.len++] = (s[j] >= 'A' && s[j] <= 'Z') ?
				    (char)(s[j] + 32) : s[j];
			b.data[b.len] = '\0';
			i = k;
			continue;
		}
		k = utf8_decode(s + i, n - i, &cp);
		if (k == 0) {
			buf_putc(&b, s[i++]);
			continue;
		}
		cp = (uint32_t)towlower_l((wint_t)cp, sc->loc);
		buf_put(&b, enc, utf8_encode(cp, enc));
		i += k;
	}
	*outlen = b.len;
	return arena_adopt(&sc->run->arena, buf_detach(&b));
}

/* lower(s[0..n)) appended to out, without the copy for ASCII text. */
static void
lower_put(struct wi_scan *sc, struct buf *out, const char *s, size_t n)
{
	size_t k, ll;

	for (k = 0; k < n; k++)
		if ((unsigned char)s[k] >= 0x80) {
			s = lower(sc, s, n, &ll);
			buf_put(out, s, ll);
			return;
		}
	buf_reserve(out, n);
	for (k = 0; k < n; k++)
		out->data[out->len + k] = (s[k] >= 'A' && s[k] <= 'Z') ?
		    (char)(s[k] + 32) : s[k];
	out->len += n;
	out->data[out->len] = '\0';
}

static uint32_t
hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* Put a word known to be absent. */
static void
windex_put(struct windex *x, const struct wslot *w)
{
	size_t h = w->hash & (x->cap - 1);

	while (x->slots[h].off)
		h = (h + 1) & (x->cap - 1);
	x->slots[h] = *w;
}

static void
windex_build(struct windex *x, const char *t, size_t n)
{
	size_t i = 0, start, len, h, k, oldcap;
	struct wslot *old;
	uint32_t hash;

	x->cap = 64;
	x->n = 0;
	x->slots = xcalloc(x->cap, sizeof(*x->slots));
	while (i < n) {
		if (!wi_is_word_byte((unsigned char)t[i])) {
			i++;
			continue;
		}
		start = i;
		while (i < n && wi_is_word_byte((unsigned char)t[i]))
			i++;
		len = i - start;
		hash = hash_bytes(t + start, len);
		for (h = hash & (x->cap - 1); x->slots[h].off;
		    h = (h + 1) & (x->cap - 1))
			if (x->slots[h].hash == hash && x->slots[h].len == len &&
			    memcmp(t + x->slots[h].off - 1, t + start,
			    len) == 0)
				break;
		if (x->slots[h].off)
			continue;       /* seen: the first offset stays */
		x->slots[h].off = (uint32_t)start + 1;
		x->slots[h].len = (uint32_t)len;
		x->slots[h].hash = hash;
		if (++x->n * 2 <= x->cap)
			continue;
		old = x->slots;
		oldcap = x->cap;
		x->cap *= 2;
		x->slots = xcalloc(x->cap, sizeof(*x->slots));
		for (k = 0; k < oldcap; k++)
			if (old[k].off)
				windex_put(x, &old[k]);
		free(old);
	}
}

/* Offset of word w in the indexed text t, or SIZE_MAX. */
static size_t
windex_find(const struct windex *x, const char *t, const char *w, size_t n)
{
	uint32_t hash = hash_bytes(w, n);
	size_t h;

	for (h = hash & (x->cap - 1); x->slots[h].off;
	    h = (h + 1) & (x->cap - 1)) {
		const struct wslot *s = &x->slots[h];

		if (s->hash == hash && s->len == n &&
		    memcmp(t + s->off - 1, w, n) == 0)
			return s->off - 1;
	}
	return SIZE_MAX;
}

static void
windex_free(struct windex *x)
{
	free(x->slots);
}

static void
segment_init(struct wi_scan *sc, struct segment *g, const char *raw,
    size_t n)
{
	memset(g, 0, sizeof(*g));
	g->raw = raw;
	g->rawlen = n;
	g->low = lower(sc, raw, n, &g->lowlen);
}

static uint32_t
gram_hash(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return (v * 2654435761u) >> (32 - GRAM_BITS);
}

static uint64_t *
grams_build(const char *t, size_t n)
{
	uint64_t *set = xcalloc((1u << GRAM_BITS) / 64, sizeof(*set));
	size_t i;

	for (i = 0; i + 4 <= n; i++) {
		uint32_t h = gram_hash(t + i);

		set[h >> 6] |= UINT64_C(1) << (h & 63);
	}
	return set;
}

/* False when some 4-gram of k is not in the text: no memmem needed. */
static bool
grams_may_hold(const uint64_t *set, const char *k, size_t n)
{
	size_t i;

	for (i = 0; i + 4 <= n; i++) {
		uint32_t h = gram_hash(k + i);

		if (!(set[h >> 6] & (UINT64_C(1) << (h & 63))))
			return false;
	}
	return true;
}

static void
segment_free(struct segment *g)
{
	free(g->graw);
	free(g->glow);
	if (g->built_raw)
		windex_free(&g->iraw);
	if (g->built_low)
		windex_free(&g->ilow);
}

struct wi_scan *
wi_scan_new(struct run *run, const struct wi_input *in,
    const struct wi_settings *s, size_t reach)
{
	struct wi_scan *sc = xcalloc(1, sizeof(*sc));
	struct buf raw = BUF_INIT, low = BUF_INIT, tmp = BUF_INIT;
	size_t i, n;
	int k;

	sc->run = run;
	sc->in = in;
	sc->s = s;
	sc->loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	sc->with_recursion = true;
	/* Messages, newest first, non-system, "\x01" + text joined with
	 * "\n\x01". */
	sc->end_raw = xcalloc(in->nmessages + 1, sizeof(*sc->end_raw));
	sc->end_low = xcalloc(in->nmessages + 1, sizeof(*sc->end_low));
	/* The newest messages as far as an entry can reach. */
	for (i = in->nmessages; i-- > 0 && sc->nmsg < reach;) {
		const struct wi_message *m = &in->messages[i];
		const char *text = m->text;
		const char *tr;

		if (m->is_system)
			continue;
		if (!text && in->message_text)
			text = in->message_text(in->message_text_ctx, i);
		buf_reset(&tmp);
		if (s->include_names) {
			buf_puts(&tmp, m->name ? m->name : "");
			buf_puts(&tmp, ": ");
		}
		buf_puts(&tmp, text ? text : "");
		n = tmp.len;
		tr = js_trim(tmp.data ? tmp.data : "", &n);
		if (sc->nmsg > 0) {
			buf_putc(&raw, '\n');
			buf_putc(&low, '\n');
		}
		buf_putc(&raw, '\x01');
		buf_putc(&low, '\x01');
		buf_put(&raw, tr, n);
		lower_put(sc, &low, tr, n);
		sc->nmsg++;
		sc->end_raw[sc->nmsg] = raw.len;
		sc->end_low[sc->nmsg] = low.len;
	}
	buf_free(&tmp);
	buf_putc(&raw, '\0');
	buf_putc(&low, '\0');
	sc->msgs.rawlen = raw.len - 1;
	sc->msgs.lowlen = low.len - 1;
	sc->msgs.raw = arena_adopt(&run->arena, buf_detach(&raw));
	sc->msgs.low = arena_adopt(&run->arena, buf_detach(&low));
	for (k = 0; k < WORLD_MATCH__COUNT; k++) {
		const char *t = in->match_text[k] ? in->match_text[k] : "";

		segment_init(sc, &sc->card[k], t, strlen(t));
	}
	sc->ninject = in->ninject;
	sc->inject = xcalloc(in->ninject + 1, sizeof(*sc->inject));
	for (i = 0; i < in->ninject; i++)
		segment_init(sc, &sc->inject[i], in->inject[i],
		    strlen(in->inject[i]));
	sc->mctx = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(sc->mctx, REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(sc->mctx, REGEX_DEPTH_LIMIT);
	sc->md = pcre2_match_data_create(1, NULL);
	return sc;
}

void
wi_scan_free(struct wi_scan *sc)
{
	size_t i;
	int k;

	if (!sc)
		return;
	segment_free(&sc->msgs);
	for (k = 0; k < WORLD_MATCH__COUNT; k++)
		segment_free(&sc->card[k]);
	for (i = 0; i < sc->ninject; i++)
		segment_free(&sc->inject[i]);
	for (i = 0; i < sc->nrec; i++)
		segment_free(&sc->rec[i]);
	for (i = 0; i < sc->ncodes; i++)
		pcre2_code_free(sc->codes[i]);
	free(sc->codes);
	free(sc->inject);
	free(sc->rec);
	free(sc->rec_pass);
	free(sc->end_raw);
	free(sc->end_low);
	buf_free(&sc->joined);
	pcre2_match_data_free(sc->md);
	pcre2_match_context_free(sc->mctx);
	if (sc->loc != (locale_t)0)
		freelocale(sc->loc);
	free(sc);
}

void
wi_scan_set(struct wi_scan *sc, int64_t skew, bool with_recursion)
{
	sc->skew = skew;
	sc->with_recursion = with_recursion;
}

void
wi_scan_add_recursion(struct wi_scan *sc, const char *text, int pass)
{
	if (sc->nrec == sc->caprec) {
		sc->caprec = sc->caprec ? sc->caprec * 2 : 8;
		sc->rec = xreallocarray(sc->rec, sc->caprec, sizeof(*sc->rec));
		sc->rec_pass = xreallocarray(sc->rec_pass, sc->caprec,
		    sizeof(*sc->rec_pass));
	}
	segment_init(sc, &sc->rec[sc->nrec], text, strlen(text));
	sc->rec_pass[sc->nrec++] = pass;
}

/*
 * Regex keys: SillyTavern's parseRegexFromString().  The key must look
 * like /pattern/flags with flags from "gimsuy" (the shortest pattern
 * that leaves only flags), and the pattern must hold no unescaped '/'.
 */
static bool
split_regex(const char *s, size_t n, size_t *plen, unsigned *flags)
{
	size_t p, q;

	if (n < 3 || s[0] != '/')
		return false;
	for (p = 2; p < n; p++) {
		unsigned f = 0;

		if (s[p] != '/')
			continue;
		for (q = p + 1; q < n; q++) {
			const char *c = strchr("gimsuy", s[q]);
			unsigned bit;

			if (!c || s[q] == '\0')
				break;
			bit = 1u << (c - "gimsuy");
			if (f & bit) {
				f |= 1u << 8;   /* duplicate: RegExp throws */
			}
			f |= bit;
		}
		if (q < n)
			continue;
		/* an unescaped '/' inside: not a regex */
		for (q = 1; q < p; q++)
			if (s[q] == '/' && (q == 1 || s[q - 1] != '\\'))
				return false;
		*plen = p - 1;
		*flags = f;
		return true;
	}
	return false;
}

static pcre2_code *
compile_regex(const char *s, size_t n, char *err, size_t errlen,
    size_t *erroff)
{
	size_t plen;
	unsigned flags;
	uint32_t opt = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_ALT_BSUX |
	    PCRE2_ALLOW_EMPTY_CLASS | PCRE2_MATCH_UNSET_BACKREF;
	pcre2_compile_context *cc;
	pcre2_code *re;
	int ec;
	PCRE2_SIZE off;

	if (!split_regex(s, n, &plen, &flags))
		return NULL;
	if (flags & (1u << 8)) {
		if (err)
			snprintf(err, errlen, "a flag given twice");
		if (erroff)
			*erroff = 0;
		return NULL;
	}
	if (flags & (1u << 1))
		opt |= PCRE2_CASELESS;
	if (flags & (1u << 2))
		opt |= PCRE2_MULTILINE;
	else
		opt |= PCRE2_DOLLAR_ENDONLY;
	if (flags & (1u << 3))
		opt |= PCRE2_DOTALL;
	if (flags & (1u << 5))
		opt |= PCRE2_ANCHORED;  /* sticky, from lastIndex 0 */
	cc = pcre2_compile_context_create(NULL);
	pcre2_set_newline(cc, PCRE2_NEWLINE_ANY);
	pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
	re = pcre2_compile((PCRE2_SPTR)s + 1, plen, opt, &ec, &off, cc);
	pcre2_compile_context_free(cc);
	if (!re && err) {
		pcre2_get_error_message(ec, (PCRE2_UCHAR *)err, errlen);
		if (erroff)
			*erroff = off;
	}
	return re;
}

bool
wi_regex_check(const char *s, char *err, size_t errlen, size_t *erroff,
    bool *is_regex)
{
	size_t plen, n = strlen(s);
	unsigned flags;
	pcre2_code *re;

	*is_regex = split_regex(s, n, &plen, &flags);
	if (!*is_regex)
		return true;
	re = compile_regex(s, n, err, errlen, erroff);
	if (!re)
		return false;
	pcre2_code_free(re);
	return true;
}

static void
prepare_list(struct wi_scan *sc, const struct wi_book *book,
    const struct world_entry *e, bool cs, const struct world_strings *src,
    struct wi_key **out, size_t *nout)
{
	size_t i, n, k;
	struct wi_key *keys;
	bool upper;

	*nout = 0;
	*out = NULL;
	if (src->n == 0)
		return;         /* most secondary lists: nothing to allocate */
	keys = arena_array(&sc->run->arena, src->n, sizeof(*keys));
	for (i = 0; i < src->n; i++) {
		const char *t = src->v[i];
		struct wi_key *key;
		uint32_t cp;

		if (sc->in->substitute)
			t = sc->in->substitute(sc->in->substitute_ctx, t,
			    book, e);
		n = strlen(t);
		if (n == 0)
			continue;       /* empty keys are skipped */
		t = js_trim(t, &n);
		key = &keys[(*nout)++];
		memset(key, 0, sizeof(*key));
		if (n == 0) {
			/* Whitespace only: SillyTavern looks for "" in the
			 * text, which is always there (and its whole-word
			 * pattern matches at the text's \x01 start). */
			key->text = key->cmp = "";
			key->blank = true;
			continue;
		}
		/* Nothing trimmed at the end: the text is t as it is. */
		key->text = t[n] == '\0' ? t : arena_strndup(&sc->run->arena,
		    t, n);
		key->re = t[0] == '/' ? compile_regex(key->text, n, NULL, 0,
		    NULL) : NULL;
		if (key->re) {
			size_t plen;
			unsigned fl;

			if (split_regex(key->text, n, &plen, &fl))
				key->has_pre = jsregex_prefix(key->text + 1,
				    plen, fl & (1u << 1), fl & (1u << 5),
				    &key->pre);
			if (sc->ncodes == sc->capcodes) {
				sc->capcodes = sc->capcodes ?
				    sc->capcodes * 2 : 16;
				sc->codes = xreallocarray(sc->codes,
				    sc->capcodes, sizeof(*sc->codes));
			}
			sc->codes[sc->ncodes++] = key->re;
			continue;
		}
		/* One look at the bytes: all word bytes? any to lower? */
		key->words = true;
		upper = false;
		for (k = 0; k < n; k++) {
			unsigned char c = (unsigned char)key->text[k];

			if (!wi_is_word_byte(c))
				key->words = false;
			if ((c >= 'A' && c <= 'Z') || c >= 0x80)
				upper = true;
		}
		if (cs || !upper) {
			key->cmp = key->text;
			key->len = n;
		} else {
			key->cmp = lower(sc, key->text, n, &key->len);
			key->words = true;      /* towlower() may make ASCII */
			for (k = 0; k < key->len; k++)
				if (!wi_is_word_byte((unsigned char)key->cmp[k]))
					key->words = false;
		}
		for (k = 0; k < key->len;) {
			size_t l = utf8_decode(key->cmp + k, key->len - k,
			    &cp);

			if (l == 0)
				l = 1;
			else if (wi_is_js_space(cp))
				key->spaced = true;
			k += l;
		}
	}
	*out = keys;
}

void
wi_keys_prepare(struct wi_scan *sc, const struct wi_book *book,
    const struct world_entry *e, struct wi_keys *k)
{
	bool cs = e->case_sensitive == WORLD_UNSET ? sc->s->case_sensitive :
	    e->case_sensitive;

	prepare_list(sc, book, e, cs, &e->key, &k->primary, &k->nprimary);
	prepare_list(sc, book, e, cs, &e->keysecondary, &k->secondary,
	    &k->nsecondary);
}

const char *
wi_key_text(const struct wi_key *keys, size_t i)
{
	return keys[i].text;
}

/* The number of messages an entry scans; 0 = nothing matches. */
static size_t
entry_depth(struct wi_scan *sc, const struct world_entry *e)
{
	int64_t d = e->scan_depth != WORLD_UNSET ? e->scan_depth :
	    sc->s->depth + sc->skew;

	if (d <= 0)
		return 0;
	if (d > MAX_SCAN_DEPTH)
		d = MAX_SCAN_DEPTH;
	return (size_t)d;
}

/* Find key in t[0..limit); whole: JS (?:^|\W)KEY(?:$|\W). */
static size_t
find_plain(const struct wi_key *k, struct segment *g, bool cs, bool whole,
    size_t limit)
{
	const char *t = cs ? g->raw : g->low;
	const char *p = t, *end = t + limit;

	if (whole && !k->spaced && k->words) {
		struct windex *x = cs ? &g->iraw : &g->ilow;
		bool *built = cs ? &g->built_raw : &g->built_low;
		size_t off;

		if (!*built) {
			windex_build(x, t, cs ? g->rawlen : g->lowlen);
			*built = true;
		}
		off = windex_find(x, t, k->cmp, k->len);
		return off != SIZE_MAX && off + k->len <= limit ? off :
		    SIZE_MAX;
	}
	if ((cs ? g->rawlen : g->lowlen) >= GRAM_MIN_TEXT) {
		uint64_t **set = cs ? &g->graw : &g->glow;

		if (!*set)
			*set = grams_build(t, cs ? g->rawlen : g->lowlen);
		if (!grams_may_hold(*set, k->cmp, k->len))
			return SIZE_MAX;
	}
	while (p < end && (p = memmem(p, (size_t)(end - p), k->cmp,
	    k->len)) != NULL) {
		size_t off = (size_t)(p - t);

		if (!whole || k->spaced)
			return off;
		if ((off == 0 || !wi_is_word_byte((unsigned char)t[off - 1])) &&
		    (off + k->len >= limit ||
		    !wi_is_word_byte((unsigned char)t[off + k->len])))
			return off;
		p++;
	}
	return SIZE_MAX;
}

static size_t
message_of(const size_t *ends, size_t n, size_t off)
{
	size_t lo = 0, hi = n;

	/* the first d with ends[d + 1] > off */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ends[mid + 1] > off)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static bool
match_plain(struct wi_scan *sc, const struct world_entry *e,
    const struct wi_key *k, size_t depth, size_t from, struct wi_match *m)
{
	bool cs = e->case_sensitive == WORLD_UNSET ? sc->s->case_sensitive :
	    e->case_sensitive;
	bool whole = e->match_whole_words == WORLD_UNSET ?
	    sc->s->match_whole_words : e->match_whole_words;
	size_t nm = depth < sc->nmsg ? depth : sc->nmsg, off, i;
	int c;

	if (from > 0)
		goto recursion;     /* the rest was searched before */
	off = find_plain(k, &sc->msgs, cs, whole, cs ? sc->end_raw[nm] :
	    sc->end_low[nm]);
	if (off != SIZE_MAX) {
		m->where = WI_IN_MESSAGE;
		m->where_index = message_of(cs ? sc->end_raw : sc->end_low,
		    nm, off);
		return true;
	}
	for (c = 0; c < WORLD_MATCH__COUNT; c++) {
		struct segment *g = &sc->card[c];

		if (!(e->match & (1u << c)) || g->rawlen == 0)
			continue;
		if (find_plain(k, g, cs, whole, cs ? g->rawlen : g->lowlen) !=
		    SIZE_MAX) {
			m->where = WI_IN_CARD;
			m->where_index = (size_t)c;
			return true;
		}
	}
	for (i = 0; i < sc->ninject; i++) {
		struct segment *g = &sc->inject[i];

		if (find_plain(k, g, cs, whole, cs ? g->rawlen : g->lowlen) !=
		    SIZE_MAX) {
			m->where = WI_IN_INJECT;
			m->where_index = i;
			return true;
		}
	}
recursion:
	for (i = from; sc->with_recursion && i < sc->nrec; i++) {
		struct segment *g = &sc->rec[i];

		if (find_plain(k, g, cs, whole, cs ? g->rawlen : g->lowlen) !=
		    SIZE_MAX) {
			m->where = WI_IN_RECURSION;
			m->where_index = (size_t)sc->rec_pass[i];
			return true;
		}
	}
	return false;
}

/* The real buffer string for regex keys. */
static void
build_joined(struct wi_scan *sc, const struct world_entry *e, size_t depth)
{
	size_t nm = depth < sc->nmsg ? depth : sc->nmsg, i;
	unsigned mask = 0;
	int c;

	for (c = 0; c < WORLD_MATCH__COUNT; c++)
		if ((e->match & (1u << c)) && sc->card[c].rawlen > 0)
			mask |= 1u << c;
	if (sc->j_valid && sc->j_depth == (int64_t)nm && sc->j_mask == mask &&
	    sc->j_with_rec == sc->with_recursion && sc->j_nrec == sc->nrec)
		return;
	buf_reset(&sc->joined);
	if (nm == 0)
		buf_putc(&sc->joined, '\x01');
	else
		buf_put(&sc->joined, sc->msgs.raw, sc->end_raw[nm]);
	for (c = 0; c < WORLD_MATCH__COUNT; c++) {
		sc->j_starts[c] = sc->joined.len;
		if (mask & (1u << c)) {
			buf_put(&sc->joined, "\n\x01", 2);
			buf_put(&sc->joined, sc->card[c].raw,
			    sc->card[c].rawlen);
		}
	}
	sc->j_starts[WORLD_MATCH__COUNT] = sc->joined.len;
	for (i = 0; i < sc->ninject; i++) {
		buf_put(&sc->joined, "\n\x01", 2);
		buf_put(&sc->joined, sc->inject[i].raw, sc->inject[i].rawlen);
	}
	sc->j_starts[WORLD_MATCH__COUNT + 1] = sc->joined.len;
	for (i = 0; sc->with_recursion && i < sc->nrec; i++) {
		buf_put(&sc->joined, "\n\x01", 2);
		buf_put(&sc->joined, sc->rec[i].raw, sc->rec[i].rawlen);
	}
	sc->j_valid = true;
	sc->j_depth = (int64_t)nm;
	sc->j_mask = mask;
	sc->j_with_rec = sc->with_recursion;
	sc->j_nrec = sc->nrec;
}

static bool
match_regex(struct wi_scan *sc, const struct world_entry *e,
    const struct wi_key *k, size_t depth, size_t from, struct wi_match *m)
{
	size_t nm = depth < sc->nmsg ? depth : sc->nmsg, off, i, at, start;
	int rc, c;

	build_joined(sc, e, depth);
	/* Only the text new to the pass: from the separator before the
	 * first recursion segment not searched yet. */
	start = sc->j_starts[WORLD_MATCH__COUNT + 1];
	for (i = 0; i < from; i++)
		start += 2 + sc->rec[i].rawlen;
	if (!from)
		start = 0;
	/* Straight to where the key's literal prefix occurs, if it does:
	 * the same outcome (jsregex_prefix()). */
	if (k->has_pre && (start = jsregex_prefix_find(&k->pre,
	    sc->joined.data, sc->joined.len, start)) == SIZE_MAX)
		return false;
	/* The interpreter only: the JIT counts its match limit otherwise,
	 * and the same input must give the same result everywhere. */
	rc = pcre2_match(k->re, (PCRE2_SPTR)sc->joined.data, sc->joined.len,
	    start, 0, sc->md, sc->mctx);
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
	    rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT) {
		m->limit = true;
		return false;
	}
	if (rc < 0)
		return false;
	off = pcre2_get_ovector_pointer(sc->md)[0];
	if (off < sc->j_starts[0] || nm == 0) {
		m->where = WI_IN_MESSAGE;
		m->where_index = nm ? message_of(sc->end_raw, nm, off) : 0;
		return true;
	}
	for (c = WORLD_MATCH__COUNT - 1; c >= 0; c--)
		if (off >= sc->j_starts[c] && (sc->j_mask & (1u << c)) &&
		    off < sc->j_starts[WORLD_MATCH__COUNT]) {
			m->where = WI_IN_CARD;
			m->where_index = (size_t)c;
			return true;
		}
	if (off < sc->j_starts[WORLD_MATCH__COUNT + 1]) {
		at = sc->j_starts[WORLD_MATCH__COUNT];
		m->where = WI_IN_INJECT;
		for (i = 0; i < sc->ninject; i++) {
			at += 2 + sc->inject[i].rawlen;
			if (off < at)
				break;
		}
		m->where_index = i < sc->ninject ? i : sc->ninject - 1;
		return true;
	}
	at = sc->j_starts[WORLD_MATCH__COUNT + 1];
	m->where = WI_IN_RECURSION;
	for (i = 0; i < sc->nrec; i++) {
		at += 2 + sc->rec[i].rawlen;
		if (off < at)
			break;
	}
	m->where_index = (size_t)sc->rec_pass[i < sc->nrec ? i :
	    sc->nrec - 1];
	return true;
}

bool
wi_scan_key(struct wi_scan *sc, const struct world_entry *e,
    struct wi_key *keys, size_t i, struct wi_match *m)
{
	size_t depth = entry_depth(sc, e), from = 0;
	struct wi_key *k = &keys[i];
	bool ok;

	if (k->blank) {
		m->where = WI_IN_MESSAGE;
		m->where_index = 0;
		m->found = true;
		m->key = i;
		return true;
	}
	if (depth == 0 || k->c_dead)
		return false;   /* depth <= 0: the buffer is "" */
	/* The buffer only grows between passes of one depth: a key found
	 * before is found at the same place, one not found needs only
	 * the recursion text added since. */
	if (k->c_valid && k->c_depth == depth &&
	    k->c_with_rec == sc->with_recursion && k->c_nrec <= sc->nrec) {
		if (k->c_hit) {
			m->where = k->c_where;
			m->where_index = k->c_index;
			m->found = true;
			m->key = i;
			return true;
		}
		if (!sc->with_recursion || k->c_nrec == sc->nrec)
			return false;
		from = k->c_nrec;
	}
	ok = k->re ? match_regex(sc, e, k, depth, from, m) :
	    match_plain(sc, e, k, depth, from, m);
	/* A regex that hit its limit (reported once) matches nothing more
	 * in this scan: a lorebook's cost stays bounded. */
	k->c_dead = m->limit;
	k->c_valid = true;
	k->c_depth = depth;
	k->c_with_rec = sc->with_recursion;
	k->c_nrec = sc->nrec;
	k->c_hit = ok;
	if (ok) {
		k->c_where = m->where;
		k->c_index = m->where_index;
	}
	if (ok) {
		m->found = true;
		m->key = i;
	}
	return ok;
}
