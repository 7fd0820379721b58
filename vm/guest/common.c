// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The run's nonce: /init keeps it in a root-only file, never in a process
 * environment.
 */
static const char *nonce(void)
{
	static char n[64];
	FILE *f;

	if (!n[0]) {
		f = fopen("/tmp/.swaplab-nonce", "r");
		if (!f || !fgets(n, sizeof(n), f))
			strcpy(n, "-");
		if (f)
			fclose(f);
		n[strcspn(n, "\n")] = 0;
	}
	return n;
}

void result(const char *test, int pass, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	printf("SWAPLAB %s RESULT %s %s %s\n", nonce(), test,
	       pass ? "PASS" : "FAIL", why);
	fflush(stdout);
}

void step(const char *fmt, ...)
{
	struct timespec ts;
	char what[256];
	va_list ap;

	if (!strcmp(nonce(), "-"))
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	fprintf(stderr, "SWAPLAB %s STEP %ld.%02ld %s\n", nonce(),
		(long)ts.tv_sec, ts.tv_nsec / 10000000, what);
	fflush(stderr);
}

void metric(const char *name, double value)
{
	printf("SWAPLAB %s METRIC %s %.3f\n", nonce(), name, value);
	fflush(stdout);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("swaptest: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
}

void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("swaptest: fatal: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
	exit(2);
}

static uint64_t word(uint64_t seed, size_t idx, unsigned gen, size_t w)
{
	uint64_t x = seed ^ (idx * 0x9E3779B97F4A7C15ULL) ^
		     ((uint64_t)gen << 48) ^ (w * 0xBF58476D1CE4E5B9ULL);

	x ^= x >> 31;
	x *= 0x94D049BB133111EBULL;
	x ^= x >> 29;
	return x;
}

void fill_page(unsigned char *p, uint64_t seed, size_t idx, unsigned gen)
{
	uint64_t *q = (uint64_t *)p;
	size_t w;

	for (w = 0; w < PAGE_SZ / 8; w++)
		q[w] = word(seed, idx, gen, w);
}

size_t check_page(const unsigned char *p, uint64_t seed, size_t idx,
		  unsigned gen)
{
	const uint64_t *q = (const uint64_t *)p;
	size_t w;

	for (w = 0; w < PAGE_SZ / 8; w++)
		if (q[w] != word(seed, idx, gen, w))
			return w + 1;
	return 0;
}

long count_swapped(const void *addr, size_t npages)
{
	uint64_t buf[512];
	size_t done = 0;
	long swapped = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		fatal("open /proc/self/pagemap: %s", strerror(errno));
	while (done < npages) {
		size_t n = npages - done, i;
		off_t off = ((uintptr_t)addr / PAGE_SZ + done) * 8;
		ssize_t r;

		if (n > 512)
			n = 512;
		r = pread(fd, buf, n * 8, off);
		if (r != (ssize_t)(n * 8))
			fatal("read pagemap: %s", strerror(errno));
		for (i = 0; i < n; i++)
			if (buf[i] & (1ULL << 62))
				swapped++;
		done += n;
	}
	close(fd);
	return swapped;
}

static long keyed_value(const char *path, const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, kl) &&
		    (line[kl] == ' ' || line[kl] == ':')) {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

long vmstat(const char *name)
{
	return keyed_value("/proc/vmstat", name);
}

long meminfo_kb(const char *name)
{
	return keyed_value("/proc/meminfo", name);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void percentiles(uint64_t *v, size_t n, uint64_t *p50, uint64_t *p99)
{
	if (!n) {
		*p50 = *p99 = 0;
		return;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	*p50 = v[n / 2];
	*p99 = v[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
}

void *xmap(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fatal("mmap %zu bytes: %s", bytes, strerror(errno));
	return p;
}

long parse_long(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < 0)
		fatal("bad %s: '%s'", what, s);
	return v;
}
