/*
 * build --params FILE|-: one JSON object of build parameters.  Its keys
 * say whose they are: fast-tavern's buildPrompt parameters (preset,
 * character, globals, history, ...) run fast-tavern's engine
 * (tavern/ftav.h) and print its BuildPromptResult with -f fast-tavern.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "cmd/cmd.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "pipeline/assemble.h"
#include "tavern/ftav.h"

static bool
fast_tavern(struct run *run, const struct options *opt,
    const struct node *params, struct buf *out)
{
	struct node *res;

	if (opt->format && strcmp(opt->format, "fast-tavern") != 0) {
		diag_plain(run, DIAG_ERROR, MSG_PARAMS_FORMAT, opt->format);
		return false;
	}
	if (!ftav_build(run, params, &res))
		return false;
	json_write(out, res, 2);
	buf_putc(out, '\n');
	return true;
}

int
cmd_params(const struct cmd_pipeline_args *args)
{
	const struct options *opt = &args->build;
	struct run run;
	struct buf out = BUF_INIT;
	struct source *src;
	struct node *params = NULL;
	bool ok = false;
	int status;

	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, args->color);
	src = run_read(&run, args->params, NULL, span_make(0, 0));
	if (src && json_parse(&run, src, &params)) {
		if (params->kind != NODE_TABLE)
			diag_error(&run, src, params->span,
			    MSG_PARAMS_NOT_OBJECT,
			    tree_kind_json(params->kind));
		else if (ftav_recognise(params))
			ok = fast_tavern(&run, opt, params, &out);
		else
			diag_error(&run, src, params->span,
			    MSG_PARAMS_NOT_FT);
	}
	if (ok && run.diag.errors == 0 && out.len &&
	    fwrite(out.data, 1, out.len, stdout) != out.len)
		diag_system(&run);
	status = diag_status(&run);
	buf_free(&out);
	run_free(&run);
	return status;
}
