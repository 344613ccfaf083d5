#include <stdint.h>
#include <string.h>

#include "check.h"
#include "base/util.h"

int
main(void)
{
	uint32_t cp;
	char out[4];

	CHECK_INT(utf8_decode("A", 1, &cp), 1);
	CHECK_INT(cp, 'A');
	CHECK_INT(utf8_decode("\xe4\xb8\xad", 3, &cp), 3);
	CHECK_INT(cp, 0x4e2d);
	CHECK_INT(utf8_decode("\xf0\x9f\x98\x80", 4, &cp), 4);
	CHECK_INT(cp, 0x1f600);
	/* Overlong, surrogate, too large, truncated, stray continuation. */
	CHECK_INT(utf8_decode("\xc0\xaf", 2, &cp), 0);
	CHECK_INT(utf8_decode("\xed\xa0\x80", 3, &cp), 0);
	CHECK_INT(utf8_decode("\xf4\x90\x80\x80", 4, &cp), 0);
	CHECK_INT(utf8_decode("\xe4\xb8", 2, &cp), 0);
	CHECK_INT(utf8_decode("\x80", 1, &cp), 0);
	CHECK_INT(cp, 0xfffd);          /* an invalid byte reads as U+FFFD */
	/* UTF-16 units: 1 + 1 (中) + 2 (emoji) + 1 (a bad byte). */
	CHECK_INT(utf16_length("a\xe4\xb8\xad\xf0\x9f\x98\x80\xff", 9), 5);
	CHECK_INT(utf16_length("", 0), 0);
	CHECK_INT(utf16_length("\xf0\x9f\x98", 3), 3);  /* truncated: 3 bad */
	CHECK_INT(utf8_encode(0x4e2d, out), 3);
	CHECK(memcmp(out, "\xe4\xb8\xad", 3) == 0);
	CHECK_INT(utf8_encode(0x10ffff, out), 4);
	CHECK_INT(utf8_count("a\xe4\xb8\xad\xff", 5), 3);
	CHECK_INT(utf8_width("a\xe4\xb8\xad", 4), 3);      /* a 中 */
	CHECK_INT(utf8_width("\xf0\x9f\x99\x82", 4), 2);  /* emoji */
	CHECK_INT(utf8_width("e\xcc\x81", 3), 1);          /* e + acute */
	CHECK_INT(str_distance("prompt", "promt", 2), 1);
	CHECK_INT(str_distance("format", "formt", 2), 1);
	CHECK(str_distance("persona", "zzz", 2) > 2);
	CHECK(str_has_suffix("a.toml", ".toml"));
	CHECK(!str_has_suffix("toml", ".toml"));
	CHECK_INT(hex_value('f'), 15);
	CHECK_INT(hex_value('G'), -1);
	return check_done("test_util");
}
