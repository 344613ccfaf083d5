/* The bare messages array, in the OpenAI shape. */
#include "emit.h"

#include "buf.h"
#include "chat.h"
#include "json.h"
#include "run.h"

bool
emit_messages(struct run *run, const struct chat *c, struct buf *out)
{
	json_write(out, emit_openai_messages(run, c), 2);
	buf_putc(out, '\n');
	return true;
}
