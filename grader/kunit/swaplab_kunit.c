// SPDX-License-Identifier: GPL-2.0
/*
 * swaplab white-box tests: one KUnit suite per lab.
 *
 * The grader never puts this file in a student's tree.  scripts/overlay
 * copies it to mm/ of the kernel being graded and appends
 *
 *	#define SWAPLAB_LAB NN
 *	#include "swaplab_kunit.c"
 *
 * to mm/swapfile.c, so the tests reach swapfile.c's static functions and
 * only the suites of labs <= NN are compiled (lab NN's kernel has the
 * interfaces of every earlier lab).  Lab 06's suite lives in
 * swaplab_kunit_slots.c, included the same way by mm/swap_slots.c.
 *
 * The suites do not run at boot: there is no swap device then.  Once swap
 * is on, the guest writes a lab number to /sys/kernel/debug/swaplab/kunit
 * and reads the KTAP results from /sys/kernel/debug/kunit/swaplab-labNN/.
 * Every message starts with "labNN:" and says what the contract is.
 *
 * The tests allocate swap slots directly and give them back; they expect
 * an idle guest (tests/guest/kunit.sh runs nothing else) and run on the
 * fast kernel.
 */
#include <kunit/test.h>
#include <linux/debugfs.h>
#include <linux/memcontrol.h>
#include <linux/vmstat.h>
#include <linux/uaccess.h>
#include <linux/kthread.h>
#include <linux/completion.h>

/* the first usable device with (SSD) or without (rotational) cluster_info */
static struct swap_info_struct *swaplab_si(bool clustered)
{
	unsigned int type;

	for (type = 0; type < READ_ONCE(nr_swapfiles); type++) {
		struct swap_info_struct *si = swap_info[type];

		if (si && (READ_ONCE(si->flags) & SWP_WRITEOK) &&
		    !!si->cluster_info == clustered)
			return si;
	}
	return NULL;
}

/* up to @max indexes from the head of @si's free cluster list */
static int __maybe_unused swaplab_free_clusters(struct swap_info_struct *si,
						unsigned int *idx, int max)
{
	struct swap_cluster_info *ci = si->cluster_info;
	unsigned int i, tail;
	int n = 0;

	spin_lock(&si->lock);
	if (!cluster_list_empty(&si->free_clusters)) {
		i = cluster_list_first(&si->free_clusters);
		tail = cluster_next(&si->free_clusters.tail);
		for (;;) {
			idx[n++] = i;
			if (i == tail || n == max)
				break;
			i = cluster_next(&ci[i]);
		}
	}
	spin_unlock(&si->lock);
	return n;
}

#if SWAPLAB_LAB >= 1
static void lab01_lock_cluster(struct kunit *test)
{
	struct swap_info_struct *si = swaplab_si(true);
	struct swap_cluster_info *ci;

	KUNIT_ASSERT_NOT_NULL_MSG(test, si, "lab01: no swap device with cluster_info");
	ci = lock_cluster(si, 3 * SWAPFILE_CLUSTER + 7);
	KUNIT_ASSERT_PTR_EQ_MSG(test, ci, si->cluster_info + 3,
		"lab01: lock_cluster(si, offset) must return the swap_cluster_info of offset's cluster");
	KUNIT_EXPECT_TRUE_MSG(test, spin_is_locked(&ci->lock),
		"lab01: lock_cluster() must return with that cluster's lock held");
	KUNIT_EXPECT_FALSE_MSG(test, spin_is_locked(&si->lock),
		"lab01: lock_cluster() must not take si->lock");
	unlock_cluster(ci);
	KUNIT_EXPECT_FALSE_MSG(test, spin_is_locked(&ci->lock),
		"lab01: unlock_cluster() must release the cluster lock");
}

static void lab01_fallback(struct kunit *test)
{
	struct swap_info_struct *ssd = swaplab_si(true), *rot = swaplab_si(false);
	struct swap_cluster_info *ci;

	KUNIT_ASSERT_NOT_NULL_MSG(test, ssd, "lab01: no swap device with cluster_info");
	KUNIT_ASSERT_NOT_NULL_MSG(test, rot, "lab01: no rotational swap device (swap mode 'mixed' expected)");
	ci = lock_cluster_or_swap_info(rot, 5);
	KUNIT_EXPECT_NULL_MSG(test, ci,
		"lab01: a device without cluster_info has no cluster to return");
	KUNIT_EXPECT_TRUE_MSG(test, spin_is_locked(&rot->lock),
		"lab01: without cluster_info, lock_cluster_or_swap_info() must fall back to si->lock");
	unlock_cluster_or_swap_info(rot, ci);
	KUNIT_EXPECT_FALSE_MSG(test, spin_is_locked(&rot->lock),
		"lab01: unlock_cluster_or_swap_info() must release si->lock");

	ci = lock_cluster_or_swap_info(ssd, SWAPFILE_CLUSTER + 1);
	KUNIT_ASSERT_PTR_EQ_MSG(test, ci, ssd->cluster_info + 1,
		"lab01: with cluster_info, lock_cluster_or_swap_info() must lock the cluster");
	KUNIT_EXPECT_FALSE_MSG(test, spin_is_locked(&ssd->lock),
		"lab01: with cluster_info, lock_cluster_or_swap_info() must not take si->lock");
	unlock_cluster_or_swap_info(ssd, ci);
	KUNIT_EXPECT_FALSE_MSG(test, spin_is_locked(&ci->lock),
		"lab01: unlock_cluster_or_swap_info() must release the cluster lock");
}

