#include "session/globals.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"
#include "base/file.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"

/* The object in src (empty: none). */
static bool
parse(struct run *run, struct source *src, struct node **out)
{
	struct node *n;

	if (str_blank(src->text, src->len)) {
		*out = tree_table(&run->arena);
		return true;
	}
	if (!json_parse(run, src, &n))
		return false;
	if (n->kind != NODE_TABLE) {
		diag_error(run, src, n->span, MSG_GLOBALS_NOT_OBJECT,
		    tree_kind_json(n->kind));
		return false;
	}
	*out = n;
	return true;
}

bool
globals_load(struct run *run, const char *path, struct node **out)
{
	struct source *src;

	if (access(path, F_OK) != 0 && errno == ENOENT) {
		*out = tree_table(&run->arena);
		return true;
	}
	src = run_read(run, path, NULL, span_make(0, 0));
	return src && parse(run, src, out);
}

bool
globals_update(struct run *run, const char *path,
    const struct node *changed)
{
	struct file_lock lk;
	struct buf b = BUF_INIT, out = BUF_INIT;
	struct source *src;
	struct node *g;
	size_t i;
	bool ok = false;

	if (!changed || changed->kind != NODE_TABLE || !changed->u.table.n)
		return true;
	if (!file_lock_open(path, &lk)) {
		diag_plain(run, DIAG_ERROR, MSG_SESSION_LOCK, path);
		return false;
	}
	if (!file_lock_read(&lk, &b)) {
		diag_plain(run, DIAG_ERROR, MSG_CANNOT_READ, path);
		goto done;
	}
	src = run_source_mem(run, path, b.data ? b.data : "", b.len);
	if (!parse(run, src, &g))
		goto done;
	for (i = 0; i < changed->u.table.n; i++) {
		const struct member *m = &changed->u.table.items[i];

		tree_set(&run->arena, g, m->key, m->keylen, 0,
		    span_make(0, 0), tree_copy(&run->arena, m->value));
	}
	json_write(&out, g, 2);
	buf_putc(&out, '\n');
	if (!file_replace(path, out.data, out.len)) {
		diag_plain(run, DIAG_ERROR, MSG_CANNOT_WRITE, path);
		diag_system(run);
		goto done;
	}
	ok = true;
done:
	file_unlock(&lk);
	buf_free(&b);
	buf_free(&out);
	return ok;
}
