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

#include "text/gen_literal.h"
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

/* What a model holds that the encoder needs. */
struct model {
	struct piece *pc;
	size_t np;
	int model_type, byte_fallback, suffix;  /* trainer spec */
	int dummy, extra, escape;               /* normalizer spec */
};

/* The whole file at path, its length in *n. */
static unsigned char *
read_all(size_t *n)
{
	size_t cap = 1 << 20, total = 0, k;
	unsigned char *b = alloc(cap);
	FILE *in = fopen(path, "rb");

	if (!in)
		fail("cannot read");
	while ((k = fread(b + total, 1, cap - total, in)) > 0)
		if ((total += k) == cap)
			if (!(b = realloc(b, cap *= 2)))
				fail("out of memory");
	if (ferror(in))
		fail("cannot read");
	fclose(in);
	*n = total;
	return b;
}

/* A SentencePiece message q[0..qn): its piece, score and type. */
static void
read_piece(const unsigned char *q, size_t qn, struct piece *e)
{
	const unsigned char *s = NULL;
	size_t k = 0, slen = 0;
	uint64_t v = 0;
	int wire;

	memset(e, 0, sizeof(*e));
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
}

/* The trainer spec q[0..qn): model type, suffix white space, byte
 * fallback. */
static void
read_trainer(const unsigned char *q, size_t qn, struct model *m)
{
	const unsigned char *s;
	size_t k = 0, slen;
	uint64_t v = 0;
	int wire;

	while (k < qn) {
		int g = field(q, qn, &k, &wire, &v, &s, &slen);

		if (wire != 0)
			continue;
		if (g == 3)
			m->model_type = (int)v;
		else if (g == 24)
			m->suffix = v != 0;
		else if (g == 35)
			m->byte_fallback = v != 0;
	}
}

/* The normalizer spec q[0..qn): only the identity, without rules. */
static void
read_normalizer(const unsigned char *q, size_t qn, struct model *m)
{
	const unsigned char *s;
	size_t k = 0, slen;
	uint64_t v = 0;
	int wire;

	while (k < qn) {
		int g = field(q, qn, &k, &wire, &v, &s, &slen);

		if (g == 1 && wire == 2 && (slen != 8 ||
		    memcmp(s, "identity", 8) != 0))
			fail("its normalization is not the identity");
		if ((g == 2 || g == 6) && wire == 2 && slen)
			fail("it has normalization rules");
		if (wire != 0)
			continue;
		if (g == 3)
			m->dummy = v != 0;
		else if (g == 4)
			m->extra = v != 0;
		else if (g == 5)
			m->escape = v != 0;
	}
}

/* The ModelProto b[0..n) into *m; fails on what tok_sp() lacks. */
static void
read_model(const unsigned char *b, size_t n, struct model *m)
{
	size_t i, pcap = 1 << 16, len = 0;
	const unsigned char *p = NULL;
	uint64_t v = 0;
	int wire, f;

	memset(m, 0, sizeof(*m));
	m->model_type = 1;
	m->dummy = m->extra = m->escape = 1;
	m->pc = alloc(pcap * sizeof(*m->pc));
	for (i = 0; i < n;) {
		f = field(b, n, &i, &wire, &v, &p, &len);
		if (wire != 2)
			continue;
		if (f == 1) {                           /* a piece */
			if (m->np == pcap && !(m->pc = realloc(m->pc,
			    (pcap *= 2) * sizeof(*m->pc))))
				fail("out of memory");
			read_piece(p, len, &m->pc[m->np++]);
		} else if (f == 2) {
			read_trainer(p, len, m);
		} else if (f == 3) {
			read_normalizer(p, len, m);
		}
	}
	if (m->model_type != 2)
		fail("it is not a BPE model");
	if (m->extra)
		fail("it removes extra white space");
	if (m->suffix)
		fail("it treats white space as a suffix");
	if (m->np == 0 || m->np >= TOKENIZER_SLOT_EMPTY)
		fail("no pieces, or too many");
}

/* The tables written beside the pieces. */
struct index {
	uint32_t *slot, byte_id[256], unk;
	size_t nslot, total, maxlen;
	unsigned char user_first[32];
	uint64_t user_lens;
};

/* A byte piece e (<0xXX>) is the piece of that byte. */
static void
index_byte(const struct piece *e, uint32_t id, struct index *x)
{
	unsigned c;
	char hex[7];

	if (e->len != 6)
		fail("a byte piece is not <0xXX>");
	memcpy(hex, e->p, 6);
	hex[6] = '\0';
	if (sscanf(hex, "<0x%2X>", &c) != 1 || c > 255)
		fail("a byte piece is not <0xXX>");
	x->byte_id[c] = id;
}

/* Piece i of m into the hash table. */
static void
index_hash(const struct model *m, size_t i, struct index *x)
{
	const struct piece *e = &m->pc[i];
	uint32_t h = tokenizer_table_hash(e->p, e->len);
	size_t j;

	for (j = h & (x->nslot - 1); x->slot[j] != TOKENIZER_SLOT_EMPTY;
	    j = (j + 1) & (x->nslot - 1))
		if (m->pc[x->slot[j]].len == e->len &&
		    memcmp(m->pc[x->slot[j]].p, e->p, e->len) == 0)
			fail("a piece is defined twice");
	x->slot[j] = (uint32_t)i;
}

