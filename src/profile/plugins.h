/*
 * plugins: seed 001's plugins.  A plugin is a directory under
 * [plugins] dir holding plugin.toml (or plugin.yaml) with [[tools]] and
 * [[skills]] like a profile's; enabling it by name in [plugins] enabled
 * adds them after the profile's own, so one name brings a skill with the
 * tools it uses.  Paths in a plugin file resolve against the plugin's
 * directory.
 *
 * Ownership: the plugin trees live in the run's arena; their entries are
 * pushed (not copied) onto the profile's arrays.
 */
#ifndef PLUGINS_H
#define PLUGINS_H

#include <stdbool.h>

struct node;
struct paths;
struct run;

/*
 * Load the plugins root (a checked profile tree) enables, check each
 * against schema_plugin and append its tools and skills to root.
 * topfile is the top profile file's path (NULL: the embedded default).
 * Reports every error; false if there was any.
 */
bool plugins_load(struct run *run, struct node *root, struct paths *pd,
    const char *topfile);

#endif
