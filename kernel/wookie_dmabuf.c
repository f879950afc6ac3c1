// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dma-buf MRs (ibv_reg_dmabuf_mr).  A soft device reaches memory with the
 * CPU, never by DMA, so it does not attach to the buffer as a DMA device
 * (it has none: ib_core's dma-buf umems would attach the ib_device's) and
 * never reads the exporter's scatterlist.  It maps the buffer into the
 * kernel (dma_buf_vmap()) for as long as the MR lives, and the engine
 * copies through that mapping as through a fast-registration MR's page
 * addresses.  Only exporters that can give such a mapping of memory
 * (not I/O memory) and whose buffer stays in place (no move_notify: not
 * dynamic) are taken; others get EOPNOTSUPP.  The fences are waited for
 * once, at registration: later writes by another device are not ordered
 * against the engine's, as with a NIC's registration of the buffer.
 */
#include <linux/dma-buf.h>
#include <linux/dma-direction.h>
#include <linux/fs.h>
#include <linux/iosys-map.h>

#include "wookie.h"

MODULE_IMPORT_NS(DMA_BUF);

/* An exporter whose kernel mapping is wrong (see wookie_kcompat.h). */
static bool wookie_dmabuf_vmap_broken(struct dma_buf *dmabuf)
{
	return WOOKIE_UDMABUF_VMAP_BROKEN && dmabuf->exp_name &&
	       !strcmp(dmabuf->exp_name, "udmabuf");
}

/*
 * Map [offset, offset + length) of the dma-buf @fd for @mr (to be written
 * if @write): its page addresses, page count and the buffer, held until
 * wookie_dmabuf_unmap().
 */
int wookie_dmabuf_map(struct wookie_mr *mr, int fd, u64 offset, u64 length,
		      bool write)
{
	struct iosys_map map = {};
	struct dma_buf *dmabuf;
	unsigned int i, num;
	u64 *addrs;
	int err;

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	err = -EINVAL;
	if (offset > dmabuf->size || length > dmabuf->size - offset)
		goto err_put;
	/* As mmap() of it: an export without write access stays so. */
	err = -EACCES;
	if (write && !(dmabuf->file->f_mode & FMODE_WRITE))
		goto err_put;
	err = -EOPNOTSUPP;
	if (!dmabuf->ops->vmap || dma_buf_is_dynamic(dmabuf) ||
	    wookie_dmabuf_vmap_broken(dmabuf))
		goto err_put;
	err = wookie_dma_buf_vmap(dmabuf, &map);
	if (err)
		goto err_put;
	/*
	 * Device memory (P2P, VRAM, MMIO): no memcpy or cmpxchg there.  And
	 * a mapping that starts inside a page would misalign atomics.
	 */
	err = -EOPNOTSUPP;
	if (map.is_iomem || !PAGE_ALIGNED(map.vaddr))
		goto err_vunmap;
	/* Waits for the exporter's fences, as a DMA mapping would. */
	err = dma_buf_begin_cpu_access(dmabuf, DMA_BIDIRECTIONAL);
	if (err)
		goto err_vunmap;
	/* length <= WOOKIE_MAX_MR_SIZE (checked), so the count fits. */
	num = (PAGE_ALIGN(offset + length) - round_down(offset, PAGE_SIZE)) >>
	      PAGE_SHIFT;
	err = -ENOMEM;
	addrs = wookie_kvzalloc_uobj(array_size(max(num, 1U), sizeof(*addrs)));
	if (!addrs)
		goto err_access;
	for (i = 0; i < num; i++)
		addrs[i] = (uintptr_t)map.vaddr + round_down(offset, PAGE_SIZE) +
			   (u64)i * PAGE_SIZE;
	mr->dmabuf = dmabuf;
	mr->dmabuf_map = map;
	mr->page_addrs = addrs;
	mr->num_pages = num;
	return 0;

err_access:
	dma_buf_end_cpu_access(dmabuf, DMA_BIDIRECTIONAL);
err_vunmap:
	wookie_dma_buf_vunmap(dmabuf, &map);
err_put:
	dma_buf_put(dmabuf);
	return err;
}

/* With no engine reference left on @mr (dereg quiesced it). */
void wookie_dmabuf_unmap(struct wookie_mr *mr)
{
	dma_buf_end_cpu_access(mr->dmabuf, DMA_BIDIRECTIONAL);
	wookie_dma_buf_vunmap(mr->dmabuf, &mr->dmabuf_map);
	dma_buf_put(mr->dmabuf);
	mr->dmabuf = NULL;
}
