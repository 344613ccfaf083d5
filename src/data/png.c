#include "data/png.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "diag/source.h"
#include "base/util.h"

/* CRC-32 as PNG uses it (ISO 3309, reflected polynomial 0xedb88320). */
static const uint32_t crc_table[256] = {
	0x00000000, 0x77073096, 0xee0e612c, 0x990951ba, 0x076dc419, 0x706af48f,
	0xe963a535, 0x9e6495a3, 0x0edb8832, 0x79dcb8a4, 0xe0d5e91e, 0x97d2d988,
	0x09b64c2b, 0x7eb17cbd, 0xe7b82d07, 0x90bf1d91, 0x1db71064, 0x6ab020f2,
	0xf3b97148, 0x84be41de, 0x1adad47d, 0x6ddde4eb, 0xf4d4b551, 0x83d385c7,
	0x136c9856, 0x646ba8c0, 0xfd62f97a, 0x8a65c9ec, 0x14015c4f, 0x63066cd9,
	0xfa0f3d63, 0x8d080df5, 0x3b6e20c8, 0x4c69105e, 0xd56041e4, 0xa2677172,
	0x3c03e4d1, 0x4b04d447, 0xd20d85fd, 0xa50ab56b, 0x35b5a8fa, 0x42b2986c,
	0xdbbbc9d6, 0xacbcf940, 0x32d86ce3, 0x45df5c75, 0xdcd60dcf, 0xabd13d59,
	0x26d930ac, 0x51de003a, 0xc8d75180, 0xbfd06116, 0x21b4f4b5, 0x56b3c423,
	0xcfba9599, 0xb8bda50f, 0x2802b89e, 0x5f058808, 0xc60cd9b2, 0xb10be924,
	0x2f6f7c87, 0x58684c11, 0xc1611dab, 0xb6662d3d, 0x76dc4190, 0x01db7106,
	0x98d220bc, 0xefd5102a, 0x71b18589, 0x06b6b51f, 0x9fbfe4a5, 0xe8b8d433,
	0x7807c9a2, 0x0f00f934, 0x9609a88e, 0xe10e9818, 0x7f6a0dbb, 0x086d3d2d,
	0x91646c97, 0xe6635c01, 0x6b6b51f4, 0x1c6c6162, 0x856530d8, 0xf262004e,
	0x6c0695ed, 0x1b01a57b, 0x8208f4c1, 0xf50fc457, 0x65b0d9c6, 0x12b7e950,
	0x8bbeb8ea, 0xfcb9887c, 0x62dd1ddf, 0x15da2d49, 0x8cd37cf3, 0xfbd44c65,
	0x4db26158, 0x3ab551ce, 0xa3bc0074, 0xd4bb30e2, 0x4adfa541, 0x3dd895d7,
	0xa4d1c46d, 0xd3d6f4fb, 0x4369e96a, 0x346ed9fc, 0xad678846, 0xda60b8d0,
	0x44042d73, 0x33031de5, 0xaa0a4c5f, 0xdd0d7cc9, 0x5005713c, 0x270241aa,
	0xbe0b1010, 0xc90c2086, 0x5768b525, 0x206f85b3, 0xb966d409, 0xce61e49f,
	0x5edef90e, 0x29d9c998, 0xb0d09822, 0xc7d7a8b4, 0x59b33d17, 0x2eb40d81,
	0xb7bd5c3b, 0xc0ba6cad, 0xedb88320, 0x9abfb3b6, 0x03b6e20c, 0x74b1d29a,
	0xead54739, 0x9dd277af, 0x04db2615, 0x73dc1683, 0xe3630b12, 0x94643b84,
	0x0d6d6a3e, 0x7a6a5aa8, 0xe40ecf0b, 0x9309ff9d, 0x0a00ae27, 0x7d079eb1,
	0xf00f9344, 0x8708a3d2, 0x1e01f268, 0x6906c2fe, 0xf762575d, 0x806567cb,
	0x196c3671, 0x6e6b06e7, 0xfed41b76, 0x89d32be0, 0x10da7a5a, 0x67dd4acc,
	0xf9b9df6f, 0x8ebeeff9, 0x17b7be43, 0x60b08ed5, 0xd6d6a3e8, 0xa1d1937e,
	0x38d8c2c4, 0x4fdff252, 0xd1bb67f1, 0xa6bc5767, 0x3fb506dd, 0x48b2364b,
	0xd80d2bda, 0xaf0a1b4c, 0x36034af6, 0x41047a60, 0xdf60efc3, 0xa867df55,
	0x316e8eef, 0x4669be79, 0xcb61b38c, 0xbc66831a, 0x256fd2a0, 0x5268e236,
	0xcc0c7795, 0xbb0b4703, 0x220216b9, 0x5505262f, 0xc5ba3bbe, 0xb2bd0b28,
	0x2bb45a92, 0x5cb36a04, 0xc2d7ffa7, 0xb5d0cf31, 0x2cd99e8b, 0x5bdeae1d,
	0x9b64c2b0, 0xec63f226, 0x756aa39c, 0x026d930a, 0x9c0906a9, 0xeb0e363f,
	0x72076785, 0x05005713, 0x95bf4a82, 0xe2b87a14, 0x7bb12bae, 0x0cb61b38,
	0x92d28e9b, 0xe5d5be0d, 0x7cdcefb7, 0x0bdbdf21, 0x86d3d2d4, 0xf1d4e242,
	0x68ddb3f8, 0x1fda836e, 0x81be16cd, 0xf6b9265b, 0x6fb077e1, 0x18b74777,
	0x88085ae6, 0xff0f6a70, 0x66063bca, 0x11010b5c, 0x8f659eff, 0xf862ae69,
	0x616bffd3, 0x166ccf45, 0xa00ae278, 0xd70dd2ee, 0x4e048354, 0x3903b3c2,
	0xa7672661, 0xd06016f7, 0x4969474d, 0x3e6e77db, 0xaed16a4a, 0xd9d65adc,
	0x40df0b66, 0x37d83bf0, 0xa9bcae53, 0xdebb9ec5, 0x47b2cf7f, 0x30b5ffe9,
	0xbdbdf21c, 0xcabac28a, 0x53b39330, 0x24b4a3a6, 0xbad03605, 0xcdd70693,
	0x54de5729, 0x23d967bf, 0xb3667a2e, 0xc4614ab8, 0x5d681b02, 0x2a6f2b94,
	0xb40bbe37, 0xc30c8ea1, 0x5a05df1b, 0x2d02ef8d,
};

