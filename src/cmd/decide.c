/*
 * strata decide and strata score: read what a model answered to a
 * planner prompt or an importance prompt (reply/decide.h) and print it
 * normalized, one JSON line, for the loop that called the model.
 *
 * On failure the diagnostics go to stderr as for every command, and
 * stdout still gets one line -- {"action":"error","error":..,"raw":..}
 * -- so a loop never loses the model's text; the exit status is 1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "pipeline/assemble.h"
#include "reply/decide.h"

const char cmd_decide_help[] =
    "usage: strata decide [FILE|-] [options]\n"
    "\n"
    "Read a model's answer to a planner prompt (FILE, or standard input)\n"
    "and print the decision as one JSON line:\n"
    "  {\"action\":\"tool\",\"tool\":NAME,\"args\":{...}}  or\n"
    "  {\"action\":\"finish\",\"message\":TEXT}\n"
    "<think> blocks, Markdown fences, prose around the JSON, single\n"
    "quotes and trailing commas are forgiven.  What cannot be understood\n"
    "exits 1 and prints {\"action\":\"error\",\"error\":WHY,\"raw\":TEXT}.\n"
    "\n"
    "  -p, --profile PROFILE      check the tool name and its args against\n"
    "                             the tools of PROFILE\n"
    "      --stream               print a finish message's text as it\n"
    "                             arrives (for a TTS or a UI); the decision\n"
    "                             line goes to --decision FILE\n"
    "      --decision FILE        also write the decision line to FILE\n"
    "  -h, --help                 show this help\n";

const char cmd_score_help[] =
    "usage: strata score [FILE|-] [options]\n"
    "\n"
    "Read a model's answer to an importance prompt and print the score,\n"
    "a whole number, on one line.  Exits 1 (printing\n"
    "{\"action\":\"error\",...}) when there is no score, several numbers\n"
    "disagree, or it is out of range.\n"
    "\n"
    "      --min N                the lowest score (default 0)\n"
    "      --max N                the highest score (default 10)\n"
    "  -h, --help                 show this help\n";

static void
colorize(struct run *run)
{
	run->diag.color = emit_color(STDERR_FILENO, NULL);
}

static void
print_line(const struct node *n, FILE *f)
{
	struct buf b = BUF_INIT;

	json_write(&b, n, -1);
	buf_putc(&b, '\n');
	fwrite(b.data, 1, b.len, f);
	buf_free(&b);
}

/* The tools of a profile, through the pipeline strata check runs. */
static const struct tool_list *
profile_tools(struct run *run, const char *profile, struct chat *chat)
{
	struct options opt;

	memset(&opt, 0, sizeof(opt));
	opt.profile = profile;
	opt.check_only = true;
	if (!assemble(run, &opt, chat, NULL))
		return NULL;
	emit_shape(run, chat);
	/* An [agent] planner lists its tools in words only. */
	return chat->tools.n ? &chat->tools : &chat->prose_tools;
}

/*
 * --stream: follow the reply as it grows.  Once the top-level object
 * says "action": "finish", the text of its "message" string is written
 * out as far as it is known (whole escapes and whole UTF-8 characters
 * only); the full reply is then read as without --stream.
 */
#define FOLLOW_MAX ((size_t)1 << 20)

struct follower {
	size_t printed;         /* bytes of the message already written */
};

/* Decode the JSON string body at s[i..n) into out, stopping before an
 * incomplete escape; returns true when the closing quote was reached. */
static bool
string_prefix(const char *s, size_t n, size_t i, char q, struct buf *out)
{
	while (i < n) {
		char c = s[i];

		if (c == q)
			return true;
		if (c != '\\') {
			buf_putc(out, c);
			i++;
			continue;
		}
		if (i + 1 >= n)
			return false;
		c = s[i + 1];
		if (c == 'u') {
			uint32_t cp = 0;
			size_t k;
			char enc[4];

			if (i + 6 > n)
				return false;
			for (k = 0; k < 4; k++) {
				int v = hex_value(s[i + 2 + k]);

				if (v < 0)
					return false;
				cp = cp << 4 | (uint32_t)v;
			}
			if (cp >= 0xd800 && cp < 0xe000)
				return false;   /* leave pairs to the end */
			buf_put(out, enc, utf8_encode(cp, enc));
			i += 6;
			continue;
		}
		buf_putc(out, c == 'n' ? '\n' : c == 't' ? '\t' :
		    c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c);
		i += 2;
	}
	return false;
}

