/*
 * strata wi: lint and inspect SillyTavern world files, convert them to
 * and from a V2 character_book, and run the world-info engine on a chat
 * to show what each entry did and why.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "cmd/cmd.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "diag/source.h"
#include "tavern/tchat.h"
#include "world/wi.h"
#include "world/world.h"
#include "data/tree.h"
#include "base/util.h"

const char cmd_wi_help[] =
    "usage: strata wi [options] FILE...\n"
    "\n"
    "Read SillyTavern world files (or character_books, or cards holding\n"
    "one), report problems, and list the entries.  With --chat or -u, run\n"
    "the world-info engine and show each entry's outcome.\n"
    "\n"
    "  --to-book              print FILE as a V2 character_book (JSON)\n"
    "  --from-book            print a character_book FILE as a world file\n"
    "  --chat CHAT.jsonl      scan this chat; repeat for a sequence of\n"
    "                         chats that carries timed effects forward\n"
    "  -u, --user TEXT        append a user message to the chat\n"
    "  --settings FILE        settings.json (world_info_settings)\n"
    "  --seed N               seed for probability and group draws (0)\n"
    "  --context N            prompt budget in tokens (default: from\n"
    "                         --settings, else 3795)\n"
    "  --trigger TYPE         normal, continue, impersonate, swipe,\n"
    "                         regenerate or quiet (normal)\n"
    "  --char-book FILE       character lorebook (FILE...: global)\n"
    "  --chat-book FILE       chat lorebook\n"
    "  --persona-book FILE    persona lorebook\n"
    "  --char-filename NAME   card file name, for character filters\n"
    "  --char-tag ID          a tag of the card, for character filters\n"
    "  --card-text KIND=TEXT  text for an entry's match* opt-in: persona,\n"
    "                         description, personality, depth_prompt,\n"
    "                         scenario or creator_notes\n"
    "  --scan-text TEXT       an extension prompt registered for scanning\n"
    "  --json                 the outcome as JSON\n"
    "  -h, --help             show this help\n";

struct book_arg {
	const char *path;
	enum wi_source source;
};

struct wi_opts {
	struct book_arg *books;
	size_t nbooks;
	const char **chats;
	size_t nchats;
	const char *user, *settings, *char_filename;
	const char *card_text[WORLD_MATCH__COUNT];
	const char **tags, **inject;
	size_t ntags, ninject;
	uint64_t seed;
	int64_t context;
	int trigger;
	bool to_book, from_book, json, run;
};

static void
put_keys(struct buf *b, const struct world_strings *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (i)
			buf_puts(b, ", ");
		buf_puts(b, s->v[i]);
	}
}

static void
list(const struct world *w, struct buf *b)
{
	size_t i;

	buf_printf(b, "%s: %zu entries\n", w->name, w->n);
	buf_printf(b, "%6s %-9s %6s %-6s %s\n", "uid", "position", "order",
	    "flags", "comment / keys");
	for (i = 0; i < w->n; i++) {
		const struct world_entry *e = &w->entries[i];
		char flags[7] = "------";
		char pos[32];

		if (e->disable)
			flags[0] = 'd';
		if (e->constant)
			flags[1] = 'c';
		if (e->selective && e->keysecondary.n)
			flags[2] = "&!|%"[e->selective_logic];
		if (e->sticky || e->cooldown || e->delay)
			flags[3] = 't';
		if (e->exclude_recursion || e->prevent_recursion ||
		    e->delay_until_recursion)
			flags[4] = 'r';
		if (*e->group)
			flags[5] = 'g';
		if (e->position == WORLD_DEPTH)
			snprintf(pos, sizeof(pos), "@%lld/%s",
			    (long long)e->depth, e->role == 1 ? "user" :
			    e->role == 2 ? "asst" : "sys");
		else if (e->position == WORLD_OUTLET)
			snprintf(pos, sizeof(pos), "outlet");
		else
			snprintf(pos, sizeof(pos), "%s",
			    world_position_name(e->position));
		buf_printf(b, "%6lld %-9s %6lld %s %s\n", (long long)e->uid,
		    pos, (long long)e->order, flags, e->comment);
		buf_puts(b, "                                 keys: ");
		put_keys(b, &e->key);
		if (e->keysecondary.n) {
			buf_printf(b, "  %s: ",
			    world_logic_name(e->selective_logic));
			put_keys(b, &e->keysecondary);
		}
		buf_putc(b, '\n');
	}
}

static void
show_text(struct buf *b, const char *title, const char *text)
{
	const char *p = text, *nl;

	if (!text || !*text)
		return;
	buf_printf(b, "%s:\n", title);
	for (;;) {
		nl = strchr(p, '\n');
		buf_puts(b, "  | ");
		buf_put(b, p, nl ? (size_t)(nl - p) : strlen(p));
		buf_putc(b, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
}

static void
show_result(struct run *run, struct buf *b, const char *chat,
    const struct wi_result *r)
{
	static const char *const roles[] = { "system", "user", "assistant" };
	struct node *t;
	size_t i;

	buf_printf(b, "== %s: ", chat);
	wi_result_summary(b, r);
	buf_putc(b, '\n');
	for (i = 0; i < r->nrecords; i++)
		wi_record_describe(b, &r->records[i], false);
	show_text(b, "before", r->before_formatted);
	show_text(b, "after", r->after_formatted);
	show_text(b, "an_top", r->an_top);
	show_text(b, "an_bottom", r->an_bottom);
	for (i = 0; i < r->ndepth; i++) {
		char *title = arena_printf(&run->arena, "depth %lld %s",
		    (long long)r->depth[i].depth, roles[r->depth[i].role]);

		show_text(b, title, r->depth[i].text);
	}
	for (i = 0; i < r->nem_top; i++)
		show_text(b, "em_top", r->em_top[i]);
	for (i = 0; i < r->nem_bottom; i++)
		show_text(b, "em_bottom", r->em_bottom[i]);
	for (i = 0; i < r->noutlets; i++)
		show_text(b, arena_printf(&run->arena, "outlet %s",
		    r->outlets[i].name), r->outlets[i].text);
	t = wi_timed_to_node(&run->arena, &r->timed);
	buf_puts(b, "timedWorldInfo: ");
	json_write(b, t, -1);
	buf_putc(b, '\n');
}

static bool
read_node(struct run *run, const char *path, struct node **out)
{
	struct source *src = run_read(run, path, NULL, span_make(0, 0));

	return src && json_parse(run, src, out);
}

static int
engine(struct run *run, const struct wi_opts *o, struct world *worlds,
    struct buf *b)
{
	struct wi_settings s;
	struct wi_book *books = xcalloc(o->nbooks + 1, sizeof(*books));
	struct wi_timed carry = {0};
	struct node *json = tree_array(&run->arena);
	int64_t ctx = 3795;
	size_t i, c, nchats = o->nchats ? o->nchats : 1;
	bool have_carry = false;

	wi_settings_default(&s);
	if (o->settings) {
		struct node *n;

		if (!read_node(run, o->settings, &n) ||
		    !wi_settings_from_node(run, n, &s, &ctx)) {
			free(books);
			return diag_status(run) ? diag_status(run) : EXIT_INPUT;
		}
	}
	if (o->context >= 0)
		ctx = o->context;
	for (i = 0; i < o->nbooks; i++) {
		books[i].world = &worlds[i];
		books[i].source = o->books[i].source;
	}
	for (c = 0; c < nchats; c++) {
		struct tchat chat = {0};
		struct wi_message *msgs;
		struct wi_input in;
		struct wi_result r;
		struct wi_timed timed = {0};
		const char *name = o->nchats ? o->chats[c] : "(no chat)";
		size_t n = 0;

		/* As a build reads it: hidden messages left out, the
		 * current swipe where mes is missing. */
		if (o->nchats && !tchat_read(run, o->chats[c], NULL, &chat))
			break;
		msgs = arena_array(&run->arena, chat.n + 2, sizeof(*msgs));
		for (i = 0; i < chat.n; i++) {
			msgs[n].name = chat.msgs[i].name;
			msgs[n].text = chat.msgs[i].text;
			msgs[n++].is_user = chat.msgs[i].is_user;
		}
		if (o->user) {
			msgs[n].name = chat.user_name &&
			    strcmp(chat.user_name, "unused") != 0 ?
			    chat.user_name : "User";
			msgs[n].text = o->user;
			msgs[n++].is_user = true;
		}
		if (have_carry)
			timed = carry;
		else if (chat.meta)
			wi_timed_from_node(run, tree_get(chat.meta,
			    "timedWorldInfo"), &timed);
		memset(&in, 0, sizeof(in));
		in.books = books;
		in.nbooks = o->nbooks;
		in.messages = msgs;
		in.nmessages = n;
		in.settings = &s;
		in.max_context = ctx;
		in.char_filename = o->char_filename;
		in.char_tags = o->tags;
		in.nchar_tags = o->ntags;
		in.inject = o->inject;
		in.ninject = o->ninject;
		for (i = 0; i < WORLD_MATCH__COUNT; i++)
			in.match_text[i] = o->card_text[i];
		in.trigger = (enum world_trigger)o->trigger;
		in.timed = &timed;
		in.seed = o->seed;
		wi_run(run, &in, &r);
		carry = r.timed;
		have_carry = true;
		if (o->json) {
			struct node *t = wi_result_to_node(&run->arena, &r);

			tree_put(&run->arena, t, "chat", tree_str(&run->arena,
			    name));
			tree_push(&run->arena, json, t);
		} else {
			show_result(run, b, name, &r);
		}
	}
	if (o->json) {
		json_write(b, nchats == 1 && json->u.array.n == 1 ?
		    json->u.array.items[0] : json, 2);
		buf_putc(b, '\n');
	}
	free(books);
	return diag_status(run);
}

