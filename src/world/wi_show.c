/*
 * wi_show: the world-info outcome in words, one line per entry, shared
 * by `strata wi` and the tavern build's debug view so both say the same
 * thing the same way.
 */
#include "world/wi.h"

#include "base/buf.h"

/* A decimal integer, without printf: a world's listing has a line per
 * entry, 100,000 of them in a big world. */
static void
put_int(struct buf *b, long long v)
{
	char d[24], *p = d + sizeof(d);
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v :
	    (unsigned long long)v;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	buf_put(b, p, (size_t)(d + sizeof(d) - p));
}

void
wi_record_describe(struct buf *b, const struct wi_record *r, bool source)
{
	buf_puts(b, r->activated ? "  + " : "  - ");
	buf_puts(b, r->world);
	buf_putc(b, '.');
	put_int(b, (long long)r->entry->uid);
	if (source) {
		buf_puts(b, " [");
		buf_puts(b, wi_source_name(r->source));
		buf_putc(b, ']');
	}
	if (*r->entry->comment) {
		buf_puts(b, " \"");
		buf_puts(b, r->entry->comment);
		buf_putc(b, '"');
	}
	buf_puts(b, ": ");
	buf_puts(b, wi_reason_name(r->reason));
	if (r->reason == WI_BY_KEY || (r->activated && r->key)) {
		if (r->reason != WI_BY_KEY)
			buf_puts(b, ", by key");
		buf_printf(b, " '%s' in %s", r->key, wi_where_name(r->where));
		if (r->where == WI_IN_CARD)
			buf_printf(b, " (%s)", wi_match_name(
			    (int)r->where_index));
		else if (r->where == WI_IN_RECURSION)
			buf_printf(b, " from pass %zu", r->where_index);
		else
			buf_printf(b, " %zu", r->where_index);
	}
	if (r->roll >= 0)
		buf_printf(b, ", rolled %.2f against %g", r->roll,
		    r->entry->probability);
	if ((r->reason == WI_GROUP_LOST || r->reason == WI_GROUP_TAKEN ||
	    r->reason == WI_GROUP_SPLICE) &&
	    r->winner >= 0)
		buf_printf(b, " '%s' to uid %lld", r->group,
		    (long long)r->winner);
	else if (r->reason == WI_GROUP_SCORE)
		buf_printf(b, " in '%s'", r->group);
	if (r->reason == WI_BUDGET) {
		if (r->tokens >= 0)
			buf_printf(b, " (%lld tokens)", (long long)r->tokens);
		else
			buf_puts(b, " (budget already spent)");
	}
	if (r->regex_limit)
		buf_puts(b, " [regex match limit]");
	buf_puts(b, " (pass ");
	put_int(b, r->pass);
	if (r->level) {
		buf_puts(b, ", level ");
		put_int(b, r->level);
	}
	buf_puts(b, ")\n");
}

void
wi_result_summary(struct buf *b, const struct wi_result *r)
{
	buf_printf(b, "%zu messages scanned, %d pass%s, %lld of %lld "
	    "tokens%s", r->chat_length, r->passes,
	    r->passes == 1 ? "" : "es", (long long)r->tokens_used,
	    (long long)r->budget, r->overflow ? ", budget overflowed" : "");
}
