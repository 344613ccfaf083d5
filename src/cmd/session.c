/*
 * strata session FILE ACTION: the rest of a conversation's life -- show
 * it, take back the last turn, set a variable, clear PromptStack scopes,
 * start a new one.  Every change goes through session_update() (locked,
 * re-read, atomic).  Also the session half of strata reply:
 * cmd_reply_session() appends a reply.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "prompt/chat.h"
#include "reply/response.h"
#include "session/session.h"

const char cmd_session_help[] =
    "usage: strata session FILE ACTION [options]\n"
    "\n"
    "FILE is a SillyTavern chat file (.jsonl).  Actions:\n"
    "  show [--json]              the conversation, readable; --json: the\n"
    "                             messages as a history array (build reads it)\n"
    "  undo                       drop the last turn (from the last user\n"
    "                             message to the end)\n"
    "  set-var NAME VALUE         set a chat variable ({{getvar::NAME}})\n"
    "  tool-result ID TEXT [--error]\n"
    "                             append the result of tool call ID (an\n"
    "                             assistant message of the session made it)\n"
    "  clear --scope session|turn drop the session's entries of that scope\n"
    "  new [--user-name NAME] [--char-name NAME] [--greeting TEXT]\n"
    "                             start a session (FILE must not exist);\n"
    "                             the greeting is its first message\n"
    "\n"
    "      --now TIME             the time written (RFC 3339), not the clock\n"
    "  -h, --help                 show this help\n";

struct args {
	const char *action;
	const char *name, *value;       /* set-var, tool-result */
	bool error;                     /* tool-result --error */
	enum scope scope;               /* clear */
	const char *user_name, *char_name, *greeting;
	int64_t now;
	const char *now_arg;            /* --now as given, or NULL */
	bool json;
	size_t changed;                 /* for the message after */
};

static bool
do_undo(struct run *run, struct chatfile *c, void *arg)
{
	size_t i = c->msgs.n;

	(void)arg;
	while (i > 0 && !chatfile_is_user(c->msgs.v[i - 1].obj))
		i--;
	if (i == 0) {
		diag_plain(run, DIAG_ERROR, MSG_SESSION_EMPTY,
		    c->src ? c->src->path : "", "user message", "undo");
		return false;
	}
	chatfile_drop(c, c->msgs.n - (i - 1));
	return true;
}

static bool
do_set_var(struct run *run, struct chatfile *c, void *arg)
{
	struct args *a = arg;
	struct node *vars = session_vars_mut(run, c);

	tree_set(&run->arena, vars, a->name, strlen(a->name), 0,
	    span_make(0, 0), tree_str(&run->arena, a->value));
	/* It may be what creates the session. */
	session_thread(run, c, NULL, a->now_arg);
	return true;
}

/* tool-result: the call must be one an assistant message of the
 * session made, so that every provider can pair the two. */
static bool
do_tool_result(struct run *run, struct chatfile *c, void *arg)
{
	struct args *a = arg;
	struct node *m, *st;
	size_t i, k;

	for (i = c->msgs.n; i-- > 0;) {
		const struct node *ex = tree_get(c->msgs.v[i].obj, "extra");
		const struct node *s = ex ? tree_get(ex, "strata") : NULL;
		const struct node *calls = s ? tree_get(s, "tool_calls") : NULL;

		for (k = 0; calls && calls->kind == NODE_ARRAY &&
		    k < calls->u.array.n; k++) {
			const struct node *id = tree_get(
			    calls->u.array.items[k], "id");

			if (id && id->kind == NODE_STRING &&
			    strcmp(id->u.str.s, a->name) == 0)
				goto found;
		}
	}
	diag_plain(run, DIAG_ERROR, MSG_SESSION_NO_CALL, a->name,
	    c->src ? c->src->path : "");
	return false;
found:
	m = session_message(&run->arena, ROLE_TOOL, "tool", a->value,
	    strlen(a->value), a->now);
	st = tree_get(tree_get(m, "extra"), "strata");
	tree_put(&run->arena, st, "tool_call_id", tree_str(&run->arena,
	    a->name));
	tree_put(&run->arena, st, "is_error", tree_bool(&run->arena,
	    a->error));
	chatfile_append(run, c, m);
	return true;
}

static bool
do_clear(struct run *run, struct chatfile *c, void *arg)
{
	struct args *a = arg;

	a->changed = session_clear(run, c, a->scope);
	return true;
}

