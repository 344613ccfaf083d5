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
    "                             ollama | messages | text | review |\n"
    "                             json | prompt | system | user\n"
    "      --session FILE         a SillyTavern chat file: its messages are\n"
    "                             the history, its variables and entries\n"
    "                             are used; -u is appended once built\n"
    "      --dry-run              with --session: write nothing\n"
    "      --type TYPE            normal | continue | impersonate | swipe |\n"
    "                             regenerate | quiet (regenerate with\n"
    "                             --session: rebuild the last turn, no -u)\n"
    "      --turn first|resume    force the first turn or a resumed one\n"
    "      --now TIME             the time for --session and the macros\n"
    "                             (RFC 3339)\n"
    "      --input FILE.json      template inputs (one JSON object)\n"
    "      --scene chat|work      the scene (SOUL.md is sent in chat only)\n"
    "      --log-level debug      trace the rendered prompt on stderr\n"
    "SillyTavern (see strata-tavern(7)):\n"
    "      --card FILE            a character card (PNG or JSON)\n"
    "      --preset FILE          a Chat Completion preset\n"
    "      --chat FILE.jsonl      the chat (else a new one: the greeting)\n"
    "      --settings FILE        settings.json (persona, world info, regex)\n"
    "      --world FILE           a lorebook (repeatable)\n"
    "      --regex FILE           regex scripts (repeatable)\n"
    "      --persona-name NAME, --persona TEXT\n"
    "                             the persona, over settings.json's\n"
    "      --greeting N           the card's Nth alternate greeting\n"
    "      --seed N               {{random}}, {{roll}} and world info rolls\n"
    "      --state FILE|-         an [agent] profile's loop state (JSON)\n"
    "      --prestart TOOL=FILE   add a prestart tool result to the state\n"
    "      --tool-result TOOL=FILE  add a tool run of this turn\n"
    "      --profile-format toml|yaml\n"
    "                             the profile's format, whatever its name\n"
    "                             (PROFILE - reads standard input)\n"
    "      --color=WHEN           colour messages: auto (default), always,\n"
    "                             never\n"
    "  -h, --help                 show this help\n";

int
cmd_build(int argc, char **argv)
{
	return cmd_pipeline(argc, argv, "build", false);
}
