/*
 * The session (session/session.c, session_turn.c) on real files in a
 * temporary directory: a missing file is a new session; a change made
 * by session_update() lands atomically and keeps the lines it did not
 * touch byte for byte; a failed change or a file that does not parse
 * leaves the file as it was; the turn counter, kept entries, variables,
 * profile fingerprint and thread id; message roles; a build's turn
 * written back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "check.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "profile/profile.h"
#include "prompt/chat.h"
#include "prompt/entry.h"
#include "session/session.h"

static struct run run;
static struct buf msgs;
static char note_hello[] = "hello", note_again[] = "again";
static char dir[] = "/tmp/test_session.XXXXXX";

static const char *
at(const char *name)
{
	return arena_printf(&run.arena, "%s/%s", dir, name);
}

static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) == EOF || fclose(f) != 0)
		die("cannot write %s:", path);
}

/* The file's bytes, in the arena ("" when it cannot be read). */
static const char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;
	const char *s;

	if (!f)
		return "";
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_put(&b, chunk, n);
	fclose(f);
	s = arena_strndup(&run.arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

static bool
add_note(struct run *r, struct chatfile *c, void *arg)
{
	chatfile_append(r, c, session_message(&r->arena, ROLE_USER, "Ann",
	    arg, strlen(arg), 0));
	return true;
}

static bool
refuse(struct run *r, struct chatfile *c, void *arg)
{
	(void)r;
	chatfile_drop(c, c->msgs.n);
	return false;
}

static bool
end_turn(struct run *r, struct chatfile *c, void *arg)
{
	session_end_turn(r, c);
	return true;
}

static const char header[] = "{\"chat_metadata\":{\"variables\":{\"x\":\"1\"},"
    "\"strata\":{\"turn\":2,\"entries\":[{\"key\":\"a\",\"content\":\"A\","
    "\"priority\":100,\"role\":\"system\",\"scope\":\"turn\"},{\"key\":\"b\","
    "\"content\":\"B\",\"priority\":100,\"role\":\"system\","
    "\"scope\":\"session\"}]}},\"user_name\":\"unused\","
    "\"character_name\":\"unused\"}\n";
/* A message line as SillyTavern wrote it (spaces and all): kept. */
static const char line1[] = "{\"name\": \"Ann\", \"is_user\": true, "
    "\"mes\": \"hi\"}\n";

static const char sys_line[] = "{\"name\":\"a\",\"is_user\":false,"
    "\"is_system\":true,\"mes\":\"x\"}";
static const char narrator_line[] = "{\"name\":\"n\",\"is_user\":false,"
    "\"mes\":\"x\",\"extra\":{\"type\":\"narrator\"}}";

int
main(void)
{
	struct chatfile c;
	struct session_hold h;
	bool exists, hidden;
	const char *path, *text, *fp1, *fp2, *t1;
	struct node *root;
	size_t len;

	if (!mkdtemp(dir))
		die("mkdtemp:");
	run_init(&run);
	run.diag.to = &msgs;

	/* A missing file is a new, empty session, and nothing is made. */
	path = at("new.jsonl");
	CHECK(session_load(&run, path, &c, &exists));
	CHECK(!exists);
	CHECK_INT(c.msgs.n, 0);
	CHECK_INT(session_turn(&c), 0);
	CHECK(access(path, F_OK) != 0);

	/* A failed change creates nothing. */
	CHECK(!session_update(&run, path, refuse, NULL));
	CHECK(access(path, F_OK) != 0);

	/* The first change creates it: a header, then the message. */
	CHECK(session_update(&run, path, add_note, note_hello));
	CHECK(session_load(&run, path, &c, &exists));
	CHECK(exists);
	CHECK_INT(c.msgs.n, 1);
	text = chatfile_text(c.msgs.v[0].obj, &len);
	CHECK_STR(text, "hello");
	CHECK_STR(session_last_name(&c, true, "User"), "Ann");
	CHECK_STR(session_last_name(&c, false, "Bot"), "Bot");

	/* An existing chat: the lines not changed keep their bytes. */
	path = at("old.jsonl");
	put(path, arena_printf(&run.arena, "%s%s", header, line1));
	CHECK(session_update(&run, path, add_note, note_again));
	text = slurp(path);
	CHECK(strncmp(text, header, strlen(header)) == 0);
	CHECK(strstr(text, line1) != NULL);
	CHECK(strstr(text, "\"mes\":\"again\"") != NULL);

	/* A refused change leaves the file byte for byte. */
	t1 = slurp(path);
	CHECK(!session_update(&run, path, refuse, NULL));
	CHECK_STR(slurp(path), t1);

	/* Ending a turn counts it and drops the turn's entries only. */
	CHECK(session_update(&run, path, end_turn, NULL));
	CHECK(session_load(&run, path, &c, &exists));
	CHECK_INT(session_turn(&c), 3);
	root = tree_get(session_state_mut(&run, &c), "entries");
	CHECK(root && root->kind == NODE_ARRAY && root->u.array.n == 1);
	CHECK_INT(session_clear(&run, &c, SCOPE_SESSION), 1);
	CHECK_INT(session_clear(&run, &c, SCOPE_SESSION), 0);
	CHECK(tree_get(session_vars_mut(&run, &c), "x") != NULL);

	/* A file that does not parse is reported at its line and never
	 * written over. */
	path = at("bad.jsonl");
	put(path, "{\"chat_metadata\":{}}\n{\"mes\": oops}\n");
	buf_reset(&msgs);
	CHECK(!session_update(&run, path, add_note, note_hello));
	CHECK(msgs.data && strstr(msgs.data, "bad.jsonl:2:") != NULL);
	CHECK_STR(slurp(path), "{\"chat_metadata\":{}}\n{\"mes\": oops}\n");

	/* The profile's fingerprint: stable for one tree, another for
	 * another; a session built with another profile is warned about. */
	root = tree_table(&run.arena);
	tree_put(&run.arena, root, "a", tree_int(&run.arena, 1));
	fp1 = session_profile_fp(&run.arena, root);
	CHECK(strncmp(fp1, "fnv1a64:", 8) == 0);
	CHECK_STR(session_profile_fp(&run.arena, root), fp1);
	tree_put(&run.arena, root, "b", tree_int(&run.arena, 2));
	fp2 = session_profile_fp(&run.arena, root);
	CHECK(strcmp(fp1, fp2) != 0);
	chatfile_new(&run, &c);
	session_set_profile(&run, &c, fp1);
	run.diag.warnings = 0;
	session_check_profile(&run, &c, "s.jsonl", fp1);
	CHECK_INT(run.diag.warnings, 0);
	session_check_profile(&run, &c, "s.jsonl", fp2);
	CHECK_INT(run.diag.warnings, 1);

	/* The thread id: a version-4 UUID, the same for the same --seed,
	 * given once. */
	chatfile_new(&run, &c);
	session_thread(&run, &c, "7", NULL);
	t1 = session_state_str(&c, "thread_id");
	CHECK(t1 && strlen(t1) == 36 && t1[14] == '4');
	chatfile_new(&run, &c);
	session_thread(&run, &c, "7", NULL);
	CHECK_STR(session_state_str(&c, "thread_id"), t1);
	session_thread(&run, &c, "8", NULL);
	CHECK_STR(session_state_str(&c, "thread_id"), t1);
	chatfile_new(&run, &c);
	session_thread(&run, &c, "8", NULL);
	CHECK(strcmp(session_state_str(&c, "thread_id"), t1) != 0);

	/* Roles: strata's own, SillyTavern's rules, hidden messages. */
	root = session_message(&run.arena, ROLE_TOOL, "t", "r", 1, 0);
	CHECK_INT(session_role(root, &hidden), ROLE_TOOL);
	CHECK(!hidden);
	root = session_message(&run.arena, ROLE_USER, "u", "q", 1, 0);
	CHECK_INT(session_role(root, &hidden), ROLE_USER);
	root = session_message(&run.arena, ROLE_ASSISTANT, "a", "r", 1, 0);
	CHECK_INT(session_role(root, &hidden), ROLE_ASSISTANT);
	CHECK(json_parse(&run, run_source_mem(&run, "m", sys_line,
	    strlen(sys_line)), &root));
	CHECK_INT(session_role(root, &hidden), ROLE_ASSISTANT);
	CHECK(hidden);
	CHECK(json_parse(&run, run_source_mem(&run, "m", narrator_line,
	    strlen(narrator_line)), &root));
	CHECK_INT(session_role(root, &hidden), ROLE_SYSTEM);
	CHECK(!hidden);

	/* A hold that writes nothing removes the file it made. */
	path = at("held.jsonl");
	CHECK(session_hold(&run, path, &h));
	CHECK(access(path, F_OK) == 0);
	session_release(&h);
	CHECK(access(path, F_OK) != 0);

	/* A build's turn written back under the hold: a new chat's
	 * greeting first, then the message typed; the profile's
	 * fingerprint and a thread id derived from --seed. */
	{
		struct chat chat;
		struct profile prof;
		struct session_turn t;

		memset(&chat, 0, sizeof(chat));
		memset(&prof, 0, sizeof(prof));
		memset(&t, 0, sizeof(t));
		prof.root = tree_table(&run.arena);
		stack_init(&chat.stack, &run.arena);
		chat.profile = &prof;
		t.chat = &chat;
		t.seed = "7";
		t.now_ms = 1000;
		t.greeting = "Welcome.";
		t.char_name = "Mira";
		t.user = "the turn";
		t.user_name = "Ann";
		CHECK(session_hold(&run, path, &h));
		CHECK(session_save_turn(&run, &h, &t));
		session_release(&h);
		CHECK_STR(t.thread, t1);
		CHECK(session_load(&run, path, &c, &exists));
		CHECK_INT(c.msgs.n, 2);
		CHECK_STR(chatfile_text(c.msgs.v[0].obj, &len), "Welcome.");
		CHECK_STR(chatfile_name(c.msgs.v[0].obj), "Mira");
		CHECK(!chatfile_is_user(c.msgs.v[0].obj));
		CHECK_STR(chatfile_text(c.msgs.v[1].obj, &len), "the turn");
		CHECK(chatfile_is_user(c.msgs.v[1].obj));
		CHECK_STR(session_state_str(&c, "profile_fingerprint"),
		    session_profile_fp(&run.arena, prof.root));

		/* The next turn: the greeting is not repeated. */
		t.user = "more";
		CHECK(session_hold(&run, path, &h));
		CHECK(session_save_turn(&run, &h, &t));
		session_release(&h);
		CHECK(session_load(&run, path, &c, &exists));
		CHECK_INT(c.msgs.n, 3);
		CHECK_STR(chatfile_text(c.msgs.v[2].obj, &len), "more");
	}

	unlink(at("new.jsonl"));
	unlink(at("old.jsonl"));
	unlink(at("bad.jsonl"));
	unlink(at("held.jsonl"));
	rmdir(dir);
	buf_free(&msgs);
	run_free(&run);
	return check_done("session");
}
