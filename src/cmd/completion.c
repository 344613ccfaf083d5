/*
 * strata completion SHELL: the bash, zsh and fish completion scripts,
 * made from the command table and each command's getopt table (cmd.h),
 * so that an option the parser takes is an option the shell offers.
 * meson builds the three at build time and installs them.  Option values
 * with a fixed set of words (formats, --color, ...) complete to those
 * words; other values and operands complete to file names.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "base/util.h"
#include "diag/diag.h"
#include "prompt/names.h"

/* The words an option's value may be, space-separated; NULL: a file. */
static const char *
values(const char *cmd, const char *opt, char *buf, size_t size)
{
	size_t i, n = 0;

	if (strcmp(opt, "format") == 0 && strcmp(cmd, "card") != 0) {
		buf[0] = '\0';
		if (strcmp(cmd, "batch") == 0)
			n += (size_t)snprintf(buf, size,
			    "openai-batch anthropic-batch");
		for (i = 0; names_formats[i] && n < size; i++)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
			    n ? " " : "", names_formats[i]);
		return buf;
	}
	if (strcmp(opt, "color") == 0)
		return "auto always never";
	if (strcmp(opt, "profile-format") == 0)
		return "toml yaml";
	if (strcmp(opt, "scope") == 0)
		return "global session turn";
	if (strcmp(opt, "log-level") == 0)
		return "error warning info debug";
	if (strcmp(opt, "trigger") == 0)
		return "normal continue impersonate swipe regenerate quiet";
	return NULL;
}

/* The words a command's first operand may be; NULL: a file. */
static const char *
operands(const char *cmd)
{
	if (strcmp(cmd, "completion") == 0)
		return "bash zsh fish";
	if (strcmp(cmd, "templates") == 0)
		return "list show export";
	return NULL;
}

/* Options of debug's that build's table shares but build refuses. */
static bool
debug_only(const char *cmd, const char *opt)
{
	return strcmp(cmd, "build") == 0 && (strcmp(opt, "json") == 0 ||
	    strcmp(opt, "stage") == 0);
}

/* s in single quotes for fish ('\'' escapes a quote inside them) or
 * for bash and zsh (a quote ends them: '\''). */
static void
squote(const char *s, bool fish_style)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'' && fish_style)
			fputs("\\'", stdout);
		else if (*s == '\'')
			fputs("'\\''", stdout);
		else if (*s == '\\' && fish_style)
			fputs("\\\\", stdout);
		else
			putchar(*s);
	}
	putchar('\'');
}

/* The short letter of option o, or 0. */
static int
short_of(const struct cmd_opts *c, const struct option *o)
{
	if (o->flag || o->val <= 0 || o->val > 127 || o->val == ':' ||
	    !strchr(c->shortopts, o->val))
		return 0;
	return o->val;
}

static void
bash(const struct cmd_command *v, size_t n)
{
	const struct option *o;
	char buf[512];
	size_t i;

	printf("# bash completion for strata: made by 'strata completion "
	    "bash' from its option tables\n"
	    "_strata()\n{\n"
	    "\tlocal cur prev cmd i opts\n"
	    "\tcur=${COMP_WORDS[COMP_CWORD]}\n"
	    "\tprev=${COMP_WORDS[COMP_CWORD-1]}\n"
	    "\tcmd=\n"
	    "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	    "\t\tcase ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; "
	    "break ;; esac\n"
	    "\tdone\n"
	    "\tif [[ -z $cmd ]]; then\n"
	    "\t\tCOMPREPLY=($(compgen -W '--help --version");
	for (i = 0; i < n; i++)
		printf(" %s", v[i].name);
	printf("' -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase $cmd in\n");
	for (i = 0; i < n; i++) {
		const struct cmd_opts *c = v[i].opts;
		const char *w = operands(v[i].name);
		bool any = false;

		printf("\t%s)\n\t\tcase $prev in\n", v[i].name);
		for (o = c ? c->longopts : NULL; o && o->name; o++) {
			const char *vals = values(v[i].name, o->name, buf,
			    sizeof(buf));

			if (o->has_arg != required_argument)
				continue;
			if (short_of(c, o))
				printf("\t\t-%c|", short_of(c, o));
			else
				printf("\t\t");
			if (vals)
				printf("--%s) COMPREPLY=($(compgen -W '%s' -- "
				    "\"$cur\")); return ;;\n", o->name, vals);
			else
				printf("--%s) COMPREPLY=($(compgen -f -- "
				    "\"$cur\")); return ;;\n", o->name);
		}
		printf("\t\tesac\n\t\topts='");
		for (o = c ? c->longopts : NULL; o && o->name; o++) {
			if (debug_only(v[i].name, o->name))
				continue;
			if (short_of(c, o)) {
				printf("%s-%c", any ? " " : "", short_of(c, o));
				any = true;
			}
			printf("%s--%s", any ? " " : "", o->name);
			any = true;
		}
		printf("'\n");
		if (w)
			printf("\t\tif [[ $cur != -* ]]; then COMPREPLY=($(compgen "
			    "-W '%s' -- \"$cur\")); return; fi\n", w);
		if (strcmp(v[i].name, "help") == 0) {
			size_t k;

			printf("\t\tif [[ $cur != -* ]]; then COMPREPLY=($(compgen "
			    "-W '");
			for (k = 0; k < n; k++)
				printf("%s%s", k ? " " : "", v[k].name);
			printf("' -- \"$cur\")); return; fi\n");
		}
		printf("\t\t;;\n");
	}
	printf("\tesac\n"
	    "\tif [[ $cur == -* ]]; then\n"
	    "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	    "\telse\n"
	    "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	    "\tfi\n"
	    "}\n"
	    "complete -o filenames -F _strata strata\n");
}

