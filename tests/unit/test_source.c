#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag/run.h"
#include "diag/source.h"
#include "base/util.h"

/*
 * A big PNG file is mapped, not copied; truncated while mapped, it reads
 * as zeros past the cut instead of killing strata with SIGBUS.  Other
 * files are read into memory.
 */
static void
test_mapped(struct run *run)
{
	char path[] = "/tmp/strata-test-source-XXXXXX";
	size_t n = SOURCE_MAP_MIN + 12345, i;
	char *data = xmalloc(n);
	struct source *src;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	memcpy(data, "\x89PNG\r\n\x1a\n", 8);
	for (i = 8; i < n; i++)
		data[i] = (char)('a' + i % 26);
	CHECK(write(fd, data, n) == (ssize_t)n);
	src = run_read(run, path, NULL, span_make(0, 0));
	CHECK(src && src->mapped >= n + 1 && src->len == n);
	if (src && src->mapped) {
		CHECK(memcmp(src->text, data, n) == 0 && src->text[n] == '\0');
		CHECK(ftruncate(fd, 10) == 0);
		CHECK(src->text[5] == data[5]);
		CHECK(src->text[n - 1] == '\0');
		CHECK(src->text[SOURCE_MAP_MIN] == '\0');
		CHECK(src->text[n] == '\0');
	}
	/* Not a PNG file: read. */
	data[0] = 'x';
	CHECK(pwrite(fd, data, n, 0) == (ssize_t)n);
	src = run_read(run, path, NULL, span_make(0, 0));
	CHECK(src && src->mapped == 0 && src->len == n &&
	    memcmp(src->text, data, n) == 0);
	close(fd);
	unlink(path);
	free(data);
}

int
main(void)
{
	struct run run;
	struct source *src;
	struct span sp;
	unsigned line, col;
	static const char text[] = "a = 1\r\nb = \"\xe4\xb8\xad\xe6\x96\x87\" x\nlast";

	run_init(&run);
	src = run_source_mem(&run, "t.toml", text, sizeof(text) - 1);
	CHECK_INT(src->id, 0);
	CHECK(run_source(&run, 0) == src);
	CHECK(run_source(&run, 1) == NULL);
	source_linecol(src, 0, &line, &col);
	CHECK_INT(line, 1);
	CHECK_INT(col, 1);
	source_linecol(src, 4, &line, &col);
	CHECK_INT(line, 1);
	CHECK_INT(col, 5);
	/* After two 3-byte CJK characters, the column counts code points. */
	source_linecol(src, 7 + 4 + 1 + 6 + 1 + 1, &line, &col);
	CHECK_INT(line, 2);
	CHECK_INT(col, 10);
	source_linecol(src, (uint32_t)src->len, &line, &col);
	CHECK_INT(line, 3);
	CHECK_INT(col, 5);
	sp = source_line(src, 1);
	CHECK_INT(sp.off, 0);
	CHECK_INT(sp.len, 5);   /* without \r\n */
	sp = source_line(src, 3);
	CHECK_INT(sp.len, 4);
	sp = source_line(src, 9);
	CHECK_INT(sp.len, 0);
	CHECK_INT(utf8_count("\xe4\xb8\xad" "a\xff", 5), 3);
	/* A missing file is reported, not fatal. */
	CHECK(run_read(&run, "/nonexistent/strata-test", NULL,
	    span_make(0, 0)) == NULL);
	CHECK_INT(run.diag.errors, 1);
	CHECK(run_read(&run, "/", NULL, span_make(0, 0)) == NULL);
	CHECK_INT(run.diag.errors, 2);
	CHECK_INT(diag_status(&run), 1);
	test_mapped(&run);
	run_free(&run);
	return check_done("test_source");
}
