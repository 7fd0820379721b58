/* SPDX-License-Identifier: GPL-2.0 */
/* Shared helpers for the swaplab guest programs. */
#ifndef SWAPLAB_COMMON_H
#define SWAPLAB_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define PAGE_SZ 4096UL

/* Result lines: "SWAPLAB <nonce> RESULT <test> PASS|FAIL <why>" */
void result(const char *test, int pass, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Step lines, on stderr: "SWAPLAB <nonce> STEP <uptime> <what>"; the
 * grader names the last step after a timeout, and gives the steps it knows
 * ("refault pass ...") a time limit of their own.
 */
void step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Metric lines: "SWAPLAB <nonce> METRIC <name> <value>" */
void metric(const char *name, double value);
/* Diagnostics (no nonce: never parsed as results). */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						 noreturn));

/* Page content, a function of (seed, page index, generation). */
void fill_page(unsigned char *p, uint64_t seed, size_t idx, unsigned gen);
/* Returns 0 if the page holds its pattern, else the first bad word + 1. */
size_t check_page(const unsigned char *p, uint64_t seed, size_t idx,
		  unsigned gen);

/* Number of pages of [addr, addr+npages) that /proc/self/pagemap shows
 * as swapped out. */
long count_swapped(const void *addr, size_t npages);
/* A counter from /proc/vmstat, or -1. */
long vmstat(const char *name);
/* A field from /proc/meminfo in kB, or -1. */
long meminfo_kb(const char *name);

uint64_t now_ns(void);
/* Median and 99th percentile of n samples (sorts in place). */
void percentiles(uint64_t *v, size_t n, uint64_t *p50, uint64_t *p99);

/* xorshift64* */
static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

void *xmap(size_t bytes);
long parse_long(const char *s, const char *what);

#endif
