// SPDX-License-Identifier: GPL-2.0
/*
 * swaptest: swaplab's in-guest swap exerciser.  Every subcommand checks
 * every byte it swapped and prints nonce-tagged RESULT and METRIC lines.
 *
 *   swaptest pageout [-n PAGES] [-t THREADS] [-r ROUNDS] [-m MINPCT]
 *       Fill PAGES pages, push them out with MADV_PAGEOUT, fault them back
 *       on THREADS threads in random order timing each fault, verify.
 *   swaptest fill [-f PERCENT] [-k SLACK_PAGES]
 *       Fill swap beyond PERCENT % of SwapTotal, verify, unmap, and check
 *       SwapFree returns to SwapTotal (less SLACK_PAGES held by caches).
 *   swaptest hold [-n PAGES]
 *       Swap PAGES pages out, print "HOLDING n", wait for a line on stdin
 *       (run it in the background with a fifo), then verify every byte.
 *   swaptest fork [-n PAGES]
 *       Swap PAGES pages out, fork (each swap entry now has count 2),
 *       child and parent refault and verify, the child rewrites half.
 *   swaptest shmem [-n PAGES]
 *       Same for MAP_SHARED anonymous (shmem) pages.
 *   swaptest rafree [-n PAGES]
 *       Shmem pages out, every other one's slot freed, the rest read back:
 *       page allocations per page read (readahead over free slots).
 *   swaptest manyfork [-n PAGES] [-c CHILDREN]
 *       Entries shared by CHILDREN + 1 processes: swap counts past
 *       SWAP_MAP_MAX (continuation pages), every copy verified.
 *   swaptest cachespread [-n PAGES] [-f FILE]
 *       Fork-shared pages swapped in through the swap cache; with them
 *       cached, print FILE (how the swap cache is spread over trunks).
 *   swaptest swapon DEVICE [PRIORITY]
 *   swaptest pressure [-w MB] [-t THREADS] [-a ACCESSES] [-N NAME]
 *       The seed's experiment: THREADS threads randomly read and write a
 *       working set of MB (run it in a memcg whose memory.max is half of
 *       it).  Times each access to a page that pagemap showed swapped out
 *       (a swap-in fault); verifies every page it touches.
 */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static uint64_t seed = 0x5eed5eedULL;

/* Push [p, p + n pages) out; returns the pages that ended up swapped. */
static long page_out(unsigned char *p, size_t n)
{
	size_t chunk = 1024, off;
	long swapped = 0;
	int pass;

	for (pass = 0; pass < 3; pass++) {
		for (off = 0; off < n; off += chunk) {
			size_t len = (n - off < chunk ? n - off : chunk);

			if (madvise(p + off * PAGE_SZ, len * PAGE_SZ,
				    MADV_PAGEOUT))
				fatal("madvise(MADV_PAGEOUT): %s",
				      strerror(errno));
		}
		swapped = count_swapped(p, n);
		if ((size_t)swapped == n)
			break;
	}
	return swapped;
}

struct refault {
	unsigned char *base;
	size_t npages, first, stride;
	unsigned gen;
	uint64_t *lat;		/* one slot per page this thread touches */
	size_t nlat;
	size_t bad;		/* pages with a wrong byte */
	size_t first_bad;	/* index of the first such page */
};

