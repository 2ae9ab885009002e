/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* The tagged assertions of vc.h: print, count, fail the cmocka case. */

#include <stdio.h>

#include "vc.h"

int vc_strict;
unsigned int vc_count[2];
unsigned int vc_failed[2];

static const char *const tag_name[2] = { "contract", "rxe-lenient" };

void
vc_check(enum vc_tag tag, int ok, const char *expr, const char *file,
	int line, const char *fmt, ...)
{
	const char *name = tag_name[tag];
	va_list ap;

	printf("%s%s: %s", name,
		tag == VC_TAG_LENIENT && vc_strict ? "[strict]" : "",
		ok ? "" : "FAILED ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok) {
		vc_count[tag]++;
		return;
	}
	vc_failed[tag]++;
	print_error("%s:%d: %s assertion failed: %s\n", file, line, name,
		expr);
	_fail(file, line);
}

void
vc_info(const char *fmt, ...)
{
	va_list ap;

	printf("info: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}
