// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module for the VM harness: loading it with mode=warn (the
 * default) triggers a kernel WARN(), which scripts/vm-run must report as
 * a splat; mode=leak leaks an allocation, which vm-run must report on a
 * kernel with kmemleak; mode=lockup spins with preemption off until the
 * soft lockup watchdog fires (vm-run's guests panic then), which vm-run
 * must report with its backtrace; mode=none loads quietly, which vm-run
 * must let pass.
 */
#include <linux/bug.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *mode = "warn";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode,
		 "warn: WARN() on load (default); leak: leak 64 bytes; lockup: spin 60 s with preemption off; none: load quietly");

/* Allocate and forget the only pointer, for kmemleak to find. */
static noinline void wookie_splat_test_leak(void)
{
	void *p = kzalloc(64, GFP_KERNEL);

	pr_info("wookie_splat_test: leaking %s\n", p ? "64 bytes" : "nothing");
}

/*
 * Hold the CPU past the soft lockup threshold (20 s by default): bounded,
 * so that a kernel that does not panic on it still loads the module.
 */
static noinline void wookie_splat_test_lockup(void)
{
	unsigned long end = jiffies + 60 * HZ;

	preempt_disable();
	while (time_before(jiffies, end))
		cpu_relax();
	preempt_enable();
}

static int __init wookie_splat_test_init(void)
{
	if (!strcmp(mode, "warn")) {
		WARN(1, "wookie_splat_test: deliberate warning\n");
		return 0;
	}
	if (!strcmp(mode, "leak")) {
		wookie_splat_test_leak();
		return 0;
	}
	if (!strcmp(mode, "lockup")) {
		wookie_splat_test_lockup();
		return 0;
	}
	if (!strcmp(mode, "none"))
		return 0;
	pr_err("wookie_splat_test: unknown mode '%s'\n", mode);
	return -EINVAL;
}

static void __exit wookie_splat_test_exit(void)
{
}

module_init(wookie_splat_test_init);
module_exit(wookie_splat_test_exit);

MODULE_DESCRIPTION("wookie VM harness test: WARN(), leak or soft lockup on load");
MODULE_LICENSE("GPL");