static void lab01_cluster_order(struct kunit *test)
{
	struct swap_info_struct *si = swaplab_si(true);
	unsigned int idx[16];
	int i, n;

	KUNIT_ASSERT_NOT_NULL_MSG(test, si, "lab01: no swap device with cluster_info");
	n = swaplab_free_clusters(si, idx, ARRAY_SIZE(idx));
	KUNIT_ASSERT_GE_MSG(test, n, 8, "lab01: fewer than 8 free clusters on a fresh device");
	for (i = 1; i < n; i++) {
		unsigned long a = idx[i - 1] * sizeof(struct swap_cluster_info);
		unsigned long b = idx[i] * sizeof(struct swap_cluster_info);

		KUNIT_EXPECT_NE_MSG(test, a / L1_CACHE_BYTES, b / L1_CACHE_BYTES,
			"lab01: free clusters %u and %u follow each other on the free list but share a cache line of cluster_info",
			idx[i - 1], idx[i]);
	}
}

/*
 * The count continuation path.  add_swap_count_continuation() reads a
 * slot's count and links a continuation page for it; after lab 01,
 * __swap_duplicate() and __swap_entry_free() change that count under the
 * cluster lock alone.  So the continuation path must hold the slot's
 * cluster lock too, or the two race on one count.  With the lock held
 * here, a call on another CPU must not finish; once it is released, it
 * must.  A call that finishes in the window is a fact, not a timing: the
 * window only bounds how long a correct kernel waits (a slow host can
 * only hide the bug, never fail a correct kernel).
 */
struct lab01_cont {
	swp_entry_t entry;
	struct completion started, done;
	int ret;
};

static int lab01_cont_fn(void *arg)
{
	struct lab01_cont *c = arg;

	complete(&c->started);
	c->ret = add_swap_count_continuation(c->entry, GFP_KERNEL);
	complete(&c->done);
	return 0;
}

#define LAB01_TRIES 130	/* two refills of lab 06's 64-slot cache, and then some */
#define LAB01_HOLD_MS 1000

static void lab01_continuation(struct kunit *test)
{
	swp_entry_t *spare = kunit_kcalloc(test, LAB01_TRIES, sizeof(*spare), GFP_KERNEL);
	struct swap_info_struct *si = NULL;
	struct swap_cluster_info *ci;
	struct task_struct *t;
	struct lab01_cont *c;
	struct folio *folio;
	unsigned long off;
	bool early = false, started;
	ktime_t end;
	int i, n = 0, cpu, other, count;

	KUNIT_ASSERT_NOT_NULL(test, spare);
	KUNIT_ASSERT_GE_MSG(test, num_online_cpus(), 2U,
		"lab01: the continuation test needs two CPUs (a setup problem, not your code)");
	/* not test-managed: a thread that never returns still writes to it */
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	folio = folio_alloc(GFP_KERNEL, 0);
	if (!folio || mem_cgroup_charge(folio, NULL, GFP_KERNEL)) {	/* as in lab03_swapcount */
		if (folio)
			folio_put(folio);
		kfree(c);
		KUNIT_FAIL(test, "lab01: could not charge a folio (a setup problem, not your code)");
		return;
	}
	/* a slot on a device with cluster_info (mixed mode alternates devices) */
	while (n < LAB01_TRIES) {
		c->entry = folio_alloc_swap(folio);
		if (!c->entry.val)
			break;
		si = swap_info[swp_type(c->entry)];
		if (si->cluster_info)
			break;
		spare[n++] = c->entry;
		c->entry.val = 0;
	}
	for (i = 0; i < n; i++)
		put_swap_folio(folio, spare[i]);
	if (!c->entry.val) {
		folio_put(folio);
		kfree(c);
		KUNIT_FAIL(test, "lab01: no swap slot on a device with cluster_info (a setup problem, not your code)");
		return;
	}
	off = swp_offset(c->entry);
	/* raise the count to SWAP_MAP_MAX, the most swap_map itself holds */
	for (count = 0; count < SWAP_MAP_MAX; count++)
		if (__swap_duplicate(c->entry, 1))
			break;
	if (count < SWAP_MAP_MAX) {
		KUNIT_FAIL(test, "lab01: swap_duplicate() failed at count %d, below SWAP_MAP_MAX", count);
		goto out;
	}

	init_completion(&c->started);
	init_completion(&c->done);
	migrate_disable();
	cpu = smp_processor_id();
	other = cpumask_any_but(cpu_online_mask, cpu);
	t = kthread_create(lab01_cont_fn, c, "swaplab-cont");
	if (IS_ERR(t)) {
		migrate_enable();
		KUNIT_FAIL(test, "lab01: could not start a thread (a setup problem, not your code)");
		goto out;
	}
	kthread_bind(t, other);
	ci = lock_cluster_or_swap_info(si, off);
	wake_up_process(t);
	end = ktime_add_ms(ktime_get(), LAB01_HOLD_MS);
	while (ktime_before(ktime_get(), end)) {
		if (completion_done(&c->done)) {
			early = true;
			break;
		}
		cpu_relax();
	}
	started = completion_done(&c->started);
	unlock_cluster_or_swap_info(si, ci);
	migrate_enable();
	KUNIT_EXPECT_FALSE_MSG(test, early,
		"lab01: add_swap_count_continuation() finished while another CPU held the slot's cluster lock: it must hold the cluster lock while it reads the count and links a continuation page, as every other writer of the count does");
	if (!started)
		kunit_info(test, "the continuation thread did not start within %d ms (inconclusive)", LAB01_HOLD_MS);
	if (!wait_for_completion_timeout(&c->done, 10 * HZ)) {
		/* it may still return: c and the slot stay theirs */
		KUNIT_FAIL(test, "lab01: add_swap_count_continuation() did not finish within 10 s of the cluster lock's release");
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, c->ret, 0,
		"lab01: add_swap_count_continuation() failed at a count of SWAP_MAP_MAX");
	/* the count now carries into the continuation page */
	i = __swap_duplicate(c->entry, 1);
	KUNIT_EXPECT_EQ_MSG(test, i, 0,
		"lab01: with a continuation page linked, a count above SWAP_MAP_MAX must carry into it");
	if (!i)
		count++;
	KUNIT_EXPECT_EQ_MSG(test, swp_swapcount(c->entry), count,
		"lab01: swp_swapcount() must read the count through its continuation page");
out:
	while (count-- > 0)
		swap_free(c->entry);
	put_swap_folio(folio, c->entry);
	folio_put(folio);
	kfree(c);
}

