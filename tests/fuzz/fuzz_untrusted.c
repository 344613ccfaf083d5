/*
 * Harnesses for the readers of untrusted bytes above the data layer
 * (issue 18); FUZZ_UNTRUSTED picks one at compile time:
 *  1 chat: a SillyTavern JSONL chat or session, read and written back;
 *  2 regex: a JSON regex script (or list) up to the first NUL byte,
 *    then the text it runs on (the JS-regex translator and the budgets);
 *  3 macros: a text through the SillyTavern macro engine, with
 *    variables and the output caps;
 *  4 history: a -H history with every part shape (URLs, data: URLs,
 *    paths, which must be refused: no --allow-history-files).
 */
#include "fuzz.h"

#include <string.h>

#include "base/buf.h"
#include "data/json.h"
#include "diag/run.h"

#if FUZZ_UNTRUSTED == 1
#include "session/chatfile.h"
#elif FUZZ_UNTRUSTED == 2
#include "text/regex.h"
#elif FUZZ_UNTRUSTED == 3
#include "tavern/macro.h"
#elif FUZZ_UNTRUSTED == 4
#include "pipeline/stages.h"
#else
#error "FUZZ_UNTRUSTED must be 1 to 4"
#endif

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run run;
	struct buf out = BUF_INIT;
	const char *s = (const char *)data;

	run_init(&run);
#if FUZZ_UNTRUSTED == 1
	{
		struct chatfile c;
		struct source *src = run_source_mem(&run, "chat.jsonl", s,
		    size);

		if (chatfile_read(&run, src, &c))
			chatfile_write(&c, &out);
	}
#elif FUZZ_UNTRUSTED == 2
	{
		const char *nul = memchr(s, '\0', size);
		size_t n = nul ? (size_t)(nul - s) : size;
		struct source *src = run_source_mem(&run, "rx.json", s, n);
		struct regex_set set;
		struct node *root;

		regex_set_init(&set);
		if (json_parse(&run, src, &root) &&
		    regex_set_add(&run, &set, REGEX_GLOBAL, root) && nul)
			(void)regex_apply(&run, &set, REGEX_USER_INPUT,
			    REGEX_PROMPT, 0, nul + 1, size - n - 1, &out,
			    NULL);
		regex_set_free(&set);
	}
#elif FUZZ_UNTRUSTED == 3
	{
		struct macro_vars locals, globals;
		struct macro_env env;

		memset(&locals, 0, sizeof(locals));
		memset(&globals, 0, sizeof(globals));
		memset(&env, 0, sizeof(env));
		env.user = "User";
		env.char_name = "Pip";
		env.locals = &locals;
		env.globals = &globals;
		env.last_message_id = -1;
		env.card_macros = true;
		buf_puts(&out, macro_expand(&run, &env, s, size, "orig"));
	}
#elif FUZZ_UNTRUSTED == 4
	{
		struct inputs in;
		struct source *src = run_source_mem(&run, "h.json", s, size);

		memset(&in, 0, sizeof(in));
		(void)history_parse(&run, src, &in);
		inputs_free(&in);
	}
#endif
	buf_free(&out);
	run_free(&run);
	return 0;
}
