/*
 * strata debug: the per-layer view of a build -- every entry, where it
 * came from, its size, and why it is in or out.  Its options and the
 * driver are shared with build (options.c).
 */
#include "cmd/cmd.h"

const char cmd_debug_help[] =
    "usage: strata debug [PROFILE] [options]\n"
    "\n"
    "Show, for each message the build would send, every entry that reached\n"
    "it (priority, key, layer, role, scope, source, bytes, estimated\n"
    "tokens), then every entry that did not and why; for a SillyTavern\n"
    "build, what each world-info entry did and why; with a token budget,\n"
    "what it cut and its arithmetic.  Takes the options of 'strata build',\n"
    "and:\n"
    "\n"
    "      --json                 print the same as data (the json format)\n"
    "  -f html                    print the stage inspector: one HTML page\n"
    "                             with every message, piece, stage and\n"
    "                             world-info entry, to open in a browser\n"
    "      --stage=NAME           a SillyTavern build: every message's text\n"
    "                             at one stage: raw, regex-pre, macros,\n"
    "                             regex-post\n"
    "      --color=WHEN           colour the view and messages: auto\n"
    "                             (default: a terminal without NO_COLOR),\n"
    "                             always, never\n";

int
cmd_debug(int argc, char **argv)
{
	return cmd_pipeline(argc, argv, "debug", true);
}