/* Skip a JSON string (either quote) at s[i]; returns the offset after
 * it, or n when it does not end yet. */
static size_t
skip_string(const char *s, size_t n, size_t i)
{
	char q = s[i++];

	while (i < n && s[i] != q)
		i += s[i] == '\\' ? 2 : 1;
	return i < n ? i + 1 : n;
}

/* Look at the reply so far; write what is newly known of the message. */
static void
follow(struct follower *fw, const char *s, size_t n)
{
	size_t i, msg = 0;
	bool finish = false, have_msg = false;
	unsigned depth = 0;
	struct buf text = BUF_INIT;
	const char *think = NULL;

	/* An open <think> hides everything until it closes. */
	for (i = 0; i + 7 <= n; i++)
		if (memcmp(s + i, "<think>", 7) == 0) {
			think = s + i;
			break;
		}
	if (think) {
		const char *close = NULL;

		for (i = (size_t)(think - s); i + 8 <= n; i++)
			if (memcmp(s + i, "</think>", 8) == 0) {
				close = s + i + 8;
				break;
			}
		if (!close)
			return;
		i = (size_t)(close - s);
	} else {
		i = 0;
	}
	for (; i < n && s[i] != '{'; i++)
		;
	for (; i < n; i++) {
		char c = s[i];

		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth == 0)
				break;
		} else if ((c == '"' || c == '\'') && depth == 1) {
			size_t kend = skip_string(s, n, i), v;

			if (kend >= n)
				break;
			for (v = kend; v < n && (s[v] == ' ' || s[v] == ':' ||
			    s[v] == '\n' || s[v] == '\t' || s[v] == '\r'); v++)
				;
			if (v >= n)
				break;
			if (kend - i == 8 && memcmp(s + i + 1, "action", 6) == 0 &&
			    (s[v] == '"' || s[v] == '\'')) {
				size_t e = skip_string(s, n, v);

				if (e < n || s[n - 1] == s[v])
					finish = e - v >= 8 &&
					    memcmp(s + v + 1, "finish", 6) == 0;
			} else if (kend - i == 9 &&
			    memcmp(s + i + 1, "message", 7) == 0 &&
			    (s[v] == '"' || s[v] == '\'')) {
				msg = v;
				have_msg = true;
			}
			i = (s[v] == '"' || s[v] == '\'') ?
			    skip_string(s, n, v) - 1 : v - 1;
		} else if (c == '"' || c == '\'') {
			i = skip_string(s, n, i) - 1;
		}
	}
	if (!finish || !have_msg)
		return;
	string_prefix(s, n, msg + 1, s[msg], &text);
	/* Hold back an incomplete UTF-8 character at the end. */
	{
		size_t end = text.len, k = end;
		uint32_t cp;

		while (k > 0 && k > end - 4 && ((unsigned char)text.data[k - 1]
		    & 0xc0) == 0x80)
			k--;
		if (k > 0 && (unsigned char)text.data[k - 1] >= 0xc0 &&
		    utf8_decode(text.data + k - 1, end - k + 1, &cp) == 0)
			end = k - 1;
		if (end > fw->printed) {
			fwrite(text.data + fw->printed, 1, end - fw->printed,
			    stdout);
			fflush(stdout);
			fw->printed = end;
		}
	}
	buf_free(&text);
}

static struct source *
read_streaming(struct run *run, const char *path, struct follower *fw)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : -1;
	ssize_t got;
	struct source *src;

	if (fd < 0)
		return run_read(run, path, NULL, span_make(0, 0));
	for (;;) {
		got = read(fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			buf_free(&b);
			diag_plain(run, DIAG_ERROR, MSG_CANNOT_READ,
			    "standard input");
			return NULL;
		}
		if (got == 0)
			break;
		buf_put(&b, chunk, (size_t)got);
		/* Each look reads the reply from its start: past this size
		 * the rest of the message comes out at the end instead. */
		if (b.len <= FOLLOW_MAX)
			follow(fw, b.data, b.len);
	}
	src = run_source_mem(run, "<stdin>", b.data ? b.data : "", b.len);
	buf_free(&b);
	return src;
}

