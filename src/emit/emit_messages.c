/* The bare messages array, in the OpenAI shape. */
#include "emit/emit.h"

#include "base/buf.h"
#include "prompt/chat.h"
#include "data/json.h"
#include "diag/run.h"

bool
emit_messages(struct run *run, const struct chat *c, struct buf *out)
{
	json_write(out, emit_openai_messages(run, c), 2);
	buf_putc(out, '\n');
	return true;
}
