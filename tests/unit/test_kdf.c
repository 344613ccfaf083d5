/* kdf and hash.h's SHA-256/HMAC: FIPS 180-4 examples, RFC 4231's
 * HMAC-SHA256 cases, RFC 7914's PBKDF2-HMAC-SHA256 and scrypt vectors,
 * split feeding, and the refused scrypt parameters. */
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/kdf.h"
#include "check.h"

static char hexbuf[2 * 128 + 1];

static const char *
hex(const unsigned char *d, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 128; i++)
		snprintf(hexbuf + 2 * i, 3, "%02x", d[i]);
	hexbuf[2 * i] = '\0';
	return hexbuf;
}

/* s as bytes from hex; the result is static, n set. */
static const unsigned char *
unhex(const char *s, size_t *n)
{
	static unsigned char b[256];
	size_t i;

	for (i = 0; s[2 * i] && i < sizeof(b); i++) {
		unsigned v;

		sscanf(s + 2 * i, "%2x", &v);
		b[i] = (unsigned char)v;
	}
	*n = i;
	return b;
}

static void
test_sha256(void)
{
	unsigned char d[32];
	struct sha256 c;
	char *big = malloc(1000000);
	size_t i;

	sha256("", 0, d);
	CHECK_STR(hex(d, 32), "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855");
	sha256("abc", 3, d);
	CHECK_STR(hex(d, 32), "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	    56, d);
	CHECK_STR(hex(d, 32), "248d6a61d20638b8e5c026930c3e6039"
	    "a33ce45964ff2167f6ecedd419db06c1");
	/* a million 'a's, fed in uneven pieces */
	memset(big, 'a', 1000000);
	sha256_init(&c);
	for (i = 0; i < 1000000; i += 7)
		sha256_update(&c, big + i, 1000000 - i < 7 ? 1000000 - i : 7);
	sha256_final(&c, d);
	CHECK_STR(hex(d, 32), "cdc76e5c9914fb9281a1c7e284d73e67"
	    "f1809a48a497200e046d39ccc7112cd0");
	free(big);
}

static void
test_hmac(void)
{
	/* RFC 4231 test cases 1, 2, 3, 4, 6 and 7: key, data, HMAC-SHA256 */
	static const char *const v[][3] = {
		{ "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
		  "4869205468657265",
		  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
		{ "4a656665",
		  "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
		  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "dd",
		  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
		{ "0102030405060708090a0b0c0d0e0f10111213141516171819", "cd",
		  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
		{ "aa", "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
		  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
		{ "aa", "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
		  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
	};
	unsigned char key[256], msg[256], d[32];
	size_t i, kn, mn;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const unsigned char *k = unhex(v[i][0], &kn);

		memcpy(key, k, kn);
		k = unhex(v[i][1], &mn);
		memcpy(msg, k, mn);
		if (i == 2 || i == 3) /* 50 bytes of the one given */
			memset(msg, msg[0], mn = 50);
		if (i >= 4) /* 131 bytes of 0xaa: longer than a block */
			memset(key, 0xaa, kn = 131);
		hmac_sha256(key, kn, msg, mn, d);
		CHECK_STR(hex(d, 32), v[i][2]);
	}
}

static void
test_pbkdf2(void)
{
	unsigned char d[64];

	/* RFC 7914 section 11 */
	kdf_pbkdf2_sha256("passwd", 6, "salt", 4, 1, d, 64);
	CHECK_STR(hex(d, 64), "55ac046e56e3089fec1691c22544b605"
	    "f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef31"
	    "7c71b845b1e30bd509112041d3a19783");
	kdf_pbkdf2_sha256("Password", 8, "NaCl", 4, 80000, d, 64);
	CHECK_STR(hex(d, 64), "4ddcd8f60b98be21830cee5ef22701f9"
	    "641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b317"
	    "6a272bdebba1d078478f62b397f33c8d");
}

static void
test_scrypt(void)
{
	unsigned char d[64];

	/* RFC 7914 section 12 */
	memset(d, 0, sizeof(d));
	CHECK(kdf_scrypt("", 0, "", 0, 16, 1, 1, d, 64));
	CHECK_STR(hex(d, 64), "77d6576238657b203b19ca42c18a0497"
	    "f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17"
	    "e8d3e0fb2e0d3628cf35e20c38d18906");
	CHECK(kdf_scrypt("password", 8, "NaCl", 4, 1024, 8, 16, d, 64));
	CHECK_STR(hex(d, 64), "fdbabe1c9d3472007856e7190d01e9fe"
	    "7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830da"
	    "c727afb94a83ee6d8360cbdfa2cc0640");
	CHECK(kdf_scrypt("pleaseletmein", 13, "SodiumChloride", 14, 16384, 8,
	    1, d, 64));
	CHECK_STR(hex(d, 64), "7023bdcb3afd7348461c06cd81fd38eb"
	    "fda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9"
	    "e61e85dc0d651e40dfcf017b45575887");
	/* refused parameters write nothing */
	memset(d, 0x5a, sizeof(d));
	CHECK(!kdf_scrypt("", 0, "", 0, 1, 1, 1, d, 64));
	CHECK(!kdf_scrypt("", 0, "", 0, 24, 1, 1, d, 64));
	CHECK(!kdf_scrypt("", 0, "", 0, 16, 0, 1, d, 64));
	CHECK(!kdf_scrypt("", 0, "", 0, 16, 1, 0, d, 64));
	CHECK(!kdf_scrypt("", 0, "", 0, 16, 1u << 15, 1u << 15, d, 64));
	CHECK(d[0] == 0x5a && d[63] == 0x5a);
}

int
main(void)
{
	test_sha256();
	test_hmac();
	test_pbkdf2();
	test_scrypt();
	return check_done("test_kdf");
}
