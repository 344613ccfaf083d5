#define _DEFAULT_SOURCE             /* realpath() */
#include "session/session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/hash.h"
#include "base/util.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "prompt/chat.h"

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

/*
 * The path a session is written at (see session.h): path itself unless it
 * is a symbolic link, then the link's target; NULL (reported) for a
 * dangling link or one that cannot be resolved.
 */
static const char *
resolve(struct run *run, const char *path)
{
	struct stat st;
	char *real;
	const char *r;

	if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
		return path;
	if (!(real = realpath(path, NULL))) {
		diag_plain(run, DIAG_ERROR, errno == ENOENT ?
		    MSG_SESSION_DANGLING : MSG_SESSION_LOCK, path);
		return NULL;
	}
	r = arena_strdup(&run->arena, real);
	free(real);
	return r;
}

bool
session_hold(struct run *run, const char *path, struct session_hold *h)
{
	memset(h, 0, sizeof(*h));
	h->lk.fd = -1;
	if (!(h->path = resolve(run, path)))
		return false;
	h->created = access(h->path, F_OK) != 0;
	if (!file_lock_open(h->path, &h->lk)) {
		diag_plain(run, DIAG_ERROR, MSG_SESSION_LOCK, path);
		return false;
	}
	return true;
}

void
session_release(struct session_hold *h)
{
	struct stat st;

	/* A session the failed command created is not left behind. */
	if (h->lk.fd >= 0 && h->created && !h->written &&
	    fstat(h->lk.fd, &st) == 0 && st.st_size == 0)
		unlink(h->path);
	file_unlock(&h->lk);
}

/* The held file's bytes, as a source named shown. */
static struct source *
hold_read(struct run *run, struct session_hold *h, const char *shown)
{
	struct buf b = BUF_INIT;
	struct source *src;

	if (!file_lock_read(&h->lk, &b)) {
		diag_plain(run, DIAG_ERROR, MSG_CANNOT_READ, h->path);
		buf_free(&b);
		return NULL;
	}
	src = run_source_mem(run, shown, b.data ? b.data : "", b.len);
	buf_free(&b);
	return src;
}

static void
stamp(struct session_hold *h, const struct stat *st)
{
	h->dev = (unsigned long long)st->st_dev;
	h->ino = (unsigned long long)st->st_ino;
	h->size = (unsigned long long)st->st_size;
	h->mtime_s = (long long)st->st_mtim.tv_sec;
	h->mtime_ns = (long long)st->st_mtim.tv_nsec;
}

bool
session_hold_read(struct run *run, struct session_hold *h, const char *shown)
{
	struct source *src = hold_read(run, h, shown);
	struct stat st;

	if (!src)
		return false;
	src->file = true;       /* the file's bytes, as run_read() gives */
	h->src = src;
	if (fstat(h->lk.fd, &st) != 0) {
		diag_plain(run, DIAG_ERROR, MSG_CANNOT_READ, h->path);
		return false;
	}
	stamp(h, &st);
	return true;
}

/*
 * Whether the path still names the file as session_hold_read() read it:
 * the same file (an editor that writes a new file and renames it over
 * the path makes another), as long, as old.  A program that ignores the
 * lock may have written it during the build; its lines would be lost.
 */
static bool
unchanged(const struct session_hold *h)
{
	struct stat st;
	struct session_hold now;

	if (stat(h->path, &st) != 0)
		return false;
	stamp(&now, &st);
	return now.dev == h->dev && now.ino == h->ino &&
	    now.size == h->size && now.mtime_s == h->mtime_s &&
	    now.mtime_ns == h->mtime_ns;
}

bool
session_update_held(struct run *run, struct session_hold *h, session_fn *fn,
    void *arg)
{
	struct buf out = BUF_INIT;
	const struct source *src = h->src ? h->src : hold_read(run, h,
	    h->path);
	struct chatfile c;
	bool ok = false;

	if (h->src && !unchanged(h)) {
		diag_plain(run, DIAG_ERROR, MSG_SESSION_CHANGED, h->path);
		goto done;
	}
	if (!src || !chatfile_read(run, src, &c) || !fn(run, &c, arg))
		goto done;
	chatfile_write(&c, &out);
	if (!file_replace(h->path, out.data, out.len)) {
		diag_plain(run, DIAG_ERROR, MSG_CANNOT_WRITE, h->path);
		diag_system(run);
		goto done;
	}
	ok = h->written = true;
	h->src = NULL;          /* what was read is not the file now */
done:
	buf_free(&out);
	return ok;
}

