/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs conformance suite's tagged assertions and helpers (plain
 * libibverbs, no pmrpc, no DPDK).
 *
 * Every assertion is one of two kinds, printed as it passes and counted:
 *   CONTRACT(cond, fmt, ...)   what any correct device does; the software
 *                              HCA model must do the same.
 *   RXE_LENIENT(rxe_cond, strict_cond, fmt, ...)
 *                              where rxe is laxer than the verbs
 *                              specification: by default asserts what rxe
 *                              does (rxe_cond); with --strict asserts the
 *                              specification's behaviour (strict_cond)
 *                              instead, the one the model enforces.
 * Output lines start with "contract: ", "rxe-lenient: " or
 * "rxe-lenient[strict]: " (and "FAILED " after the tag when the assertion
 * fails), so a log can be grepped per tag; "info: " lines record an
 * observation that is not asserted.
 */

#ifndef VC_H
#define VC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

enum vc_tag {
	VC_TAG_CONTRACT,
	VC_TAG_LENIENT,
};

void vc_check(enum vc_tag tag, int ok, const char *expr, const char *file,
	int line, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void vc_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The suite runs in strict mode (--strict): lenient points assert the
 * specification's behaviour. */
extern int vc_strict;
/* Assertions passed and failed, per tag (the summary line). */
extern unsigned int vc_count[2];
extern unsigned int vc_failed[2];

#define CONTRACT(cond, ...) \
	vc_check(VC_TAG_CONTRACT, !!(cond), #cond, __FILE__, __LINE__, \
		__VA_ARGS__)

#define RXE_LENIENT(rxe_cond, strict_cond, ...) \
	(vc_strict ? \
	vc_check(VC_TAG_LENIENT, !!(strict_cond), #strict_cond, __FILE__, \
		__LINE__, __VA_ARGS__) : \
	vc_check(VC_TAG_LENIENT, !!(rxe_cond), #rxe_cond, __FILE__, \
		__LINE__, __VA_ARGS__))

#endif /* VC_H */
