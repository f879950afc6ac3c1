// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// dmabuf_check DEVICE GID_INDEX: dma-buf MRs (ibv_reg_dmabuf_mr) on a
// wookie device, with a buffer of the kernel's vgem driver (a DRM dumb
// buffer exported with PRIME) as the exporter; run "modprobe vgem" first.
// Two RC QPs of the device: RDMA WRITE into the dma-buf MR, READ out of
// it, SEND into it and FETCH_AND_ADD on it, at an offset inside the
// buffer, each checked through the CPU's own mapping of the buffer; then
// the registrations that must fail (outside the buffer, a file that is not
// a dma-buf, a bad fd, on-demand paging, iova and offset disagreeing in
// their page).  Prints one line per check; exits 1 if one failed, 77 if
// there is no vgem device.
#include <infiniband/verbs.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The DRM uapi this needs (drm.h, drm_mode.h), which Debian ships only
// with libdrm-dev.
struct DrmCreateDumb {
	uint32_t height, width, bpp, flags, handle, pitch;
	uint64_t size;
};
struct DrmMapDumb {
	uint32_t handle, pad;
	uint64_t offset;
};
struct DrmPrimeHandle {
	uint32_t handle, flags;
	int32_t fd;
};
const unsigned long kCreateDumb = _IOWR('d', 0xb2, DrmCreateDumb);
const unsigned long kMapDumb = _IOWR('d', 0xb3, DrmMapDumb);
const unsigned long kPrimeHandleToFd = _IOWR('d', 0x2d, DrmPrimeHandle);

int failures;

void check(bool ok, const std::string &what)
{
	std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
	if (!ok)
		++failures;
}

[[noreturn]] void die(const char *what)
{
	std::printf("FAIL %s: %s\n", what, std::strerror(errno));
	std::exit(1);
}

// The card node of vgem (its dumb buffers are not made on render nodes);
// vgem's device is the platform device "vgem", with no driver bound.
int open_vgem()
{
	for (int i = 0; i < 16; i++) {
		std::string link = "/sys/class/drm/card" + std::to_string(i) +
				   "/device";
		char buf[256];
		ssize_t n = readlink(link.c_str(), buf, sizeof(buf) - 1);

		if (n <= 0)
			continue;
		buf[n] = 0;
		const char *base = std::strrchr(buf, '/');
		if (base && !std::strcmp(base + 1, "vgem"))
			return open(("/dev/dri/card" + std::to_string(i)).c_str(),
				    O_RDWR | O_CLOEXEC);
	}
	return -1;
}

ibv_qp *make_qp(ibv_pd *pd, ibv_cq *cq)
{
	ibv_qp_init_attr a = {};

	a.send_cq = cq;
	a.recv_cq = cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 8;
	a.cap.max_recv_wr = 8;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	ibv_qp *qp = ibv_create_qp(pd, &a);
	if (!qp)
		die("ibv_create_qp");
	return qp;
}

void connect(ibv_qp *qp, uint32_t dest, const ibv_gid &gid, int gid_index)
{
	ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
	a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR");
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS");
}

