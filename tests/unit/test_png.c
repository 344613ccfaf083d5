/*
 * png: the chunk walk, tEXt lookup and writing on a PNG built here byte
 * by byte; every error with its message; and, with the argument
 * "sample", the real Seraphina card truncated at every offset and with
 * bytes flipped (skipped, exit 77, when ../shared is absent).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "diag/diag.h"
#include "data/png.h"
#include "diag/run.h"
#include "diag/source.h"
#include "base/util.h"

#define SAMPLE "../../shared/samples/sillytavern/cards/default_Seraphina.png"

static struct run run;
static char *err;

/* A CRC-32 of our own, bit by bit, to check png.c's table. */
static uint32_t
crc(const char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	int k;

	while (n--) {
		c ^= (unsigned char)*p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
	}
	return c ^ 0xffffffffu;
}

static void
put32(struct buf *b, uint32_t v)
{
	char x[4] = { (char)(v >> 24), (char)(v >> 16), (char)(v >> 8),
	    (char)v };

	buf_put(b, x, 4);
}

static void
chunk(struct buf *b, const char *type, const char *data, size_t n)
{
	size_t at;

	put32(b, (uint32_t)n);
	at = b->len;
	buf_put(b, type, 4);
	buf_put(b, data, n);
	put32(b, crc(b->data + at, n + 4));
}

#define CHUNK(b, type, lit) chunk((b), (type), (lit), sizeof(lit) - 1)

/* The test image: IHDR, IDAT, tEXt Comment, tEXt chara, IEND. */
static void
image(struct buf *b, bool ihdr_first)
{
	buf_reset(b);
	buf_put(b, PNG_SIGNATURE, 8);
	if (ihdr_first)
		CHUNK(b, "IHDR", "\0\0\0\1\0\0\0\1\10\0\0\0\0");
	CHUNK(b, "IDAT", "\x78\x01\x63\x60\x00\x00\x00\x02\x00\x01");
	if (!ihdr_first)
		CHUNK(b, "IHDR", "\0\0\0\1\0\0\0\1\10\0\0\0\0");
	CHUNK(b, "tEXt", "Comment\0hi");
	CHUNK(b, "tEXt", "Chara\0old");
	CHUNK(b, "IEND", "");
}

/* Read bytes as t.png; what was printed goes to err. */
static bool
read_png(const char *bytes, size_t n, struct png *png)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	struct buf b = BUF_INIT;
	struct source *src;
	char part[4096];
	size_t k;
	bool ok;

	free(err);
	src = run_source_mem(&run, "t.png", bytes, n);
	src->binary = true;
	fflush(stderr);
	dup2(fileno(tmp), 2);
	ok = png_read(&run, src, png);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	while ((k = fread(part, 1, sizeof(part), tmp)) > 0)
		buf_put(&b, part, k);
	fclose(tmp);
	buf_putc(&b, '\0');
	err = buf_detach(&b);
	return ok;
}

static void
test_read(void)
{
	struct buf b = BUF_INIT;
	struct png png;
	struct png_text t;

	image(&b, true);
	CHECK(read_png(b.data, b.len, &png));
	CHECK_STR(err, "");
	CHECK_INT(png.n, 5);
	CHECK_STR(png.chunks[0].type, "IHDR");
	CHECK_INT(png.chunks[0].off, 8);
	CHECK_INT(png.chunks[0].len, 13);
	CHECK_STR(png.chunks[4].type, "IEND");
	CHECK(png_find_text(&png, "chara", &t));
	CHECK(t.len == 3 && memcmp(t.text, "old", 3) == 0);
	CHECK(t.keylen == 5 && memcmp(t.keyword, "Chara", 5) == 0);
	CHECK(png_find_text(&png, "COMMENT", &t));
	CHECK(!png_find_text(&png, "ccv3", &t));
	CHECK(!png_find_text(&png, "Commen", &t));
	CHECK(png_is_png(b.data, b.len));
	CHECK(!png_is_png(b.data, 7));
	/* Bytes after IEND are ignored. */
	buf_puts(&b, "trailing junk");
	CHECK(read_png(b.data, b.len, &png));
	CHECK_INT(png.n, 5);
	buf_free(&b);
}