static struct kunit_case lab01_cases[] = {
	KUNIT_CASE(lab01_lock_cluster),
	KUNIT_CASE(lab01_fallback),
	KUNIT_CASE(lab01_cluster_order),
	KUNIT_CASE(lab01_continuation),
	{}
};

static struct kunit_suite lab01_suite = {
	.name = "swaplab-lab01",
	.test_cases = lab01_cases,
};
#endif

#if SWAPLAB_LAB >= 2
static void lab02_trunks(struct kunit *test)
{
	struct swap_info_struct *si = swaplab_si(true);
	struct address_space *a0, *a1, *b, *last;
	unsigned int type;

	KUNIT_ASSERT_NOT_NULL_MSG(test, si, "lab02: no swap device with cluster_info");
	KUNIT_ASSERT_GE_MSG(test, si->max, 2UL * SWAP_ADDRESS_SPACE_PAGES,
		"lab02: the test device must span two 64 MB trunks");
	type = si->type;
	a0 = swap_address_space(swp_entry(type, 0));
	a1 = swap_address_space(swp_entry(type, SWAP_ADDRESS_SPACE_PAGES - 1));
	b = swap_address_space(swp_entry(type, SWAP_ADDRESS_SPACE_PAGES));
	last = swap_address_space(swp_entry(type, si->max - 1));
	KUNIT_EXPECT_PTR_EQ_MSG(test, a0, a1,
		"lab02: offsets in the same 64 MB trunk must share one address_space");
	KUNIT_EXPECT_PTR_NE_MSG(test, a0, b,
		"lab02: offsets 64 MB apart must use distinct address_spaces");
	KUNIT_EXPECT_PTR_EQ_MSG(test, b, a0 + 1,
		"lab02: trunk i of a device is swapper_spaces[type][i]");
	KUNIT_EXPECT_PTR_EQ_MSG(test, last,
		a0 + (si->max - 1) / SWAP_ADDRESS_SPACE_PAGES,
		"lab02: the last slot's address_space is trunk (max - 1) / SWAP_ADDRESS_SPACE_PAGES");
	KUNIT_EXPECT_PTR_EQ_MSG(test, last->a_ops, a0->a_ops,
		"lab02: every trunk up to the device's last slot must be initialized at swapon (DIV_ROUND_UP)");
}

