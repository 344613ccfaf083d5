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

#include "base/buf.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "data/json.h"
#include "diag/run.h"
#include "emit/emit.h"
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
    "  -h, --help                 show this help\n";

/* The options (cmd.h: completions and docs are made from them). */
static const struct option reply_longopts[] = {
	{ "from", required_argument, NULL, 'F' },
	{ "session", required_argument, NULL, 'S' },
	{ "swipe", no_argument, NULL, 'W' },
	{ "char-name", required_argument, NULL, 'C' },
	{ "now", required_argument, NULL, 'N' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_reply_opts = { "h", reply_longopts };

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
		case 'h':
			fputs(cmd_reply_help, stdout);
			return EXIT_OK;
		default:
			cmd_usage("reply");
			return EXIT_USAGE;
		}
	}
	if (argc - optind > 1 || (swipe && !session)) {
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
			cmd_reply_session(&run, session, &r, char_name, now,
			    swipe);
		} else {
			json_write(&out, response_message(&run.arena, &r), -1);
			buf_putc(&out, '\n');
			fwrite(out.data, 1, out.len, stdout);
		}
	}
	buf_free(&out);
	status = diag_status(&run);
	run_free(&run);
	return status;
}
