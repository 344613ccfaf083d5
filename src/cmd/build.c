/*
 * strata build: print the request body.  Its options and the driver are
 * shared with debug (options.c).
 */
#include "cmd/cmd.h"

const char cmd_build_help[] =
    "usage: strata build [PROFILE] [options]\n"
    "\n"
    "Print the request body the profile composes (no PROFILE: the\n"
    "embedded default).\n"
    "\n"
    "  -u, --user TEXT|-          the current user message (- reads stdin)\n"
    "  -H, --history FILE|-       earlier messages: a JSON array of\n"
    "                             {role, content[, name]}\n"
    "  -c, --context NAME=FILE|-  content of the [[context]] NAME\n"
    "  -v, --var NAME=VALUE       a template variable ({{NAME}})\n"
    "  -s, --set KEY=VALUE        override a profile key (dotted path)\n"
    "      --set-json KEY=JSON    the same, with a JSON value\n"
    "  -i, --inject KEY[@ATTRS]=TEXT\n"
    "                             add an entry (turn scope, priority 100;\n"
    "                             ATTRS: depth=N:role=R:position=P:\n"
    "                             priority=N:scope=S); on a live key, keep\n"
    "                             its priority, place and scope\n"
    "      --remove KEY           remove the entry KEY\n"
    "      --scope LIST           keep only entries of these scopes\n"
    "                             (global,session,turn)\n"
    "  -f, --format FORMAT        openai | anthropic | gemini | responses |\n"
    "                             ollama | messages | text | json\n"
    "  -h, --help                 show this help\n";

int
cmd_build(int argc, char **argv)
{
	return cmd_pipeline(argc, argv, "build", false);
}