static void lab02_cluster_order(struct kunit *test)
{
	struct swap_info_struct *si = swaplab_si(true);
	unsigned int idx[16];
	int i, n;

	KUNIT_ASSERT_NOT_NULL_MSG(test, si, "lab02: no swap device with cluster_info");
	n = swaplab_free_clusters(si, idx, ARRAY_SIZE(idx));
	KUNIT_ASSERT_GE_MSG(test, n, 8, "lab02: fewer than 8 free clusters on a fresh device");
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_NE_MSG(test,
			idx[i - 1] * SWAPFILE_CLUSTER / SWAP_ADDRESS_SPACE_PAGES,
			idx[i] * SWAPFILE_CLUSTER / SWAP_ADDRESS_SPACE_PAGES,
			"lab02: free clusters %u and %u follow each other on the free list but lie in the same 64 MB trunk",
			idx[i - 1], idx[i]);
}

/*
 * One CPU's trunk crossings: each starts from the last page of trunk 0 and
 * asks for the first page of trunk 1; the trunk it lands in is counted.
 */
struct lab02_spread {
	struct swap_info_struct *si;
	unsigned long hits[64];		/* per trunk index, the last counts the rest */
	int crossings;
};

static long lab02_cross_on_cpu(void *arg)
{
	struct lab02_spread *sp = arg;
	struct swap_info_struct *si = sp->si;
	unsigned int old, got;
	int i;

	preempt_disable();
	old = this_cpu_read(*si->cluster_next_cpu);
	for (i = 0; i < 16; i++) {
		this_cpu_write(*si->cluster_next_cpu, SWAP_ADDRESS_SPACE_PAGES - 1);
		set_cluster_next(si, SWAP_ADDRESS_SPACE_PAGES + 5);
		got = this_cpu_read(*si->cluster_next_cpu) / SWAP_ADDRESS_SPACE_PAGES;
		sp->hits[min_t(unsigned int, got, ARRAY_SIZE(sp->hits) - 1)]++;
		sp->crossings++;
	}
	this_cpu_write(*si->cluster_next_cpu, old);
	preempt_enable();
	return 0;
}

