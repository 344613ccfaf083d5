/*
 * toml-decode: the toml-test decoder for our TOML reader.  Reads one
 * document from standard input and prints it as toml-test's "tagged
 * JSON" (every scalar a {"type", "value"} pair); on invalid input the
 * reader's diagnostics go to stderr and the exit status is 1.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/toml.h"
#include "data/tree.h"

static void
json_string(struct buf *b, const char *s, size_t n)
{
	size_t i;

	buf_putc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': buf_puts(b, "\\\""); break;
		case '\\': buf_puts(b, "\\\\"); break;
		case '\b': buf_puts(b, "\\b"); break;
		case '\f': buf_puts(b, "\\f"); break;
		case '\n': buf_puts(b, "\\n"); break;
		case '\r': buf_puts(b, "\\r"); break;
		case '\t': buf_puts(b, "\\t"); break;
		default:
			/* The reader guarantees valid UTF-8, so bytes at
			 * or above 0x80 pass through. */
			if (c < 0x20 || c == 0x7f)
				buf_printf(b, "\\u%04x", c);
			else
				buf_putc(b, (char)c);
		}
	}
	buf_putc(b, '"');
}

static void
tagged(struct buf *b, const char *type, const char *value)
{
	buf_printf(b, "{\"type\":\"%s\",\"value\":", type);
	json_string(b, value, strlen(value));
	buf_putc(b, '}');
}

/*
 * The fraction digits as written, so the output keeps the original
 * precision: struct datetime holds nanoseconds only, but the node's span
 * still points at the text.
 */
static int
fraction_digits(const struct source *src, const struct node *n)
{
	const char *t = src->text + n->span.off;
	size_t i, len = n->span.len;
	int k = 0;

	for (i = 0; i < len && t[i] != '.'; i++)
		;
	for (i++; i < len && t[i] >= '0' && t[i] <= '9'; i++)
		k++;
	return k;
}

static void
datetime(struct buf *b, const struct source *src, const struct node *n)
{
	const struct datetime *dt = &n->u.dt;
	static const char *const types[] = {
		[DT_OFFSET] = "datetime", [DT_LOCAL] = "datetime-local",
		[DT_DATE] = "date-local", [DT_TIME] = "time-local",
	};
	char v[64];
	size_t len = 0;
	int digits;
	uint32_t frac;

	if (dt->kind != DT_TIME)
		len += (size_t)snprintf(v + len, sizeof(v) - len,
		    "%04d-%02d-%02d", dt->year, dt->month, dt->day);
	if (dt->kind == DT_OFFSET || dt->kind == DT_LOCAL)
		v[len++] = 'T';
	if (dt->kind != DT_DATE) {
		len += (size_t)snprintf(v + len, sizeof(v) - len,
		    "%02d:%02d:%02d", dt->hour, dt->minute, dt->second);
		digits = fraction_digits(src, n);
		if (digits > 9)
			digits = 9;
		if (digits > 0 && digits < 3)
			digits = 3;
		if (digits > 0) {
			int k;

			frac = dt->nanosecond;
			for (k = digits; k < 9; k++)
				frac /= 10;
			len += (size_t)snprintf(v + len, sizeof(v) - len,
			    ".%0*u", digits, (unsigned)frac);
		}
	}
	if (dt->kind == DT_OFFSET) {
		int off = dt->offset_minutes, a = off < 0 ? -off : off;

		if (off == 0)
			len += (size_t)snprintf(v + len, sizeof(v) - len, "Z");
		else
			len += (size_t)snprintf(v + len, sizeof(v) - len,
			    "%c%02d:%02d", off < 0 ? '-' : '+', a / 60,
			    a % 60);
	}
	v[len] = '\0';
	tagged(b, types[dt->kind], v);
}

/* Recursion is safe: the reader caps nesting depth. */
static void
print(struct buf *b, const struct source *src, const struct node *n)
{
	char v[64];
	size_t i;

	switch (n->kind) {
	case NODE_TABLE:
		buf_putc(b, '{');
		for (i = 0; i < n->u.table.n; i++) {
			const struct member *m = &n->u.table.items[i];

			if (i)
				buf_putc(b, ',');
			json_string(b, m->key, m->keylen);
			buf_putc(b, ':');
			print(b, src, m->value);
		}
		buf_putc(b, '}');
		break;
	case NODE_ARRAY:
		buf_putc(b, '[');
		for (i = 0; i < n->u.array.n; i++) {
			if (i)
				buf_putc(b, ',');
			print(b, src, n->u.array.items[i]);
		}
		buf_putc(b, ']');
		break;
	case NODE_STRING:
		buf_puts(b, "{\"type\":\"string\",\"value\":");
		json_string(b, n->u.str.s, n->u.str.len);
		buf_putc(b, '}');
		break;
	case NODE_INT:
		snprintf(v, sizeof(v), "%lld", (long long)n->u.i);
		tagged(b, "integer", v);
		break;
	case NODE_FLOAT:
		if (isnan(n->u.f))
			snprintf(v, sizeof(v), "nan");
		else if (isinf(n->u.f))
			snprintf(v, sizeof(v), "%sinf", n->u.f < 0 ? "-" : "");
		else
			snprintf(v, sizeof(v), "%.17g", n->u.f);
		tagged(b, "float", v);
		break;
	case NODE_BOOL:
		tagged(b, "bool", n->u.b ? "true" : "false");
		break;
	case NODE_DATETIME:
		datetime(b, src, n);
		break;
	case NODE_NULL:
		buf_puts(b, "null");
		break;
	}
}

int
main(void)
{
	struct run run;
	struct source *src;
	struct node *root;
	struct buf out = BUF_INIT;
	int status = EXIT_OK;

	run_init(&run);
	src = run_read(&run, "-", NULL, span_make(0, 0));
	if (!src) {
		status = diag_status(&run);
	} else if (!toml_parse(&run, src, &root)) {
		status = EXIT_INPUT;
	} else {
		print(&out, src, root);
		buf_putc(&out, '\n');
		if (fwrite(out.data, 1, out.len, stdout) != out.len ||
		    fflush(stdout) != 0)
			status = EXIT_SYSTEM;
	}
	buf_free(&out);
	run_free(&run);
	return status;
}
