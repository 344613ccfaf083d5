/*
 * wi_regex: world-info keys written as regular expressions, as
 * SillyTavern's parseRegexFromString() reads them (/pattern/flags), and
 * compiled for PCRE2 with JavaScript's semantics where PCRE2 has an
 * option for them.  The caller owns a compiled code (wi_scan.c keeps its
 * keys' codes until wi_scan_free()).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "world/wi_int.h"

#include <pcre2.h>
#include <stdio.h>
#include <string.h>

/*
 * Regex keys: SillyTavern's parseRegexFromString().  The key must look
 * like /pattern/flags with flags from "gimsuy" (the shortest pattern
 * that leaves only flags), and the pattern must hold no unescaped '/'.
 */
bool
wi_split_regex(const char *s, size_t n, size_t *plen, unsigned *flags)
{
	size_t p, q;

	if (n < 3 || s[0] != '/')
		return false;
	for (p = 2; p < n; p++) {
		unsigned f = 0;

		if (s[p] != '/')
			continue;
		for (q = p + 1; q < n; q++) {
			const char *c = strchr("gimsuy", s[q]);
			unsigned bit;

			if (!c || s[q] == '\0')
				break;
			bit = 1u << (c - "gimsuy");
			if (f & bit) {
				f |= 1u << 8;   /* duplicate: RegExp throws */
			}
			f |= bit;
		}
		if (q < n)
			continue;
		/* an unescaped '/' inside: not a regex */
		for (q = 1; q < p; q++)
			if (s[q] == '/' && (q == 1 || s[q - 1] != '\\'))
				return false;
		*plen = p - 1;
		*flags = f;
		return true;
	}
	return false;
}

pcre2_code *
wi_compile_regex(const char *s, size_t n, char *err, size_t errlen,
    size_t *erroff)
{
	size_t plen;
	unsigned flags;
	uint32_t opt = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_ALT_BSUX |
	    PCRE2_ALLOW_EMPTY_CLASS | PCRE2_MATCH_UNSET_BACKREF;
	pcre2_compile_context *cc;
	pcre2_code *re;
	int ec;
	PCRE2_SIZE off;

	if (!wi_split_regex(s, n, &plen, &flags))
		return NULL;
	if (flags & (1u << 8)) {
		if (err)
			snprintf(err, errlen, "a flag given twice");
		if (erroff)
			*erroff = 0;
		return NULL;
	}
	if (flags & (1u << 1))
		opt |= PCRE2_CASELESS;
	if (flags & (1u << 2))
		opt |= PCRE2_MULTILINE;
	else
		opt |= PCRE2_DOLLAR_ENDONLY;
	if (flags & (1u << 3))
		opt |= PCRE2_DOTALL;
	if (flags & (1u << 5))
		opt |= PCRE2_ANCHORED;  /* sticky, from lastIndex 0 */
	cc = pcre2_compile_context_create(NULL);
	pcre2_set_newline(cc, PCRE2_NEWLINE_ANY);
	pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
	re = pcre2_compile((PCRE2_SPTR)s + 1, plen, opt, &ec, &off, cc);
	pcre2_compile_context_free(cc);
	if (!re && err) {
		pcre2_get_error_message(ec, (PCRE2_UCHAR *)err, errlen);
		if (erroff)
			*erroff = off;
	}
	return re;
}

bool
wi_regex_check(const char *s, char *err, size_t errlen, size_t *erroff,
    bool *is_regex)
{
	size_t plen, n = strlen(s);
	unsigned flags;
	pcre2_code *re;

	*is_regex = wi_split_regex(s, n, &plen, &flags);
	if (!*is_regex)
		return true;
	re = wi_compile_regex(s, n, err, errlen, erroff);
	if (!re)
		return false;
	pcre2_code_free(re);
	return true;
}