static void lab02_cluster_next(struct kunit *test)
{
	struct swap_info_struct *si = swaplab_si(true);
	struct lab02_spread *sp;
	unsigned int old, same, crossed;
	int cpu, ncpu = 0, trunks = 0, top = 0, i;

	KUNIT_ASSERT_NOT_NULL_MSG(test, si, "lab02: no swap device with cluster_info");
	KUNIT_ASSERT_TRUE_MSG(test, si->flags & SWP_SOLIDSTATE, "lab02: the device is not SSD-like");
	get_cpu();
	old = this_cpu_read(*si->cluster_next_cpu);
	this_cpu_write(*si->cluster_next_cpu, 10);
	set_cluster_next(si, 11);
	same = this_cpu_read(*si->cluster_next_cpu);
	this_cpu_write(*si->cluster_next_cpu, SWAP_ADDRESS_SPACE_PAGES - 1);
	set_cluster_next(si, SWAP_ADDRESS_SPACE_PAGES + 5);
	crossed = this_cpu_read(*si->cluster_next_cpu);
	this_cpu_write(*si->cluster_next_cpu, old);
	put_cpu();
	KUNIT_EXPECT_EQ_MSG(test, same, 11U,
		"lab02: within a trunk, set_cluster_next() keeps the next offset");
	KUNIT_EXPECT_TRUE_MSG(test,
		crossed % SWAP_ADDRESS_SPACE_PAGES == 0 || crossed == si->lowest_bit,
		"lab02: crossing into another trunk must restart at the start of a randomly chosen trunk (got offset %u)",
		crossed);

	/*
	 * The idea, not one formula: CPUs that cross out of the same trunk
	 * must not all land in one trunk (they would contend on its
	 * address_space lock again).  16 crossings on each online CPU (up to
	 * 8); on kunit.sh's 400 MB device (7 trunks) a random pick lands in
	 * one trunk every time with probability below 10^-12.
	 */
	sp = kunit_kzalloc(test, sizeof(*sp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sp);
	sp->si = si;
	for_each_online_cpu(cpu) {
		if (ncpu++ == 8)
			break;
		work_on_cpu(cpu, lab02_cross_on_cpu, sp);
	}
	for (i = 0; i < ARRAY_SIZE(sp->hits); i++) {
		if (!sp->hits[i])
			continue;
		trunks++;
		top = sp->hits[i] > sp->hits[top] ? i : top;
	}
	KUNIT_EXPECT_GE_MSG(test, trunks, 2,
		"lab02: %d trunk crossings on %d CPUs all restarted in trunk %d: CPUs that leave a trunk pile into one trunk and contend on its address_space; spread them (the series picks a trunk at random)",
		sp->crossings, min(ncpu, 8), top);
}

/*
 * /sys/kernel/debug/swaplab/swapcache: for each usable device, how its swap
 * cache is spread: trunks (64 MB of slots each), distinct address_spaces
 * serving them (through the tree's own swap_address_space()), pages
 * cached in all of them and in the fullest.  Lab 02's black-box reading
 * (tests/guest/cachespread.sh fills the swap cache through fork-shared
 * swap-ins, then reads it).
 */
static int swaplab_swapcache_show(struct seq_file *m, void *v)
{
	struct address_space *seen[64], *sp;
	unsigned long off, cached, fullest;
	unsigned int type, trunks;
	int j, nseen;

	for (type = 0; type < READ_ONCE(nr_swapfiles); type++) {
		struct swap_info_struct *si = get_swap_device(swp_entry(type, 1));

		if (!si)
			continue;
		cached = 0;
		fullest = 0;
		trunks = 0;
		nseen = 0;
		for (off = 0; off < si->max; off += SWAP_ADDRESS_SPACE_PAGES) {
			sp = swap_address_space(swp_entry(type, off));
			trunks++;
			for (j = 0; j < nseen && seen[j] != sp; j++)
				;
			if (j < nseen || nseen == ARRAY_SIZE(seen))
				continue;
			seen[nseen++] = sp;
			cached += READ_ONCE(sp->nrpages);
			fullest = max(fullest, READ_ONCE(sp->nrpages));
		}
		seq_printf(m, "type %u trunks %u spaces %d cached %lu fullest %lu\n",
			   type, trunks, nseen, cached, fullest);
		put_swap_device(si);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(swaplab_swapcache);

static struct kunit_case lab02_cases[] = {
	KUNIT_CASE(lab02_trunks),
	KUNIT_CASE(lab02_cluster_order),
	KUNIT_CASE(lab02_cluster_next),
	{}
};

static struct kunit_suite lab02_suite = {
	.name = "swaplab-lab02",
	.test_cases = lab02_cases,
};
#endif

#if SWAPLAB_LAB >= 3
/* page allocations so far, every zone, every CPU */
static unsigned long swaplab_pgalloc(void)
{
	unsigned long *ev, sum = 0;
	int z;

	ev = kcalloc(NR_VM_EVENT_ITEMS, sizeof(*ev), GFP_KERNEL | __GFP_NOFAIL);
	all_vm_events(ev);
	for (z = 0; z < MAX_NR_ZONES; z++)
		sum += ev[PGALLOC_NORMAL - ZONE_NORMAL + z];
	kfree(ev);
	return sum;
}

static void lab03_swapcount(struct kunit *test)
{
	struct folio *folio = folio_alloc(GFP_KERNEL, 0);
	swp_entry_t entry;

	KUNIT_ASSERT_NOT_NULL(test, folio);
	/*
	 * Charged, as every folio that reaches the swap allocator is: the
	 * debug kernel (DEBUG_VM, lockdep-clean runs this suite) warns on a
	 * swap charge for a folio without a memcg.  In this kthread the
	 * charge goes to the root memcg; folio_put() uncharges it.
	 */
	if (mem_cgroup_charge(folio, NULL, GFP_KERNEL)) {
		folio_put(folio);
		KUNIT_FAIL(test, "lab03: could not charge a folio (a setup problem, not your code)");
		return;
	}
	entry = folio_alloc_swap(folio);
	if (!entry.val)
		folio_put(folio);
	KUNIT_ASSERT_NE_MSG(test, entry.val, 0UL, "lab03: could not allocate a swap slot");
	KUNIT_EXPECT_EQ_MSG(test, __swp_swapcount(entry), 0,
		"lab03: a slot held only by the swap cache (SWAP_HAS_CACHE) has no swapped-out references");
	KUNIT_EXPECT_EQ(test, swap_duplicate(entry), 0);
	KUNIT_EXPECT_EQ_MSG(test, __swp_swapcount(entry), 1,
		"lab03: __swp_swapcount() must count a page table reference to the slot");
	swap_free(entry);
	put_swap_folio(folio, entry);
	folio_put(folio);
}

/*
 * Cluster readahead (the path shmem swap-in always takes) over free slots.
 * Each call after the first is for the slot after the previous one, so
 * swapin_nr_pages() opens a window of at least two slots: unpatched, each
 * call allocates a page per window slot plus one for the target, and frees
 * them when swapcache_prepare() says the slot is free.  Where the skip sits
 * (in __read_swap_cache_async() or in the readahead loop) is the student's
 * choice; that free slots cost no page is not.  The target here is free
 * too, which a real fault's never is, so one page per call is allowed.
 */
static void lab03_skip_unused(struct kunit *test)
{
	struct swap_info_struct *si = swaplab_si(true);
	struct vm_fault vmf = {};
	unsigned long off, first, before, allocated;
	struct page *page;
	int n;

	KUNIT_ASSERT_NOT_NULL_MSG(test, si, "lab03: no swap device with cluster_info");
	KUNIT_ASSERT_GT_MSG(test, READ_ONCE(page_cluster), 0,
		"lab03: vm.page-cluster is 0: no readahead to test (a setup problem, not your code)");
	/* 32 free slots in a row, window-aligned, in the device's top half */
	for (first = (si->max - 32) & ~63UL; first > si->max / 2; first -= 64) {
		for (n = 0; n < 32; n++)
			if (READ_ONCE(si->swap_map[first + n]))
				break;
		if (n == 32)
			break;
	}
	KUNIT_ASSERT_GT_MSG(test, first, si->max / 2,
		"lab03: no run of 32 free slots (a setup problem, not your code)");
	before = swaplab_pgalloc();
	for (off = first; off < first + 16; off++) {
		page = swap_cluster_readahead(swp_entry(si->type, off), GFP_KERNEL, &vmf);
		KUNIT_EXPECT_NULL_MSG(test, page,
			"lab03: reading free slot %lu into the swap cache must fail", off);
		if (page)
			put_page(page);
	}
	allocated = swaplab_pgalloc() - before;
	KUNIT_EXPECT_LT_MSG(test, allocated, 32UL,
		"lab03: readahead around 16 unused slots allocated %lu pages (under 32 allowed): it must skip a slot with no references before allocating",
		allocated);
}

static struct kunit_case lab03_cases[] = {
	KUNIT_CASE(lab03_swapcount),
	KUNIT_CASE(lab03_skip_unused),
	{}
};

static struct kunit_suite lab03_suite = {
	.name = "swaplab-lab03",
	.test_cases = lab03_cases,
};
#endif

#if SWAPLAB_LAB >= 4
/* give back slots that hold only SWAP_HAS_CACHE, one order-0 folio's worth each */
static void swaplab_put_slots(swp_entry_t *e, int n)
{
	struct folio *folio = folio_alloc(GFP_KERNEL | __GFP_NOFAIL, 0);
	int i;

	for (i = 0; i < n; i++)
		put_swap_folio(folio, e[i]);
	folio_put(folio);
}

/*
 * Ask for SWAP_BATCH slots four times (a batch may come back short where
 * the per-CPU cluster runs out); with CHECK, hold every returned slot to
 * the rules.  Returns the number of slots taken, *most the largest batch.
 */
static int lab04_take(struct kunit *test, swp_entry_t *e, int *most, bool check)
{
	long before, after;
	int i, j, k, got, n = 0;

	*most = 0;
	for (k = 0; k < 4; k++) {
		before = atomic_long_read(&nr_swap_pages);
		got = get_swap_pages(SWAP_BATCH, e + n, 1);
		after = atomic_long_read(&nr_swap_pages);
		if (check) {
			KUNIT_EXPECT_EQ_MSG(test, before - after, (long)got,
				"lab04: nr_swap_pages must drop by exactly the number of slots returned");
			KUNIT_EXPECT_LE_MSG(test, got, SWAP_BATCH,
				"lab04: get_swap_pages() returned more slots than asked for");
		}
		if (got < 0 || got > SWAP_BATCH)
			break;
		n += got;
		*most = max(*most, got);
	}
	for (i = 0; check && i < n; i++) {
		struct swap_info_struct *si = swap_info[swp_type(e[i])];
		unsigned long off = swp_offset(e[i]);

		KUNIT_EXPECT_TRUE_MSG(test, si && off > 0 && off < si->max,
			"lab04: slot %d (offset %lu) is out of the device's range", i, off);
		if (si && off < si->max)
			KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(si->swap_map[off]), SWAP_HAS_CACHE,
				"lab04: a returned slot must be marked SWAP_HAS_CACHE");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE_MSG(test, e[i].val, e[j].val,
				"lab04: slots %d and %d were handed out twice", j, i);
	}
	return n;
}

/* the lab's idea: one call fills most of a batch */
static void lab04_batch(struct kunit *test)
{
	swp_entry_t *e = kunit_kcalloc(test, 4 * SWAP_BATCH, sizeof(*e), GFP_KERNEL);
	int n, most;

	KUNIT_ASSERT_NOT_NULL(test, e);
	n = lab04_take(test, e, &most, false);
	KUNIT_EXPECT_GT_MSG(test, most, SWAP_BATCH / 2,
		"lab04: with plenty of free swap, get_swap_pages(SWAP_BATCH, ...) must fill most of a batch in one call (best of 4: %d)",
		most);
	swaplab_put_slots(e, n);
}

/*
 * The continuation alone (the lab's first step): scan_swap_map_slots()
 * fills most of a batch under one hold of si->lock, whatever
 * get_swap_pages() asks for.  The test reserves from nr_swap_pages what
 * get_swap_pages() would have, so that giving the slots back balances.
 */
static void lab04_scan(struct kunit *test)
{
	struct swap_info_struct *si = swaplab_si(true);
	swp_entry_t *e = kunit_kcalloc(test, 4 * SWAP_BATCH, sizeof(*e), GFP_KERNEL);
	int k, got, n = 0, most = 0;

	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_NOT_NULL_MSG(test, si, "lab04: no SSD-like swap device is on");
	for (k = 0; k < 4; k++) {
		spin_lock(&si->lock);
		got = scan_swap_map_slots(si, SWAP_HAS_CACHE, SWAP_BATCH, e + n);
		spin_unlock(&si->lock);
		if (got <= 0 || got > SWAP_BATCH)
			break;
		atomic_long_sub(got, &nr_swap_pages);
		n += got;
		most = max(most, got);
	}
	KUNIT_EXPECT_GT_MSG(test, most, SWAP_BATCH / 2,
		"lab04: with plenty of free swap, scan_swap_map_slots(si, usage, SWAP_BATCH, slots) must fill most of a batch under one hold of si->lock (best of 4: %d)",
		most);
	swaplab_put_slots(e, n);
}

/* what every batch must keep: accounting, range, SWAP_HAS_CACHE, no slot twice */
static void lab04_batch_slots(struct kunit *test)
{
	swp_entry_t *e = kunit_kcalloc(test, 4 * SWAP_BATCH, sizeof(*e), GFP_KERNEL);
	int n, most;

	KUNIT_ASSERT_NOT_NULL(test, e);
	n = lab04_take(test, e, &most, true);
	swaplab_put_slots(e, n);
}

static void lab04_single(struct kunit *test)
{
	swp_entry_t e;
	long before = atomic_long_read(&nr_swap_pages);

	KUNIT_EXPECT_EQ_MSG(test, get_swap_pages(1, &e, 1), 1,
		"lab04: get_swap_pages(1, ...) must return one slot");
	KUNIT_EXPECT_EQ_MSG(test, before - atomic_long_read(&nr_swap_pages), 1L,
		"lab04: a single-slot request must take exactly one slot from nr_swap_pages");
	swaplab_put_slots(&e, 1);
}

static struct kunit_case lab04_cases[] = {
	KUNIT_CASE(lab04_scan),
	KUNIT_CASE(lab04_batch),
	KUNIT_CASE(lab04_batch_slots),
	KUNIT_CASE(lab04_single),
	{}
};

static struct kunit_suite lab04_suite = {
	.name = "swaplab-lab04",
	.test_cases = lab04_cases,
};
#endif

#if SWAPLAB_LAB >= 5
#define SWAPLAB_MIX 16

static void lab05_mixed_batch(struct kunit *test)
{
	swp_entry_t *got = kunit_kcalloc(test, 4 * SWAP_BATCH, sizeof(*got), GFP_KERNEL);
	swp_entry_t *rest = kunit_kcalloc(test, 4 * SWAP_BATCH, sizeof(*rest), GFP_KERNEL);
	swp_entry_t mix[2 * SWAPLAB_MIX];
	struct swap_info_struct *si[2] = { NULL, NULL };
	long inuse[2], before;
	int i, k, n = 0, nmix = 0, nrest = 0, have[2] = { 0, 0 };

	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, rest);

	/* equal-priority devices take turns: collect slots on two of them */
	for (k = 0; k < 4; k++)
		n += get_swap_pages(SWAP_BATCH, got + n, 1);
	for (i = 0; i < n; i++) {
		struct swap_info_struct *p = swap_info[swp_type(got[i])];
		int d = si[0] == p ? 0 : si[1] == p ? 1 : !si[0] ? 0 : !si[1] ? 1 : -1;

		if (d >= 0 && !si[d])
			si[d] = p;
		if (d >= 0 && have[d] < SWAPLAB_MIX)
			mix[2 * have[d]++ + d] = got[i];
		else
			rest[nrest++] = got[i];
	}
	if (have[0] < SWAPLAB_MIX || have[1] < SWAPLAB_MIX) {
		swaplab_put_slots(got, n);
		KUNIT_FAIL(test, "lab05: needs two swap devices of equal priority (swap mode 'two' or 'mixed')");
		return;
	}
	nmix = 2 * SWAPLAB_MIX;
	inuse[0] = si[0]->inuse_pages;
	inuse[1] = si[1]->inuse_pages;
	before = atomic_long_read(&nr_swap_pages);
	swapcache_free_entries(mix, nmix);
	KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&nr_swap_pages) - before, (long)nmix,
		"lab05: freeing a batch must give every slot back to nr_swap_pages exactly once");
	for (k = 0; k < 2; k++)
		KUNIT_EXPECT_EQ_MSG(test, inuse[k] - (long)si[k]->inuse_pages, (long)SWAPLAB_MIX,
			"lab05: device %d: inuse_pages must drop by the number of its slots in the batch", k);
	for (i = 0; i < nmix; i++)
		KUNIT_EXPECT_EQ_MSG(test,
			READ_ONCE(swap_info[swp_type(mix[i])]->swap_map[swp_offset(mix[i])]), 0,
			"lab05: slot %d of the batch was not freed", i);
	swapcache_free_entries(rest, nrest);
}