/* crc_slice[k][b]: the CRC of byte b followed by k zero bytes, for
 * eight bytes a step ("slicing by 8"), where carry-less multiplication
 * (below) is not available.  Filled on first use. */
static uint32_t crc_slice[8][256];
static bool crc_sliced;

static uint32_t
crc_bytes(uint32_t crc, const unsigned char *p, size_t n)
{
	const uint32_t (*t)[256] = (const uint32_t (*)[256])crc_slice;
	uint32_t lo;
	size_t i, k;

	if (n >= 64 && !crc_sliced) {
		for (i = 0; i < 256; i++) {
			crc_slice[0][i] = crc_table[i];
			for (k = 1; k < 8; k++)
				crc_slice[k][i] = (crc_slice[k - 1][i] >> 8) ^
				    crc_table[crc_slice[k - 1][i] & 0xff];
		}
		crc_sliced = true;
	}
	for (; crc_sliced && n >= 8; p += 8, n -= 8) {
		lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
		    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^
		    t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^ t[3][p[4]] ^
		    t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
	}
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CRC_CLMUL 1

/*
 * A card's PNG is mostly image data, every byte of which is checked, so
 * on x86-64 processors with PCLMULQDQ (all since 2010) the CRC folds 64
 * bytes a step by carry-less multiplication, as Intel's paper "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ Instruction"
 * describes: four 128-bit lanes are each multiplied by x^(512+64) and
 * x^512 mod P and the next 64 bytes added in, then folded into one lane,
 * reduced to 64 and then (Barrett) to 32 bits.  The constants are those
 * powers of x mod P for the reflected polynomial 0xedb88320 (P' is the
 * polynomial itself with its x^32 term, mu' the Barrett constant).  n is
 * a multiple of 16 and at least 64; crc is the running (inverted) value.
 */
__attribute__((target("pclmul,sse2"))) static uint32_t
crc_clmul(uint32_t crc, const unsigned char *p, size_t n)
{
	const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124);
	const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
	const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
	__m128i x1, x2, x3, x4, x5, x6, x7, x8, k;

	x1 = _mm_loadu_si128((const __m128i *)(const void *)p);
	x2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
	x3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
	x4 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
	p += 64;
	n -= 64;
	k = k1k2;
	for (; n >= 64; p += 64, n -= 64) {
		x5 = _mm_clmulepi64_si128(x1, k, 0x00);
		x6 = _mm_clmulepi64_si128(x2, k, 0x00);
		x7 = _mm_clmulepi64_si128(x3, k, 0x00);
		x8 = _mm_clmulepi64_si128(x4, k, 0x00);
		x1 = _mm_clmulepi64_si128(x1, k, 0x11);
		x2 = _mm_clmulepi64_si128(x2, k, 0x11);
		x3 = _mm_clmulepi64_si128(x3, k, 0x11);
		x4 = _mm_clmulepi64_si128(x4, k, 0x11);
		x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), _mm_loadu_si128(
		    (const __m128i *)(const void *)p));
		x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), _mm_loadu_si128(
		    (const __m128i *)(const void *)(p + 16)));
		x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), _mm_loadu_si128(
		    (const __m128i *)(const void *)(p + 32)));
		x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), _mm_loadu_si128(
		    (const __m128i *)(const void *)(p + 48)));
	}
	/* Four lanes into one, then the rest 16 bytes a step. */
	k = k3k4;
	x5 = _mm_clmulepi64_si128(x1, k, 0x00);
	x1 = _mm_clmulepi64_si128(x1, k, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
	x5 = _mm_clmulepi64_si128(x1, k, 0x00);
	x1 = _mm_clmulepi64_si128(x1, k, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
	x5 = _mm_clmulepi64_si128(x1, k, 0x00);
	x1 = _mm_clmulepi64_si128(x1, k, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);
	for (; n >= 16; p += 16, n -= 16) {
		x5 = _mm_clmulepi64_si128(x1, k, 0x00);
		x1 = _mm_clmulepi64_si128(x1, k, 0x11);
		x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), _mm_loadu_si128(
		    (const __m128i *)(const void *)p));
	}
	/* 128 bits to 64. */
	x2 = _mm_clmulepi64_si128(x1, k, 0x10);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
	x2 = _mm_srli_si128(x1, 4);
	x1 = _mm_and_si128(x1, low32);
	x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, k5, 0x00), x2);
	/* Barrett reduction to 32. */
	x2 = _mm_and_si128(x1, low32);
	x2 = _mm_clmulepi64_si128(x2, poly, 0x10);
	x2 = _mm_and_si128(x2, low32);
	x2 = _mm_clmulepi64_si128(x2, poly, 0x00);
	x1 = _mm_xor_si128(x1, x2);
	return (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(x1, 4));
}
#endif