bool
session_update(struct run *run, const char *path, session_fn *fn, void *arg)
{
	struct session_hold h;
	bool ok;

	if (!session_hold(run, path, &h))
		return false;
	ok = session_update_held(run, &h, fn, arg);
	session_release(&h);
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

/* t[key], a table, created (replacing a non-table) if need be. */
static struct node *
table_of(struct arena *a, struct node *t, const char *key)
{
	struct node *n = tree_get(t, key);

	if (!n || n->kind != NODE_TABLE) {
		n = tree_table(a);
		tree_set(a, t, key, strlen(key), 0, span_make(0, 0), n);
	}
	return n;
}

void
session_put_media(struct arena *a, struct node *msg,
    const struct part *parts, const char *const *path, size_t n)
{
	struct node *extra = table_of(a, msg, "extra"), *media = NULL, *sm;
	struct node *o, *so;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct part *p = &parts[i];

		if (p->kind != PART_IMAGE)
			continue;
		if (!media) {
			media = tree_array(a);
			tree_set(a, extra, "media", 5, 0, span_make(0, 0),
			    media);
			tree_set(a, extra, "media_display", 13, 0,
			    span_make(0, 0), tree_str(a, "list"));
			tree_set(a, extra, "inline_image", 12, 0,
			    span_make(0, 0), tree_bool(a, true));
			sm = tree_array(a);
			tree_set(a, table_of(a, extra, "strata"), "media", 5, 0,
			    span_make(0, 0), sm);
		}
		o = tree_table(a);
		tree_put(a, o, "url", p->url ? tree_strn(a, p->data, p->len) :
		    tree_str(a, arena_printf(a, "data:%s;base64,%.*s",
		    p->media_type, (int)p->len, p->data)));
		tree_put(a, o, "type", tree_str(a, "image"));
		tree_push(a, media, o);
		so = tree_table(a);
		if (p->media_type)
			tree_put(a, so, "media_type", tree_str(a,
			    p->media_type));
		if (path && path[i])
			tree_put(a, so, "path", tree_str(a, path[i]));
		tree_push(a, sm, so);
	}
}

/* A part from a URL: a data: URL split into media type and base64
 * bytes, held to part_media_ok; http(s) and gs kept as URLs; anything
 * else (a SillyTavern server path) 0.  -1: a bad data: URL, reported at
 * its span. */
static int
url_part(struct run *run, const struct source *src, const struct node *url,
    const char *type, enum part_kind kind, struct part *p)
{
	const char *s;
	size_t n;

	if (!url || url->kind != NODE_STRING)
		return 0;
	s = url->u.str.s;
	n = url->u.str.len;
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->media_type = type;
	if (n >= 5 && memcmp(s, "data:", 5) == 0) {
		if (!part_data_url(&run->arena, s, n, p)) {
			diag_error(run, src, url->span, MSG_PART_DATA_URL,
			    diag_shown(run, s, n));
			return -1;
		}
		if (!part_media_ok(kind, p->media_type)) {
			diag_error(run, src, url->span, MSG_PART_MEDIA_TYPE,
			    diag_shown(run, s, n), p->media_type,
			    kind == PART_IMAGE ? "image/png, image/jpeg, "
			    "image/gif or image/webp" : "a type/subtype");
			return -1;
		}
		return 1;
	}
	if ((n > 7 && memcmp(s, "http://", 7) == 0) ||
	    (n > 8 && memcmp(s, "https://", 8) == 0) ||
	    (n > 5 && memcmp(s, "gs://", 5) == 0)) {
		p->data = s;
		p->len = n;
		p->url = true;
		return 1;
	}
	return 0;
}

