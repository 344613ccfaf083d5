/* The message format: location, level, text, echoed line and caret. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "diag/source.h"

static char *
capture(struct run *run, struct source *src, struct span sp, int level)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	struct buf b = BUF_INIT;
	char chunk[512];
	size_t n;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	if (level)
		diag_error(run, src, sp, MSG_NUL_BYTE);
	else
		diag_warning(run, src, sp, MSG_TOO_DEEP, 7);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	while ((n = fread(chunk, 1, sizeof(chunk), tmp)) > 0)
		buf_put(&b, chunk, n);
	fclose(tmp);
	return buf_detach(&b);
}

int
main(void)
{
	struct run run;
	struct source *src;
	char *s;
	static const char text[] = "key = [1,\n\t\xe4\xb8\xad = oops\nend";

	run_init(&run);
	src = run_source_mem(&run, "p.toml", text, sizeof(text) - 1);
	s = capture(&run, src, span_make(6, 3), 1);
	CHECK_STR(s, "p.toml:1:7: error: NUL byte in text\n"
	    " 1 | key = [1,\n"
	    "   |       ^~~\n");
	free(s);
	/* A tab stays a tab under the caret; a CJK char is two columns. */
	s = capture(&run, src, span_make(15, 1), 0);
	CHECK_STR(s, "p.toml:2:4: warning: nesting deeper than 7 levels\n"
	    " 2 | \t\xe4\xb8\xad = oops\n"
	    "   | \t   ^\n");
	free(s);
	/* A span at the very end. */
	s = capture(&run, src, span_make(sizeof(text) - 1, 0), 1);
	CHECK_STR(s, "p.toml:3:4: error: NUL byte in text\n"
	    " 3 | end\n"
	    "   |    ^\n");
	free(s);
	s = capture(&run, NULL, span_make(0, 0), 1);
	CHECK_STR(s, "strata: error: NUL byte in text\n");
	free(s);
	CHECK_INT(run.diag.errors, 3);
	CHECK_INT(run.diag.warnings, 1);
	CHECK_INT(diag_status(&run), EXIT_INPUT);
	diag_system(&run);
	CHECK_INT(diag_status(&run), EXIT_SYSTEM);
	run_free(&run);
	return check_done("test_diag");
}
