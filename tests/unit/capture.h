/*
 * capture: a unit test's view of its own stderr.  capture_begin()
 * redirects fd 2 to a temporary file; capture_end() restores it and
 * leaves what was written, NUL-terminated, in err (owned here, freed by
 * the next capture_end() or by the test's final free(err)).
 */
#ifndef CAPTURE_H
#define CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/buf.h"

static char *err;
static FILE *capture_tmp;
static int capture_saved;

static inline void
capture_begin(void)
{
	fflush(stderr);
	capture_tmp = tmpfile();
	capture_saved = dup(2);
	dup2(fileno(capture_tmp), 2);
}

static inline const char *
capture_end(void)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;

	fflush(stderr);
	dup2(capture_saved, 2);
	close(capture_saved);
	rewind(capture_tmp);
	while ((n = fread(chunk, 1, sizeof(chunk), capture_tmp)) > 0)
		buf_put(&b, chunk, n);
	fclose(capture_tmp);
	buf_putc(&b, '\0');
	free(err);
	err = buf_detach(&b);
	return err;
}

#endif
