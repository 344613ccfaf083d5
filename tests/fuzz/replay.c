/*
 * replay: run a fuzz harness on files, without libFuzzer, so that a
 * compiler without it (gcc) and valgrind can check the committed corpus
 * and every past finding.  Each argument is a file, or a directory whose
 * regular files (not README.md) are replayed in name order.  Exit 0 when
 * every input ran; a crash is the harness's, with its own report.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/util.h"

static bool
replay_file(const char *path)
{
	struct buf b = BUF_INIT;
	char chunk[65536];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return false;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_put(&b, chunk, n);
	fclose(f);
	LLVMFuzzerTestOneInput((const uint8_t *)(b.data ? b.data : ""),
	    b.len);
	buf_free(&b);
	return true;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
replay_dir(const char *path, size_t *count)
{
	DIR *d = opendir(path);
	struct dirent *e;
	struct stat st;
	struct buf full = BUF_INIT;
	char **names = NULL;
	size_t n = 0, i;
	bool ok = true;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return false;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
			continue;
		names = xreallocarray(names, n + 1, sizeof(*names));
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		buf_reset(&full);
		buf_printf(&full, "%s/%s", path, names[i]);
		if (stat(full.data, &st) == 0 && S_ISREG(st.st_mode)) {
			ok = replay_file(full.data) && ok;
			(*count)++;
		}
		free(names[i]);
	}
	buf_free(&full);
	free(names);
	return ok;
}

int
main(int argc, char **argv)
{
	struct stat st;
	size_t count = 0;
	bool ok = true;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: replay FILE|DIR...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			ok = replay_dir(argv[i], &count) && ok;
		else {
			ok = replay_file(argv[i]) && ok;
			count++;
		}
	}
	printf("replay: %zu inputs\n", count);
	return ok ? 0 : 1;
}
