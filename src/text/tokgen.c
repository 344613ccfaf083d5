/*
 * tokgen: a build-time tool.  `tokgen OUT.c SYMBOL RANKS.tiktoken` reads
 * OpenAI's .tiktoken format (base64 bytes, a space, the rank, per line;
 * ranks 0..n-1 each once) and writes OUT.c defining
 * `const struct tokenizer_table SYMBOL` (tokenizer_table.h): the tokens'
 * bytes as one string, their offsets, and a precomputed hash table, so
 * that strata pays nothing at run time to load them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/gen_literal.h"
#include "text/tokenizer_table.h"

struct tok {
	unsigned char *p;
	size_t len;
};

static void
fail(const char *what, const char *path)
{
	fprintf(stderr, "tokgen: %s %s\n", what, path);
	exit(1);
}

static void *
alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		fail("out of memory", "");
	return p;
}

static int
b64(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Decode base64 text s[0..n) into out; return the byte count, or -1. */
static long
unbase64(const char *s, size_t n, unsigned char *out)
{
	unsigned long acc = 0;
	int bits = 0, v;
	long len = 0;
	size_t i;

	for (i = 0; i < n && s[i] != '='; i++) {
		if ((v = b64((unsigned char)s[i])) < 0)
			return -1;
		acc = (acc << 6 | (unsigned long)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[len++] = (unsigned char)(acc >> bits);
		}
	}
	return len;
}

static void
write_u32s(FILE *out, const char *name, const uint32_t *v, size_t n)
{
	size_t i;

	fprintf(out, "static const uint32_t %s[%zu] = {", name, n);
	for (i = 0; i < n; i++)
		fprintf(out, "%s%lu,", i % 8 ? "" : "\n\t",
		    (unsigned long)v[i]);
	fprintf(out, "\n};\n\n");
}

/* The merge rules of path: rule r joins two tokens of tok[first..ntok)
 * whose bytes together are token first + 256 + r's. */
static void
read_merges(const char *path, const struct tok *tok, size_t ntok,
    size_t first, uint32_t **left, uint32_t **right, size_t *n, size_t *cap)
{
	unsigned long a, b;
	size_t id;
	FILE *in;
	int c;

	if (!(in = fopen(path, "r")))
		fail("cannot read", path);
	while ((c = fscanf(in, "%lu %lu", &a, &b)) == 2) {
		id = first + 256 + *n;
		if (a < first || b < first || a >= ntok || b >= ntok ||
		    id >= ntok || tok[a].len + tok[b].len != tok[id].len ||
		    memcmp(tok[id].p, tok[a].p, tok[a].len) != 0 ||
		    memcmp(tok[id].p + tok[a].len, tok[b].p, tok[b].len) != 0)
			fail("a merge rule does not make its token in", path);
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 1024;
			*left = realloc(*left, *cap * sizeof(**left));
			*right = realloc(*right, *cap * sizeof(**right));
			if (!*left || !*right)
				fail("out of memory", "");
		}
		(*left)[*n] = (uint32_t)a;
		(*right)[(*n)++] = (uint32_t)b;
	}
	if (c != EOF || ferror(in))
		fail("bad merge rule in", path);
	fclose(in);
}

/* The ranks of path (.tiktoken) into *t. */
struct ranks {
	struct tok *tok;
	size_t ntok, first, total, maxlen;
};

static void
read_ranks(const char *path, struct ranks *t)
{
	char line[4096], *sp, *end;
	unsigned char buf[4096];
	size_t cap = 1 << 18, i;
	unsigned long rank;
	long len;
	FILE *in;

	memset(t, 0, sizeof(*t));
	t->first = SIZE_MAX;
	if (!(in = fopen(path, "r")))
		fail("cannot read", path);
	t->tok = alloc(cap * sizeof(*t->tok));
	while (fgets(line, sizeof(line), in)) {
		if (!(sp = strchr(line, ' ')))
			fail("no rank on a line of", path);
		rank = strtoul(sp + 1, &end, 10);
		if (end == sp + 1 || (*end != '\n' && *end != '\0'))
			fail("bad rank in", path);
		if ((len = unbase64(line, (size_t)(sp - line), buf)) <= 0)
			fail("bad base64 in", path);
		if (rank >= cap || rank >= TOKENIZER_RANK_MASK)
			fail("rank too large in", path);
		if (t->tok[rank].p)
			fail("duplicate rank in", path);
		t->tok[rank].p = alloc((size_t)len);
		memcpy(t->tok[rank].p, buf, (size_t)len);
		t->tok[rank].len = (size_t)len;
		if (rank + 1 > t->ntok)
			t->ntok = rank + 1;
		if (rank < t->first)
			t->first = rank;
	}
	if (ferror(in))
		fail("cannot read", path);
	fclose(in);
	if (t->ntok == 0)
		fail("no ranks in", path);
	for (i = t->first; i < t->ntok; i++) {
		if (!t->tok[i].p)
			fail("a rank is missing in", path);
		t->total += t->tok[i].len;
		if (t->tok[i].len > t->maxlen)
			t->maxlen = t->tok[i].len;
	}
}

/* The ranks' hash table (at most half full: a miss, the common case
 * while merging, then probes about two slots, and the tag usually
 * spares the memcmp) and each single byte's rank. */
