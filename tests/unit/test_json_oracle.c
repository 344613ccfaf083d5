/*
 * strata's JSON reader checked against cJSON, an independent reader: for
 * thousands of random valid documents (nested objects and arrays, strings
 * with every escape and non-ASCII text, integers at the edges of int64,
 * floats), both readers must see the same values in the same order.
 *
 * cJSON is not in the product: strata reads JSON itself because it needs
 * the line:col of every key and value, refuses duplicate keys, and keeps
 * integers exact beyond 2^53.  cJSON's job is to be the second opinion.
 */
#include <cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/rng.h"
#include "base/util.h"
#include "check.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "diag/source.h"

static struct rng rng;

static unsigned
pick(unsigned n)
{
	return (unsigned)(rng_next(&rng) % n);
}

/* A string's text with every kind of escape, raw UTF-8 and \u pairs. */
static void
gen_string(struct buf *b)
{
	static const char *const pieces[] = {
		"a", "Z", "hello", " ", "\\\"", "\\\\", "\\/", "\\b", "\\f",
		"\\n", "\\r", "\\t", "\\u00e9", "\\u4e2d", "\\uD83D\\uDE00",
		"\xc3\xa9", "\xe4\xb8\xad\xe6\x96\x87", "\xf0\x9f\x98\x80",
		"{}", "[],:", "0", "\\u001f", "\x7f",
	};
	unsigned n = pick(8), i;

	buf_putc(b, '"');
	for (i = 0; i < n; i++)
		buf_puts(b, pieces[pick(LEN(pieces))]);
	buf_putc(b, '"');
}

static void
gen_number(struct buf *b)
{
	static const char *const edges[] = {
		"0", "-0", "1", "-1", "9007199254740991", "-9007199254740991",
		"1.5", "-2.25", "1e3", "1E-3", "6.02214076e23", "0.1",
		"123456.789", "-0.0", "5e-324", "1.7976931348623157e308",
	};

	if (pick(2))
		buf_puts(b, edges[pick(LEN(edges))]);
	else
		buf_printf(b, "%lld", (long long)(rng_next(&rng) % 2000000001) -
		    1000000000);
}

static void
gen_value(struct buf *b, int depth)
{
	unsigned k = pick(depth > 5 ? 5 : 7), n, i;

	switch (k) {
	case 0: buf_puts(b, "true"); break;
	case 1: buf_puts(b, "null"); break;
	case 2: gen_number(b); break;
	case 3: gen_string(b); break;
	case 4: buf_puts(b, "false"); break;
	case 5:
		n = pick(5);
		buf_puts(b, pick(2) ? "[" : " [ ");
		for (i = 0; i < n; i++) {
			if (i)
				buf_puts(b, pick(2) ? "," : " ,\n\t");
			gen_value(b, depth + 1);
		}
		buf_putc(b, ']');
		break;
	default:
		n = pick(5);
		buf_puts(b, "{");
		for (i = 0; i < n; i++) {
			if (i)
				buf_putc(b, ',');
			/* Distinct keys: strata refuses duplicates. */
			buf_printf(b, "\"k%u\\u00e9%u\"%s", i, pick(100),
			    pick(2) ? ":" : " : ");
			gen_value(b, depth + 1);
		}
		buf_puts(b, "}");
		break;
	}
}

static int mismatches;

static void
mismatch(const char *doc, const char *what)
{
	if (mismatches++ < 5)
		fprintf(stderr, "json oracle: %s in\n%s\n", what, doc);
}

static void
same(const char *doc, const struct node *n, const cJSON *c)
{
	size_t i;
	const cJSON *e;

	switch (n->kind) {
	case NODE_TABLE:
		if (!cJSON_IsObject(c) ||
		    (size_t)cJSON_GetArraySize(c) != n->u.table.n) {
			mismatch(doc, "object");
			return;
		}
		e = c->child;
		for (i = 0; i < n->u.table.n; i++, e = e->next) {
			const struct member *m = &n->u.table.items[i];

			if (strlen(e->string) != m->keylen ||
			    memcmp(e->string, m->key, m->keylen) != 0)
				mismatch(doc, "key");
			same(doc, m->value, e);
		}
		return;
	case NODE_ARRAY:
		if (!cJSON_IsArray(c) ||
		    (size_t)cJSON_GetArraySize(c) != n->u.array.n) {
			mismatch(doc, "array");
			return;
		}
		e = c->child;
		for (i = 0; i < n->u.array.n; i++, e = e->next)
			same(doc, n->u.array.items[i], e);
		return;
	case NODE_STRING:
		if (!cJSON_IsString(c) || strlen(c->valuestring) !=
		    n->u.str.len || memcmp(c->valuestring, n->u.str.s,
		    n->u.str.len) != 0)
			mismatch(doc, "string");
		return;
	case NODE_INT:
		if (!cJSON_IsNumber(c) || (double)n->u.i != c->valuedouble)
			mismatch(doc, "integer");
		return;
	case NODE_FLOAT:
		if (!cJSON_IsNumber(c) || n->u.f != c->valuedouble)
			mismatch(doc, "float");
		return;
	case NODE_BOOL:
		if (n->u.b ? !cJSON_IsTrue(c) : !cJSON_IsFalse(c))
			mismatch(doc, "boolean");
		return;
	case NODE_NULL:
		if (!cJSON_IsNull(c))
			mismatch(doc, "null");
		return;
	default:
		mismatch(doc, "a kind JSON has not");
		return;
	}
}

int
main(void)
{
	struct run run;
	struct buf doc = BUF_INIT;
	unsigned i, docs = 5000;

	run_init(&run);
	rng_seed(&rng, 20261129);
	for (i = 0; i < docs; i++) {
		struct node *tree = NULL;
		struct source *src;
		cJSON *c;

		buf_reset(&doc);
		gen_value(&doc, 0);
		src = run_source_mem(&run, "oracle.json", doc.data, doc.len);
		CHECK(json_parse(&run, src, &tree));
		c = cJSON_ParseWithLength(doc.data, doc.len);
		CHECK(c != NULL);
		if (tree && c)
			same(doc.data, tree, c);
		cJSON_Delete(c);
	}
	CHECK_INT(mismatches, 0);
	printf("json oracle: %u documents, %d mismatches\n", docs,
	    mismatches);
	buf_free(&doc);
	run_free(&run);
	return check_done("test_json_oracle");
}
