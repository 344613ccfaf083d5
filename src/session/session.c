#include "session/session.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/util.h"
#include "data/tree.h"
#include "diag/run.h"

bool
session_load(struct run *run, const char *path, struct chatfile *c,
    bool *exists)
{
	struct source *src;

	*exists = false;
	if (access(path, F_OK) != 0 && errno == ENOENT) {
		chatfile_new(run, c);
		return true;
	}
	if (!(src = run_read(run, path, NULL, span_make(0, 0))))
		return false;
	*exists = src->len > 0;
	return chatfile_read(run, src, c);
}

bool
session_update(struct run *run, const char *path, session_fn *fn, void *arg)
{
	struct file_lock lk;
	struct buf b = BUF_INIT, out = BUF_INIT;
	struct source *src;
	struct chatfile c;
	bool ok = false, created;

	created = access(path, F_OK) != 0;
	if (!file_lock_open(path, &lk)) {
		diag_plain(run, DIAG_ERROR, MSG_SESSION_LOCK, path);
		return false;
	}
	if (!file_lock_read(&lk, &b)) {
		diag_plain(run, DIAG_ERROR, MSG_CANNOT_READ, path);
		goto done;
	}
	src = run_source_mem(run, path, b.data ? b.data : "", b.len);
	if (!chatfile_read(run, src, &c) || !fn(run, &c, arg))
		goto done;
	chatfile_write(&c, &out);
	if (!file_replace(path, out.data, out.len)) {
		diag_plain(run, DIAG_ERROR, MSG_CANNOT_WRITE, path);
		diag_system(run);
		goto done;
	}
	ok = true;
done:
	/* A session the failed command created is not left behind. */
	if (!ok && created && b.len == 0)
		unlink(path);
	file_unlock(&lk);
	buf_free(&b);
	buf_free(&out);
	return ok;
}

struct node *
session_message(struct arena *a, enum role role, const char *name,
    const char *text, size_t len, int64_t now_ms)
{
	struct node *m = tree_table(a), *extra;
	char date[CLOCK_ISO_SIZE];

	clock_iso(now_ms, date);
	tree_put(a, m, "name", tree_str(a, name));
	tree_put(a, m, "is_user", tree_bool(a, role == ROLE_USER));
	/* SillyTavern has no tool or developer turns: it shows them as
	 * hidden system messages and strata keeps their role. */
	tree_put(a, m, "is_system", tree_bool(a, role == ROLE_SYSTEM ||
	    role == ROLE_DEVELOPER || role == ROLE_TOOL));
	tree_put(a, m, "send_date", tree_str(a, date));
	tree_put(a, m, "mes", tree_strn(a, text, len));
	extra = tree_put(a, m, "extra", tree_table(a));
	if (role == ROLE_DEVELOPER || role == ROLE_TOOL) {
		struct node *st = tree_put(a, extra, "strata", tree_table(a));

		tree_put(a, st, "role", tree_str(a, role == ROLE_TOOL ? "tool" :
		    "developer"));
	}
	return m;
}

const char *
session_last_name(const struct chatfile *c, bool user, const char *dflt)
{
	size_t i;

	for (i = c->msgs.n; i-- > 0;) {
		const struct node *m = c->msgs.v[i].obj;

		if (chatfile_is_user(m) == user && !chatfile_is_system(m) &&
		    *chatfile_name(m))
			return chatfile_name(m);
	}
	return dflt;
}

/* meta[key], a table, created (replacing a non-table) if need be. */
static struct node *
table_in(struct run *run, struct node *t, const char *key)
{
	struct node *n = tree_get(t, key);

	if (!n || n->kind != NODE_TABLE) {
		n = tree_table(&run->arena);
		tree_set(&run->arena, t, key, strlen(key), 0, span_make(0, 0),
		    n);
	}
	return n;
}

struct node *
session_vars_mut(struct run *run, struct chatfile *c)
{
	return table_in(run, chatfile_metadata_mut(run, c), "variables");
}

struct node *
session_state_mut(struct run *run, struct chatfile *c)
{
	return table_in(run, chatfile_metadata_mut(run, c), "strata");
}

int64_t
session_turn(const struct chatfile *c)
{
	const struct node *m = chatfile_metadata(c);
	const struct node *st = m ? tree_get(m, "strata") : NULL;
	const struct node *t = st ? tree_get(st, "turn") : NULL;

	return t && t->kind == NODE_INT ? t->u.i : 0;
}

size_t
session_clear(struct run *run, struct chatfile *c, enum scope scope)
{
	struct node *st = session_state_mut(run, c);
	struct node *old = tree_get(st, "entries"), *keep;
	size_t i, gone = 0;

	if (!old || old->kind != NODE_ARRAY)
		return 0;
	keep = tree_array(&run->arena);
	for (i = 0; i < old->u.array.n; i++) {
		const struct node *e = old->u.array.items[i];
		const struct node *s = tree_get(e, "scope");

		if (s && s->kind == NODE_STRING &&
		    strcmp(s->u.str.s, names_scope(scope)) == 0)
			gone++;
		else
			tree_push(&run->arena, keep, old->u.array.items[i]);
	}
	tree_set(&run->arena, st, "entries", 7, 0, span_make(0, 0), keep);
	return gone;
}

void
session_end_turn(struct run *run, struct chatfile *c)
{
	struct node *st = session_state_mut(run, c);

	tree_set(&run->arena, st, "turn", 4, 0, span_make(0, 0),
	    tree_int(&run->arena, session_turn(c) + 1));
	session_clear(run, c, SCOPE_TURN);
}

enum role
session_role(const struct node *msg, bool *hidden)
{
	const struct node *extra = tree_get(msg, "extra");
	const struct node *st = extra ? tree_get(extra, "strata") : NULL;
	const struct node *r = st ? tree_get(st, "role") : NULL;
	const struct node *type = extra ? tree_get(extra, "type") : NULL;
	int i;

	*hidden = chatfile_is_system(msg);
	if (r && r->kind == NODE_STRING && strcmp(r->u.str.s, "tool") == 0) {
		*hidden = false;
		return ROLE_TOOL;
	}
	if (r && r->kind == NODE_STRING &&
	    (i = names_index(names_roles, r->u.str.s, r->u.str.len)) >= 0) {
		*hidden = false;
		return (enum role)i;
	}
	if (chatfile_is_user(msg))
		return ROLE_USER;
	if (type && type->kind == NODE_STRING &&
	    strcmp(type->u.str.s, "narrator") == 0)
		return ROLE_SYSTEM;
	return ROLE_ASSISTANT;
}
