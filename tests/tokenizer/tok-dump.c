/*
 * tok-dump: the C side of the hand-run checks against js-tiktoken
 * (differential.mjs) and of the benchmark.  `tok-dump ENCODING [FILE]`
 * reads records "LENGTH\nBYTES\n" from FILE (or stdin) and prints, per
 * record, its token ids separated by spaces.  `tok-dump -c ENCODING
 * FILE...` prints each whole file's token count instead; `tok-dump -t
 * ENCODING` the microseconds its first count (of "hello world") takes in
 * a fresh process, pattern compilation included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "text/tokenizer.h"
#include "base/util.h"

static void
slurp(FILE *f, struct buf *b)
{
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_put(b, chunk, n);
}

int
main(int argc, char **argv)
{
	struct tokenizer_ids ids = TOKENIZER_IDS_INIT;
	enum tokenizer_kind kind;
	struct buf in = BUF_INIT;
	size_t pos = 0, len, i;
	FILE *f = stdin;
	char *end;
	int a;

	progname = "tok-dump";
	if (argc == 3 && strcmp(argv[1], "-t") == 0) {
		struct timespec t0, t1;
		size_t n;

		if (!tokenizer_by_name(argv[2], &kind))
			die("unknown encoding %s", argv[2]);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		n = tokenizer_count(kind, "hello world", 11);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("%.1f %zu\n", (t1.tv_sec - t0.tv_sec) * 1e6 +
		    (t1.tv_nsec - t0.tv_nsec) / 1e3, n);
		tokenizer_release();
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "-c") == 0) {
		if (!tokenizer_by_name(argv[2], &kind))
			die("unknown encoding %s", argv[2]);
		for (a = 3; a < argc; a++) {
			if (!(f = fopen(argv[a], "rb")))
				die("%s:", argv[a]);
			buf_reset(&in);
			slurp(f, &in);
			fclose(f);
			printf("%zu\n", tokenizer_count(kind, in.data, in.len));
		}
		buf_free(&in);
		tokenizer_release();
		return 0;
	}
	if (argc < 2 || argc > 3 || !tokenizer_by_name(argv[1], &kind))
		die("usage: tok-dump ENCODING [FILE] | -c ENCODING FILE...");
	if (argc == 3 && !(f = fopen(argv[2], "rb")))
		die("%s:", argv[2]);
	slurp(f, &in);
	while (pos < in.len) {
		len = strtoul(in.data + pos, &end, 10);
		if (*end != '\n' || (size_t)(end + 1 - in.data) + len > in.len)
			die("bad record at byte %zu", pos);
		pos = (size_t)(end + 1 - in.data);
		ids.len = 0;
		tokenizer_encode(kind, in.data + pos, len, &ids);
		for (i = 0; i < ids.len; i++)
			printf(i ? " %lu" : "%lu", (unsigned long)ids.v[i]);
		putchar('\n');
		pos += len + 1;
	}
	tokenizer_ids_free(&ids);
	buf_free(&in);
	tokenizer_release();
	return 0;
}
