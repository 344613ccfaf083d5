/*
 * gen_literal: for the build-time generators (tokgen, spgen) only.  They
 * write a table's bytes as one C string literal in lines of about 72
 * columns: printable ASCII as itself, every other byte as a three-digit
 * octal escape (so a digit after one is not swallowed), and '?' escaped
 * too (-std=c11 has trigraphs).  The caller owns the FILE and *col.
 */
#ifndef GEN_LITERAL_H
#define GEN_LITERAL_H

#include <stddef.h>
#include <stdio.h>

#define GEN_LITERAL_START 80    /* *col before the first byte */

/* Append p[0..n) to the literal. */
static void
gen_literal_bytes(FILE *out, const unsigned char *p, size_t n, size_t *col)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int c = p[i];

		if (*col >= 72) {
			fputs("\n\t\"", out);
			*col = 0;
		}
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
		    c != '?') {
			putc(c, out);
			(*col)++;
		} else {
			fprintf(out, "\\%03o", c);
			*col += 4;
		}
		if (*col >= 72)
			putc('"', out);
	}
}

/* Close the literal and its declaration. */
static void
gen_literal_end(FILE *out, size_t col)
{
	fputs(col < 72 ? "\";\n" : ";\n", out);
}

#endif
