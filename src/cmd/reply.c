/*
 * strata reply: the assistant message in a provider's response body or
 * stream (or in plain text), as strata's history shape, on one JSON line
 * -- what a loop appends to the history it passes back with -H -- or
 * appended to a session.  The reply is TEXT given as the argument, or
 * standard input (no argument, or -).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "pipeline/hook.h"
#include "reply/response.h"
#include "session/session.h"

const char cmd_reply_help[] =
    "usage: strata reply [options] [TEXT|-]\n"
    "\n"
    "Read a reply -- TEXT, or standard input when there is none or it is\n"
    "-- and print the assistant message as one JSON line:\n"
    "{\"role\":\"assistant\",\"content\":..,\"tool_calls\":[..]}.  A provider's\n"
    "response body or stream (OpenAI Chat Completions or Responses,\n"
    "Anthropic Messages, Gemini, Ollama) is recognised by its shape;\n"
    "anything else that is no reply (an error body, an empty reply, a cut\n"
    "stream, HTML, empty input) exits 1 and changes nothing.\n"
    "\n"
    "      --from FORMAT          read the input only as text, openai,\n"
    "                             responses, anthropic, gemini or ollama\n"
    "      --session FILE         append the reply to this session instead\n"
    "                             (a SillyTavern chat file) and end the turn\n"
    "      --swipe                with --session: the reply replaces the last\n"
    "                             one, which is kept as a swipe\n"
    "      --char-name NAME       the reply's speaker (default: the session's)\n"
    "      --now TIME             the send_date written (RFC 3339)\n"
    "      --hook POINT=COMMAND   with --session: a filter at\n"
    "                             beforeSaveResponse or afterSaveResponse\n"
    "                             (JSON in, JSON out; strata(1) HOOKS)\n"
    "      --hook-timeout SECONDS each hook's time (default 10)\n"
    "  -h, --help                 show this help\n";

/* The options (cmd.h: completions and docs are made from them). */
static const struct option reply_longopts[] = {
	{ "from", required_argument, NULL, 'F' },
	{ "session", required_argument, NULL, 'S' },
	{ "swipe", no_argument, NULL, 'W' },
	{ "char-name", required_argument, NULL, 'C' },
	{ "now", required_argument, NULL, 'N' },
	{ "hook", required_argument, NULL, 'K' },
	{ "hook-timeout", required_argument, NULL, 'T' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_reply_opts = { "h", reply_longopts };

/* --hook POINT=COMMAND: one of the two points reply reaches. */
static bool
reply_hook(const char *arg, struct hook **v, size_t *n)
{
	static const char *const points[] = { "beforeSaveResponse",
	    "afterSaveResponse" };
	const char *eq = strchr(arg, '=');
	size_t i;

	for (i = 0; eq && eq[1] && i < 2; i++)
		if (strlen(points[i]) == (size_t)(eq - arg) &&
		    strncmp(points[i], arg, (size_t)(eq - arg)) == 0) {
			*v = xrealloc(*v, (*n + 1) * sizeof(**v));
			(*v)[*n].point = points[i];
			(*v)[(*n)++].command = eq + 1;
			return true;
		}
	fprintf(stderr, "%s reply: --hook takes beforeSaveResponse=COMMAND "
	    "or afterSaveResponse=COMMAND, not '%s' (see strata(1), "
	    "HOOKS)\n", progname, arg);
	return false;
}

/* The text of n as compact JSON (in the arena). */
static const char *
compact(struct arena *a, const struct node *n)
{
	struct buf b = BUF_INIT;
	const char *s;

	json_write(&b, n, -1);
	buf_putc(&b, '\0');
	s = arena_strdup(a, b.data);
	buf_free(&b);
	return s;
}

/*
 * beforeSaveResponse (the reply about to be saved: what the hook
 * returns for its content and reasoning is saved) and
 * afterSaveResponse (once saved: checked, not used).  The message is
 * the one reply prints; a hook may change its texts, nothing else.
 */
static bool
save_hook(struct run *run, const struct hooks *h, const char *point,
    struct response *r)
{
	struct arena *a = &run->arena;
	struct node *in, *d;
	size_t i;

	if (!hook_wanted(h, point))
		return true;
	in = response_message(a, r);
	d = in;
	if (!hook_run(run, h, point, &d))
		return false;
	for (i = 0; i < d->u.table.n; i++) {
		const struct member *m = &d->u.table.items[i];

		if (strcmp(m->key, "content") == 0 ||
		    strcmp(m->key, "reasoning") == 0)
			continue;
		if (strcmp(compact(a, m->value), compact(a, tree_get(in,
		    m->key)))) {
			diag_error(run, run_source(run, m->value->src),
			    m->value->span, MSG_HOOK_REPLY, m->key);
			return false;
		}
	}
	if (strcmp(point, "beforeSaveResponse") == 0) {
		const struct node *c = tree_get(d, "content");
		const struct node *rs = tree_get(d, "reasoning");

		r->text = c->u.str.s;
		r->len = c->u.str.len;
		if (rs) {
			r->reasoning = rs->u.str.s;
			r->reasoning_len = rs->u.str.len;
		}
	}
	return true;
}

int
cmd_reply(int argc, char **argv)
{
	enum response_format from = RESPONSE_GUESS;
	const char *text = NULL, *session = NULL, *char_name = NULL;
	const char *now = NULL;
	bool swipe = false;
	struct run run;
	struct source *src;
	struct response r;
	struct buf out = BUF_INIT;
	struct hook *hv = NULL;
	struct hooks hooks = { NULL, 0, 0 };
	int ch, status;

	while ((ch = getopt_long(argc, argv, cmd_reply_opts.shortopts,
	    cmd_reply_opts.longopts, NULL)) != -1) {
		switch (ch) {
		case 'F':
			if (!response_format_parse(optarg, &from)) {
				fprintf(stderr, "%s: unknown response format "
				    "'%s' (expected text, openai, responses, "
				    "anthropic, gemini or ollama)\n", progname, optarg);
				cmd_usage("reply");
				return EXIT_USAGE;
			}
			break;
		case 'S': session = optarg; break;
		case 'W': swipe = true; break;
		case 'C': char_name = optarg; break;
		case 'N': now = optarg; break;
		case 'K':
			if (!reply_hook(optarg, &hv, &hooks.n)) {
				free(hv);
				return EXIT_USAGE;
			}
			break;
		case 'T':
			if (!optarg[0] || optarg[strspn(optarg,
			    "0123456789")] || strlen(optarg) > 6 ||
			    atoi(optarg) == 0) {
				fprintf(stderr, "%s reply: --hook-timeout takes "
				    "a positive number of seconds, not '%s'\n",
				    progname, optarg);
				free(hv);
				return EXIT_USAGE;
			}
			hooks.timeout_ms = (unsigned)atoi(optarg) * 1000u;
			break;
		case 'h':
			fputs(cmd_reply_help, stdout);
			return EXIT_OK;
		default:
			cmd_usage("reply");
			return EXIT_USAGE;
		}
	}
	if (hooks.n && !session) {
		fprintf(stderr, "%s reply: --hook: the save points are reached "
		    "only with --session\n", progname);
		free(hv);
		return EXIT_USAGE;
	}
	hooks.v = hv;
	if (argc - optind > 1 || (swipe && !session)) {
		free(hv);
		cmd_usage("reply");
		return EXIT_USAGE;
	}
	if (optind < argc && strcmp(argv[optind], "-") != 0)
		text = argv[optind];
	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, NULL);
	src = text ? run_source_mem(&run, "<argument>", text, strlen(text)) :
	    run_read(&run, "-", NULL, span_make(0, 0));
	if (src &&
	    response_read(&run, src, from, &r)) {
		if (session) {
			if (save_hook(&run, &hooks, "beforeSaveResponse",
			    &r) && cmd_reply_session(&run, session, &r,
			    char_name, now, swipe))
				save_hook(&run, &hooks, "afterSaveResponse",
				    &r);
		} else {
			json_write(&out, response_message(&run.arena, &r), -1);
			buf_putc(&out, '\n');
			fwrite(out.data, 1, out.len, stdout);
		}
	}
	buf_free(&out);
	free(hv);
	status = diag_status(&run);
	run_free(&run);
	return status;
}