static void *refault_thread(void *arg)
{
	struct refault *r = arg;
	uint64_t s = seed ^ (r->first + 1) * 0x2545F4914F6CDD1DULL;
	size_t count = (r->npages - r->first + r->stride - 1) / r->stride;
	size_t *order = malloc(count * sizeof(*order));
	size_t i;

	if (!order)
		fatal("out of memory");
	for (i = 0; i < count; i++)
		order[i] = r->first + i * r->stride;
	for (i = count; i > 1; i--) {	/* Fisher-Yates */
		size_t j = rnd(&s) % i, t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	r->first_bad = (size_t)-1;
	for (i = 0; i < count; i++) {
		unsigned char *pg = r->base + order[i] * PAGE_SZ;
		uint64_t t0 = now_ns();

		(void)*(volatile uint64_t *)pg;
		r->lat[r->nlat++] = now_ns() - t0;
		if (check_page(pg, seed, order[i], r->gen)) {
			if (!r->bad++ || order[i] < r->first_bad)
				r->first_bad = order[i];
		}
	}
	free(order);
	return NULL;
}

/* Fault [base, npages) back on nthreads threads; returns wrong pages. */
static size_t refault_all(unsigned char *base, size_t npages, int nthreads,
			  unsigned gen, uint64_t *lat, size_t *nlat,
			  size_t *first_bad)
{
	pthread_t tid[64];
	struct refault r[64];
	size_t bad = 0, off = 0;
	int t;

	*first_bad = (size_t)-1;
	for (t = 0; t < nthreads; t++) {
		r[t] = (struct refault){ .base = base, .npages = npages,
					 .first = t, .stride = nthreads,
					 .gen = gen, .lat = lat + off };
		off += (npages - t + nthreads - 1) / nthreads;
		if (pthread_create(&tid[t], NULL, refault_thread, &r[t]))
			fatal("pthread_create failed");
	}
	*nlat = 0;
	for (t = 0; t < nthreads; t++) {
		pthread_join(tid[t], NULL);
		bad += r[t].bad;
		if (r[t].bad && r[t].first_bad < *first_bad)
			*first_bad = r[t].first_bad;
	}
	/* compact the per-thread latency runs */
	off = 0;
	for (t = 0; t < nthreads; t++) {
		memmove(lat + *nlat, r[t].lat, r[t].nlat * sizeof(*lat));
		*nlat += r[t].nlat;
	}
	return bad;
}

static int cmd_pageout(int argc, char **argv)
{
	size_t npages = 20000, i, nlat, first_bad, bad;
	int nthreads = 2, rounds = 1, minpct = 95, opt, round, ok = 1;
	const char *name = "pageout";
	unsigned char *p;
	uint64_t *lat, p50, p99;
	long swapped, in0, out0;
	struct rusage ru0, ru1;

	while ((opt = getopt(argc, argv, "n:t:r:m:N:")) != -1) {
		switch (opt) {
		case 'n': npages = parse_long(optarg, "pages"); break;
		case 't': nthreads = parse_long(optarg, "threads"); break;
		case 'r': rounds = parse_long(optarg, "rounds"); break;
		case 'm': minpct = parse_long(optarg, "min percent"); break;
		case 'N': name = optarg; break;
		default: fatal("usage: swaptest pageout [-n pages] [-t threads] [-r rounds] [-m minpct] [-N name]");
		}
	}
	if (nthreads < 1 || nthreads > 64 || !npages || rounds < 1)
		fatal("pageout: bad arguments");
	p = xmap(npages * PAGE_SZ);
	lat = malloc(npages * sizeof(*lat));
	if (!lat)
		fatal("out of memory");

	for (round = 0; round < rounds && ok; round++) {
		step("swap-out pass %d: %zu pages", round, npages);
		for (i = 0; i < npages; i++)
			fill_page(p + i * PAGE_SZ, seed, i, round);
		out0 = vmstat("pswpout");
		in0 = vmstat("pswpin");
		swapped = page_out(p, npages);
		diag("round %d: %ld of %zu pages swapped out (pswpout +%ld)",
		     round, swapped, npages, vmstat("pswpout") - out0);
		if (swapped * 100 < (long)npages * minpct) {
			result(name, 0, "MADV_PAGEOUT swapped out only %ld of %zu pages (need %d%%)",
			       swapped, npages, minpct);
			ok = 0;
			break;
		}
		getrusage(RUSAGE_SELF, &ru0);
		step("refault pass %d: %zu pages on %d threads", round, npages,
		     nthreads);
		bad = refault_all(p, npages, nthreads, round, lat, &nlat,
				  &first_bad);
		getrusage(RUSAGE_SELF, &ru1);
		step("pass %d: results", round);
		percentiles(lat, nlat, &p50, &p99);
		diag("round %d: refaulted on %d threads: %ld major faults, pswpin +%ld, median %.2f us, p99 %.2f us",
		     round, nthreads, ru1.ru_majflt - ru0.ru_majflt,
		     vmstat("pswpin") - in0, p50 / 1e3, p99 / 1e3);
		metric("swapped_pages", swapped);
		metric("major_faults", ru1.ru_majflt - ru0.ru_majflt);
		metric("fault_median_us", p50 / 1e3);
		metric("fault_p99_us", p99 / 1e3);
		if (bad) {
			result(name, 0, "%zu of %zu pages came back wrong after swap-in (first: page %zu, round %d)",
			       bad, npages, first_bad, round);
			ok = 0;
		}
	}
	if (ok)
		result(name, 1, "%zu pages x %d rounds swapped out and back on %d threads, every byte intact",
		       npages, rounds, nthreads);
	munmap(p, npages * PAGE_SZ);
	free(lat);
	return !ok;
}

static int cmd_fill(int argc, char **argv)
{
	int pct = 96, opt, ok = 1;
	long slack = 0, total, free0, free1, free2, swapped;
	size_t npages, i, bad = 0;
	unsigned char *p;

	while ((opt = getopt(argc, argv, "f:k:")) != -1) {
		switch (opt) {
		case 'f': pct = parse_long(optarg, "percent"); break;
		case 'k': slack = parse_long(optarg, "slack pages"); break;
		default: fatal("usage: swaptest fill [-f percent] [-k slack_pages]");
		}
	}
	total = meminfo_kb("SwapTotal") / 4;
	free0 = meminfo_kb("SwapFree") / 4;
	if (total <= 0)
		fatal("fill: no swap is on");
	npages = (size_t)total * pct / 100 + 64;
	diag("fill: SwapTotal %ld pages, SwapFree %ld, writing %zu pages",
	     total, free0, npages);
	p = xmap(npages * PAGE_SZ);
	for (i = 0; i < npages; i++)
		fill_page(p + i * PAGE_SZ, seed, i, 7);
	swapped = page_out(p, npages);
	free1 = meminfo_kb("SwapFree") / 4;
	metric("fill_used_pct", 100.0 * (total - free1) / total);
	diag("fill: %ld pages swapped, SwapFree now %ld (%.1f%% used)",
	     swapped, free1, 100.0 * (total - free1) / total);
	if ((total - free1) * 100 < total * (pct - 1)) {
		result("fill", 0, "swap only %.1f%% used after writing %zu pages (expected > %d%%)",
		       100.0 * (total - free1) / total, npages, pct - 1);
		ok = 0;
	}
	for (i = 0; i < npages; i++)
		if (check_page(p + i * PAGE_SZ, seed, i, 7))
			bad++;
	munmap(p, npages * PAGE_SZ);
	free2 = meminfo_kb("SwapFree") / 4;
	metric("drain_free_pages", free2);
	diag("fill: after unmap SwapFree %ld of %ld pages (slack allowed %ld)",
	     free2, total, slack);
	if (bad) {
		result("fill", 0, "%zu of %zu pages came back wrong from a nearly full swap",
		       bad, npages);
		ok = 0;
	}
	if (free2 + slack < total) {
		result("fill", 0, "swap slots leaked: SwapFree %ld pages after freeing everything, SwapTotal %ld (allowed slack %ld)",
		       free2, total, slack);
		ok = 0;
	}
	if (ok)
		result("fill", 1, "filled swap to %.1f%%, read back intact, SwapFree back to %ld of %ld",
		       100.0 * (total - free1) / total, free2, total);
	return !ok;
}

/*
 * hold: swap pages out and wait for a line on stdin before verifying.
 * Lets a script run swapoff, CPU hotplug or a second test while the
 * pages are out.
 */
static int cmd_hold(int argc, char **argv)
{
	size_t npages = 20000, i, bad = 0;
	int opt, ok = 1;
	unsigned char *p;
	long swapped;
	char line[64];

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		switch (opt) {
		case 'n': npages = parse_long(optarg, "pages"); break;
		default: fatal("usage: swaptest hold [-n pages]  (then write a line on stdin)");
		}
	}
	p = xmap(npages * PAGE_SZ);
	for (i = 0; i < npages; i++)
		fill_page(p + i * PAGE_SZ, seed, i, 3);
	swapped = page_out(p, npages);
	printf("HOLDING %ld\n", swapped);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		diag("hold: stdin closed; verifying now");
	for (i = 0; i < npages; i++)
		if (check_page(p + i * PAGE_SZ, seed, i, 3))
			bad++;
	if (bad) {
		result("hold", 0, "%zu of %zu held pages came back wrong", bad,
		       npages);
		ok = 0;
	} else {
		result("hold", 1, "%zu pages (%ld swapped) held and verified",
		       npages, swapped);
	}
	return !ok;
}