static struct kunit_case lab05_cases[] = {
	KUNIT_CASE(lab05_mixed_batch),
	{}
};

static struct kunit_suite lab05_suite = {
	.name = "swaplab-lab05",
	.test_cases = lab05_cases,
};
#endif

#if SWAPLAB_LAB >= 4
/*
 * /sys/kernel/debug/swaplab/batch: write N to allocate N slots (in batches
 * of SWAP_BATCH: lab 04's API), then "free" to give them all back: from
 * lab 05 in one swapcache_free_entries() call, devices interleaved
 * (A B A B ...) as a CPU's return cache may hold them; before, one slot at
 * a time.  The guest counts the swap device lock's acquisitions in
 * /proc/lock_stat around the allocation (batchalloc.sh) or the free
 * (batchfree.sh).
 */
static swp_entry_t swaplab_batch[1024], swaplab_mixed[1024];
static int swaplab_batch_n;

/* reorder swaplab_batch so that consecutive entries alternate devices */
static void __maybe_unused swaplab_interleave(void)
{
	unsigned int first = swp_type(swaplab_batch[0]);
	int i, a = 0, b = 0, n = 0;

	while (n < swaplab_batch_n) {
		while (a < swaplab_batch_n && swp_type(swaplab_batch[a]) != first)
			a++;
		if (a < swaplab_batch_n)
			swaplab_mixed[n++] = swaplab_batch[a++];
		while (b < swaplab_batch_n && swp_type(swaplab_batch[b]) == first)
			b++;
		if (b < swaplab_batch_n)
			swaplab_mixed[n++] = swaplab_batch[b++];
	}
	for (i = 0; i < n; i++)
		swaplab_batch[i] = swaplab_mixed[i];
}