static uint32_t
crc_update(uint32_t crc, const void *data, size_t n)
{
	const unsigned char *p = data;

#ifdef CRC_CLMUL
	static int clmul = -1;

	if (n >= 64 && clmul < 0) {
		__builtin_cpu_init();
		clmul = __builtin_cpu_supports("pclmul") &&
		    __builtin_cpu_supports("sse2");
	}
	if (n >= 64 && clmul) {
		crc = crc_clmul(crc, p, n & ~(size_t)15);
		p += n & ~(size_t)15;
		n &= 15;
	}
#endif
	return crc_bytes(crc, p, n);
}

uint32_t
png_crc32(const void *data, size_t n)
{
	return crc_update(0xffffffffu, data, n) ^ 0xffffffffu;
}

static uint32_t
get32(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static void
put32(struct buf *out, uint32_t v)
{
	char b[4];

	b[0] = (char)(v >> 24);
	b[1] = (char)(v >> 16);
	b[2] = (char)(v >> 8);
	b[3] = (char)v;
	buf_put(out, b, 4);
}

static bool
is_letter(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

bool
png_is_png(const char *s, size_t n)
{
	return n >= 8 && memcmp(s, PNG_SIGNATURE, 8) == 0;
}

const char *
png_chunk_data(const struct png *png, const struct png_chunk *c)
{
	return png->src->text + c->off + 8;
}

bool
png_read(struct run *run, const struct source *src, struct png *out)
{
	const char *s = src->text;
	size_t n = src->len, pos = 8, i, count = 0;
	unsigned errors0 = run->diag.errors;
	bool iend = false;
	struct png_chunk *v = NULL;     /* the chunks as found, on the heap */
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	out->src = src;
	if (!png_is_png(s, n)) {
		diag_error(run, src, span_make(0, 0), MSG_PNG_SIGNATURE);
		return false;
	}
	/* The structure first: lengths, types, order.  Nothing goes into
	 * the arena until it is sound, so that a fuzz loop over many
	 * broken files does not fill it.  Each header is read once: a
	 * mapped file (source.h) may change under us, and a length read
	 * twice could differ from the one checked. */
	while (!iend) {
		struct png_chunk c;
		size_t have;

		if (pos == n) {
			diag_error(run, src, span_make(pos, 0), MSG_PNG_NO_IEND);
			goto fail;
		}
		if (n - pos < 8) {
			diag_error(run, src, span_make(pos, 0),
			    MSG_PNG_TRUNCATED_HEADER);
			goto fail;
		}
		for (i = 0; i < 4; i++)
			if (!is_letter((unsigned char)s[pos + 4 + i]))
				break;
		if (i < 4) {
			diag_error(run, src, span_make(pos, 0),
			    MSG_PNG_BAD_TYPE, diag_shown(run, s + pos + 4, 4));
			goto fail;
		}
		memcpy(c.type, s + pos + 4, 4);
		c.type[4] = '\0';
		c.off = (uint32_t)pos;
		c.len = get32(s + pos);
		if (c.len > PNG_CHUNK_MAX) {
			diag_error(run, src, span_make(pos, 0),
			    MSG_PNG_TOO_LONG, c.type, (unsigned long)c.len,
			    (unsigned long)PNG_CHUNK_MAX);
			goto fail;
		}
		have = n - pos - 8;
		if (have < (size_t)c.len + 4) {
			diag_error(run, src, span_make(pos, 0),
			    MSG_PNG_TRUNCATED, c.type,
			    (unsigned long)((size_t)c.len + 4 - have));
			goto fail;
		}
		if (count == 0 && strcmp(c.type, "IHDR") != 0) {
			diag_error(run, src, span_make(pos, 0),
			    MSG_PNG_IHDR_FIRST, c.type);
			goto fail;
		}
		if (count == cap) {
			cap = cap ? cap * 2 : 16;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[count++] = c;
		pos += (size_t)c.len + 12;
		iend = strcmp(c.type, "IEND") == 0;
	}
	out->chunks = arena_array(&run->arena, count, sizeof(*out->chunks));
	memcpy(out->chunks, v, count * sizeof(*v));
	out->n = count;
	free(v);
	/* Then every CRC, each bad one reported. */
	for (i = 0; i < out->n; i++) {
		const struct png_chunk *c = &out->chunks[i];
		uint32_t want = get32(s + c->off + 8 + c->len);
		uint32_t got = png_crc32(s + c->off + 4, (size_t)c->len + 4);

		if (want != got)
			diag_error(run, src, span_make(c->off, 0),
			    MSG_PNG_BAD_CRC, c->type, (unsigned long)want,
			    (unsigned long)got);
	}
	return run->diag.errors == errors0;
fail:
	free(v);
	return false;
}

static bool
keyword_is(const char *k, size_t klen, const char *want)
{
	size_t i;

	if (klen != strlen(want))
		return false;
	for (i = 0; i < klen; i++) {
		unsigned char a = (unsigned char)k[i], b = (unsigned char)want[i];

		if (a >= 'A' && a <= 'Z')
			a = (unsigned char)(a - 'A' + 'a');
		if (b >= 'A' && b <= 'Z')
			b = (unsigned char)(b - 'A' + 'a');
		if (a != b)
			return false;
	}
	return true;
}

/* Split tEXt chunk c into keyword and text; false if it has no NUL. */
static bool
split_text(const struct png *png, const struct png_chunk *c,
    struct png_text *t)
{
	const char *d = png_chunk_data(png, c);
	const char *nul = memchr(d, '\0', c->len);

	if (!nul)
		return false;
	t->keyword = d;
	t->keylen = (size_t)(nul - d);
	t->text = nul + 1;
	t->len = c->len - t->keylen - 1;
	t->chunk = c;
	return true;
}

bool
png_find_text(const struct png *png, const char *keyword,
    struct png_text *out)
{
	size_t i;

	for (i = 0; i < png->n; i++) {
		const struct png_chunk *c = &png->chunks[i];

		if (strcmp(c->type, "tEXt") == 0 && split_text(png, c, out) &&
		    keyword_is(out->keyword, out->keylen, keyword))
			return true;
	}
	memset(out, 0, sizeof(*out));
	return false;
}

static void
put_chunk(struct buf *out, const char *type, const char *a, size_t alen,
    const char *b, size_t blen)
{
	uint32_t crc = 0xffffffffu;

	put32(out, (uint32_t)(alen + blen));
	buf_put(out, type, 4);
	buf_put(out, a, alen);
	buf_put(out, b, blen);
	crc = crc_update(crc, type, 4);
	crc = crc_update(crc, a, alen);
	crc = crc_update(crc, b, blen);
	put32(out, crc ^ 0xffffffffu);
}

bool
png_write(struct buf *out, const struct png *png,
    const struct png_text_in *texts, size_t n, size_t *toolong)
{
	size_t i, j;

	*toolong = 0;
	for (j = 0; j < n; j++) {
		size_t klen = strlen(texts[j].keyword);

		if (texts[j].len > PNG_CHUNK_MAX - 1 - klen) {
			*toolong = j;
			return false;
		}
	}
	buf_put(out, PNG_SIGNATURE, 8);
	for (i = 0; i < png->n; i++) {
		const struct png_chunk *c = &png->chunks[i];
		struct png_text t;
		bool drop = false;

		if (strcmp(c->type, "IEND") == 0) {
			for (j = 0; j < n; j++)
				put_chunk(out, "tEXt", texts[j].keyword,
				    strlen(texts[j].keyword) + 1,
				    texts[j].text, texts[j].len);
		} else if (strcmp(c->type, "tEXt") == 0 &&
		    split_text(png, c, &t)) {
			for (j = 0; j < n && !drop; j++)
				drop = keyword_is(t.keyword, t.keylen,
				    texts[j].keyword);
		}
		if (!drop)
			buf_put(out, png->src->text + c->off,
			    (size_t)c->len + 12);
	}
	return true;
}