struct pressure {
	unsigned char *base;
	unsigned char *gen;	/* per-page generation, owned by one thread */
	size_t npages, first, stride, accesses;
	int pagemap;
	uint64_t *lat;
	size_t nlat, bad, swapped_seen;
};

static int page_swapped(int fd, const void *addr)
{
	uint64_t e;

	if (pread(fd, &e, 8, (uintptr_t)addr / PAGE_SZ * 8) != 8)
		fatal("read pagemap: %s", strerror(errno));
	return !!(e & (1ULL << 62));
}

static void *pressure_thread(void *arg)
{
	struct pressure *r = arg;
	uint64_t s = seed ^ (r->first + 7) * 0x9E3779B97F4A7C15ULL;
	size_t owned = (r->npages - r->first + r->stride - 1) / r->stride;
	size_t i;

	for (i = 0; i < r->accesses; i++) {
		size_t idx = r->first + (rnd(&s) % owned) * r->stride;
		unsigned char *pg = r->base + idx * PAGE_SZ;
		int was_out = page_swapped(r->pagemap, pg);
		uint64_t t0 = now_ns(), t1;

		(void)*(volatile uint64_t *)pg;
		t1 = now_ns();
		if (was_out) {
			r->lat[r->nlat++] = t1 - t0;
			r->swapped_seen++;
		}
		if (check_page(pg, seed, idx, r->gen[idx]))
			r->bad++;
		if (!(rnd(&s) & 3))	/* one access in four writes */
			fill_page(pg, seed, idx, ++r->gen[idx]);
	}
	return NULL;
}

