#include "tavern/stchat.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "base/arena.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/tree.h"
#include "base/util.h"

/* cJSON -> tree, for the header's metadata (no spans inside a line). */
static struct node *
convert(struct arena *a, const cJSON *j, int depth)
{
	struct node *n;
	const cJSON *c;

	if (depth > 64)
		return tree_new(a, NODE_NULL, 0, span_make(0, 0));
	if (cJSON_IsObject(j)) {
		n = tree_table(a);
		for (c = j->child; c; c = c->next)
			if (c->string && !tree_get(n, c->string))
				tree_put(a, n, arena_strdup(a, c->string),
				    convert(a, c, depth + 1));
		return n;
	}
	if (cJSON_IsArray(j)) {
		n = tree_array(a);
		for (c = j->child; c; c = c->next)
			tree_push(a, n, convert(a, c, depth + 1));
		return n;
	}
	if (cJSON_IsString(j))
		return tree_str(a, j->valuestring);
	if (cJSON_IsBool(j))
		return tree_bool(a, cJSON_IsTrue(j));
	if (cJSON_IsNumber(j)) {
		double d = j->valuedouble;

		if (d == (double)(int64_t)d && d > -9e15 && d < 9e15)
			return tree_int(a, (int64_t)d);
		return tree_float(a, d);
	}
	return tree_new(a, NODE_NULL, 0, span_make(0, 0));
}

static const char *
str_field(struct arena *a, const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? arena_strdup(a, v->valuestring) : NULL;
}

static bool
true_field(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

bool
stchat_read(struct run *run, struct source *src, struct stchat *out)
{
	struct arena *a = &run->arena;
	size_t off = 0, lineno = 0, cap = 0;
	bool ok = true, first = true;

	memset(out, 0, sizeof(*out));
	while (off < src->len) {
		const char *line = src->text + off, *nl;
		size_t len, k;
		cJSON *j;
		const char *end;

		nl = memchr(line, '\n', src->len - off);
		len = nl ? (size_t)(nl - line) : src->len - off;
		lineno++;
		off += len + (nl ? 1 : 0);
		for (k = 0; k < len && (line[k] == ' ' || line[k] == '\t' ||
		    line[k] == '\r'); k++)
			;
		if (k == len)
			continue;
		j = cJSON_ParseWithLengthOpts(line, len, &end, false);
		if (!j) {
			size_t at = end && end >= line && end <= line + len ?
			    (size_t)(end - line) : 0;

			if (at >= len)
				at = len ? len - 1 : 0;
			diag_error(run, src, span_make((size_t)(line -
			    src->text) + at, 1), MSG_WI_CHAT_LINE, lineno,
			    "invalid JSON");
			ok = false;
			continue;
		}
		if (!cJSON_IsObject(j)) {
			diag_error(run, src, span_make((size_t)(line -
			    src->text), len), MSG_WI_CHAT_MESSAGE, lineno);
			ok = false;
			cJSON_Delete(j);
			continue;
		}
		if (first && !cJSON_GetObjectItemCaseSensitive(j, "mes") &&
		    !cJSON_GetObjectItemCaseSensitive(j, "name")) {
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(j,
			    "chat_metadata");

			out->metadata = m ? convert(a, m, 0) : NULL;
			out->user_name = str_field(a, j, "user_name");
			out->character_name = str_field(a, j,
			    "character_name");
		} else {
			struct stchat_message *msg;
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(j,
			    "extra");

			if (out->n == cap) {
				size_t nc = cap ? cap * 2 : 32;

				out->messages = arena_grow(a, out->messages,
				    cap, nc, sizeof(*out->messages));
				cap = nc;
			}
			msg = &out->messages[out->n++];
			msg->name = str_field(a, j, "name");
			msg->mes = str_field(a, j, "mes");
			if (!msg->name)
				msg->name = "";
			if (!msg->mes)
				msg->mes = "";
			msg->is_user = true_field(j, "is_user");
			msg->is_system = true_field(j, "is_system");
			msg->type = cJSON_IsObject(x) ? str_field(a, x,
			    "type") : NULL;
			if (!msg->type)
				msg->type = "";
			msg->line = (unsigned)lineno;
		}
		first = false;
		cJSON_Delete(j);
	}
	return ok;
}
