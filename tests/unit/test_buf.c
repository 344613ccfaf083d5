#include <stdlib.h>

#include "base/buf.h"
#include "check.h"

int
main(void)
{
	struct buf b = BUF_INIT;
	char *s;
	int i;

	buf_puts(&b, "abc");
	buf_putc(&b, 'd');
	buf_printf(&b, "%d", 123);
	CHECK_STR(b.data, "abcd123");
	CHECK_INT(b.len, 7);
	buf_put(&b, "\0z", 2);
	CHECK_INT(b.len, 9);
	CHECK(b.data[7] == '\0' && b.data[8] == 'z' && b.data[9] == '\0');
	buf_reset(&b);
	CHECK_INT(b.len, 0);
	CHECK_STR(b.data, "");
	for (i = 0; i < 10000; i++)
		buf_putc(&b, 'a' + i % 26);
	CHECK_INT(b.len, 10000);
	CHECK(b.data[9999] == 'a' + 9999 % 26);
	s = buf_detach(&b);
	CHECK(b.data == NULL && b.len == 0);
	CHECK(s[10000] == '\0');
	free(s);
	buf_free(&b);
	return check_done("test_buf");
}
