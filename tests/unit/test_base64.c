/* base64: RFC 4648 vectors, every length mod 3, the leniencies and the
 * refusals of the decoder, and a big round trip. */
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "base/buf.h"
#include "check.h"
#include "base/util.h"

/* The helpers' results, freed at the end. */
static struct buf eb, db;

static const char *
enc(const char *s, size_t n)
{
	buf_reset(&eb);
	base64_encode(&eb, s, n);
	return eb.data ? eb.data : "";
}

/* Decode s; on success return the bytes (NUL-terminated), else NULL
 * with *e and *at set. */
static const char *
dec(const char *s, enum base64_error *e, size_t *at)
{
	buf_reset(&db);
	*e = base64_decode(&db, s, strlen(s), at);
	if (*e != BASE64_OK)
		return NULL;
	return db.data ? db.data : "";
}

static void
test_vectors(void)
{
	static const char *const plain[] = {
		"", "f", "fo", "foo", "foob", "fooba", "foobar",
	};
	static const char *const coded[] = {
		"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy",
	};
	enum base64_error e;
	size_t i, at;

	for (i = 0; i < LEN(plain); i++) {
		CHECK_STR(enc(plain[i], strlen(plain[i])), coded[i]);
		CHECK_INT(base64_encoded_len(strlen(plain[i])),
		    strlen(coded[i]));
		CHECK_STR(dec(coded[i], &e, &at), plain[i]);
	}
	/* The whole alphabet, and high bytes. */
	CHECK_STR(enc("\xfb\xff\xbf", 3), "+/+/");
	CHECK_STR(dec("+/+/", &e, &at), "\xfb\xff\xbf");
}

static void
test_lengths(void)
{
	unsigned char data[300];
	struct buf b = BUF_INIT, d = BUF_INIT;
	enum base64_error e;
	size_t n, i, at;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 3);
	for (n = 0; n <= sizeof(data); n++) {
		buf_reset(&b);
		buf_reset(&d);
		base64_encode(&b, data, n);
		CHECK_INT(b.len, base64_encoded_len(n));
		CHECK_INT(b.len % 4, 0);
		e = base64_decode(&d, b.data ? b.data : "", b.len, &at);
		CHECK_INT(e, BASE64_OK);
		CHECK_INT(d.len, n);
		CHECK(n == 0 || memcmp(d.data, data, n) == 0);
		/* Without its padding it decodes the same. */
		while (b.len && b.data[b.len - 1] == '=')
			b.data[--b.len] = '\0';
		buf_reset(&d);
		e = base64_decode(&d, b.data ? b.data : "", b.len, &at);
		CHECK_INT(e, BASE64_OK);
		CHECK_INT(d.len, n);
		CHECK(n == 0 || memcmp(d.data, data, n) == 0);
		/* Line breaks every 5 and every 76 characters (the groups
		 * of four read whole, and those a break cuts); a bad
		 * character at the end of a long text, found where it is. */
		for (size_t every = 5; every <= 76; every += 71) {
			struct buf w = BUF_INIT;

			for (i = 0; i < b.len; i++) {
				if (i && i % every == 0)
					buf_puts(&w, "\r\n");
				buf_putc(&w, b.data[i]);
			}
			buf_reset(&d);
			e = base64_decode(&d, w.data ? w.data : "", w.len,
			    &at);
			CHECK_INT(e, BASE64_OK);
			CHECK(d.len == n && (n == 0 ||
			    memcmp(d.data, data, n) == 0));
			buf_putc(&w, '*');
			buf_reset(&d);
			CHECK_INT(base64_decode(&d, w.data, w.len, &at),
			    b.len % 4 == 1 ? BASE64_TRUNCATED :
			    BASE64_BAD_CHAR);
			if (b.len % 4 != 1)
				CHECK_INT(at, w.len - 1);
			buf_free(&w);
		}
	}
	buf_free(&b);
	buf_free(&d);
}

static void
test_lenient(void)
{
	enum base64_error e;
	size_t at;

	CHECK_STR(dec("Zm9v\nYmFy\r\n", &e, &at), "foobar");
	CHECK_STR(dec(" Zm 9v\tYg= = ", &e, &at), "foob");
	CHECK_STR(dec("Zg", &e, &at), "f");
	CHECK_STR(dec("Zg=", &e, &at), "f");
	CHECK_STR(dec("Zm8", &e, &at), "fo");
	/* Non-zero bits in the last character: Node ignores them. */
	CHECK_STR(dec("Zh==", &e, &at), "f");
	CHECK_STR(dec("", &e, &at), "");
	CHECK_STR(dec(" \n", &e, &at), "");
}

static void
test_refused(void)
{
	static const struct {
		const char *s;
		enum base64_error e;
		size_t at;
	} cases[] = {
		{ "Zm9v*YmFy", BASE64_BAD_CHAR, 4 },
		{ "Zm9v-_", BASE64_BAD_CHAR, 4 },
		{ "Zm9v\x80", BASE64_BAD_CHAR, 4 },
		{ "Zm\0v", BASE64_BAD_CHAR, 2 },
		{ "=", BASE64_BAD_PAD, 0 },
		{ "Z=", BASE64_BAD_PAD, 1 },
		{ "Zm9v=", BASE64_BAD_PAD, 4 },
		{ "Zg===", BASE64_BAD_PAD, 4 },
		{ "Zm8==", BASE64_BAD_PAD, 4 },
		{ "Zg=x", BASE64_AFTER_PAD, 3 },
		{ "Zg==Zg==", BASE64_AFTER_PAD, 4 },
		{ "Zm9vY", BASE64_TRUNCATED, 4 },
		{ "Zm9vY\n", BASE64_TRUNCATED, 4 },
	};
	struct buf b = BUF_INIT;
	size_t i, at;

	for (i = 0; i < LEN(cases); i++) {
		/* "Zm\0v" holds a NUL: give its length by hand. */
		size_t n = i == 3 ? 4 : strlen(cases[i].s);

		buf_reset(&b);
		CHECK_INT(base64_decode(&b, cases[i].s, n, &at), cases[i].e);
		CHECK_INT(at, cases[i].at);
	}
	buf_free(&b);
}

static void
test_huge(void)
{
	size_t n = (size_t)16 << 20, i, at;
	unsigned char *data = xmalloc(n);
	struct buf b = BUF_INIT, d = BUF_INIT;

	for (i = 0; i < n; i++)
		data[i] = (unsigned char)(i ^ (i >> 8) ^ (i >> 16));
	base64_encode(&b, data, n);
	CHECK_INT(b.len, n / 3 * 4 + 4);
	CHECK_INT(base64_decode(&d, b.data, b.len, &at), BASE64_OK);
	CHECK_INT(d.len, n);
	CHECK(d.len == n && memcmp(d.data, data, n) == 0);
	/* A bad byte far in is found at its offset. */
	b.data[b.len - 10] = '!';
	buf_reset(&d);
	CHECK_INT(base64_decode(&d, b.data, b.len, &at), BASE64_BAD_CHAR);
	CHECK_INT(at, b.len - 10);
	free(data);
	buf_free(&b);
	buf_free(&d);
}

int
main(void)
{
	test_vectors();
	test_lengths();
	test_lenient();
	test_refused();
	test_huge();
	buf_free(&eb);
	buf_free(&db);
	return check_done("test_base64");
}
