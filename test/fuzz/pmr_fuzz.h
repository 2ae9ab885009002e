/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_FUZZ_H
#define PMR_FUZZ_H

/**
 * @file
 * What the fuzz targets and the corpus replay (replay_main.c) share: the
 * libFuzzer entry point, and a check that holds in every build. Not
 * assert(): NDEBUG must not turn the properties off, and a failed check
 * must end the process the way libFuzzer and meson test both see as a
 * crash (abort()).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/** Run one input; libFuzzer's entry point. Always returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Abort with the failed condition unless cond holds. */
#define FUZZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: %s: check failed: %s\n", \
			__FILE__, __LINE__, __func__, #cond); \
		abort(); \
	} \
} while (0)

#endif /* PMR_FUZZ_H */