static void
test_write(void)
{
	struct buf b = BUF_INIT, out = BUF_INIT, again = BUF_INIT;
	struct png png, png2;
	struct png_text t;
	struct png_text_in in[2] = {
		{ "chara", "AAAA", 4 },
		{ "ccv3", "BBBBBB", 6 },
	};
	size_t bad, i;

	image(&b, true);
	buf_puts(&b, "junk");
	CHECK(read_png(b.data, b.len, &png));
	CHECK(png_write(&out, &png, in, 2, &bad));
	CHECK(read_png(out.data, out.len, &png2));
	CHECK_INT(png2.n, 6);
	CHECK_STR(png2.chunks[2].type, "tEXt");
	CHECK_STR(png2.chunks[5].type, "IEND");
	/* IHDR, IDAT and the comment are copied byte for byte, so the file
	 * starts with the same bytes up to the old chara chunk. */
	CHECK(memcmp(out.data, b.data, png.chunks[3].off) == 0);
	CHECK(png_find_text(&png2, "chara", &t));
	CHECK(t.len == 4 && memcmp(t.text, "AAAA", 4) == 0);
	CHECK(t.chunk == &png2.chunks[3]);
	CHECK(png_find_text(&png2, "ccv3", &t));
	CHECK(t.len == 6 && t.chunk == &png2.chunks[4]);
	/* Our CRCs agree with an independent one. */
	for (i = 0; i < png2.n; i++) {
		const struct png_chunk *c = &png2.chunks[i];
		const unsigned char *p = (const unsigned char *)out.data +
		    c->off + 8 + c->len;
		uint32_t want = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		    (uint32_t)p[2] << 8 | p[3];

		CHECK(crc(out.data + c->off + 4, c->len + 4) == want);
	}
	/* Junk after IEND is not written back. */
	CHECK(memcmp(out.data + out.len - 12,
	    "\0\0\0\0IEND\xae\x42\x60\x82", 12) == 0);
	/* Writing again replaces, never duplicates. */
	CHECK(png_write(&again, &png2, in, 2, &bad));
	CHECK_INT(again.len, out.len);
	CHECK(memcmp(again.data, out.data, out.len) == 0);
	/* A text too long for a chunk is refused. */
	in[1].len = PNG_CHUNK_MAX;
	buf_reset(&again);
	CHECK(!png_write(&again, &png2, in, 2, &bad));
	CHECK_INT(bad, 1);
	buf_free(&b);
	buf_free(&out);
	buf_free(&again);
}

static void
test_errors(void)
{
	struct buf b = BUF_INIT;
	struct png png;

	CHECK(!read_png("GIF89a", 6, &png));
	CHECK_STR(err, "t.png: error: not a PNG file (the 8-byte PNG "
	    "signature is missing) at byte 0\n");
	CHECK(!read_png(PNG_SIGNATURE, 8, &png));
	CHECK_STR(err, "t.png: error: no 'IEND' chunk: the file is "
	    "truncated at byte 8\n");
	image(&b, true);
	CHECK(!read_png(b.data, 12, &png));
	CHECK_STR(err, "t.png: error: file ends inside a chunk header at "
	    "byte 8\n");
	CHECK(!read_png(b.data, 30, &png));
	CHECK_STR(err, "t.png: error: file ends inside chunk 'IHDR' (3 bytes "
	    "missing) at byte 8\n");
	CHECK(!read_png(b.data, 33, &png));
	CHECK_STR(err, "t.png: error: no 'IEND' chunk: the file is "
	    "truncated at byte 33\n");
	CHECK(!read_png(b.data, b.len - 1, &png));
	CHECK(strstr(err, "file ends inside chunk 'IEND' (1 bytes missing)"));
	/* A flipped byte in IDAT's data. */
	b.data[33 + 8 + 2] ^= 0x40;
	CHECK(!read_png(b.data, b.len, &png));
	CHECK(strncmp(err, "t.png: error: bad CRC in chunk 'IDAT' (stored ",
	    46) == 0);
	CHECK(strstr(err, ") at byte 33\n"));
	/* Two bad CRCs: both reported. */
	b.data[8 + 8] ^= 1;
	CHECK(!read_png(b.data, b.len, &png));
	CHECK(strstr(err, "chunk 'IHDR'") && strstr(err, "chunk 'IDAT'"));
	image(&b, true);
	b.data[33 + 5] = '1';
	CHECK(!read_png(b.data, b.len, &png));
	CHECK_STR(err, "t.png: error: invalid chunk type 'I1AT' at byte "
	    "33\n");
	image(&b, true);
	b.data[33] = 4;                 /* 64 MiB and a bit */
	b.data[36] = 1;
	CHECK(!read_png(b.data, b.len, &png));
	CHECK_STR(err, "t.png: error: chunk 'IDAT' is 67108865 bytes long, "
	    "more than the 67108864 strata reads at byte 33\n");
	b.data[33] = (char)0xff;        /* over 2^31 */
	CHECK(!read_png(b.data, b.len, &png));
	CHECK(strstr(err, "chunk 'IDAT' is 4278190081 bytes long"));
	image(&b, false);
	CHECK(!read_png(b.data, b.len, &png));
	CHECK_STR(err, "t.png: error: the first chunk is 'IDAT', not 'IHDR' "
	    "at byte 8\n");
	buf_free(&b);
}

