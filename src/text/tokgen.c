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

int
main(int argc, char **argv)
{
	char line[4096], *sp, *end;
	struct tok *tok;
	size_t ntok = 0, cap = 1 << 18, total = 0, maxlen = 0, nslot, i, col;
	size_t first = SIZE_MAX, nmerge = 0, mcap = 0, mslot = 0;
	uint32_t *mleft = NULL, *mright = NULL, *mtab = NULL;
	uint32_t *slot, h, r, byte_rank[256];
	unsigned char buf[4096];
	unsigned long rank;
	long len;
	FILE *in, *out;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: tokgen OUT.c SYMBOL RANKS.tiktoken "
		    "[MERGES]\n");
		return 2;
	}
	if (!(in = fopen(argv[3], "r")))
		fail("cannot read", argv[3]);
	tok = alloc(cap * sizeof(*tok));
	while (fgets(line, sizeof(line), in)) {
		if (!(sp = strchr(line, ' ')))
			fail("no rank on a line of", argv[3]);
		rank = strtoul(sp + 1, &end, 10);
		if (end == sp + 1 || (*end != '\n' && *end != '\0'))
			fail("bad rank in", argv[3]);
		if ((len = unbase64(line, (size_t)(sp - line), buf)) <= 0)
			fail("bad base64 in", argv[3]);
		if (rank >= cap || rank >= TOKENIZER_RANK_MASK)
			fail("rank too large in", argv[3]);
		if (tok[rank].p)
			fail("duplicate rank in", argv[3]);
		tok[rank].p = alloc((size_t)len);
		memcpy(tok[rank].p, buf, (size_t)len);
		tok[rank].len = (size_t)len;
		if (rank + 1 > ntok)
			ntok = rank + 1;
		if (rank < first)
			first = rank;
	}
	if (ferror(in))
		fail("cannot read", argv[3]);
	fclose(in);
	if (ntok == 0)
		fail("no ranks in", argv[3]);
	for (i = first; i < ntok; i++) {
		if (!tok[i].p)
			fail("a rank is missing in", argv[3]);
		total += tok[i].len;
		if (tok[i].len > maxlen)
			maxlen = tok[i].len;
	}

	/* At most half full: a miss (the common case while merging) then
	 * probes about two slots, and the tag usually spares the memcmp. */
	for (nslot = 1; nslot < 2 * ntok; nslot *= 2)
		;
	slot = alloc(nslot * sizeof(*slot));
	memset(slot, 0xff, nslot * sizeof(*slot));
	for (i = 0; i < 256; i++)
		byte_rank[i] = TOKENIZER_SLOT_EMPTY;
	for (r = (uint32_t)first; r < ntok; r++) {
		h = tokenizer_table_hash(tok[r].p, tok[r].len);
		for (i = h & (nslot - 1); slot[i] != TOKENIZER_SLOT_EMPTY;
		    i = (i + 1) & (nslot - 1))
			;
		slot[i] = (h >> TOKENIZER_RANK_BITS) << TOKENIZER_RANK_BITS | r;
		if (tok[r].len == 1)
			byte_rank[tok[r].p[0]] = r;
	}
	for (i = 0; i < 256; i++)
		if (byte_rank[i] == TOKENIZER_SLOT_EMPTY)
			fail("a single byte has no rank in", argv[3]);
	if (argc == 5)
		read_merges(argv[4], tok, ntok, first, &mleft, &mright,
		    &nmerge, &mcap);
	if (nmerge) {
		for (mslot = 1; mslot < 2 * nmerge; mslot *= 2)
			;
		mtab = alloc(mslot * sizeof(*mtab));
		memset(mtab, 0xff, mslot * sizeof(*mtab));
		for (r = 0; r < nmerge; r++) {
			for (i = tokenizer_pair_hash(mleft[r], mright[r]) &
			    (mslot - 1); mtab[i] != TOKENIZER_SLOT_EMPTY;
			    i = (i + 1) & (mslot - 1))
				if (mleft[mtab[i]] == mleft[r] &&
				    mright[mtab[i]] == mright[r])
					fail("a duplicate merge rule in",
					    argv[4]);
			mtab[i] = r;
		}
	}

	if (!(out = fopen(argv[1], "w")))
		fail("cannot write", argv[1]);
	fprintf(out, "/* Generated by tokgen from %s: do not edit. */\n"
	    "#include <stddef.h>\n\n#include \"text/tokenizer_table.h\"\n\n"
	    "#if defined(__GNUC__)\n"
	    "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n"
	    "#endif\n\n"
	    "static const unsigned char bytes[%zu] =", argv[3], total + 1);
	/* Octal escapes are always three digits, so a digit after one is
	 * not swallowed; '?' is escaped because -std=c11 has trigraphs. */
	col = 80;
	for (r = 0; r < ntok; r++)
		for (i = 0; i < tok[r].len; i++) {
			int c = tok[r].p[i];

			if (col >= 72) {
				fputs("\n\t\"", out);
				col = 0;
			}
			if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
			    c != '?') {
				putc(c, out);
				col++;
			} else {
				fprintf(out, "\\%03o", c);
				col += 4;
			}
			if (col >= 72)
				putc('"', out);
		}
	fprintf(out, "%s;\n\nstatic const uint32_t off[%zu] = {",
	    col < 72 ? "\"" : "", ntok + 1);
	total = 0;
	for (r = 0; r <= ntok; r++) {
		fprintf(out, "%s%zu,", r % 10 ? "" : "\n\t", total);
		if (r < ntok)
			total += tok[r].len;
	}
	fprintf(out, "\n};\n\nstatic const uint32_t slot[%zu] = {", nslot);
	for (i = 0; i < nslot; i++)
		fprintf(out, "%s%lu,", i % 8 ? "" : "\n\t",
		    (unsigned long)slot[i]);
	fprintf(out, "\n};\n\n");
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
	fprintf(out, "\n\t},\n\t%zu, %zu, %zu, %zu,\n", ntok, nslot - 1,
	    maxlen, first);
	if (nmerge)
		fprintf(out, "\tmerge_left, merge_right, merge_slot, %zu, %zu, "
		    "%zu,\n", nmerge, mslot - 1, first + 256);
	else
		fprintf(out, "\tNULL, NULL, NULL, 0, 0, 0,\n");
	fprintf(out, "};\n");
	if (fclose(out) != 0)
		fail("cannot write", argv[1]);
	for (i = 0; i < ntok; i++)
		free(tok[i].p);
	free(tok);
	free(slot);
	free(mleft);
	free(mright);
	free(mtab);
	return 0;
}
