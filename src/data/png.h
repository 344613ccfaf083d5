/*
 * png: the chunk layer of PNG files, enough to read and write the tEXt
 * chunks SillyTavern keeps character cards in.  No image is decoded.
 *
 * png_read() checks the 8-byte signature, then walks the chunks: each
 * needs its whole length, a type of four ASCII letters, a length no more
 * than PNG_CHUNK_MAX, and a CRC-32 that matches; IHDR must come first
 * and the walk stops at IEND (bytes after IEND are ignored, and not
 * written back).  The structure is checked for the whole file before any
 * CRC is computed, so a truncated file fails in time linear in its
 * number of chunks.  Errors are reported on the source (which should be
 * marked binary, source.h) at the byte offset where the chunk at fault
 * starts -- its length field -- or where the file ends.
 *
 * A struct png borrows its source's bytes (which the run owns); its
 * chunk table lives in the run's arena.
 */
#ifndef PNG_H
#define PNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct run;
struct source;

/* The longest chunk strata reads or writes: far more than any card. */
#define PNG_CHUNK_MAX ((uint32_t)64 << 20)
#define PNG_SIGNATURE "\x89PNG\r\n\x1a\n"

struct png_chunk {
	char type[5];           /* four letters, NUL-terminated */
	uint32_t off;           /* of the chunk (its length field) */
	uint32_t len;           /* of its data */
};

struct png {
	const struct source *src;       /* borrowed: the file's bytes */
	struct png_chunk *chunks;       /* in the arena; IHDR ... IEND */
	size_t n;
};

/* A tEXt chunk's two halves, pointing into the file's bytes.  The text
 * is Latin-1 by the PNG standard; a card's is base64, so ASCII. */
struct png_text {
	const char *keyword;
	size_t keylen;
	const char *text;
	size_t len;
	const struct png_chunk *chunk;
};

/* The CRC-32 PNG uses (ISO 3309) of data[0..n). */
uint32_t png_crc32(const void *data, size_t n);
/* True if s[0..n) starts with the PNG signature. */
bool png_is_png(const char *s, size_t n);
bool png_read(struct run *run, const struct source *src, struct png *out);
/* The data of chunk c. */
const char *png_chunk_data(const struct png *png, const struct png_chunk *c);
/*
 * The first tEXt chunk whose keyword equals keyword, compared
 * ASCII-case-insensitively as SillyTavern does.  tEXt chunks with no NUL
 * after a keyword are not text chunks strata can use and are passed over.
 */
bool png_find_text(const struct png *png, const char *keyword,
    struct png_text *out);
/*
 * Append to out a copy of png with new tEXt chunks: every existing tEXt
 * chunk whose keyword equals (case-insensitively) one of the new keywords
 * is left out, the new chunks go just before IEND in the order given, and
 * every other chunk is copied byte for byte.  Fails, reporting nothing,
 * only when a chunk would be longer than PNG_CHUNK_MAX; *toolong is then
 * the index of that text.
 */
struct png_text_in {
	const char *keyword;    /* 1 to 79 Latin-1 bytes, no NUL */
	const char *text;
	size_t len;
};
bool png_write(struct buf *out, const struct png *png,
    const struct png_text_in *texts, size_t n, size_t *toolong);

#endif