/* Quiet stderr for the loops: thousands of expected errors. */
static int
quiet(void)
{
	int saved = dup(2), null = open("/dev/null", O_WRONLY);

	fflush(stderr);
	dup2(null, 2);
	close(null);
	return saved;
}

static void
loud(int saved)
{
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}

static int
test_sample(void)
{
	struct source *src;
	struct png png;
	size_t n, k, ok = 0, i;
	int saved;
	char *copy;
	/* Where the structure changes: around every chunk boundary. */
	static const size_t marks[] = { 0, 33, 511550, 531720, 551889 };

	if (access(SAMPLE, R_OK) != 0) {
		printf("SKIP: %s is absent (../shared not beside the "
		    "repository)\n", SAMPLE);
		return 77;
	}
	src = run_read(&run, SAMPLE, NULL, span_make(0, 0));
	CHECK(src != NULL);
	if (!src)
		return check_done("test_png sample");
	src->binary = true;
	n = src->len;
	CHECK(png_read(&run, src, &png));
	CHECK_INT(png.n, 5);
	saved = quiet();
	/* Truncated at every offset: always a clean error. */
	for (k = 0; k < n; k++) {
		src->len = k;
		if (png_read(&run, src, &png))
			ok++;
	}
	src->len = n;
	CHECK_INT(ok, 0);
	/* Near the boundaries, truncated copies of exactly that size, so
	 * that the sanitizers see any read past the end. */
	for (i = 0; i < LEN(marks); i++) {
		for (k = marks[i]; k < marks[i] + 40 && k < n; k++) {
			struct png p2;
			struct source *s2;

			copy = xmalloc(k ? k : 1);
			memcpy(copy, src->text, k);
			s2 = run_source_mem(&run, "cut.png", copy, k);
			s2->binary = true;
			CHECK(!png_read(&run, s2, &p2));
			free(copy);
		}
	}
	/* Single bytes flipped: the signature, headers, CRCs and a spread
	 * of data bytes.  Each is refused; none crashes. */
	ok = 0;
	for (k = 0; k < n; k += k < 64 ? 1 : 4093) {
		src->text[k] ^= 0x5a;
		if (png_read(&run, src, &png))
			ok++;
		src->text[k] ^= 0x5a;
	}
	for (i = 1; i < LEN(marks); i++) {
		for (k = marks[i] - 12; k < marks[i] + 12 && k < n; k++) {
			src->text[k] ^= 0x01;
			if (png_read(&run, src, &png))
				ok++;
			src->text[k] ^= 0x01;
		}
	}
	loud(saved);
	CHECK_INT(ok, 0);
	CHECK(png_read(&run, src, &png));
	return check_done("test_png sample");
}

/* png_crc32() folds 64 bytes a step where the processor can and goes
 * byte by byte over the rest: every length and alignment around those
 * steps gives the bitwise CRC. */
static void
test_crc(void)
{
	static char data[4096 + 64];
	uint32_t x = 27;
	size_t i, off, n;

	for (i = 0; i < sizeof(data); i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (char)(x >> 16);
	}
	for (off = 0; off < 16; off++)
		for (n = 0; n <= 300; n++)
			CHECK(png_crc32(data + off, n) == crc(data + off, n));
	for (n = 4000; n <= 4096; n++)
		CHECK(png_crc32(data + 3, n) == crc(data + 3, n));
	memset(data, 0xff, sizeof(data));
	CHECK(png_crc32(data, 4096) == crc(data, 4096));
	CHECK(png_crc32("123456789", 9) == 0xcbf43926u);
}

int
main(int argc, char **argv)
{
	int status;

	run_init(&run);
	if (argc > 1 && strcmp(argv[1], "sample") == 0) {
		status = test_sample();
		run_free(&run);
		return status;
	}
	test_crc();
	test_read();
	test_write();
	test_errors();
	run_free(&run);
	free(err);
	return check_done("test_png");
}
