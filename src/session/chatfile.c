#include "session/chatfile.h"

#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"

void
chatfile_new(struct run *run, struct chatfile *c)
{
	struct arena *a = &run->arena;

	memset(c, 0, sizeof(*c));
	c->header = tree_table(a);
	tree_put(a, c->header, "chat_metadata", tree_table(a));
	tree_put(a, c->header, "user_name", tree_str(a, "unused"));
	tree_put(a, c->header, "character_name", tree_str(a, "unused"));
}

/* One line, as a JSON object; errors at the file's line and column. */
static struct node *
parse_line(struct run *run, const struct source *src, size_t off,
    size_t len, unsigned line)
{
	struct node *obj;

	if (!json_parse_range(run, src, off, len, &obj))
		return NULL;
	if (obj->kind != NODE_TABLE) {
		diag_error(run, src, span_make(off, len),
		    MSG_CHAT_LINE_NOT_OBJECT, line);
		return NULL;
	}
	return obj;
}

static bool
is_message(const struct node *obj)
{
	return tree_get(obj, "mes") || tree_get(obj, "name") ||
	    tree_get(obj, "is_user");
}

bool
chatfile_read(struct run *run, const struct source *src, struct chatfile *c)
{
	size_t off = 0;
	unsigned line = 0;
	bool ok = true, first = true;

	memset(c, 0, sizeof(*c));
	c->src = src;
	while (off < src->len) {
		const char *nl = memchr(src->text + off, '\n', src->len - off);
		size_t end = nl ? (size_t)(nl - src->text) : src->len;
		size_t len = end - off, k;
		struct node *obj;

		line++;
		if (len && src->text[end - 1] == '\r')
			len--;
		for (k = 0; k < len && (src->text[off + k] == ' ' ||
		    src->text[off + k] == '\t'); k++)
			;
		if (k == len) {
			off = end + 1;
			continue;
		}
		obj = parse_line(run, src, off, len, line);
		if (!obj) {
			ok = false;
		} else if (first && !is_message(obj)) {
			c->header = obj;
			c->header_raw = src->text + off;
			c->header_rawlen = len;
		} else {
			struct chatfile_msg m = { obj, src->text + off, len,
				line };

			avec_push(&run->arena, &c->msgs, m);
		}
		first = false;
		off = end + 1;
	}
	if (line == 0 || (!c->header && c->msgs.n == 0 && ok)) {
		/* An empty file is a new chat. */
		chatfile_new(run, c);
		c->src = src;
	}
	return ok;
}

static void
put_line(struct buf *out, const char *raw, size_t rawlen,
    const struct node *obj)
{
	if (raw)
		buf_put(out, raw, rawlen);
	else
		json_write(out, obj, -1);
	buf_putc(out, '\n');
}

void
chatfile_write(const struct chatfile *c, struct buf *out)
{
	size_t i;

	if (c->header)
		put_line(out, c->header_raw, c->header_rawlen, c->header);
	for (i = 0; i < c->msgs.n; i++)
		put_line(out, c->msgs.v[i].raw, c->msgs.v[i].rawlen,
		    c->msgs.v[i].obj);
}

const struct node *
chatfile_metadata(const struct chatfile *c)
{
	const struct node *m = c->header ? tree_get(c->header,
	    "chat_metadata") : NULL;

	return m && m->kind == NODE_TABLE ? m : NULL;
}

struct node *
chatfile_metadata_mut(struct run *run, struct chatfile *c)
{
	struct node *m;

	if (!c->header) {
		/* An old group chat: it gains a 1.15 header. */
		struct chatfile keep = *c;

		chatfile_new(run, c);
		c->src = keep.src;
		c->msgs = keep.msgs;
	}
	c->header_raw = NULL;
	m = tree_get(c->header, "chat_metadata");
	if (!m || m->kind != NODE_TABLE) {
		m = tree_table(&run->arena);
		tree_set(&run->arena, c->header, "chat_metadata", 13, 0,
		    span_make(0, 0), m);
	}
	return m;
}

struct chatfile_msg *
chatfile_append(struct run *run, struct chatfile *c, struct node *obj)
{
	struct chatfile_msg m = { obj, NULL, 0, 0 };

	avec_push(&run->arena, &c->msgs, m);
	return &c->msgs.v[c->msgs.n - 1];
}

void
chatfile_touch(struct chatfile *c, size_t i)
{
	if (i < c->msgs.n)
		c->msgs.v[i].raw = NULL;
}

void
chatfile_drop(struct chatfile *c, size_t n)
{
	c->msgs.n = n < c->msgs.n ? c->msgs.n - n : 0;
}

const char *
chatfile_name(const struct node *msg)
{
	const struct node *n = tree_get(msg, "name");

	return n && n->kind == NODE_STRING ? n->u.str.s : "";
}

const char *
chatfile_text(const struct node *msg, size_t *len)
{
	const struct node *n = tree_get(msg, "mes");

	if (n && n->kind == NODE_STRING) {
		*len = n->u.str.len;
		return n->u.str.s;
	}
	*len = 0;
	return "";
}

static bool
flag(const struct node *msg, const char *key)
{
	const struct node *n = tree_get(msg, key);

	return n && n->kind == NODE_BOOL && n->u.b;
}

bool
chatfile_is_user(const struct node *msg)
{
	return flag(msg, "is_user");
}

bool
chatfile_is_system(const struct node *msg)
{
	return flag(msg, "is_system");
}