static bool
do_new(struct run *run, struct chatfile *c, void *arg)
{
	struct args *a = arg;

	if (c->msgs.n || c->header_raw) {
		diag_plain(run, DIAG_ERROR, MSG_SESSION_EXISTS,
		    c->src ? c->src->path : "");
		return false;
	}
	if (a->greeting)
		chatfile_append(run, c, session_message(&run->arena,
		    ROLE_ASSISTANT, a->char_name, a->greeting,
		    strlen(a->greeting), a->now));
	session_thread(run, c, NULL, a->now_arg);
	return true;
}

/* A message's parts in strata's history shape: text, and images and
 * files by URL (the bytes as a data: URL). */
static struct node *
parts_node(struct arena *a, const struct part *parts, size_t n)
{
	struct node *arr = tree_array(a), *o;
	size_t k;

	for (k = 0; k < n; k++) {
		const struct part *p = &parts[k];

		o = tree_table(a);
		if (p->kind == PART_TEXT) {
			tree_put(a, o, "type", tree_str(a, "text"));
			tree_put(a, o, "text", tree_strref(a, p->data, p->len));
		} else {
			tree_put(a, o, "type", tree_str(a, p->kind ==
			    PART_IMAGE ? "image" : "file"));
			tree_put(a, o, "url", emit_data_url(a, p));
			if (p->url && p->media_type)
				tree_put(a, o, "media_type", tree_str(a,
				    p->media_type));
		}
		tree_push(a, arr, o);
	}
	return arr;
}

/* A message's tool calls (an assistant's) or the call it answers (a
 * tool result's), from extra.strata, as -H takes them. */
static void
tool_fields(struct arena *a, const struct node *m, struct node *o)
{
	const struct node *x = tree_get(m, "extra");
	const struct node *st = x ? tree_get(x, "strata") : NULL;
	const struct node *calls = st ? tree_get(st, "tool_calls") : NULL;
	const struct node *id = st ? tree_get(st, "tool_call_id") : NULL;
	const struct node *err = st ? tree_get(st, "is_error") : NULL;

	if (calls && calls->kind == NODE_ARRAY && calls->u.array.n)
		tree_put(a, o, "tool_calls", tree_copy(a, calls));
	if (id && id->kind == NODE_STRING)
		tree_put(a, o, "tool_call_id", tree_copy(a, id));
	if (err && err->kind == NODE_BOOL && err->u.b)
		tree_put(a, o, "is_error", tree_copy(a, err));
}

/* An assistant's reasoning and what its provider signed, as -H takes
 * them ("reasoning", "strata"). */
static void
reasoning_fields(struct arena *a, const struct node *m, struct node *o)
{
	const struct node *x = tree_get(m, "extra");
	const struct node *st = x ? tree_get(x, "strata") : NULL;
	const struct node *rs = x ? tree_get(x, "reasoning") : NULL;
	const struct node *rp = st ? tree_get(st, "replay") : NULL;

	if (rs && rs->kind == NODE_STRING && rs->u.str.len)
		tree_put(a, o, "reasoning", tree_copy(a, rs));
	if (rp && rp->kind == NODE_TABLE && rp->u.table.n)
		tree_put(a, o, "strata", tree_copy(a, rp));
}

/* Why the provider cut a reply short (extra.strata.cut), or NULL. */
static const char *
cut_reason(const struct node *m)
{
	const struct node *x = tree_get(m, "extra");
	const struct node *st = x ? tree_get(x, "strata") : NULL;
	const struct node *cut = st ? tree_get(st, "cut") : NULL;

	return cut && cut->kind == NODE_STRING ? cut->u.str.s : NULL;
}

