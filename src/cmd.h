/*
 * cmd: the subcommands.  Each cmd_<verb>() parses its own options from
 * argv (argv[0] is the verb) and returns an exit status (diag.h).  main.c
 * holds only the table that maps verbs to these functions.
 */
#ifndef CMD_H
#define CMD_H

int cmd_check(int argc, char **argv);

/* Shared by the commands: print "usage: ..." for verb to stderr. */
void cmd_usage(const char *verb);
/* Print the help of one command to stdout. */
int cmd_help_of(const char *verb);

#endif
