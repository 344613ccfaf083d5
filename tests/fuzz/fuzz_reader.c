/*
 * One harness per reader: TOML, YAML or JSON text in, a tree (or a
 * diagnostic) out.  FUZZ_READER picks the reader at compile time
 * (tests/meson.build builds this file three times).  A tree that was
 * read is also written back as JSON, so the writer sees every shape the
 * readers can make.
 */
#include "fuzz.h"

#include "base/buf.h"
#include "data/json.h"
#include "data/toml.h"
#include "data/yamltree.h"
#include "diag/run.h"

#define READER_TOML 1
#define READER_YAML 2
#define READER_JSON 3

#if FUZZ_READER == READER_TOML
#define NAME "fuzz.toml"
#define PARSE toml_parse
#elif FUZZ_READER == READER_YAML
#define NAME "fuzz.yaml"
#define PARSE yamltree_parse
#elif FUZZ_READER == READER_JSON
#define NAME "fuzz.json"
#define PARSE json_parse
#else
#error "FUZZ_READER must be READER_TOML, READER_YAML or READER_JSON"
#endif

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run run;
	struct source *src;
	struct node *root;
	struct buf out = BUF_INIT;

	run_init(&run);
	src = run_source_mem(&run, NAME, (const char *)data, size);
	if (PARSE(&run, src, &root))
		json_write(&out, root, 2);
	buf_free(&out);
	run_free(&run);
	return 0;
}