/* show: a readable transcript, or the -H history array. */
static bool
show(struct run *run, const struct chatfile *c, bool json, struct buf *out)
{
	struct node *hist = tree_array(&run->arena);
	size_t i;

	if (!json) {
		const char *fp = session_state_str(c, "profile_fingerprint");
		const char *id = session_state_str(c, "thread_id");

		buf_printf(out, "%zu messages, %lld turns completed\n",
		    c->msgs.n, (long long)session_turn(c));
		if (id)
			buf_printf(out, "thread %s\n", id);
		if (fp)
			buf_printf(out, "profile %s\n", fp);
	}
	for (i = 0; i < c->msgs.n; i++) {
		const struct node *m = c->msgs.v[i].obj;
		bool hidden;
		enum role r = session_role(m, &hidden);
		size_t len, k;
		const char *text = chatfile_text(m, &len);
		const struct part *parts;
		size_t np;

		if (!session_parts(run, c->src, m, &parts, &np))
			return false;

		if (json) {
			struct node *o;

			if (hidden)
				continue;
			o = tree_table(&run->arena);
			tree_put(&run->arena, o, "role",
			    tree_str(&run->arena, names_role(r)));
			tree_put(&run->arena, o, "content", np ?
			    parts_node(&run->arena, parts, np) :
			    tree_strref(&run->arena, text, len));
			tool_fields(&run->arena, m, o);
			if (r == ROLE_ASSISTANT)
				reasoning_fields(&run->arena, m, o);
			tree_push(&run->arena, hist, o);
			continue;
		}
		buf_printf(out, "\n[%zu] %s (%s%s%s%s)\n", i + 1,
		    *chatfile_name(m) ? chatfile_name(m) : "?", names_role(r),
		    hidden ? ", hidden" : "", cut_reason(m) ?
		    ", cut short: " : "", cut_reason(m) ? cut_reason(m) : "");
		buf_put(out, text, len);
		buf_putc(out, '\n');
		for (k = 0; k < np; k++)
			if (parts[k].kind != PART_TEXT)
				buf_printf(out, "[%s %s]\n", parts[k].kind ==
				    PART_IMAGE ? "image" : "file",
				    parts[k].url ? parts[k].data :
				    parts[k].media_type ? parts[k].media_type :
				    "?");
	}
	if (json) {
		json_write(out, hist, 2);
		buf_putc(out, '\n');
	}
	return true;
}

static bool
parse_now(struct run *run, const char *s, int64_t *now)
{
	if (!s) {
		*now = clock_now_ms();
		return true;
	}
	if (clock_parse(s, now))
		return true;
	diag_plain(run, DIAG_ERROR, MSG_SESSION_BAD_TIME, s);
	return false;
}

static int
usage(void)
{
	cmd_usage("session");
	return EXIT_USAGE;
}

/* The options (cmd.h: completions and docs are made from them). */
static const struct option session_longopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "error", no_argument, NULL, 'x' },
	{ "scope", required_argument, NULL, 's' },
	{ "user-name", required_argument, NULL, 'U' },
	{ "char-name", required_argument, NULL, 'C' },
	{ "greeting", required_argument, NULL, 'g' },
	{ "now", required_argument, NULL, 'N' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_session_opts = { "h", session_longopts };

int
cmd_session(int argc, char **argv)
{
	struct args a = { 0 };
	const char *now = NULL, *path, *scope = NULL;
	struct run run;
	struct buf out = BUF_INIT;
	int ch, status, nargs;

	a.user_name = "User";
	a.char_name = "Assistant";
	while ((ch = getopt_long(argc, argv, cmd_session_opts.shortopts,
	    cmd_session_opts.longopts, NULL)) != -1) {
		switch (ch) {
		case 'j': a.json = true; break;
		case 'x': a.error = true; break;
		case 's': scope = optarg; break;
		case 'U': a.user_name = optarg; break;
		case 'C': a.char_name = optarg; break;
		case 'g': a.greeting = optarg; break;
		case 'N': now = optarg; break;
		case 'h':
			fputs(cmd_session_help, stdout);
			return EXIT_OK;
		default:
			return usage();
		}
	}
	if (argc - optind < 2)
		return usage();
	path = argv[optind];
	a.action = argv[optind + 1];
	nargs = argc - optind - 2;
	if (strcmp(a.action, "set-var") == 0 ||
	    strcmp(a.action, "tool-result") == 0) {
		if (nargs != 2)
			return usage();
		a.name = argv[optind + 2];
		a.value = argv[optind + 3];
	} else if (nargs != 0) {
		return usage();
	}
	if (strcmp(a.action, "clear") == 0) {
		int i = scope ? names_index(names_scopes, scope,
		    strlen(scope)) : -1;

		if (i != SCOPE_SESSION && i != SCOPE_TURN) {
			fprintf(stderr, "%s: clear needs --scope session or "
			    "--scope turn\n", progname);
			return usage();
		}
		a.scope = (enum scope)i;
	}
	if (strcmp(a.action, "show") != 0 && strcmp(a.action, "undo") != 0 &&
	    strcmp(a.action, "set-var") != 0 &&
	    strcmp(a.action, "tool-result") != 0 &&
	    strcmp(a.action, "clear") != 0 && strcmp(a.action, "new") != 0) {
		fprintf(stderr, "%s: unknown session action '%s'\n", progname,
		    a.action);
		return usage();
	}
	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, NULL);
	a.now_arg = now;
	if (!parse_now(&run, now, &a.now))
		goto out;
	if (strcmp(a.action, "show") == 0) {
		struct chatfile c;
		bool exists;

		if (session_load(&run, path, &c, &exists) &&
		    show(&run, &c, a.json, &out))
			fwrite(out.data, 1, out.len, stdout);
	} else if (strcmp(a.action, "undo") == 0) {
		session_update(&run, path, do_undo, &a);
	} else if (strcmp(a.action, "set-var") == 0) {
		session_update(&run, path, do_set_var, &a);
	} else if (strcmp(a.action, "tool-result") == 0) {
		session_update(&run, path, do_tool_result, &a);
	} else if (strcmp(a.action, "clear") == 0) {
		if (session_update(&run, path, do_clear, &a))
			fprintf(stderr, "%s: %zu %s entries cleared\n",
			    progname, a.changed, scope);
	} else {
		session_update(&run, path, do_new, &a);
	}
out:
	status = diag_status(&run);
	buf_free(&out);
	run_free(&run);
	return status;
}