static int cmd_pressure(int argc, char **argv)
{
	size_t mb = 256, npages, accesses = 100000, i, nlat = 0, bad = 0;
	int nthreads = 2, opt, t;
	const char *name = "pressure";
	struct pressure r[64];
	pthread_t tid[64];
	unsigned char *p, *gen;
	uint64_t *lat, p50, p99, t0, t1;
	long in0, out0, in1, out1;
	double secs;

	while ((opt = getopt(argc, argv, "w:t:a:N:")) != -1) {
		switch (opt) {
		case 'w': mb = parse_long(optarg, "working set MB"); break;
		case 't': nthreads = parse_long(optarg, "threads"); break;
		case 'a': accesses = parse_long(optarg, "accesses"); break;
		case 'N': name = optarg; break;
		default: fatal("usage: swaptest pressure [-w MB] [-t threads] [-a accesses per thread] [-N name]");
		}
	}
	if (nthreads < 1 || nthreads > 64 || !mb || !accesses)
		fatal("pressure: bad arguments");
	npages = mb * 256;
	p = xmap(npages * PAGE_SZ);
	gen = calloc(npages, 1);
	lat = malloc((size_t)nthreads * accesses * sizeof(*lat));
	if (!gen || !lat)
		fatal("out of memory");
	for (i = 0; i < npages; i++)
		fill_page(p + i * PAGE_SZ, seed, i, 0);
	in0 = vmstat("pswpin");
	out0 = vmstat("pswpout");
	t0 = now_ns();
	for (t = 0; t < nthreads; t++) {
		r[t] = (struct pressure){ .base = p, .gen = gen, .npages = npages,
			.first = t, .stride = nthreads, .accesses = accesses,
			.lat = lat + (size_t)t * accesses };
		r[t].pagemap = open("/proc/self/pagemap", O_RDONLY);
		if (r[t].pagemap < 0)
			fatal("open pagemap: %s", strerror(errno));
		if (pthread_create(&tid[t], NULL, pressure_thread, &r[t]))
			fatal("pthread_create failed");
	}
	for (t = 0; t < nthreads; t++) {
		pthread_join(tid[t], NULL);
		close(r[t].pagemap);
		memmove(lat + nlat, r[t].lat, r[t].nlat * sizeof(*lat));
		nlat += r[t].nlat;
		bad += r[t].bad;
	}
	t1 = now_ns();
	in1 = vmstat("pswpin");
	out1 = vmstat("pswpout");
	secs = (t1 - t0) / 1e9;
	percentiles(lat, nlat, &p50, &p99);
	diag("pressure: %zu MB on %d threads, %zu accesses each: %zu swap-in faults, median %.2f us, p99 %.2f us; %.0f swap-ins/s, %.0f swap-outs/s",
	     mb, nthreads, accesses, nlat, p50 / 1e3, p99 / 1e3,
	     (in1 - in0) / secs, (out1 - out0) / secs);
	metric("swapin_faults", nlat);
	metric("fault_median_us", p50 / 1e3);
	metric("fault_p99_us", p99 / 1e3);
	metric("swapins_per_s", (in1 - in0) / secs);
	metric("swapouts_per_s", (out1 - out0) / secs);
	if (bad)
		result(name, 0, "%zu accesses found a wrong byte under memory pressure", bad);
	else if (!nlat)
		result(name, 0, "no access hit a swapped-out page: is the memcg limit below the %zu MB working set?", mb);
	else
		result(name, 1, "%zu MB randomly read and written on %d threads under pressure, %zu swap-ins, every byte intact",
		       mb, nthreads, nlat);
	munmap(p, npages * PAGE_SZ);
	free(gen);
	free(lat);
	return bad || !nlat;
}