static ssize_t swaplab_batch_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	char buf[16];
	int want, got;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sysfs_streq(buf, "free")) {
#if SWAPLAB_LAB >= 5
		if (swaplab_batch_n)
			swaplab_interleave();
		swapcache_free_entries(swaplab_batch, swaplab_batch_n);
#else
		swaplab_put_slots(swaplab_batch, swaplab_batch_n);
#endif
		swaplab_batch_n = 0;
		return len;
	}
	if (kstrtoint(buf, 10, &want) || want < 0 ||
	    want > ARRAY_SIZE(swaplab_batch) - swaplab_batch_n)
		return -EINVAL;
	while (want > 0) {
		got = get_swap_pages(min(want, SWAP_BATCH),
				     swaplab_batch + swaplab_batch_n, 1);
		if (!got)
			return -ENOSPC;
		swaplab_batch_n += got;
		want -= got;
	}
	return len;
}

static const struct file_operations swaplab_batch_fops = {
	.write = swaplab_batch_write,
};
#endif

#if SWAPLAB_LAB >= 6
extern struct kunit_suite swaplab_lab06_suite;
#endif

static struct kunit_suite *swaplab_suites[] = {
	NULL,
#if SWAPLAB_LAB >= 1
	&lab01_suite,
#endif
#if SWAPLAB_LAB >= 2
	&lab02_suite,
#endif
#if SWAPLAB_LAB >= 3
	&lab03_suite,
#endif
#if SWAPLAB_LAB >= 4
	&lab04_suite,
#endif
#if SWAPLAB_LAB >= 5
	&lab05_suite,
#endif
#if SWAPLAB_LAB >= 6
	&swaplab_lab06_suite,
#endif
};

