// SPDX-License-Identifier: GPL-2.0
/*
 * swaplab white-box tests, lab 06: the per-CPU swap slots cache.  Appended
 * to mm/swap_slots.c of the graded kernel by scripts/overlay (see
 * swaplab_kunit.c, which runs this suite on request).
 */
#include <kunit/test.h>

/* slots cached for allocation (SLOTS_CACHE) or for return (_RET), all CPUs */
static int swaplab_cached(unsigned int type)
{
	int cpu, n = 0;

	for_each_possible_cpu(cpu) {
		struct swap_slots_cache *cache = &per_cpu(swp_slots, cpu);

		if (type & SLOTS_CACHE)
			n += READ_ONCE(cache->nr);
		if (type & SLOTS_CACHE_RET)
			n += READ_ONCE(cache->n_ret);
	}
	return n;
}

/*
 * A folio charged to a memcg (the root one, from this kthread), as every
 * folio that reaches the swap allocator is: the debug kernel (DEBUG_VM;
 * lockdep-clean runs this suite) warns on a swap charge without one.
 * folio_put() uncharges it.
 */
static struct folio *swaplab_folio(void)
{
	struct folio *folio = folio_alloc(GFP_KERNEL, 0);

	if (folio && mem_cgroup_charge(folio, NULL, GFP_KERNEL)) {
		folio_put(folio);
		return NULL;
	}
	return folio;
}

/* step 1: swapon enables the cache */
static void lab06_enabled(struct kunit *test)
{
	KUNIT_EXPECT_TRUE_MSG(test, swap_slot_cache_enabled,
		"lab06: the slots cache must be enabled once a swap device is on (enable_swap_slots_cache at swapon)");
}

/*
 * One allocation and its free, through the cache: *cached and *returned
 * say what the CPUs' caches held after each.  False (with the test
 * failed) when the cache is not enabled or no slot was found.
 */
static bool lab06_round(struct kunit *test, int *cached, int *returned)
{
	struct folio *folio = swaplab_folio();
	swp_entry_t entry;

	*cached = *returned = 0;
	KUNIT_ASSERT_NOT_NULL(test, folio);
	if (!swap_slot_cache_enabled) {
		folio_put(folio);
		KUNIT_FAIL(test, "lab06: the slots cache is not enabled (step 1, swapon): nothing to test here yet");
		return false;
	}
	entry = folio_alloc_swap(folio);
	if (!entry.val) {
		folio_put(folio);
		KUNIT_FAIL(test, "lab06: folio_alloc_swap() found no slot");
		return false;
	}
	*cached = swaplab_cached(SLOTS_CACHE);
	put_swap_folio(folio, entry);
	*returned = swaplab_cached(SLOTS_CACHE_RET);
	folio_put(folio);
	return true;
}

/* steps 7 and 8: an allocation refills the CPU's cache with a batch */
static void lab06_refill(struct kunit *test)
{
	int cached, returned;

	if (!lab06_round(test, &cached, &returned))
		return;
	KUNIT_EXPECT_TRUE_MSG(test, swap_slot_cache_active,
		"lab06: with plenty of free swap the cache must be active");
	KUNIT_EXPECT_GT_MSG(test, cached, 0,
		"lab06: after an allocation the CPU's cache must hold the rest of a SWAP_SLOTS_CACHE_SIZE refill");
}

/* step 9: a freed slot goes to the CPU's return cache */
static void lab06_return(struct kunit *test)
{
	int cached, returned;

	if (!lab06_round(test, &cached, &returned))
		return;
	KUNIT_EXPECT_GT_MSG(test, returned, 0,
		"lab06: a freed slot must go to the CPU's return cache, not straight back to the device");
}

/* steps 5 and 6: disabling the cache (what swapoff does) drains both sides */
static void lab06_drain(struct kunit *test)
{
	int cached, returned, left;

	if (!lab06_round(test, &cached, &returned))
		return;
	if (!cached && !returned) {
		KUNIT_FAIL(test, "lab06: nothing is cached to drain yet: the refill and return steps come first");
		return;
	}
	disable_swap_slots_cache_lock();
	left = swaplab_cached(SLOTS_CACHE | SLOTS_CACHE_RET);
	reenable_swap_slots_cache_unlock();
	KUNIT_EXPECT_EQ_MSG(test, left, 0,
		"lab06: disabling the cache (swapoff) must drain every CPU's cached and returned slots");
}

/*
 * The watermarks, logic the lab's start provides (a guard: no points, a
 * failure caps).  check_cache_active() answers only for an enabled cache,
 * so the case enables it the way swapoff's re-enable does, whatever step 1
 * did (lab06_enabled, which runs first, grades step 1).
 */
static void lab06_low_watermark(struct kunit *test)
{
	long hide;
	bool low, again;

	if (!swap_slot_cache_enabled) {
		disable_swap_slots_cache_lock();
		reenable_swap_slots_cache_unlock();
	}
	KUNIT_ASSERT_TRUE_MSG(test, swap_slot_cache_enabled,
		"lab06: re-enabling the slots cache with a swap device on must enable it");
	/* pretend swap is nearly full, then give the pages back */
	hide = get_nr_swap_pages() - 1;
	atomic_long_sub(hide, &nr_swap_pages);
	low = check_cache_active();
	atomic_long_add(hide, &nr_swap_pages);
	again = check_cache_active();
	KUNIT_EXPECT_FALSE_MSG(test, low,
		"lab06: below THRESHOLD_DEACTIVATE_SWAP_SLOTS_CACHE free slots per CPU the cache must deactivate");
	KUNIT_EXPECT_TRUE_MSG(test, again,
		"lab06: above THRESHOLD_ACTIVATE_SWAP_SLOTS_CACHE free slots per CPU the cache must come back");
}

static struct kunit_case lab06_cases[] = {
	KUNIT_CASE(lab06_enabled),
	KUNIT_CASE(lab06_refill),
	KUNIT_CASE(lab06_return),
	KUNIT_CASE(lab06_drain),
	KUNIT_CASE(lab06_low_watermark),
	{}
};

struct kunit_suite swaplab_lab06_suite = {
	.name = "swaplab-lab06",
	.test_cases = lab06_cases,
};
