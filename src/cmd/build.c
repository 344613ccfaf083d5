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
    "      --image FILE|URL       an image in the current turn (repeatable)\n"
    "  -H, --history FILE|-       earlier messages: a JSON array of\n"
    "                             {role, content[, name]}, tool calls and\n"
    "                             results, images (see strata(1))\n"
    "  -c, --context NAME=FILE|-  content of the [[context]] NAME\n"
    "  -v, --var NAME=VALUE       a template variable ({{NAME}})\n"
    "  -s, --set KEY=VALUE        override a profile key (dotted path)\n"
    "  -i, --inject KEY=TEXT      add a turn-scope entry (priority 100)\n"
    "  -f, --format FORMAT        openai | anthropic | gemini | messages |\n"
    "                             text | json\n"
    "  -h, --help                 show this help\n";

int
cmd_build(int argc, char **argv)
{
	return cmd_pipeline(argc, argv, "build", false);
}