// One signaled WR, its completion awaited (20 s at most).
bool run(ibv_qp *qp, ibv_cq *cq, ibv_send_wr &wr, int completions)
{
	ibv_send_wr *bad;
	ibv_wc wc;

	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(qp, &wr, &bad))
		return false;
	for (int got = 0, spins = 0; got < completions; spins++) {
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n < 0 || (n == 1 && wc.status != IBV_WC_SUCCESS))
			return false;
		got += n;
		if (!n) {
			if (spins > 200000)
				return false;
			usleep(100);
		}
	}
	return true;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 3) {
		std::fprintf(stderr, "usage: dmabuf_check DEVICE GID_INDEX\n");
		return 2;
	}
	const int gid_index = std::atoi(argv[2]);
	const uint64_t bufsize = 2 << 20, off = 4096 + 136, len = 1 << 20;
	const uint64_t iova = 0x7000000 + 136;

	int card = open_vgem();
	if (card < 0) {
		std::printf("skip: no vgem card (modprobe vgem)\n");
		return 77;
	}
	DrmCreateDumb cd = {};
	cd.width = 4096;
	cd.height = bufsize / 4096;
	cd.bpp = 8;
	if (ioctl(card, kCreateDumb, &cd))
		die("DRM_IOCTL_MODE_CREATE_DUMB");
	DrmMapDumb md = {};
	md.handle = cd.handle;
	DrmPrimeHandle ph = {};
	ph.handle = cd.handle;
	ph.flags = O_CLOEXEC | O_RDWR;
	if (ioctl(card, kMapDumb, &md) || ioctl(card, kPrimeHandleToFd, &ph))
		die("DRM map or export");
	auto *cpu = static_cast<uint8_t *>(mmap(nullptr, cd.size,
						PROT_READ | PROT_WRITE,
						MAP_SHARED, card, md.offset));
	if (cpu == MAP_FAILED)
		die("mmap of the dumb buffer");

	int n = 0;
	ibv_device **list = ibv_get_device_list(&n);
	ibv_context *ctx = nullptr;
	for (int i = 0; list && i < n; i++)
		if (!std::strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	ibv_gid gid;
	if (!ctx || ibv_query_gid(ctx, 1, gid_index, &gid))
		die("open device");
	ibv_pd *pd = ibv_alloc_pd(ctx);
	ibv_cq *cq = pd ? ibv_create_cq(ctx, 16, nullptr, nullptr, 0) : nullptr;
	if (!cq)
		die("PD and CQ");
	const int all = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	ibv_mr *mr = ibv_reg_dmabuf_mr(pd, off, len, iova, ph.fd, all);
	check(mr && mr->length == len, "reg_dmabuf_mr of 1 MiB at 4232");
	if (!mr)
		return 1;
	std::vector<uint8_t> src(len), dst(len);
	for (uint64_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 7 + (i >> 10));
	ibv_mr *smr = ibv_reg_mr(pd, src.data(), len, all);
	ibv_mr *dmr = ibv_reg_mr(pd, dst.data(), len, all);
	if (!smr || !dmr)
		die("ibv_reg_mr");
	ibv_qp *a = make_qp(pd, cq), *b = make_qp(pd, cq);
	connect(a, b->qp_num, gid, gid_index);
	connect(b, a->qp_num, gid, gid_index);

	ibv_sge sge = {};
	ibv_send_wr wr = {};
	wr.sg_list = &sge;
	wr.num_sge = 1;

	sge = { (uintptr_t)src.data(), (uint32_t)len, smr->lkey };
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = iova;
	wr.wr.rdma.rkey = mr->rkey;
	check(run(a, cq, wr, 1) && !std::memcmp(cpu + off, src.data(), len),
	      "RDMA WRITE of 1 MiB lands in the buffer");

	sge = { (uintptr_t)dst.data(), (uint32_t)len, dmr->lkey };
	wr.opcode = IBV_WR_RDMA_READ;
	check(run(a, cq, wr, 1) && dst == src, "RDMA READ of it back");

	// SEND from the pinned MR into the dma-buf MR, 8 KiB in.
	ibv_sge rsge = { iova + 8192, 4096, mr->lkey };
	ibv_recv_wr rwr = {}, *rbad;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	std::memset(src.data(), 0x3c, 4096);
	sge = { (uintptr_t)src.data(), 4096, smr->lkey };
	wr.opcode = IBV_WR_SEND;
	check(!ibv_post_recv(b, &rwr, &rbad) && run(a, cq, wr, 2) &&
		      cpu[off + 8192] == 0x3c && cpu[off + 8192 + 4095] == 0x3c,
	      "SEND into the buffer");

	// The buffer as the source, past the size sent by reference on one
	// device (it is copied: a mapping has no page list).
	std::memset(dst.data(), 0, len);
	sge = { iova, (uint32_t)(256 << 10), mr->lkey };
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)dst.data();
	wr.wr.rdma.rkey = dmr->rkey;
	check(run(a, cq, wr, 1) && !std::memcmp(dst.data(), cpu + off, 256 << 10),
	      "RDMA WRITE of 256 KiB from the buffer");

	// FETCH_AND_ADD on 8 bytes of it (iova and offset agree mod 8).
	uint64_t before;
	std::memcpy(&before, cpu + off + 64, 8);
	sge = { (uintptr_t)dst.data(), 8, dmr->lkey };
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = iova + 64;
	wr.wr.atomic.rkey = mr->rkey;
	wr.wr.atomic.compare_add = 5;
	uint64_t after, orig;
	bool ok = run(a, cq, wr, 1);
	std::memcpy(&after, cpu + off + 64, 8);
	std::memcpy(&orig, dst.data(), 8);
	check(ok && orig == before && after == before + 5,
	      "FETCH_AND_ADD on the buffer");

	// A read-only export (of another buffer: a buffer's dma-buf keeps the
	// mode of its first export): as mmap() of it, no write access.
	DrmCreateDumb cd2 = {};
	cd2.width = 4096;
	cd2.height = 1;
	cd2.bpp = 8;
	DrmPrimeHandle ro = {};
	ro.flags = O_CLOEXEC;
	int rofd = -1;
	if (!ioctl(card, kCreateDumb, &cd2)) {
		ro.handle = cd2.handle;
		if (!ioctl(card, kPrimeHandleToFd, &ro))
			rofd = ro.fd;
	}
	ibv_mr *rmr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, rofd,
					IBV_ACCESS_REMOTE_READ);
	check(rmr, "a read-only export registered for remote reads");
	if (rmr)
		ibv_dereg_mr(rmr);

	struct Bad {
		const char *what;
		uint64_t off, len, iova;
		int fd, access, err;
	} bad[] = {
		{ "past the buffer's end", bufsize - 4096, 8192, 0, ph.fd, all,
		  EINVAL },
		{ "offset past it", bufsize + 4096, 4096, 0, ph.fd, all, EINVAL },
		{ "a file that is not a dma-buf", 0, 4096, 0, ctx->cmd_fd, all,
		  EINVAL },
		{ "a bad fd", 0, 4096, 0, -1, all, EBADF },
		{ "iova in another place of its page", 100, 4096, 200, ph.fd,
		  all, EINVAL },
		{ "a read-only export, for writes", 0, 4096, 0, rofd,
		  IBV_ACCESS_LOCAL_WRITE, EACCES },
	};
	for (const Bad &c : bad) {
		errno = 0;
		ibv_mr *m = ibv_reg_dmabuf_mr(pd, c.off, c.len, c.iova, c.fd,
					      c.access);
		int err = errno;

		check(!m && err == c.err, std::string("refused: ") + c.what +
						  " (" + std::strerror(err) + ")");
		if (m)
			ibv_dereg_mr(m);
	}
	if (rofd >= 0)
		close(rofd);

	check(!ibv_destroy_qp(a) && !ibv_destroy_qp(b) && !ibv_dereg_mr(mr) &&
		      !ibv_dereg_mr(smr) && !ibv_dereg_mr(dmr) &&
		      !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd) &&
		      !ibv_close_device(ctx),
	      "teardown");
	ibv_free_device_list(list);
	munmap(cpu, cd.size);
	close(ph.fd);
	close(card);
	std::printf("%s\n", failures ? "dmabuf_check: FAILED" : "dmabuf_check: all ok");
	return failures ? 1 : 0;
}