struct reply_args {
	const struct response *r;
	const char *char_name;          /* NULL: the session's */
	int64_t now;
	bool swipe;
	const char *now_arg;            /* --now as given, or NULL */
};

/* The assistant message of r, with its tool calls and reasoning. */
static struct node *
reply_message(struct run *run, const struct reply_args *ra, const char *name)
{
	struct arena *ar = &run->arena;
	const struct response *r = ra->r;
	struct node *m = session_message(ar, ROLE_ASSISTANT, name, r->text,
	    r->len, ra->now);
	struct node *extra = tree_get(m, "extra"), *st;

	if (r->reasoning)
		tree_put(ar, extra, "reasoning", tree_strref(ar, r->reasoning,
		    r->reasoning_len));
	if (r->ncalls == 0 && !r->replay && !r->cut)
		return m;
	st = tree_put(ar, extra, "strata", tree_table(ar));
	if (r->ncalls)
		tree_put(ar, st, "tool_calls", response_calls(ar, r));
	/* What the provider signed, sent back to it by the next build. */
	if (r->replay)
		tree_put(ar, st, "replay", r->replay);
	/* The provider cut the reply short: session show says so. */
	if (r->cut)
		tree_put(ar, st, "cut", tree_str(ar, r->cut));
	return m;
}

/* swipe: the last message is an assistant reply; the new text becomes
 * its current swipe and the old ones are kept, as SillyTavern keeps
 * them. */
static bool
replace_last(struct run *run, struct chatfile *c, struct node *m)
{
	struct arena *ar = &run->arena;
	struct node *last, *swipes, *old;
	size_t i, len;
	const char *text;

	if (c->msgs.n == 0 || chatfile_is_user(c->msgs.v[c->msgs.n - 1].obj)) {
		diag_plain(run, DIAG_ERROR, MSG_SESSION_EMPTY,
		    c->src ? c->src->path : "", "reply", "swipe");
		return false;
	}
	last = c->msgs.v[c->msgs.n - 1].obj;
	swipes = tree_array(ar);
	old = tree_get(last, "swipes");
	if (old && old->kind == NODE_ARRAY) {
		for (i = 0; i < old->u.array.n; i++)
			tree_push(ar, swipes, old->u.array.items[i]);
	} else {
		text = chatfile_text(last, &len);
		tree_push(ar, swipes, tree_strn(ar, text, len));
	}
	text = chatfile_text(m, &len);
	tree_push(ar, swipes, tree_strn(ar, text, len));
	tree_set(ar, m, "swipe_id", 8, 0, span_make(0, 0),
	    tree_int(ar, (int64_t)swipes->u.array.n - 1));
	tree_set(ar, m, "swipes", 6, 0, span_make(0, 0), swipes);
	c->msgs.v[c->msgs.n - 1].obj = m;
	chatfile_touch(c, c->msgs.n - 1);
	return true;
}

static bool
do_reply(struct run *run, struct chatfile *c, void *arg)
{
	struct reply_args *ra = arg;
	const char *name = ra->char_name ? ra->char_name :
	    session_last_name(c, false, "Assistant");
	struct node *m = reply_message(run, ra, name);

	if (ra->swipe)
		return replace_last(run, c, m);
	chatfile_append(run, c, m);
	session_end_turn(run, c);
	session_thread(run, c, NULL, ra->now_arg);
	return true;
}

bool
cmd_reply_session(struct run *run, const char *path,
    const struct response *r, const char *char_name, const char *now,
    bool swipe)
{
	struct reply_args ra = { r, char_name, 0, swipe, now };

	if (!parse_now(run, now, &ra.now))
		return false;
	return session_update(run, path, do_reply, &ra);
}
