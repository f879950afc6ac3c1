// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * List the verbs devices, open each and try the verbs the provider has and
 * has not got yet, printing one line per outcome for host-check to compare.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

int main(void)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		printf("no device list: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct ibv_xrcd_init_attr xrcd_attr = {
			.comp_mask = IBV_XRCD_INIT_ATTR_FD |
				     IBV_XRCD_INIT_ATTR_OFLAGS,
			.fd = -1,
		};
		struct ibv_alloc_dm_attr dm_attr = { .length = 64 };
		struct ibv_context *ctx, *ctx2;
		struct ibv_xrcd *xrcd;
		struct ibv_dm *dm;
		struct ibv_cq *cq;
		struct ibv_pd *pd;

		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			printf("%s: open: %s\n", name, strerror(errno));
			continue;
		}
		printf("%s: open: ok\n", name);

		/* A second context on the same device, alive at the same time. */
		ctx2 = ibv_open_device(list[i]);
		printf("%s: open second: %s\n", name, ctx2 ? "ok" : strerror(errno));

		errno = 0;
		pd = ibv_alloc_pd(ctx);
		printf("%s: alloc_pd: %s\n", name, pd ? "ok" : strerror(errno));
		if (pd)
			printf("%s: dealloc_pd: %s\n", name,
			       strerror(ibv_dealloc_pd(pd)));

		errno = 0;
		cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
		printf("%s: create_cq: %s\n", name, cq ? "ok" : strerror(errno));
		if (cq)
			printf("%s: destroy_cq: %s\n", name,
			       strerror(ibv_destroy_cq(cq)));

		errno = 0;
		xrcd = ibv_open_xrcd(ctx, &xrcd_attr);
		printf("%s: open_xrcd: %s\n", name, xrcd ? "ok" : strerror(errno));
		if (xrcd)
			printf("%s: close_xrcd: %s\n", name,
			       strerror(ibv_close_xrcd(xrcd)));

		/* A verb the provider does not implement. */
		errno = 0;
		dm = ibv_alloc_dm(ctx, &dm_attr);
		printf("%s: alloc_dm: %s\n", name, dm ? "ok?!" : strerror(errno));

		if (ctx2)
			printf("%s: close second: %s\n", name,
			       strerror(ibv_close_device(ctx2)));
		printf("%s: close: %s\n", name, strerror(ibv_close_device(ctx)));
	}
	ibv_free_device_list(list);
	return 0;
}
