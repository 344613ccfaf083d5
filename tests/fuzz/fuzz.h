/*
 * fuzz: what every harness in tests/fuzz/ defines.  A harness is one
 * function, LLVMFuzzerTestOneInput(), that feeds one input to strata and
 * returns 0; it owns nothing between calls except what it sets up once
 * and frees at exit.  Built with -Dfuzzing=true it is linked with
 * libFuzzer; otherwise with replay.c, which calls it on files.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