static size_t verify_range(unsigned char *p, size_t from, size_t to,
			   unsigned gen)
{
	size_t i, bad = 0;

	for (i = from; i < to; i++)
		if (check_page(p + i * PAGE_SZ, seed, i, gen))
			bad++;
	return bad;
}

static int cmd_fork(int argc, char **argv)
{
	size_t npages = 16384, i, bad;
	int opt, status;
	unsigned char *p;
	long swapped;
	pid_t pid;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		switch (opt) {
		case 'n': npages = parse_long(optarg, "pages"); break;
		default: fatal("usage: swaptest fork [-n pages]");
		}
	}
	p = xmap(npages * PAGE_SZ);
	for (i = 0; i < npages; i++)
		fill_page(p + i * PAGE_SZ, seed, i, 11);
	swapped = page_out(p, npages);
	if (swapped * 10 < (long)npages * 9) {
		result("fork", 0, "only %ld of %zu pages swapped before fork", swapped, npages);
		return 1;
	}
	pid = fork();
	if (pid < 0)
		fatal("fork: %s", strerror(errno));
	if (!pid) {
		/* child: shared swap entries (count 2); read all, rewrite half */
		bad = verify_range(p, 0, npages, 11);
		for (i = 0; i < npages / 2; i++)
			fill_page(p + i * PAGE_SZ, seed, i, 12);
		page_out(p, npages);
		bad += verify_range(p, 0, npages / 2, 12);
		bad += verify_range(p, npages / 2, npages, 11);
		_exit(bad ? 1 : 0);
	}
	/* parent, concurrently: its view must stay the original one */
	step("refault pass fork: %zu shared pages", npages);
	bad = verify_range(p, 0, npages, 11);
	step("fork: wait for the child");
	if (waitpid(pid, &status, 0) < 0)
		fatal("waitpid: %s", strerror(errno));
	page_out(p, npages);
	bad += verify_range(p, 0, npages, 11);
	if (bad || !WIFEXITED(status) || WEXITSTATUS(status)) {
		result("fork", 0, "copy-on-write over shared swap entries went wrong: parent %zu bad pages, child status %d",
		       bad, status);
		return 1;
	}
	result("fork", 1, "%zu pages swapped, shared by fork (swap count 2), both sides intact after COW",
	       npages);
	munmap(p, npages * PAGE_SZ);
	return 0;
}