static uint32_t *
rank_slots(const char *path, const struct ranks *t, size_t *nslot,
    uint32_t byte_rank[256])
{
	uint32_t *slot, h, r;
	size_t i;

	for (*nslot = 1; *nslot < 2 * t->ntok; *nslot *= 2)
		;
	slot = alloc(*nslot * sizeof(*slot));
	memset(slot, 0xff, *nslot * sizeof(*slot));
	for (i = 0; i < 256; i++)
		byte_rank[i] = TOKENIZER_SLOT_EMPTY;
	for (r = (uint32_t)t->first; r < t->ntok; r++) {
		h = tokenizer_table_hash(t->tok[r].p, t->tok[r].len);
		for (i = h & (*nslot - 1); slot[i] != TOKENIZER_SLOT_EMPTY;
		    i = (i + 1) & (*nslot - 1))
			;
		slot[i] = (h >> TOKENIZER_RANK_BITS) << TOKENIZER_RANK_BITS | r;
		if (t->tok[r].len == 1)
			byte_rank[t->tok[r].p[0]] = r;
	}
	for (i = 0; i < 256; i++)
		if (byte_rank[i] == TOKENIZER_SLOT_EMPTY)
			fail("a single byte has no rank in", path);
	return slot;
}

/* The merge rules' hash table, keyed by their pair. */
static uint32_t *
merge_slots(const char *path, const uint32_t *left, const uint32_t *right,
    size_t nmerge, size_t *mslot)
{
	uint32_t *mtab, r;
	size_t i;

	for (*mslot = 1; *mslot < 2 * nmerge; *mslot *= 2)
		;
	mtab = alloc(*mslot * sizeof(*mtab));
	memset(mtab, 0xff, *mslot * sizeof(*mtab));
	for (r = 0; r < nmerge; r++) {
		for (i = tokenizer_pair_hash(left[r], right[r]) &
		    (*mslot - 1); mtab[i] != TOKENIZER_SLOT_EMPTY;
		    i = (i + 1) & (*mslot - 1))
			if (left[mtab[i]] == left[r] &&
			    right[mtab[i]] == right[r])
				fail("a duplicate merge rule in", path);
		mtab[i] = r;
	}
	return mtab;
}

int
main(int argc, char **argv)
{
	struct ranks t;
	size_t nslot, i, col, nmerge = 0, mcap = 0, mslot = 0, total;
	uint32_t *mleft = NULL, *mright = NULL, *mtab = NULL;
	uint32_t *slot, r, byte_rank[256];
	FILE *out;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: tokgen OUT.c SYMBOL RANKS.tiktoken "
		    "[MERGES]\n");
		return 2;
	}
	read_ranks(argv[3], &t);
	slot = rank_slots(argv[3], &t, &nslot, byte_rank);
	if (argc == 5)
		read_merges(argv[4], t.tok, t.ntok, t.first, &mleft, &mright,
		    &nmerge, &mcap);
	if (nmerge)
		mtab = merge_slots(argv[4], mleft, mright, nmerge, &mslot);

	if (!(out = fopen(argv[1], "w")))
		fail("cannot write", argv[1]);
	fprintf(out, "/* Generated by tokgen from %s: do not edit. */\n"
	    "#include <stddef.h>\n\n#include \"text/tokenizer_table.h\"\n\n"
	    "#if defined(__GNUC__)\n"
	    "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n"
	    "#endif\n\n"
	    "static const unsigned char bytes[%zu] =", argv[3], t.total + 1);
	col = GEN_LITERAL_START;
	for (r = 0; r < t.ntok; r++)
		gen_literal_bytes(out, t.tok[r].p, t.tok[r].len, &col);
	gen_literal_end(out, col);
	fprintf(out, "\nstatic const uint32_t off[%zu] = {", t.ntok + 1);
	total = 0;
	for (r = 0; r <= t.ntok; r++) {
		fprintf(out, "%s%zu,", r % 10 ? "" : "\n\t", total);
		if (r < t.ntok)
			total += t.tok[r].len;
	}
	fprintf(out, "\n};\n\n");
	write_u32s(out, "slot", slot, nslot);
	if (nmerge) {
		write_u32s(out, "merge_left", mleft, nmerge);
		write_u32s(out, "merge_right", mright, nmerge);
		write_u32s(out, "merge_slot", mtab, mslot);
	}
	fprintf(out, "const struct tokenizer_table %s = {\n"
	    "\tbytes, off, slot,\n\t{", argv[2]);
	for (i = 0; i < 256; i++)
		fprintf(out, "%s%lu,", i % 10 ? "" : "\n\t\t",
		    (unsigned long)byte_rank[i]);
	fprintf(out, "\n\t},\n\t%zu, %zu, %zu, %zu,\n", t.ntok, nslot - 1,
	    t.maxlen, t.first);
	if (nmerge)
		fprintf(out, "\tmerge_left, merge_right, merge_slot, %zu, %zu, "
		    "%zu,\n", nmerge, mslot - 1, t.first + 256);
	else
		fprintf(out, "\tNULL, NULL, NULL, 0, 0, 0,\n");
	fprintf(out, "};\n");
	if (fclose(out) != 0)
		fail("cannot write", argv[1]);
	for (i = 0; i < t.ntok; i++)
		free(t.tok[i].p);
	free(t.tok);
	free(slot);
	free(mleft);
	free(mright);
	free(mtab);
	return 0;
}
