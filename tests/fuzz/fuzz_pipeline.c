/*
 * The whole build: a profile in, assemble() and every emitter out,
 * through the API `strata build` and `strata debug` use (cmd_run() in
 * cmd/build.c).  The first byte of the input picks the profile's format
 * (odd: YAML, even: TOML; the corpus spells it 'Y' or 'T'), the rest is
 * the profile.  It is written to a private directory, created once,
 * that also holds a few prompt files a profile may name (p.md,
 * prompts/p.md, t.json).  The user message is "hi".
 */
#include "fuzz.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "emit/emit_html.h"
#include "pipeline/assemble.h"

static char dir[64];
static char toml_path[96], yaml_path[96];

static void
put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		die("%s:", path);
}

static void
cleanup(void)
{
	static const char *const files[] = {
		"fuzz.toml", "fuzz.yaml", "p.md", "prompts/p.md", "t.json",
		"prompts", NULL,
	};
	const char *const *f;
	char path[128];

	for (f = files; *f; f++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *f);
		remove(path);
	}
	rmdir(dir);
}

static void
setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char sub[128];

	snprintf(dir, sizeof(dir), "%s/strata-fuzz-XXXXXX",
	    tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	if (!mkdtemp(dir))
		die("mkdtemp:");
	snprintf(sub, sizeof(sub), "%s/prompts", dir);
	if (mkdir(sub, 0700) < 0)
		die("%s:", sub);
	put("p.md", "Hello {{name}}.\n");
	put("prompts/p.md", "---\ndescription: a skill\n---\nSkill {{x}}\n");
	put("t.json", "{\"name\": \"t\", \"description\": \"d\", "
	    "\"parameters\": {\"type\": \"object\"}}\n");
	snprintf(toml_path, sizeof(toml_path), "%s/fuzz.toml", dir);
	snprintf(yaml_path, sizeof(yaml_path), "%s/fuzz.yaml", dir);
	atexit(cleanup);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum out_format formats[] = {
		FORMAT_OPENAI, FORMAT_ANTHROPIC, FORMAT_GEMINI,
		FORMAT_MESSAGES, FORMAT_TEXT, FORMAT_JSON,
	};
	static emit_fn *const views[] = { emit_debug, emit_json, emit_html };
	struct options opt;
	struct run run;
	struct chat chat;
	struct buf out = BUF_INIT;
	const char *path;
	FILE *f;
	size_t i;

	if (size == 0)
		return 0;
	if (!dir[0])
		setup();
	path = data[0] & 1 ? yaml_path : toml_path;
	f = fopen(path, "w");
	if (!f || fwrite(data + 1, 1, size - 1, f) != size - 1 ||
	    fclose(f) != 0)
		die("%s:", path);
	memset(&opt, 0, sizeof(opt));
	opt.profile = path;
	opt.user = "hi";
	run_init(&run);
	if (assemble(&run, &opt, &chat, NULL)) {
		for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
			chat.format = formats[i];
			emit_for(formats[i])(&run, &chat, &out);
			buf_free(&out);
		}
		for (i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
			views[i](&run, &chat, &out);
			buf_free(&out);
		}
	}
	run_free(&run);
	return 0;
}