static int
usage(const char *verb)
{
	cmd_usage(verb);
	return EXIT_USAGE;
}

/* The options (cmd.h: completions and docs are made from them). */
static const struct option decide_longopts[] = {
	{ "profile", required_argument, NULL, 'p' },
	{ "stream", no_argument, NULL, 'S' },
	{ "decision", required_argument, NULL, 'D' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_decide_opts = { "p:h", decide_longopts };

int
cmd_decide(int argc, char **argv)
{
	const char *profile = NULL, *path = "-", *decision = NULL;
	bool stream = false;
	struct follower fw = { 0 };
	struct run run;
	struct chat chat;
	struct decision d;
	const struct tool_list *tools = NULL;
	struct source *src;
	struct node *line = NULL;
	int ch, status;

	while ((ch = getopt_long(argc, argv, cmd_decide_opts.shortopts,
	    cmd_decide_opts.longopts, NULL)) != -1) {
		switch (ch) {
		case 'p': profile = optarg; break;
		case 'S': stream = true; break;
		case 'D': decision = optarg; break;
		case 'h':
			fputs(cmd_decide_help, stdout);
			return EXIT_OK;
		default:
			return usage("decide");
		}
	}
	if (argc - optind > 1)
		return usage("decide");
	if (optind < argc)
		path = argv[optind];
	run_init(&run);
	colorize(&run);
	if (profile && !(tools = profile_tools(&run, profile, &chat)))
		goto out;
	src = stream ? read_streaming(&run, path, &fw) :
	    run_read(&run, path, NULL, span_make(0, 0));
	if (!src)
		goto out;
	if (decide_parse(&run, src, tools, &d))
		line = decide_tree(&run.arena, &d);
	else
		line = decide_error_tree(&run.arena, d.why, src);
	if (stream) {
		/* The message as a whole, where following it printed
		 * nothing (a reply that came in one piece from a file). */
		if (line && d.why == NULL && d.action == DECIDE_FINISH &&
		    d.message_len > fw.printed)
			fwrite(d.message + fw.printed, 1,
			    d.message_len - fw.printed, stdout);
	} else {
		print_line(line, stdout);
	}
	if (decision) {
		FILE *f = fopen(decision, "w");

		if (!f) {
			diag_plain(&run, DIAG_ERROR, MSG_CANNOT_WRITE, decision);
			diag_system(&run);
		} else {
			print_line(line, f);
			if (fclose(f) != 0) {
				diag_plain(&run, DIAG_ERROR, MSG_CANNOT_WRITE,
				    decision);
				diag_system(&run);
			}
		}
	}
out:
	status = diag_status(&run);
	run_free(&run);
	return status;
}

static bool
int_arg(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < -1000000 || v > 1000000)
		return false;
	*out = (int)v;
	return true;
}

/* The options (cmd.h: completions and docs are made from them). */
static const struct option score_longopts[] = {
	{ "min", required_argument, NULL, 'm' },
	{ "max", required_argument, NULL, 'M' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_score_opts = { "h", score_longopts };

int
cmd_score(int argc, char **argv)
{
	const char *path = "-", *why = NULL;
	int ch, lo = 0, hi = 10, score, status;
	struct run run;
	struct source *src;

	while ((ch = getopt_long(argc, argv, cmd_score_opts.shortopts,
	    cmd_score_opts.longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			if (!int_arg(optarg, &lo))
				return usage("score");
			break;
		case 'M':
			if (!int_arg(optarg, &hi))
				return usage("score");
			break;
		case 'h':
			fputs(cmd_score_help, stdout);
			return EXIT_OK;
		default:
			return usage("score");
		}
	}
	if (argc - optind > 1 || lo > hi)
		return usage("score");
	if (optind < argc)
		path = argv[optind];
	run_init(&run);
	colorize(&run);
	if ((src = run_read(&run, path, NULL, span_make(0, 0)))) {
		if (decide_score(&run, src, lo, hi, &score, &why))
			printf("%d\n", score);
		else
			print_line(decide_error_tree(&run.arena, why, src),
			    stdout);
	}
	status = diag_status(&run);
	run_free(&run);
	return status;
}