static void
zsh(const struct cmd_command *v, size_t n)
{
	const struct option *o;
	char buf[512];
	size_t i;

	printf("#compdef strata\n"
	    "# zsh completion for strata: made by 'strata completion zsh' "
	    "from its option tables\n"
	    "_strata() {\n"
	    "\tlocal -a commands\n"
	    "\tcommands=(\n");
	for (i = 0; i < n; i++) {
		char item[256];

		snprintf(item, sizeof(item), "%s:%s", v[i].name,
		    v[i].summary);
		fputs("\t\t", stdout);
		squote(item, false);
		putchar('\n');
	}
	printf("\t)\n"
	    "\tif (( CURRENT == 2 )); then\n"
	    "\t\t_describe -t commands 'strata command' commands\n"
	    "\t\treturn\n"
	    "\tfi\n"
	    "\tcase ${words[2]} in\n");
	for (i = 0; i < n; i++) {
		const struct cmd_opts *c = v[i].opts;
		const char *w = operands(v[i].name);

		printf("\t%s)\n\t\t_arguments -s", v[i].name);
		for (o = c ? c->longopts : NULL; o && o->name; o++) {
			const char *vals = values(v[i].name, o->name, buf,
			    sizeof(buf));
			const char *arg = o->has_arg != required_argument ?
			    "" : vals ? "" : ":value:_files";
			char words[600];

			if (debug_only(v[i].name, o->name))
				continue;
			if (o->has_arg == required_argument && vals) {
				snprintf(words, sizeof(words), ":value:(%s)",
				    vals);
				arg = words;
			}
			/* Options that may repeat (-c, -v, -i, ...) are
			 * offered again: no exclusion lists. */
			if (short_of(c, o))
				printf(" \\\n\t\t    '*-%c%s'", short_of(c, o),
				    arg);
			printf(" \\\n\t\t    '*--%s%s'", o->name, arg);
		}
		if (w)
			printf(" \\\n\t\t    '1:word:(%s)'", w);
		else if (strcmp(v[i].name, "help") == 0)
			printf(" \\\n\t\t    '1:command:->cmds'");
		printf(" \\\n\t\t    '*:file:_files'\n");
		if (strcmp(v[i].name, "help") == 0)
			printf("\t\t[[ $state == cmds ]] && _describe -t "
			    "commands 'strata command' commands\n");
		printf("\t\t;;\n");
	}
	printf("\tesac\n}\n_strata \"$@\"\n");
}

static void
fish(const struct cmd_command *v, size_t n)
{
	const struct option *o;
	char buf[512];
	size_t i;

	printf("# fish completion for strata: made by 'strata completion "
	    "fish' from its option tables\n"
	    "complete -c strata -f\n"
	    "complete -c strata -n __fish_use_subcommand -l help\n"
	    "complete -c strata -n __fish_use_subcommand -l version\n");
	for (i = 0; i < n; i++) {
		printf("complete -c strata -n __fish_use_subcommand -a %s -d ",
		    v[i].name);
		squote(v[i].summary, true);
		putchar('\n');
	}
	for (i = 0; i < n; i++) {
		const struct cmd_opts *c = v[i].opts;
		const char *w = operands(v[i].name);

		for (o = c ? c->longopts : NULL; o && o->name; o++) {
			const char *vals = values(v[i].name, o->name, buf,
			    sizeof(buf));

			if (debug_only(v[i].name, o->name))
				continue;
			printf("complete -c strata -n '__fish_seen_subcommand_"
			    "from %s'", v[i].name);
			if (short_of(c, o))
				printf(" -s %c", short_of(c, o));
			printf(" -l %s", o->name);
			if (o->has_arg == required_argument)
				printf(vals ? " -x -a '%s'" : " -r -F", vals);
			printf("\n");
		}
		if (w)
			printf("complete -c strata -n '__fish_seen_subcommand_"
			    "from %s' -a '%s'\n", v[i].name, w);
		else if (strcmp(v[i].name, "help") == 0) {
			size_t k;

			printf("complete -c strata -n '__fish_seen_subcommand_"
			    "from help' -a '");
			for (k = 0; k < n; k++)
				printf("%s%s", k ? " " : "", v[k].name);
			printf("'\n");
		} else {
			printf("complete -c strata -n '__fish_seen_subcommand_"
			    "from %s' -F\n", v[i].name);
		}
	}
}

int
cmd_completion_script(const char *shell, const struct cmd_command *v,
    size_t n)
{
	if (strcmp(shell, "bash") == 0)
		bash(v, n);
	else if (strcmp(shell, "zsh") == 0)
		zsh(v, n);
	else if (strcmp(shell, "fish") == 0)
		fish(v, n);
	else {
		fprintf(stderr, "%s: completion: unknown shell '%s' (expected "
		    "bash, zsh or fish)\n", progname, shell);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}
