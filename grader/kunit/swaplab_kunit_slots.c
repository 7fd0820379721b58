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

static void lab06_refill(struct kunit *test)
{
	struct folio *folio = swaplab_folio();
	swp_entry_t entry;

	KUNIT_ASSERT_NOT_NULL(test, folio);
	KUNIT_ASSERT_TRUE_MSG(test, swap_slot_cache_enabled,
		"lab06: the slots cache must be enabled once a swap device is on (enable_swap_slots_cache at swapon)");
	entry = folio_alloc_swap(folio);
	KUNIT_EXPECT_NE_MSG(test, entry.val, 0UL, "lab06: folio_alloc_swap() found no slot");
	KUNIT_EXPECT_TRUE_MSG(test, swap_slot_cache_active,
		"lab06: with plenty of free swap the cache must be active");
	KUNIT_EXPECT_GT_MSG(test, swaplab_cached(SLOTS_CACHE), 0,
		"lab06: after an allocation the CPU's cache must hold the rest of a SWAP_SLOTS_CACHE_SIZE refill");
	if (entry.val) {
		put_swap_folio(folio, entry);
		KUNIT_EXPECT_GT_MSG(test, swaplab_cached(SLOTS_CACHE_RET), 0,
			"lab06: a freed slot must go to the CPU's return cache, not straight back to the device");
	}
	folio_put(folio);
}

static void lab06_drain(struct kunit *test)
{
	struct folio *folio = swaplab_folio();
	swp_entry_t entry;
	int left;

	KUNIT_ASSERT_NOT_NULL(test, folio);
	entry = folio_alloc_swap(folio);
	if (entry.val)
		put_swap_folio(folio, entry);
	folio_put(folio);
	/* what swapoff does before try_to_unuse() */
	disable_swap_slots_cache_lock();
	left = swaplab_cached(SLOTS_CACHE | SLOTS_CACHE_RET);
	reenable_swap_slots_cache_unlock();
	KUNIT_EXPECT_EQ_MSG(test, left, 0,
		"lab06: disabling the cache (swapoff) must drain every CPU's cached and returned slots");
}

static void lab06_low_watermark(struct kunit *test)
{
	long hide;
	bool low, again;

	KUNIT_ASSERT_TRUE_MSG(test, swap_slot_cache_enabled,
		"lab06: the slots cache must be enabled once a swap device is on (enable_swap_slots_cache at swapon)");
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
	KUNIT_CASE(lab06_refill),
	KUNIT_CASE(lab06_drain),
	KUNIT_CASE(lab06_low_watermark),
	{}
};

struct kunit_suite swaplab_lab06_suite = {
	.name = "swaplab-lab06",
	.test_cases = lab06_cases,
};
