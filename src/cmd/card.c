/*
 * strata card: read a SillyTavern character card (JSON or PNG), print it
 * as the normalised V3 JSON or one field of it, or write it into a PNG
 * image as SillyTavern does (tEXt "chara" and "ccv3").
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/buf.h"
#include "tavern/card.h"
#include "cmd/cmd.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "data/tree.h"
#include "base/util.h"

const char cmd_card_help[] =
    "usage: strata card FILE [--field NAME]\n"
    "       strata card FILE --png IMAGE -o OUT\n"
    "\n"
    "Read a SillyTavern character card -- V1, V2 or V3 JSON, or a PNG with\n"
    "the card in its tEXt chunks (ccv3 preferred, else chara) -- and print\n"
    "it as normalised V3 JSON.  FILE may be - for standard input.\n"
    "\n"
    "  -F, --field NAME   print one field of data (dotted for inside:\n"
    "                     extensions.depth_prompt.prompt; a number picks\n"
    "                     an array item): a string as it is, with a\n"
    "                     newline; anything else as JSON\n"
    "  -p, --png IMAGE    write the card into IMAGE's chunks, as chara (V2)\n"
    "                     and ccv3 (V3); needs -o\n"
    "  -o, --output OUT   where --png writes (atomically; - is standard\n"
    "                     output, refused on a terminal)\n"
    "  -h, --help         show this help\n";

/* One component of a --field path: a table key or an array index. */
static const struct node *
step(const struct node *n, const char *key, size_t len)
{
	size_t i, idx = 0;

	if (n->kind == NODE_TABLE)
		return tree_getn(n, key, len);
	if (n->kind != NODE_ARRAY || len == 0 || len > 9)
		return NULL;
	for (i = 0; i < len; i++) {
		if (key[i] < '0' || key[i] > '9')
			return NULL;
		idx = idx * 10 + (size_t)(key[i] - '0');
	}
	return idx < n->u.array.n ? n->u.array.items[idx] : NULL;
}

static const struct node *
lookup(const struct node *n, const char *path)
{
	const char *s = path, *dot;

	while (n) {
		dot = strchr(s, '.');
		n = step(n, s, dot ? (size_t)(dot - s) : strlen(s));
		if (!dot)
			break;
		s = dot + 1;
	}
	return n;
}

static bool
print_field(struct run *run, const struct node *v3, const char *name,
    struct buf *out)
{
	const struct node *n = lookup(tree_get(v3, "data"), name);

	if (!n)
		n = lookup(v3, name);
	if (!n) {
		diag_plain(run, DIAG_ERROR, MSG_CARD_NO_FIELD,
		    diag_shown(run, name, strlen(name)));
		return false;
	}
	if (n->kind == NODE_STRING && isatty(STDOUT_FILENO))
		buf_put_term(out, n->u.str.s, n->u.str.len);    /* SECURITY */
	else if (n->kind == NODE_STRING)
		buf_put(out, n->u.str.s, n->u.str.len);
	else
		json_write(out, n, 2);
	buf_putc(out, '\n');
	return true;
}

static bool
write_out(struct run *run, const char *path, const struct buf *b)
{
	if (strcmp(path, "-") == 0) {
		if (fwrite(b->data, 1, b->len, stdout) != b->len) {
			diag_plain(run, DIAG_ERROR, MSG_CARD_WRITE,
			    "standard output");
			diag_system(run);
			return false;
		}
		return true;
	}
	if (!file_replace(path, b->data, b->len)) {
		diag_plain(run, DIAG_ERROR, MSG_CARD_WRITE, path);
		diag_system(run);
		return false;
	}
	return true;
}

/* The options (cmd.h: completions and docs are made from them). */
static const struct option card_longopts[] = {
	{ "field", required_argument, NULL, 'F' },
	{ "png", required_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
const struct cmd_opts cmd_card_opts = { "F:p:o:h", card_longopts };

int
cmd_card(int argc, char **argv)
{
	const char *field = NULL, *png = NULL, *output = NULL;
	struct buf out = BUF_INIT;
	struct card *card;
	struct run run;
	int ch, status;

	while ((ch = getopt_long(argc, argv, cmd_card_opts.shortopts,
	    cmd_card_opts.longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'F':
			field = optarg;
			break;
		case 'p':
			png = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(cmd_card_help, stdout);
			return EXIT_OK;
		default:
			cmd_usage("card");
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || (png && !output) || (output && !png) ||
	    (field && png)) {
		if (optind != argc - 1)
			fprintf(stderr, "%s: %s\n", argv[0], optind == argc ?
			    "name a card FILE" : "only one FILE");
		else if (field && png)
			fprintf(stderr, "%s: --field and --png do not go "
			    "together\n", argv[0]);
		else
			fprintf(stderr, "%s: --png IMAGE and -o OUT go "
			    "together\n", argv[0]);
		cmd_usage("card");
		return EXIT_USAGE;
	}
	if (output && strcmp(output, "-") == 0 && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "%s: error: %s\n", progname,
		    diag_text(MSG_CARD_TTY));
		return EXIT_USAGE;
	}
	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, NULL);
	if (card_read(&run, argv[optind], NULL, &card)) {
		if (png) {
			if (card_write_png(&run, card, png, &out))
				write_out(&run, output, &out);
			buf_reset(&out);
		} else if (field) {
			print_field(&run, card_v3_tree(&run, card), field,
			    &out);
		} else {
			json_write(&out, card_v3_tree(&run, card), 2);
			buf_putc(&out, '\n');
		}
		if (run.diag.errors == 0 && out.len &&
		    fwrite(out.data, 1, out.len, stdout) != out.len)
			diag_system(&run);
	}
	status = diag_status(&run);
	buf_free(&out);
	run_free(&run);
	return status;
}