static int cmd_shmem(int argc, char **argv)
{
	size_t npages = 16384, i, bad;
	int opt;
	unsigned char *p;
	long out0, out;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		switch (opt) {
		case 'n': npages = parse_long(optarg, "pages"); break;
		default: fatal("usage: swaptest shmem [-n pages]");
		}
	}
	p = mmap(NULL, npages * PAGE_SZ, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fatal("mmap shared: %s", strerror(errno));
	for (i = 0; i < npages; i++)
		fill_page(p + i * PAGE_SZ, seed, i, 21);
	out0 = vmstat("pswpout");
	page_out(p, npages);
	out = vmstat("pswpout") - out0;
	diag("shmem: %ld of %zu pages written to swap", out, npages);
	step("refault pass shmem: %zu pages", npages);
	bad = verify_range(p, 0, npages, 21);
	step("shmem: results");
	munmap(p, npages * PAGE_SZ);
	if (out * 10 < (long)npages * 9) {
		result("shmem", 0, "MADV_PAGEOUT wrote only %ld of %zu shmem pages to swap", out, npages);
		return 1;
	}
	if (bad) {
		result("shmem", 0, "%zu of %zu shmem pages came back wrong", bad, npages);
		return 1;
	}
	result("shmem", 1, "%zu shmem pages swapped out and back intact", npages);
	return 0;
}

/* every page allocation /proc/vmstat counts, all zones */
static long pgalloc(void)
{
	static const char *const z[] = { "pgalloc_dma", "pgalloc_dma32",
					 "pgalloc_normal", "pgalloc_movable" };
	long v, sum = 0;
	size_t i;

	for (i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		v = vmstat(z[i]);
		if (v > 0)
			sum += v;
	}
	return sum;
}

/*
 * Readahead over freed slots (lab 03's observable).  Swap PAGES shmem
 * pages out (shmem swap-in always goes through the swap cache and
 * readahead, even on a synchronous device), free every other one's slot
 * (MADV_REMOVE punches the page and its swap entry out of the file), then
 * read the rest back in order.  Each readahead window now holds as many
 * free slots as used ones; a kernel that allocates a page for a slot
 * before seeing it is unused does one page allocation per free slot that
 * reads nothing.  Prints METRIC ra_extra_allocs_per_page: page
 * allocations beyond the pages read from swap (pswpin), per page read.
 */
static int cmd_rafree(int argc, char **argv)
{
	size_t npages = 4096, i, bad = 0;
	long out, a0, in0, allocs, reads;
	unsigned char *p;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		switch (opt) {
		case 'n': npages = parse_long(optarg, "pages"); break;
		default: fatal("usage: swaptest rafree [-n pages]");
		}
	}
	p = mmap(NULL, npages * PAGE_SZ, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fatal("mmap shared: %s", strerror(errno));
	for (i = 0; i < npages; i++)
		fill_page(p + i * PAGE_SZ, seed, i, 23);
	/* pagemap does not show shmem swap entries: count the writes */
	out = vmstat("pswpout");
	page_out(p, npages);
	out = vmstat("pswpout") - out;
	if (out * 10 < (long)npages * 9) {
		result("rafree", 0, "MADV_PAGEOUT swapped only %ld of %zu shmem pages", out, npages);
		return 1;
	}
	for (i = 1; i < npages; i += 2)
		if (madvise(p + i * PAGE_SZ, PAGE_SZ, MADV_REMOVE))
			fatal("madvise(MADV_REMOVE): %s", strerror(errno));
	a0 = pgalloc();
	in0 = vmstat("pswpin");
	for (i = 0; i < npages; i += 2)
		if (check_page(p + i * PAGE_SZ, seed, i, 23))
			bad++;
	allocs = pgalloc() - a0;
	reads = vmstat("pswpin") - in0;
	munmap(p, npages * PAGE_SZ);
	if (bad) {
		result("rafree", 0, "%zu of %zu shmem pages came back wrong", bad, (npages + 1) / 2);
		return 1;
	}
	if (reads < (long)npages / 4) {
		result("rafree", 0, "only %ld pages were read from swap for %zu swapped pages", reads,
		       (npages + 1) / 2);
		return 1;
	}
	metric("ra_pages_read", reads);
	metric("ra_page_allocs", allocs);
	metric("ra_extra_allocs_per_page", (double)(allocs - reads) / reads);
	result("rafree", 1, "%ld pages read back through readahead, %ld page allocations", reads, allocs);
	return 0;
}