/* A string member of t, or NULL. */
static const char *
str_in(const struct node *t, const char *key)
{
	const struct node *n = t ? tree_get(t, key) : NULL;

	return n && n->kind == NODE_STRING ? n->u.str.s : NULL;
}

bool
session_parts(struct run *run, const struct source *src,
    const struct node *msg, const struct part **out, size_t *np)
{
	const struct node *extra = tree_get(msg, "extra");
	const struct node *media, *sm, *img, *file, *st;
	struct arena *a = &run->arena;
	struct part *v;
	size_t n = 0, i, cap, len;
	const char *text = chatfile_text(msg, &len);
	bool ok = true;
	int r;

	*out = NULL;
	*np = 0;
	if (!extra || extra->kind != NODE_TABLE)
		return true;
	media = tree_get(extra, "media");
	if (media && media->kind != NODE_ARRAY)
		media = NULL;
	img = tree_get(extra, "image");
	file = tree_get(extra, "file");
	if (file && file->kind != NODE_TABLE)
		file = NULL;
	if (!(media && media->u.array.n) && !img && !file)
		return true;
	st = tree_get(extra, "strata");
	sm = st && st->kind == NODE_TABLE ? tree_get(st, "media") : NULL;
	if (sm && sm->kind != NODE_ARRAY)
		sm = NULL;
	cap = (media ? media->u.array.n : 0) + 4;
	v = arena_array(a, cap, sizeof(*v));
	if (len) {
		v[n].kind = PART_TEXT;
		v[n].data = text;
		v[n++].len = len;
	}
	for (i = 0; media && i < media->u.array.n; i++) {
		const struct node *m = media->u.array.items[i];
		const struct node *tn = m->kind == NODE_TABLE ?
		    tree_get(m, "type") : NULL;
		const struct node *x = sm && i < sm->u.array.n ?
		    sm->u.array.items[i] : NULL;

		if (m->kind != NODE_TABLE)
			continue;
		if (tn && tn->kind != NODE_STRING) {
			diag_error(run, src, tn->span, MSG_SESSION_MEDIA_KIND,
			    tree_kind_name(tn->kind));
			ok = false;
			continue;
		}
		if (tn && strcmp(tn->u.str.s, "image") != 0)
			continue;
		r = url_part(run, src, tree_get(m, "url"),
		    str_in(x, "media_type"), PART_IMAGE, &v[n]);
		if (r > 0)
			n++;
		else if (r < 0)
			ok = false;
	}
	/* 1.12 and older: one image, kept in media[] by newer versions. */
	if (!(media && media->u.array.n) && (r = url_part(run, src, img, NULL,
	    PART_IMAGE, &v[n])) != 0) {
		if (r > 0)
			n++;
		else
			ok = false;
	}
	if (file && (r = url_part(run, src, tree_get(file, "url"), NULL,
	    PART_FILE, &v[n])) != 0) {
		if (r > 0)
			v[n++].filename = str_in(file, "name");
		else
			ok = false;
	} else if (file && (text = str_in(file, "text")) && *text) {
		/* A file SillyTavern read as text: its text, as it sends. */
		v[n].kind = PART_TEXT;
		v[n].data = text;
		v[n++].len = strlen(text);
	}
	if (!ok || n == (len ? 1u : 0u))
		return ok;
	*out = v;
	*np = n;
	return true;
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

	return t && t->kind == NODE_INT && t->u.i >= 0 ? t->u.i : 0;
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

const char *
session_profile_fp(struct arena *a, const struct node *root)
{
	struct buf b = BUF_INIT;
	uint64_t h;

	if (root)
		json_write(&b, root, -1);
	h = hash_fnv1a64(HASH_FNV_INIT, b.data ? b.data : "", b.len);
	buf_free(&b);
	return arena_printf(a, "fnv1a64:%016" PRIx64, h);
}

/* chat_metadata.strata[key], or NULL. */
static const struct node *
state_get(const struct chatfile *c, const char *key)
{
	const struct node *m = chatfile_metadata(c);
	const struct node *st = m ? tree_get(m, "strata") : NULL;

	return st && st->kind == NODE_TABLE ? tree_get(st, key) : NULL;
}

const char *
session_state_str(const struct chatfile *c, const char *key)
{
	const struct node *n = state_get(c, key);

	return n && n->kind == NODE_STRING ? n->u.str.s : NULL;
}

/* A warning at n (a stored value), or without a place when the header
 * was not read from a file. */
static void
warn_at(struct run *run, const struct chatfile *c, const struct node *n,
    enum diag_msg id, const char *arg)
{
	if (c->src && c->header_raw && n->span.len)
		diag_warning(run, c->src, n->span, id, arg);
	else
		diag_plain(run, DIAG_WARNING, id, arg);
}

void
session_check_profile(struct run *run, const struct chatfile *c,
    const char *path, const char *fp)
{
	const struct node *n = state_get(c, "profile_fingerprint");
	const struct node *t = state_get(c, "turn");
	char what[64];

	if (t && (t->kind != NODE_INT || t->u.i < 0)) {
		if (t->kind == NODE_INT)
			snprintf(what, sizeof(what), "%lld",
			    (long long)t->u.i);
		warn_at(run, c, t, MSG_SESSION_TURN, t->kind == NODE_INT ?
		    what : tree_kind_article(t->kind));
	}
	if (n && n->kind != NODE_STRING)
		warn_at(run, c, n, MSG_SESSION_FP, tree_kind_article(n->kind));
	if (!n || n->kind != NODE_STRING || strcmp(n->u.str.s, fp) == 0)
		return;
	if (c->src && c->header_raw)
		diag_warning(run, c->src, n->span, MSG_SESSION_PROFILE, path,
		    n->u.str.s, fp);
	else
		diag_plain(run, DIAG_WARNING, MSG_SESSION_PROFILE, path,
		    n->u.str.s, fp);
}

void
session_set_profile(struct run *run, struct chatfile *c, const char *fp)
{
	tree_set(&run->arena, session_state_mut(run, c),
	    "profile_fingerprint", 19, 0, span_make(0, 0),
	    tree_str(&run->arena, fp));
}

void
session_thread(struct run *run, struct chatfile *c, const char *seed,
    const char *now)
{
	const struct node *old = state_get(c, "thread_id");
	struct node *st;
	unsigned char u[16];
	uint64_t h[2];
	size_t i;

	if (old && old->kind == NODE_STRING)
		return;
	/* Not a string: warned about (as a changed profile is) and
	 * replaced by a new id. */
	if (old && c->src && old->span.len)
		diag_warning(run, c->src, old->span, MSG_SESSION_THREAD,
		    tree_kind_name(old->kind));
	else if (old)
		diag_plain(run, DIAG_WARNING, MSG_SESSION_THREAD,
		    tree_kind_name(old->kind));
	st = session_state_mut(run, c);
	if (seed || now) {
		h[0] = hash_fnv1a64(HASH_FNV_INIT, seed ? "seed:" : "now:",
		    seed ? 5 : 4);
		h[0] = hash_fnv1a64(h[0], seed ? seed : now,
		    strlen(seed ? seed : now));
		h[1] = hash_fnv1a64(h[0], "thread", 6);
		for (i = 0; i < 16; i++)
			u[i] = (unsigned char)(h[i / 8] >> (8 * (i % 8)));
	} else if (getrandom(u, sizeof(u), 0) != (ssize_t)sizeof(u)) {
		/* No entropy: the clock and the process, still unique
		 * enough for a name. */
		h[0] = hash_fnv1a64(HASH_FNV_INIT, &(int64_t){ clock_now_ms() },
		    sizeof(int64_t));
		h[1] = hash_fnv1a64(h[0], &(pid_t){ getpid() }, sizeof(pid_t));
		for (i = 0; i < 16; i++)
			u[i] = (unsigned char)(h[i / 8] >> (8 * (i % 8)));
	}
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
	tree_set(&run->arena, st, "thread_id", 9, 0, span_make(0, 0),
	    tree_str(&run->arena, arena_printf(&run->arena,
	    "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
	    "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4], u[5],
	    u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
	    u[15])));
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