static void
index_model(const struct model *m, struct index *x)
{
	size_t i;

	memset(x, 0, sizeof(*x));
	x->unk = UINT32_MAX;
	for (x->nslot = 1; x->nslot < 2 * m->np; x->nslot *= 2)
		;
	x->slot = alloc(x->nslot * sizeof(*x->slot));
	memset(x->slot, 0xff, x->nslot * sizeof(*x->slot));
	for (i = 0; i < 256; i++)
		x->byte_id[i] = UINT32_MAX;
	for (i = 0; i < m->np; i++) {
		const struct piece *e = &m->pc[i];

		x->total += e->len;
		if (e->len > x->maxlen)
			x->maxlen = e->len;
		switch (e->type) {
		case SP_UNUSED:
			fail("it has unused pieces");
			break;
		case SP_UNKNOWN:
			x->unk = (uint32_t)i;
			break;
		case SP_BYTE:
			index_byte(e, (uint32_t)i, x);
			break;
		case SP_USER_DEFINED:
			if (e->len > 64)
				fail("a user-defined piece is too long");
			x->user_lens |= UINT64_C(1) << (e->len - 1);
			x->user_first[e->p[0] >> 3] |=
			    (unsigned char)(1 << (e->p[0] & 7));
			/* FALLTHROUGH */
		case SP_NORMAL:
			index_hash(m, i, x);
			break;
		case SP_CONTROL:
			break;
		default:
			fail("a piece has an unknown type");
		}
	}
	if (x->unk == UINT32_MAX)
		fail("it has no unknown piece");
	if (m->byte_fallback)
		for (i = 0; i < 256; i++)
			if (x->byte_id[i] == UINT32_MAX)
				fail("a byte piece is missing");
}

/* The pieces' bytes as one C string literal (gen_literal.h). */
static void
write_bytes(FILE *out, const struct model *m)
{
	size_t i, col = GEN_LITERAL_START;

	for (i = 0; i < m->np; i++)
		gen_literal_bytes(out, m->pc[i].p, m->pc[i].len, &col);
	gen_literal_end(out, col);
}

static void
write_tables(FILE *out, const char *symbol, const struct model *m,
    const struct index *x)
{
	size_t i, total = 0;

	fprintf(out, "\nstatic const uint32_t off[%zu] = {", m->np + 1);
	for (i = 0; i <= m->np; i++) {
		fprintf(out, "%s%zu,", i % 10 ? "" : "\n\t", total);
		if (i < m->np)
			total += m->pc[i].len;
	}
	/* Hexadecimal floats are exact. */
	fprintf(out, "\n};\n\nstatic const float score[%zu] = {", m->np);
	for (i = 0; i < m->np; i++)
		fprintf(out, "%s%af,", i % 6 ? " " : "\n\t",
		    (double)m->pc[i].score);
	fprintf(out, "\n};\n\nstatic const unsigned char type[%zu] = {",
	    m->np);
	for (i = 0; i < m->np; i++)
		fprintf(out, "%s%d,", i % 24 ? "" : "\n\t", m->pc[i].type);
	fprintf(out, "\n};\n\nstatic const uint32_t slot[%zu] = {", x->nslot);
	for (i = 0; i < x->nslot; i++)
		fprintf(out, "%s%lu,", i % 8 ? "" : "\n\t",
		    (unsigned long)x->slot[i]);
	fprintf(out, "\n};\n\nconst struct tokenizer_sp %s = {\n"
	    "\tbytes, off, score, type, slot,\n\t%zu, %zu, %zu, %lu,\n\t{",
	    symbol, m->np, x->nslot - 1, x->maxlen, (unsigned long)x->unk);
	for (i = 0; i < 256; i++)
		fprintf(out, "%s%lu,", i % 10 ? "" : "\n\t\t",
		    (unsigned long)x->byte_id[i]);
	fprintf(out, "\n\t},\n\t{");
	for (i = 0; i < 32; i++)
		fprintf(out, "%s%u,", i % 16 ? "" : "\n\t\t",
		    x->user_first[i]);
	fprintf(out, "\n\t},\n\tUINT64_C(0x%llx),\n\t%s, %s, %s,\n};\n",
	    (unsigned long long)x->user_lens, m->dummy ? "true" : "false",
	    m->escape ? "true" : "false",
	    m->byte_fallback ? "true" : "false");
}

int
main(int argc, char **argv)
{
	struct model m;
	struct index x;
	unsigned char *b;
	size_t n;
	FILE *out;

	if (argc != 4) {
		fprintf(stderr, "usage: spgen OUT.c SYMBOL MODEL.model\n");
		return 2;
	}
	path = argv[3];
	b = read_all(&n);
	read_model(b, n, &m);
	index_model(&m, &x);
	if (!(out = fopen(argv[1], "w")))
		fail("cannot write the output");
	fprintf(out, "/* Generated by spgen from %s: do not edit. */\n"
	    "#include <stddef.h>\n\n#include \"text/tokenizer_sp.h\"\n\n"
	    "#if defined(__GNUC__)\n"
	    "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n"
	    "#endif\n\n"
	    "static const unsigned char bytes[%zu] =", path, x.total + 1);
	write_bytes(out, &m);
	write_tables(out, argv[2], &m, &x);
	if (fclose(out) != 0)
		fail("cannot write the output");
	free(b);
	free(m.pc);
	free(x.slot);
	return 0;
}
