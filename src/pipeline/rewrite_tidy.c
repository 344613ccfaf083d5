/* The tidy pass: CRLF read as LF for prompt files, then trimmed. */
#include "pipeline/rewrite.h"

#include <string.h>

#include "text/edit.h"

/* A prompt file saved with CRLF line ends gives the same bytes as one
 * saved with LF: output must not depend on a checkout's settings. */
static void
crlf_to_lf(struct run *run, const struct etext *in, struct etext *out)
{
	const char *cr = in->len ? memchr(in->s, '\r', in->len) : NULL;
	size_t i, last = 0;
	struct edit ed;

	*out = *in;
	if (!cr)
		return;
	edit_begin(&ed, run, in);
	for (i = (size_t)(cr - in->s); i + 1 < in->len; i++)
		if (in->s[i] == '\r' && in->s[i + 1] == '\n') {
			edit_copy(&ed, last, i);
			last = i + 1;
		}
	edit_copy(&ed, last, in->len);
	edit_end(&ed, out);
}

static bool
tidy(const struct rewrite_ctx *cx, const struct entry *e,
    const struct etext *in, struct etext *out)
{
	struct etext lf;
	const char *s;
	size_t n;
	struct edit ed;

	if (e->rewrite & ENTRY_CRLF)
		crlf_to_lf(cx->run, in, &lf);
	else
		lf = *in;
	s = lf.s;
	n = entry_trim(&s, lf.len);
	if (n == lf.len) {
		*out = lf;
		return true;
	}
	edit_begin(&ed, cx->run, &lf);
	edit_copy(&ed, (size_t)(s - lf.s), (size_t)(s - lf.s) + n);
	edit_end(&ed, out);
	return true;
}

const struct rewrite_pass rewrite_tidy = {
	"tidy", ENTRY_TIDY, tidy, NULL, NULL, 0,
};