static void
add_book(struct wi_opts *o, const char *path, enum wi_source source)
{
	o->books = xreallocarray(o->books, o->nbooks + 1, sizeof(*o->books));
	o->books[o->nbooks].path = path;
	o->books[o->nbooks++].source = source;
}

enum {
	O_TO_BOOK = 256, O_FROM_BOOK, O_CHAT, O_SETTINGS, O_SEED,
	O_CONTEXT, O_TRIGGER, O_CHAR_BOOK, O_CHAT_BOOK,
	O_PERSONA_BOOK, O_CHAR_FILENAME, O_JSON, O_CHAR_TAG,
	O_CARD_TEXT, O_SCAN_TEXT,
};

/* The options (cmd.h: completions and docs are made from them). */
static const struct option wi_longopts[] = {
	{ "to-book", no_argument, NULL, O_TO_BOOK },
	{ "from-book", no_argument, NULL, O_FROM_BOOK },
	{ "chat", required_argument, NULL, O_CHAT },
	{ "user", required_argument, NULL, 'u' },
	{ "settings", required_argument, NULL, O_SETTINGS },
	{ "seed", required_argument, NULL, O_SEED },
	{ "context", required_argument, NULL, O_CONTEXT },
	{ "trigger", required_argument, NULL, O_TRIGGER },
	{ "char-book", required_argument, NULL, O_CHAR_BOOK },
	{ "chat-book", required_argument, NULL, O_CHAT_BOOK },
	{ "persona-book", required_argument, NULL, O_PERSONA_BOOK },
	{ "char-filename", required_argument, NULL, O_CHAR_FILENAME },
	{ "json", no_argument, NULL, O_JSON },
	{ "char-tag", required_argument, NULL, O_CHAR_TAG },
	{ "card-text", required_argument, NULL, O_CARD_TEXT },
	{ "scan-text", required_argument, NULL, O_SCAN_TEXT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_wi_opts = { "u:h", wi_longopts };

static void
opts_free(struct wi_opts *o)
{
	free(o->books);
	free(o->chats);
	free(o->tags);
	free(o->inject);
}

/* Parse strata wi's command line into *o: -1 to go on, else the exit
 * status (--help, a usage error: o is then freed). */
static int
parse(int argc, char **argv, struct wi_opts *o)
{
	static const char *const kinds[WORLD_MATCH__COUNT] = {
		"persona", "description", "personality", "depth_prompt",
		"scenario", "creator_notes",
	};
	char *end;
	int ch, k;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->context = -1;
	while ((ch = getopt_long(argc, argv, cmd_wi_opts.shortopts,
	    cmd_wi_opts.longopts, NULL)) != -1) {
		switch (ch) {
		case O_TO_BOOK:
			o->to_book = true;
			break;
		case O_FROM_BOOK:
			o->from_book = true;
			break;
		case O_CHAT:
			o->chats = xreallocarray(o->chats, o->nchats + 1,
			    sizeof(*o->chats));
			o->chats[o->nchats++] = optarg;
			o->run = true;
			break;
		case 'u':
			o->user = optarg;
			o->run = true;
			break;
		case O_SETTINGS:
			o->settings = optarg;
			break;
		case O_SEED:
			o->seed = strtoull(optarg, &end, 10);
			if (*end || !*optarg)
				goto usage;
			break;
		case O_CONTEXT:
			o->context = strtoll(optarg, &end, 10);
			if (*end || !*optarg || o->context < 0)
				goto usage;
			break;
		case O_TRIGGER:
			for (k = 0; k < WORLD_TRIGGER__COUNT; k++)
				if (strcmp(optarg, world_trigger_name(k)) == 0)
					break;
			if (k == WORLD_TRIGGER__COUNT)
				goto usage;
			o->trigger = k;
			break;
		case O_CHAR_BOOK:
			add_book(o, optarg, WI_SOURCE_CHARACTER);
			break;
		case O_CHAT_BOOK:
			add_book(o, optarg, WI_SOURCE_CHAT);
			break;
		case O_PERSONA_BOOK:
			add_book(o, optarg, WI_SOURCE_PERSONA);
			break;
		case O_CHAR_FILENAME:
			o->char_filename = optarg;
			break;
		case O_JSON:
			o->json = true;
			break;
		case O_CHAR_TAG:
			o->tags = xreallocarray(o->tags, o->ntags + 1,
			    sizeof(*o->tags));
			o->tags[o->ntags++] = optarg;
			break;
		case O_SCAN_TEXT:
			o->inject = xreallocarray(o->inject, o->ninject + 1,
			    sizeof(*o->inject));
			o->inject[o->ninject++] = optarg;
			break;
		case O_CARD_TEXT:
			end = strchr(optarg, '=');
			for (k = 0; end && k < WORLD_MATCH__COUNT; k++)
				if (strlen(kinds[k]) == (size_t)(end - optarg) &&
				    strncmp(optarg, kinds[k], (size_t)(end -
				    optarg)) == 0)
					break;
			if (!end || k == WORLD_MATCH__COUNT)
				goto usage;
			o->card_text[k] = end + 1;
			break;
		case 'h':
			fputs(cmd_wi_help, stdout);
			opts_free(o);
			return EXIT_OK;
		default:
			goto usage;
		}
	}
	for (i = (size_t)optind; i < (size_t)argc; i++)
		add_book(o, argv[i], WI_SOURCE_GLOBAL);
	if (o->nbooks == 0 || (o->to_book && o->from_book) ||
	    ((o->to_book || o->from_book) && (o->nbooks != 1 || o->run)))
		goto usage;
	return -1;
usage:
	cmd_usage("wi");
	opts_free(o);
	return EXIT_USAGE;
}

int
cmd_wi(int argc, char **argv)
{
	struct wi_opts o;
	struct run run;
	struct world *worlds;
	struct buf b = BUF_INIT;
	struct wi_settings ws;
	int status = parse(argc, argv, &o);
	size_t i;
	bool ok = true;

	if (status >= 0)
		return status;
	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, NULL);
	if (!o.run && (o.json || o.seed)) {
		diag_plain(&run, DIAG_ERROR, MSG_WI_NO_CHAT);
		run_free(&run);
		opts_free(&o);
		return EXIT_USAGE;
	}
	/* The settings say whether whole-word matching is on for the
	 * entries that do not say (SillyTavern's default: off). */
	wi_settings_default(&ws);
	if (o.settings) {
		struct node *n;
		int64_t ctx;

		ok = read_node(&run, o.settings, &n) &&
		    wi_settings_from_node(&run, n, &ws, &ctx);
	}
	worlds = arena_array(&run.arena, o.nbooks + 1, sizeof(*worlds));
	for (i = 0; i < o.nbooks; i++) {
		struct source *src = run_read(&run, o.books[i].path, NULL,
		    span_make(0, 0));

		if (!src || !world_read(&run, src, NULL, &worlds[i])) {
			ok = false;
			continue;
		}
		if (!o.to_book && !o.from_book)
			wi_lint(&run, &worlds[i], ws.match_whole_words);
	}
	if (ok && o.to_book) {
		json_write(&b, world_to_book(&run.arena, &worlds[0]), 2);
		buf_putc(&b, '\n');
	} else if (ok && o.from_book) {
		json_write(&b, world_to_file(&run.arena, &worlds[0]), 2);
		buf_putc(&b, '\n');
	} else if (ok && o.run) {
		engine(&run, &o, worlds, &b);
	} else if (ok) {
		for (i = 0; i < o.nbooks; i++) {
			if (i)
				buf_putc(&b, '\n');
			list(&worlds[i], &b);
		}
	}
	if (!o.to_book && !o.from_book && !o.json) {
		/* A human view: the books' text escaped (strata(1),
		 * SECURITY); the listing has no escapes of its own. */
		struct buf t = BUF_INIT;

		buf_put_term(&t, b.data ? b.data : "", b.len);
		buf_free(&b);
		b = t;
	}
	fwrite(b.data ? b.data : "", 1, b.len, stdout);
	if (fflush(stdout) != 0)
		die("cannot write to stdout:");
	buf_free(&b);
	status = diag_status(&run);
	run_free(&run);
	opts_free(&o);
	return status;
}