/* /sys/kernel/debug/swaplab/kunit: write a lab number to run its suite */
static ssize_t swaplab_kunit_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	char buf[8];
	unsigned int lab;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (kstrtouint(buf, 10, &lab) || lab == 0 || lab >= ARRAY_SIZE(swaplab_suites))
		return -ENOENT;
	__kunit_test_suites_init(&swaplab_suites[lab], 1);
	return len;
}

static const struct file_operations swaplab_kunit_fops = {
	.write = swaplab_kunit_write,
};

#ifdef CONFIG_LOCKDEP
/*
 * /sys/kernel/debug/swaplab/si_lock_key: the lockdep class key of the swap
 * device lock (si->lock), as /proc/lockdep prints keys, so the lock
 * fingerprint finds si->lock's class from the lock itself, whatever its name.
 */
static int swaplab_si_lock_key_show(struct seq_file *m, void *v)
{
	struct swap_info_struct *si = READ_ONCE(swap_info[0]);

	if (!si)
		return -ENODEV;
	seq_printf(m, "%p\n", si->lock.dep_map.key);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(swaplab_si_lock_key);
#endif

static int __init swaplab_kunit_init(void)
{
	struct dentry *dir = debugfs_create_dir("swaplab", NULL);

	debugfs_create_file("kunit", 0200, dir, NULL, &swaplab_kunit_fops);
#ifdef CONFIG_LOCKDEP
	debugfs_create_file("si_lock_key", 0400, dir, NULL, &swaplab_si_lock_key_fops);
#endif
#if SWAPLAB_LAB >= 2
	debugfs_create_file("swapcache", 0400, dir, NULL, &swaplab_swapcache_fops);
#endif
#if SWAPLAB_LAB >= 4
	debugfs_create_file("batch", 0200, dir, NULL, &swaplab_batch_fops);
#endif
	return 0;
}
late_initcall(swaplab_kunit_init);
