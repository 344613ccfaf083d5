/*
 * json_write: the config tree as JSON text (data/json.h), the writer
 * half of the JSON module; json.c reads.  It recurses once per nesting
 * level, as the reader does, which the readers' MAX_DEPTH bounds.
 */
#include "data/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "data/tree.h"
#include "base/util.h"

static void
newline(struct buf *out, int indent, int level)
{
	size_t n = (size_t)indent * (size_t)level;

	buf_putc(out, '\n');
	buf_reserve(out, n);
	memset(out->data + out->len, ' ', n);
	out->len += n;
	out->data[out->len] = '\0';
}

/*
 * The shortest of %.15g, %.16g and %.17g that reads back as the same
 * double (%.17g always does), with ".0" added when it would read as an
 * integer.  The C locale is in force (see number() above), so the
 * decimal point is '.'.
 */
static void
write_float(struct buf *out, double d)
{
	char tmp[40];
	int prec;

	if (!isfinite(d)) {
		buf_puts(out, "null");
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	if (prec == 17)
		snprintf(tmp, sizeof(tmp), "%.17g", d);
	buf_puts(out, tmp);
	if (!strpbrk(tmp, ".eE"))
		buf_puts(out, ".0");
}

/* RFC 3339; the local kinds are its date, time or date-time without an
 * offset, as TOML writes them. */
static void
write_datetime(struct buf *out, const struct datetime *dt)
{
	struct buf b = BUF_INIT;
	char frac[16];
	int k;

	if (dt->kind != DT_TIME)
		buf_printf(&b, "%04d-%02d-%02d", dt->year, dt->month, dt->day);
	if (dt->kind == DT_OFFSET || dt->kind == DT_LOCAL)
		buf_putc(&b, 'T');
	if (dt->kind != DT_DATE) {
		buf_printf(&b, "%02d:%02d:%02d", dt->hour, dt->minute,
		    dt->second);
		if (dt->nanosecond) {
			snprintf(frac, sizeof(frac), ".%09u",
			    (unsigned)dt->nanosecond % 1000000000u);
			for (k = (int)strlen(frac); frac[k - 1] == '0'; k--)
				frac[k - 1] = '\0';
			buf_puts(&b, frac);
		}
	}
	if (dt->kind == DT_OFFSET) {
		int off = dt->offset_minutes;

		if (off == 0)
			buf_putc(&b, 'Z');
		else
			buf_printf(&b, "%c%02d:%02d", off < 0 ? '-' : '+',
			    abs(off) / 60, abs(off) % 60);
	}
	json_write_string(out, b.data ? b.data : "", b.len);
	buf_free(&b);
}

static void
write_node(struct buf *out, const struct node *n, int indent, int level)
{
	size_t i;

	if (!n) {
		buf_puts(out, "null");
		return;
	}
	switch (n->kind) {
	case NODE_TABLE:
		if (n->u.table.n == 0) {
			buf_puts(out, "{}");
			return;
		}
		buf_putc(out, '{');
		for (i = 0; i < n->u.table.n; i++) {
			const struct member *m = &n->u.table.items[i];

			if (i)
				buf_putc(out, ',');
			if (indent >= 0)
				newline(out, indent, level + 1);
			json_write_string(out, m->key, m->keylen);
			buf_puts(out, indent >= 0 ? ": " : ":");
			write_node(out, m->value, indent, level + 1);
		}
		if (indent >= 0)
			newline(out, indent, level);
		buf_putc(out, '}');
		return;
	case NODE_ARRAY:
		if (n->u.array.n == 0) {
			buf_puts(out, "[]");
			return;
		}
		buf_putc(out, '[');
		for (i = 0; i < n->u.array.n; i++) {
			if (i)
				buf_putc(out, ',');
			if (indent >= 0)
				newline(out, indent, level + 1);
			write_node(out, n->u.array.items[i], indent, level + 1);
		}
		if (indent >= 0)
			newline(out, indent, level);
		buf_putc(out, ']');
		return;
	case NODE_STRING:
		json_write_string(out, n->u.str.s, n->u.str.len);
		return;
	case NODE_INT:
		buf_printf(out, "%" PRId64, n->u.i);
		return;
	case NODE_FLOAT:
		write_float(out, n->u.f);
		return;
	case NODE_BOOL:
		buf_puts(out, n->u.b ? "true" : "false");
		return;
	case NODE_DATETIME:
		write_datetime(out, &n->u.dt);
		return;
	case NODE_NULL:
		break;
	}
	buf_puts(out, "null");
}

void
json_write(struct buf *out, const struct node *n, int indent)
{
	write_node(out, n, indent, 0);
}

void
json_write_level(struct buf *out, const struct node *n, int indent,
    int level)
{
	write_node(out, n, indent, level);
}

void
json_write_string(struct buf *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, from, k;
	unsigned char c;
	uint32_t cp;
	char esc[7];

	/* The common case, a string that needs no escape, in one copy. */
	buf_reserve(out, len + 2);
	if ((i = json_plain_span(s, len)) == len) {
		char *p = out->data + out->len;

		p[0] = '"';
		if (len)
			memcpy(p + 1, s, len);
		p[len + 1] = '"';
		p[len + 2] = '\0';
		out->len += len + 2;
		return;
	}
	buf_putc(out, '"');
	buf_put(out, s, i);
	while (i < len) {
		from = i;
		i += json_plain_span(s + i, len - i);
		buf_put(out, s + from, i - from);
		if (i >= len)
			break;
		c = (unsigned char)s[i];
		if (c >= 0x80) {
			/* Valid UTF-8 goes out as it is; a bad byte becomes
			 * U+FFFD so the output is always valid JSON. */
			k = utf8_decode(s + i, len - i, &cp);
			if (k)
				buf_put(out, s + i, k);
			else
				buf_puts(out, "\xef\xbf\xbd");
			i += k ? k : 1;
			continue;
		}
		switch (c) {
		case '"':
			buf_puts(out, "\\\"");
			break;
		case '\\':
			buf_puts(out, "\\\\");
			break;
		case '\b':
			buf_puts(out, "\\b");
			break;
		case '\f':
			buf_puts(out, "\\f");
			break;
		case '\n':
			buf_puts(out, "\\n");
			break;
		case '\r':
			buf_puts(out, "\\r");
			break;
		case '\t':
			buf_puts(out, "\\t");
			break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			buf_put(out, esc, 6);
			break;
		}
		i++;
	}
	buf_putc(out, '"');
}
