/*
 * spgen: a build-time tool.  `spgen OUT.c SYMBOL MODEL.model` reads a
 * SentencePiece model (a protocol-buffer ModelProto: its pieces with
 * their scores and types, its trainer spec, its normalizer spec) and
 * writes OUT.c defining `const struct tokenizer_sp SYMBOL`
 * (tokenizer_sp.h): the pieces' bytes, offsets, scores and types and a
 * precomputed hash table, so that strata decodes nothing at run time.
 * It fails, naming the model, on anything tok_sp() does not implement.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/tokenizer_sp.h"
#include "text/tokenizer_table.h"

struct piece {
	const unsigned char *p;
	size_t len;
	float score;
	int type;
};

static const char *path;

static void
fail(const char *what)
{
	fprintf(stderr, "spgen: %s: %s\n", path, what);
	exit(1);
}

static void *
alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		fail("out of memory");
	return p;
}

/* One protocol-buffer field of b[*i..n): its number, wire type, and its
 * value (a varint in *v, or bytes at *p of length *len; fixed32 as 4
 * bytes at *p). */
static uint64_t
varint(const unsigned char *b, size_t n, size_t *i)
{
	uint64_t v = 0;
	int shift = 0;

	for (;;) {
		if (*i >= n || shift > 63)
			fail("truncated varint");
		v |= (uint64_t)(b[*i] & 0x7f) << shift;
		shift += 7;
		if (b[(*i)++] < 0x80)
			return v;
	}
}

static int
field(const unsigned char *b, size_t n, size_t *i, int *wire, uint64_t *v,
    const unsigned char **p, size_t *len)
{
	uint64_t key = varint(b, n, i);

	*wire = (int)(key & 7);
	switch (*wire) {
	case 0:
		*v = varint(b, n, i);
		break;
	case 1:
	case 5:
		*len = *wire == 1 ? 8 : 4;
		if (n - *i < *len)
			fail("truncated field");
		*p = b + *i;
		*i += *len;
		break;
	case 2:
		*v = varint(b, n, i);
		if (*v > n - *i)
			fail("truncated field");
		*p = b + *i;
		*len = (size_t)*v;
		*i += *len;
		break;
	default:
		fail("unknown wire type");
	}
	return (int)(key >> 3);
}

