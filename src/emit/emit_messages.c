/* The bare messages array, in the OpenAI shape. */
#include "emit/emit.h"

#include "base/buf.h"
#include "data/tree.h"
#include "prompt/chat.h"
#include "data/json.h"
#include "diag/run.h"

bool
emit_messages(struct run *run, const struct chat *c, struct buf *out)
{
	struct node *hole = tree_array(&run->arena);

	return emit_write(run, c, hole, hole, 0, emit_openai_message, out);
}