/*
 * Fill the swap cache (lab 02's observable): swap PAGES private pages
 * out, fork, and read them all in the child.  Each entry is shared (count
 * 2), so even a synchronous device swaps it in through the swap cache,
 * and it stays there while the parent still maps the entry.  With the
 * pages cached, the child copies FILE (the grading build's
 * /sys/kernel/debug/swaplab/swapcache) to stdout, then both verify.
 */
static int cmd_cachespread(int argc, char **argv)
{
	size_t npages = 32768, bad, i;
	const char *file = "/sys/kernel/debug/swaplab/swapcache";
	char line[256];
	int opt, status;
	unsigned char *p;
	long swapped;
	FILE *f;
	pid_t pid;

	while ((opt = getopt(argc, argv, "n:f:")) != -1) {
		switch (opt) {
		case 'n': npages = parse_long(optarg, "pages"); break;
		case 'f': file = optarg; break;
		default: fatal("usage: swaptest cachespread [-n pages] [-f file]");
		}
	}
	p = xmap(npages * PAGE_SZ);
	for (i = 0; i < npages; i++)
		fill_page(p + i * PAGE_SZ, seed, i, 31);
	swapped = page_out(p, npages);
	if (swapped * 10 < (long)npages * 9) {
		result("cachespread", 0, "only %ld of %zu pages swapped before fork", swapped, npages);
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fatal("fork: %s", strerror(errno));
	if (!pid) {
		bad = verify_range(p, 0, npages, 31);
		f = fopen(file, "r");
		if (!f)
			fatal("%s: %s", file, strerror(errno));
		while (fgets(line, sizeof(line), f))
			printf("SWAPCACHE %s", line);
		fclose(f);
		fflush(stdout);
		_exit(bad ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) < 0)
		fatal("waitpid: %s", strerror(errno));
	bad = verify_range(p, 0, npages, 31);
	munmap(p, npages * PAGE_SZ);
	if (bad || !WIFEXITED(status) || WEXITSTATUS(status)) {
		result("cachespread", 0, "pages shared by fork came back wrong: parent %zu bad pages, child status %d",
		       bad, status);
		return 1;
	}
	result("cachespread", 1, "%zu fork-shared pages swapped in through the swap cache, intact", npages);
	return 0;
}

/*
 * Swap counts past SWAP_MAP_MAX (62): swap PAGES pages out and fork
 * CHILDREN children that keep the mapping, so every entry is shared by
 * CHILDREN + 1 processes and its count lives partly in a continuation
 * page (add_swap_count_continuation(), swap_count_continued(): lab 01's
 * count paths under the lock that protects the entry).  Then every child
 * reads its copy back and exits, dropping the counts through the
 * continuation again; the parent verifies last.
 */
static int cmd_manyfork(int argc, char **argv)
{
	size_t npages = 64, i, bad;
	int opt, children = 70, k, failed = 0, status, fd[2];
	unsigned char *p;
	long swapped;
	pid_t *pids;
	char c;

	while ((opt = getopt(argc, argv, "n:c:")) != -1) {
		switch (opt) {
		case 'n': npages = parse_long(optarg, "pages"); break;
		case 'c': children = (int)parse_long(optarg, "children"); break;
		default: fatal("usage: swaptest manyfork [-n pages] [-c children]");
		}
	}
	pids = calloc((size_t)children, sizeof(*pids));
	if (!pids)
		fatal("out of memory");
	p = xmap(npages * PAGE_SZ);
	for (i = 0; i < npages; i++)
		fill_page(p + i * PAGE_SZ, seed, i, 41);
	swapped = page_out(p, npages);
	if (swapped * 10 < (long)npages * 9) {
		result("manyfork", 0, "only %ld of %zu pages swapped before forking", swapped, npages);
		return 1;
	}
	if (pipe(fd))
		fatal("pipe: %s", strerror(errno));
	fflush(stdout);
	for (k = 0; k < children; k++) {
		pids[k] = fork();
		if (pids[k] < 0)
			fatal("fork %d: %s", k, strerror(errno));
		if (!pids[k]) {
			close(fd[1]);
			/* hold the shared entries until every sibling exists */
			while (read(fd[0], &c, 1) > 0)
				;
			_exit(verify_range(p, 0, npages, 41) ? 1 : 0);
		}
	}
	close(fd[0]);
	diag("manyfork: %zu entries shared by %d processes", npages, children + 1);
	close(fd[1]);		/* release them all */
	for (k = 0; k < children; k++) {
		if (waitpid(pids[k], &status, 0) < 0)
			fatal("waitpid: %s", strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	}
	free(pids);
	bad = verify_range(p, 0, npages, 41);
	munmap(p, npages * PAGE_SZ);
	if (failed || bad) {
		result("manyfork", 0, "swap entries shared by %d processes (count continuation) went wrong: %d children saw bad pages, parent %zu",
		       children + 1, failed, bad);
		return 1;
	}
	result("manyfork", 1, "%zu swap entries shared by %d processes (counts past SWAP_MAP_MAX, continuation pages), every copy intact",
	       npages, children + 1);
	return 0;
}

/* swapon with an explicit priority (busybox's swapon has no -p). */
static int cmd_swapon(int argc, char **argv)
{
	int flags = 0;

	if (argc < 2 || argc > 3)
		fatal("usage: swaptest swapon DEVICE [PRIORITY]");
	if (argc == 3)
		flags = SWAP_FLAG_PREFER |
			((int)parse_long(argv[2], "priority") & SWAP_FLAG_PRIO_MASK);
	if (swapon(argv[1], flags))
		fatal("swapon %s: %s", argv[1], strerror(errno));
	return 0;
}

/*
 * The kit's own test of a hang the kernel does not report (tests/smoke): a
 * vfork child that never execs leaves its parent waiting in the kernel
 * (wait_for_vfork_done, killable: SysRq w lists it) until killed.
 */
static int cmd_stuck(void)
{
	pid_t pid = vfork();

	if (pid == 0)
		for (;;)
			pause();
	if (pid < 0)
		fatal("vfork: %s", strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("SWAPTEST_SEED"))
		seed = strtoull(getenv("SWAPTEST_SEED"), NULL, 0);
	if (!strcmp(sub, "pageout"))
		return cmd_pageout(argc - 1, argv + 1);
	if (!strcmp(sub, "fill"))
		return cmd_fill(argc - 1, argv + 1);
	if (!strcmp(sub, "fork"))
		return cmd_fork(argc - 1, argv + 1);
	if (!strcmp(sub, "shmem"))
		return cmd_shmem(argc - 1, argv + 1);
	if (!strcmp(sub, "rafree"))
		return cmd_rafree(argc - 1, argv + 1);
	if (!strcmp(sub, "cachespread"))
		return cmd_cachespread(argc - 1, argv + 1);
	if (!strcmp(sub, "manyfork"))
		return cmd_manyfork(argc - 1, argv + 1);
	if (!strcmp(sub, "pressure"))
		return cmd_pressure(argc - 1, argv + 1);
	if (!strcmp(sub, "swapon"))
		return cmd_swapon(argc - 1, argv + 1);
	if (!strcmp(sub, "hold"))
		return cmd_hold(argc - 1, argv + 1);
	if (!strcmp(sub, "stuck"))
		return cmd_stuck();
	fprintf(stderr, "usage: swaptest pageout|fill|hold|pressure|fork|shmem|rafree|cachespread|manyfork|swapon|stuck [options]\n");
	return 2;
}