int
main(int argc, char **argv)
{
	unsigned char *b, *user_first;
	size_t n, cap = 1 << 20, i, j, np = 0, pcap = 1 << 16, nslot, total = 0;
	size_t maxlen = 0, col;
	struct piece *pc;
	uint32_t *slot, byte_id[256], h, unk = UINT32_MAX;
	uint64_t v = 0, user_lens = 0;
	const unsigned char *p = NULL;
	size_t len = 0;
	int wire, f, model_type = 1, byte_fallback = 0, suffix = 0;
	int dummy = 1, extra = 1, escape = 1;
	FILE *in, *out;

	if (argc != 4) {
		fprintf(stderr, "usage: spgen OUT.c SYMBOL MODEL.model\n");
		return 2;
	}
	path = argv[3];
	if (!(in = fopen(path, "rb")))
		fail("cannot read");
	b = alloc(cap);
	while ((n = fread(b + total, 1, cap - total, in)) > 0)
		if ((total += n) == cap)
			if (!(b = realloc(b, cap *= 2)))
				fail("out of memory");
	if (ferror(in))
		fail("cannot read");
	fclose(in);
	n = total;
	pc = alloc(pcap * sizeof(*pc));
	for (i = 0; i < n;) {
		f = field(b, n, &i, &wire, &v, &p, &len);
		if (f == 1 && wire == 2) {              /* a piece */
			const unsigned char *q = p, *s = NULL;
			size_t k = 0, qn = len, slen = 0;
			struct piece *e;

			if (np == pcap && !(pc = realloc(pc,
			    (pcap *= 2) * sizeof(*pc))))
				fail("out of memory");
			e = &pc[np++];
			e->type = SP_NORMAL;
			while (k < qn) {
				int g = field(q, qn, &k, &wire, &v, &s, &slen);

				if (g == 1 && wire == 2)
					e->p = s, e->len = slen;
				else if (g == 2 && wire == 5)
					memcpy(&e->score, s, 4);
				else if (g == 3 && wire == 0)
					e->type = (int)v;
			}
			if (!e->p || e->len == 0)
				fail("a piece is empty");
		} else if (f == 2 && wire == 2) {       /* trainer spec */
			const unsigned char *q = p, *s;
			size_t k = 0, qn = len, slen;

			while (k < qn) {
				int g = field(q, qn, &k, &wire, &v, &s, &slen);

				if (wire != 0)
					continue;
				if (g == 3)
					model_type = (int)v;
				else if (g == 24)
					suffix = v != 0;
				else if (g == 35)
					byte_fallback = v != 0;
			}
		} else if (f == 3 && wire == 2) {       /* normalizer spec */
			const unsigned char *q = p, *s;
			size_t k = 0, qn = len, slen;

			while (k < qn) {
				int g = field(q, qn, &k, &wire, &v, &s, &slen);

				if (g == 1 && wire == 2 && (slen != 8 ||
				    memcmp(s, "identity", 8) != 0))
					fail("its normalization is not the "
					    "identity");
				if ((g == 2 || g == 6) && wire == 2 && slen)
					fail("it has normalization rules");
				if (wire != 0)
					continue;
				if (g == 3)
					dummy = v != 0;
				else if (g == 4)
					extra = v != 0;
				else if (g == 5)
					escape = v != 0;
			}
		}
	}
	if (model_type != 2)
		fail("it is not a BPE model");
	if (extra)
		fail("it removes extra white space");
	if (suffix)
		fail("it treats white space as a suffix");
	if (np == 0 || np >= TOKENIZER_SLOT_EMPTY)
		fail("no pieces, or too many");

	for (nslot = 1; nslot < 2 * np; nslot *= 2)
		;
	slot = alloc(nslot * sizeof(*slot));
	memset(slot, 0xff, nslot * sizeof(*slot));
	user_first = alloc(32);
	for (i = 0; i < 256; i++)
		byte_id[i] = UINT32_MAX;
	total = 0;
	for (i = 0; i < np; i++) {
		struct piece *e = &pc[i];

		total += e->len;
		if (e->len > maxlen)
			maxlen = e->len;
		switch (e->type) {
		case SP_UNUSED:
			fail("it has unused pieces");
			break;
		case SP_UNKNOWN:
			unk = (uint32_t)i;
			break;
		case SP_BYTE: {
			unsigned x;
			char hex[7];

			if (e->len != 6)
				fail("a byte piece is not <0xXX>");
			memcpy(hex, e->p, 6);
			hex[6] = '\0';
			if (sscanf(hex, "<0x%2X>", &x) != 1 || x > 255)
				fail("a byte piece is not <0xXX>");
			byte_id[x] = (uint32_t)i;
			break;
		}
		case SP_USER_DEFINED:
			if (e->len > 64)
				fail("a user-defined piece is too long");
			user_lens |= UINT64_C(1) << (e->len - 1);
			user_first[e->p[0] >> 3] |= (unsigned char)(1 << (e->p[0] & 7));
			/* FALLTHROUGH */
		case SP_NORMAL:
			h = tokenizer_table_hash(e->p, e->len);
			for (j = h & (nslot - 1); slot[j] != TOKENIZER_SLOT_EMPTY;
			    j = (j + 1) & (nslot - 1))
				if (pc[slot[j]].len == e->len &&
				    memcmp(pc[slot[j]].p, e->p, e->len) == 0)
					fail("a piece is defined twice");
			slot[j] = (uint32_t)i;
			break;
		case SP_CONTROL:
			break;
		default:
			fail("a piece has an unknown type");
		}
	}
	if (unk == UINT32_MAX)
		fail("it has no unknown piece");
	if (byte_fallback)
		for (i = 0; i < 256; i++)
			if (byte_id[i] == UINT32_MAX)
				fail("a byte piece is missing");

	if (!(out = fopen(argv[1], "w")))
		fail("cannot write the output");
	fprintf(out, "/* Generated by spgen from %s: do not edit. */\n"
	    "#include <stddef.h>\n\n#include \"text/tokenizer_sp.h\"\n\n"
	    "#if defined(__GNUC__)\n"
	    "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n"
	    "#endif\n\n"
	    "static const unsigned char bytes[%zu] =", path, total + 1);
	/* As tokgen: three-digit octal escapes, '?' escaped (trigraphs). */
	col = 80;
	for (i = 0; i < np; i++)
		for (j = 0; j < pc[i].len; j++) {
			int c = pc[i].p[j];

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
	    col < 72 ? "\"" : "", np + 1);
	total = 0;
	for (i = 0; i <= np; i++) {
		fprintf(out, "%s%zu,", i % 10 ? "" : "\n\t", total);
		if (i < np)
			total += pc[i].len;
	}
	/* Hexadecimal floats are exact. */
	fprintf(out, "\n};\n\nstatic const float score[%zu] = {", np);
	for (i = 0; i < np; i++)
		fprintf(out, "%s%af,", i % 6 ? " " : "\n\t",
		    (double)pc[i].score);
	fprintf(out, "\n};\n\nstatic const unsigned char type[%zu] = {", np);
	for (i = 0; i < np; i++)
		fprintf(out, "%s%d,", i % 24 ? "" : "\n\t", pc[i].type);
	fprintf(out, "\n};\n\nstatic const uint32_t slot[%zu] = {", nslot);
	for (i = 0; i < nslot; i++)
		fprintf(out, "%s%lu,", i % 8 ? "" : "\n\t",
		    (unsigned long)slot[i]);
	fprintf(out, "\n};\n\nconst struct tokenizer_sp %s = {\n"
	    "\tbytes, off, score, type, slot,\n\t%zu, %zu, %zu, %lu,\n\t{",
	    argv[2], np, nslot - 1, maxlen, (unsigned long)unk);
	for (i = 0; i < 256; i++)
		fprintf(out, "%s%lu,", i % 10 ? "" : "\n\t\t",
		    (unsigned long)byte_id[i]);
	fprintf(out, "\n\t},\n\t{");
	for (i = 0; i < 32; i++)
		fprintf(out, "%s%u,", i % 16 ? "" : "\n\t\t", user_first[i]);
	fprintf(out, "\n\t},\n\tUINT64_C(0x%llx),\n\t%s, %s, %s,\n};\n",
	    (unsigned long long)user_lens, dummy ? "true" : "false",
	    escape ? "true" : "false", byte_fallback ? "true" : "false");
	if (fclose(out) != 0)
		fail("cannot write the output");
	free(b);
	free(pc);
	free(slot);
	free(user_first);
	return 0;
}
