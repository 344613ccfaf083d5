/*
 * base64: the standard alphabet of RFC 4648 (A-Z a-z 0-9 + /), the form
 * SillyTavern stores cards in.  Encoding always pads with '='.  Decoding
 * is strict where strictness cannot reject a card SillyTavern wrote, and
 * lenient where Node's Buffer.from(s, "base64") -- which SillyTavern
 * reads cards with -- is lenient in ways real files rely on:
 *
 *   accepted  missing '=' padding; ASCII space, tab, CR and LF anywhere
 *             (ignored); non-zero bits in the last character
 *   refused   any other byte, including the URL-safe '-' and '_'; '='
 *             anywhere but at the end, or more of it than the length
 *             needs; data after the padding; a length of 1 mod 4 (no
 *             byte can be made of 6 bits)
 *
 * Neither function reports anything: this is the base layer, below
 * diagnostics.  A failed decode says what and where (a byte offset into
 * the input) and the caller reports it.  Output goes to a caller-owned
 * struct buf; sizes that would overflow die like any allocation failure.
 */
#ifndef BASE64_H
#define BASE64_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

enum base64_error {
	BASE64_OK,
	BASE64_BAD_CHAR,        /* a byte outside the alphabet */
	BASE64_BAD_PAD,         /* '=' where it cannot be, or too many */
	BASE64_AFTER_PAD,       /* data after the padding */
	BASE64_TRUNCATED,       /* the last group has one character */
};

/* Bytes base64_encode() writes for n input bytes. */
size_t base64_encoded_len(size_t n);
/* Append the base64 of data[0..n) to out, padded. */
void base64_encode(struct buf *out, const void *data, size_t n);
/*
 * Append the bytes s[0..n) encodes to out.  On failure return the error
 * and set *where to the offset in s of the first byte at fault (for
 * BASE64_TRUNCATED: the lone last character); out then holds a partial
 * result the caller should discard.
 */
enum base64_error base64_decode(struct buf *out, const char *s, size_t n,
    size_t *where);

#endif
