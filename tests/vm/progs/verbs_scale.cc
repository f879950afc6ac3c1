// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// verbs_scale: wookie with thousands of objects (tests/vm/scale.sh).
//
//   qps DEV1 DEV2 N: N RC QP pairs, one QP of each on DEV1 and DEV2,
//     connected through modify_qp with the devices' GIDs (RoCEv2 between
//     the two devices).  Every QP at once then does three RDMA WRITEs and
//     two SENDs of 1 to 2000 bytes each way, with a pattern of its own;
//     the completions go to a few shared CQs, and every QP's data is
//     checked.  Creation, connection and teardown are timed per batch
//     (--batch, N/16 by default): the median of the last quarter of the
//     batches may take at most --ratio times the first quarter's (or
//     --slack seconds more).
//
//   objects DEV: the limits ibv_query_device reports are the ones
//     enforced (a queue depth or SGE count at the maximum is created, one
//     more is refused; --count-limits: also max_qp, max_cq, max_srq,
//     max_mr and max_pd objects at once, and one more refused); 10000 MRs
//     on small buffers (timed per 1000, keys unique, some used by RDMA
//     WRITEs between two QPs of the device); 1000 CQs and 1000 SRQs; 500
//     user contexts from 50 processes, each with a PD and a CQ, all alive
//     at once, then closed.
//
//   memcg DEV CGROUP: CGROUP is a cgroup v2 directory with memory.max set
//     (the lane's is 64M).  For each kind of object (RC QPs of depth 4096
//     and 16 taken to RTS, CQs of 4096 and 16 CQEs, SRQs of 4096 and 16
//     WRs, MRs of a 4 KiB and of a 1 MiB buffer registered again and
//     again) a child process sets itself up (context, PD, heap), is moved
//     into CGROUP and creates objects until a verb fails.  The failure
//     must be ENOMEM from the verb, not the child being killed (the OOM
//     killer).  While the child holds its objects at the limit, this
//     process (outside CGROUP) creates as many of the same kind, as far
//     as the device's count limits (shared by all) leave room; after the
//     child exits, the cgroup's memory.current must be back where it was.
//     Prints what fit and what each object costs (memory.current and
//     memory.stat's kernel figures per object).  A child stops without a
//     failure at the device's own count limit for the kind (not an
//     error), or, an error, after --budget-mb of host memory or --seconds:
//     kernel memory not charged.
//
// Prints "ok"/"FAIL" lines and figures; exits 0 when every check passed.

#include <infiniband/verbs.h>

#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int failures;

std::string strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

std::string strf(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	std::vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return buf;
}

void check(bool cond, const std::string &what)
{
	std::printf("%s %s\n", cond ? "ok  " : "FAIL", what.c_str());
	if (!cond)
		failures++;
}

void note(const std::string &what)
{
	std::printf("     %s\n", what.c_str());
}

double since(Clock::time_point t)
{
	return std::chrono::duration<double>(Clock::now() - t).count();
}

Clock::time_point deadline_in(double secs)
{
	return Clock::now() + std::chrono::duration_cast<Clock::duration>(
				      std::chrono::duration<double>(secs));
}

const char *errname(int err)
{
	switch (err) {
	case 0: return "no error";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case ENOSPC: return "ENOSPC";
	case EBUSY: return "EBUSY";
	case EFAULT: return "EFAULT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EAGAIN: return "EAGAIN";
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case EPERM: return "EPERM";
	case EIO: return "EIO";
	default: return "errno";
	}
}

std::string errstr(int err)
{
	return strf("%s (%d: %s)", errname(err), err, std::strerror(err));
}

std::string human(double bytes)
{
	double a = bytes < 0 ? -bytes : bytes;

	if (a >= 10 * 1024 * 1024)
		return strf("%.1f MiB", bytes / (1024 * 1024));
	if (a >= 10 * 1024)
		return strf("%.1f KiB", bytes / 1024);
	return strf("%.0f B", bytes);
}

// --- Arguments: positional words and --name VALUE options. ---

struct Args {
	std::vector<std::string> pos;
	std::map<std::string, std::string> opt;
	std::set<std::string> flags;

	long num(const char *name, long def, long lo, long hi) const
	{
		auto it = opt.find(name);
		if (it == opt.end())
			return def;
		char *end;
		long v = std::strtol(it->second.c_str(), &end, 0);
		if (*end || end == it->second.c_str() || v < lo || v > hi) {
			std::fprintf(stderr, "--%s: %s not in [%ld, %ld]\n", name,
				     it->second.c_str(), lo, hi);
			std::exit(2);
		}
		return v;
	}

	double real(const char *name, double def) const
	{
		auto it = opt.find(name);
		if (it == opt.end())
			return def;
		char *end;
		double v = std::strtod(it->second.c_str(), &end);
		if (*end || end == it->second.c_str() || v < 0) {
			std::fprintf(stderr, "--%s: bad number %s\n", name,
				     it->second.c_str());
			std::exit(2);
		}
		return v;
	}

	std::string str(const char *name, const std::string &def) const
	{
		auto it = opt.find(name);
		return it == opt.end() ? def : it->second;
	}

	bool flag(const char *name) const { return flags.count(name); }
};

[[noreturn]] void usage()
{
	std::fprintf(stderr,
		"usage: verbs_scale qps DEV1 DEV2 N [--batch B] [--cqs C] [--gid G]\n"
		"                   [--timeout T] [--ratio R] [--slack S] [--wait S]\n"
		"       verbs_scale objects DEV [--mrs N] [--cqs N] [--srqs N]\n"
		"                   [--procs P] [--contexts C] [--count-limits]\n"
		"                   [--ratio R] [--slack S] [--gid G]\n"
		"       verbs_scale memcg DEV CGROUP [--kinds K1,K2...] [--seconds S]\n"
		"                   [--budget-mb M] [--gid G]\n");
	std::exit(2);
}

Args parse(int argc, char **argv)
{
	static const std::set<std::string> kFlags = {"count-limits"};
	Args a;

	for (int i = 1; i < argc; i++) {
		std::string w = argv[i];

		if (w.rfind("--", 0) == 0) {
			std::string name = w.substr(2);
			if (kFlags.count(name)) {
				a.flags.insert(name);
				continue;
			}
			if (i + 1 >= argc)
				usage();
			a.opt[name] = argv[++i];
		} else {
			a.pos.push_back(w);
		}
	}
	return a;
}

// --- Verbs helpers ---

ibv_context *open_dev(const std::string &name)
{
	int n = 0, err = ENODEV;
	ibv_device **list = ibv_get_device_list(&n);
	ibv_context *ctx = nullptr;

	for (int i = 0; list && i < n && !ctx; i++) {
		if (name != ibv_get_device_name(list[i]))
			continue;
		ctx = ibv_open_device(list[i]);
		err = errno;
	}
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		errno = err ? err : EIO;
	return ctx;
}

int err_or(int fallback)
{
	return errno ? errno : fallback;
}

// The PSN a QP starts its send queue at: its peer knows it from the QPN.
uint32_t psn_of(uint32_t qpn)
{
	return (qpn * 2654435761u) & 0xffffff;
}

// RESET -> INIT -> RTR -> RTS towards @dqpn at @dgid; 0 or an errno.
int rc_connect(ibv_qp *qp, uint32_t dqpn, const ibv_gid &dgid, int sgid,
	       int timeout)
{
	ibv_qp_attr a{};
	int err;

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;
	a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = psn_of(dqpn);
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = dgid;
	a.ah_attr.grh.sgid_index = sgid;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn_of(qp->qp_num);
	a.timeout = timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

ibv_qp *make_rc(ibv_pd *pd, ibv_cq *scq, ibv_cq *rcq, uint32_t swr,
		uint32_t rwr, uint32_t ssge, uint32_t rsge,
		ibv_qp_cap *got = nullptr, ibv_srq *srq = nullptr)
{
	ibv_qp_init_attr ia{};

	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.srq = srq;
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 1;
	ia.cap.max_send_wr = swr;
	ia.cap.max_recv_wr = rwr;
	ia.cap.max_send_sge = ssge;
	ia.cap.max_recv_sge = rsge;
	errno = 0;
	ibv_qp *qp = ibv_create_qp(pd, &ia);
	if (qp && got)
		*got = ia.cap;
	return qp;
}

ibv_qp_state qp_state(ibv_qp *qp)
{
	ibv_qp_attr a{};
	ibv_qp_init_attr ia{};

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

// --- The data pattern: word w of a buffer of seed s is mix(s, w). ---

uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void fill(uint8_t *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t w = mix64(seed * 0x100000001b3ull + i / 8);
		std::memcpy(p + i, &w, std::min<size_t>(8, n - i));
	}
}

bool matches(const uint8_t *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t w = mix64(seed * 0x100000001b3ull + i / 8);
		if (std::memcmp(p + i, &w, std::min<size_t>(8, n - i)))
			return false;
	}
	return true;
}

uint8_t *map_buf(size_t len)
{
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	return p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
}

// --- Times per batch, and whether they grow linearly in the count ---

struct Series {
	std::string what;
	size_t per_batch = 0;
	std::vector<double> secs;
};

void report_series(const Series &s, double ratio, double slack)
{
	size_t k = s.secs.size();
	std::string line;
	double total = 0;

	if (!k)
		return;
	for (double t : s.secs) {
		line += strf(" %.3f", t);
		total += t;
	}
	note(strf("%s: %zu batches of %zu, s:%s", s.what.c_str(), k,
		  s.per_batch, line.c_str()));
	if (k % 4 == 0) {
		double q = 0, h = 0;
		for (size_t i = 0; i < k / 4; i++)
			q += s.secs[i];
		for (size_t i = 0; i < k / 2; i++)
			h += s.secs[i];
		note(strf("%s: N/4 in %.3f s, N/2 in %.3f s, N in %.3f s",
			  s.what.c_str(), q, h, total));
	} else {
		note(strf("%s: all in %.3f s", s.what.c_str(), total));
	}
	if (k < 2)
		return;
	// The median batch of the first and of the last quarter (at least
	// one batch each): one slow batch (a neighbour being resolved again
	// while QPs move to RTR, the host busy) does not decide.
	size_t m = std::max<size_t>(1, k / 4);
	auto median = [&](size_t from) {
		std::vector<double> v(s.secs.begin() + from,
				      s.secs.begin() + from + m);
		std::sort(v.begin(), v.end());
		return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
	};
	double first = median(0), last = median(k - m);
	check(last <= ratio * first || last - first <= slack,
	      strf("%s grows linearly: last batches %.3f s, first %.3f s "
		   "(medians of %zu; x%.2f, limit x%.1f or +%.2f s)",
		   s.what.c_str(), last, first, m,
		   first > 0 ? last / first : 0.0, ratio, slack));
}

// ======================================================================
// qps: N RC pairs between two devices, traffic on all of them at once
// ======================================================================

constexpr int kWrites = 3, kSends = 2, kOps = kWrites + kSends;
constexpr size_t kOpStride = 2048;
// Per QP: kOps source regions, then kOps destination regions (WRITE
// targets, then receive buffers).
constexpr size_t kSlot = 2 * kOps * kOpStride;
constexpr uint8_t kGuard = 0x5a;
// wr_id: QP index << 4 | op (0..4 sends, 8..9 receives).
constexpr int kRecvOp = 8;

size_t op_len(uint32_t i, int j, int dir)
{
	return 1 + (i * 131u + j * 977u + dir * 61u) % 2000;
}

uint64_t op_seed(uint32_t i, int j, int dir)
{
	return (uint64_t)dir << 48 | (uint64_t)i << 8 | (uint64_t)j;
}

size_t src_off(uint32_t i, int j)
{
	return i * kSlot + j * kOpStride;
}

size_t dst_off(uint32_t i, int j)
{
	return i * kSlot + (kOps + j) * kOpStride;
}

struct Side {
	std::string dev;
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_mr *mr = nullptr;
	uint8_t *buf = nullptr;
	size_t len = 0;
	ibv_device_attr attr{};
	ibv_gid gid{};
	std::vector<ibv_cq *> cqs;
	std::vector<ibv_qp *> qps;

	~Side()
	{
		for (auto *qp : qps)
			if (qp)
				ibv_destroy_qp(qp);
		if (mr)
			ibv_dereg_mr(mr);
		for (auto *cq : cqs)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
		if (ctx)
			ibv_close_device(ctx);
		if (buf)
			munmap(buf, len);
	}
};

bool side_open(Side &s, const std::string &dev, int gid_index, size_t len)
{
	s.dev = dev;
	s.ctx = open_dev(dev);
	if (!s.ctx) {
		check(false, strf("open %s: %s", dev.c_str(), errstr(errno).c_str()));
		return false;
	}
	if (ibv_query_device(s.ctx, &s.attr) ||
	    ibv_query_gid(s.ctx, 1, gid_index, &s.gid)) {
		check(false, strf("query %s and its GID %d", dev.c_str(),
				  gid_index));
		return false;
	}
	s.pd = ibv_alloc_pd(s.ctx);
	s.len = len;
	s.buf = map_buf(len);
	if (!s.pd || !s.buf) {
		check(false, strf("%s: PD or %zu-byte buffer", dev.c_str(), len));
		return false;
	}
	s.mr = ibv_reg_mr(s.pd, s.buf, len, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s.mr) {
		check(false, strf("%s: register %zu bytes: %s", dev.c_str(), len,
				  errstr(errno).c_str()));
		return false;
	}
	return true;
}

bool post_recvs(Side &s, uint32_t i)
{
	ibv_sge sge[kSends];
	ibv_recv_wr wr[kSends], *bad;

	for (int r = 0; r < kSends; r++) {
		sge[r].addr = (uintptr_t)(s.buf + dst_off(i, kWrites + r));
		sge[r].length = kOpStride;
		sge[r].lkey = s.mr->lkey;
		wr[r] = {};
		wr[r].wr_id = (uint64_t)i << 4 | (kRecvOp + r);
		wr[r].sg_list = &sge[r];
		wr[r].num_sge = 1;
		wr[r].next = r + 1 < kSends ? &wr[r + 1] : nullptr;
	}
	int err = ibv_post_recv(s.qps[i], wr, &bad);
	if (err)
		check(false, strf("%s QP %u: post_recv: %s", s.dev.c_str(), i,
				  errstr(err).c_str()));
	return !err;
}

// The WRITEs and SENDs of QP @i of @s (direction @dir) into @peer.
bool post_sends(Side &s, const Side &peer, uint32_t i, int dir)
{
	ibv_sge sge[kOps];
	ibv_send_wr wr[kOps], *bad;

	for (int j = 0; j < kOps; j++) {
		sge[j].addr = (uintptr_t)(s.buf + src_off(i, j));
		sge[j].length = op_len(i, j, dir);
		sge[j].lkey = s.mr->lkey;
		wr[j] = {};
		wr[j].wr_id = (uint64_t)i << 4 | j;
		wr[j].sg_list = &sge[j];
		wr[j].num_sge = 1;
		wr[j].send_flags = IBV_SEND_SIGNALED;
		if (j < kWrites) {
			wr[j].opcode = IBV_WR_RDMA_WRITE;
			wr[j].wr.rdma.remote_addr =
				(uintptr_t)(peer.buf + dst_off(i, j));
			wr[j].wr.rdma.rkey = peer.mr->rkey;
		} else {
			wr[j].opcode = IBV_WR_SEND;
		}
		wr[j].next = j + 1 < kOps ? &wr[j + 1] : nullptr;
	}
	int err = ibv_post_send(s.qps[i], wr, &bad);
	if (err)
		check(false, strf("%s QP %u: post_send: %s", s.dev.c_str(), i,
				  errstr(err).c_str()));
	return !err;
}

// Completions of side @si: each of its QPs must see its 5 sends and 2
// receives complete once, successfully, with the right opcode and length.
struct Tally {
	std::vector<uint8_t> seen;
	uint64_t got = 0, bad = 0;
};

void take_wc(const Side &s, int si, Tally &t, const ibv_wc &wc)
{
	uint32_t n = s.qps.size(), i = wc.wr_id >> 4;
	int op = wc.wr_id & 15;
	bool ok = true;
	std::string why;

	t.got++;
	if (i >= n || (op >= kOps && (op < kRecvOp || op >= kRecvOp + kSends))) {
		ok = false;
		why = strf("unknown wr_id 0x%" PRIx64, (uint64_t)wc.wr_id);
	} else if (wc.status != IBV_WC_SUCCESS) {
		ok = false;
		why = strf("status %s (%d), vendor_err %u",
			   ibv_wc_status_str(wc.status), wc.status,
			   wc.vendor_err);
	} else if (wc.qp_num != s.qps[i]->qp_num) {
		ok = false;
		why = strf("qp_num 0x%x, expected 0x%x", wc.qp_num,
			   s.qps[i]->qp_num);
	} else if (op < kWrites ? wc.opcode != IBV_WC_RDMA_WRITE
		   : op < kOps ? wc.opcode != IBV_WC_SEND
			       : wc.opcode != IBV_WC_RECV) {
		ok = false;
		why = strf("opcode %d", wc.opcode);
	} else if (op >= kRecvOp &&
		   wc.byte_len != op_len(i, kWrites + op - kRecvOp, 1 - si)) {
		ok = false;
		why = strf("byte_len %u, expected %zu", wc.byte_len,
			   op_len(i, kWrites + op - kRecvOp, 1 - si));
	} else {
		int bit = op < kOps ? op : kOps + op - kRecvOp;
		if (t.seen[i] & (1u << bit)) {
			ok = false;
			why = "completed twice";
		}
		t.seen[i] |= 1u << bit;
	}
	if (!ok) {
		if (t.bad < 10)
			check(false, strf("%s QP %u op %d: %s", s.dev.c_str(), i,
					  op, why.c_str()));
		t.bad++;
	}
}

int mode_qps(const Args &a)
{
	if (a.pos.size() != 4)
		usage();
	const std::string dev1 = a.pos[1], dev2 = a.pos[2];
	long nl = std::strtol(a.pos[3].c_str(), nullptr, 0);
	if (nl < 1 || nl > 100000)
		usage();
	uint32_t n = nl;
	uint32_t batch = a.num("batch", std::max<long>(1, (n + 15) / 16), 1, n);
	int gid = a.num("gid", 1, 0, 255);
	int timeout = a.num("timeout", 18, 0, 31);
	double ratio = a.real("ratio", 3), slack = a.real("slack", 0.25);
	double wait = a.real("wait", 600);
	uint32_t ncq = a.num("cqs", 8, 1, 4096);
	size_t len = (size_t)n * kSlot;
	Side s[2];

	std::printf("qps: %u RC pairs between %s and %s (GID %d), batches of "
		    "%u, %d WRITEs and %d SENDs each way on every QP\n", n,
		    dev1.c_str(), dev2.c_str(), gid, batch, kWrites, kSends);
	if (!side_open(s[0], dev1, gid, len) || !side_open(s[1], dev2, gid, len))
		return 1;
	for (auto &d : s) {
		if ((uint32_t)d.attr.max_qp < n) {
			check(false, strf("%s: max_qp %d < %u", d.dev.c_str(),
					  d.attr.max_qp, n));
			return 1;
		}
	}

	// CQs: QP i sends to CQ i % C and receives on (i + C/2) % C, so a
	// CQ takes at most 7 * ceil(N / C) completions, all of which may be
	// outstanding at once.
	int max_cqe = std::min(s[0].attr.max_cqe, s[1].attr.max_cqe);
	while ((uint64_t)7 * ((n + ncq - 1) / ncq) + 16 > (uint64_t)max_cqe)
		ncq++;
	int cqe = 7 * ((n + ncq - 1) / ncq) + 16;
	for (auto &d : s) {
		for (uint32_t c = 0; c < ncq; c++) {
			ibv_cq *cq = ibv_create_cq(d.ctx, cqe, nullptr, nullptr, 0);
			if (!cq) {
				check(false, strf("%s: CQ %u of %d CQEs: %s",
						  d.dev.c_str(), c, cqe,
						  errstr(errno).c_str()));
				return 1;
			}
			d.cqs.push_back(cq);
		}
		d.qps.assign(n, nullptr);
		std::memset(d.buf, kGuard, len);
	}
	note(strf("%u CQs of %d CQEs per device", ncq, cqe));
	for (uint32_t i = 0; i < n; i++)
		for (int dir = 0; dir < 2; dir++)
			for (int j = 0; j < kOps; j++)
				fill(s[dir].buf + src_off(i, j), op_len(i, j, dir),
				     op_seed(i, j, dir));

	// Creation, per batch: QP i on both devices.
	Series create{"create QP pairs", batch, {}};
	auto t_all = Clock::now();
	for (uint32_t b = 0; b < n; b += batch) {
		auto t0 = Clock::now();
		for (uint32_t i = b; i < std::min(n, b + batch); i++) {
			for (auto &d : s) {
				d.qps[i] = make_rc(d.pd, d.cqs[i % ncq],
						   d.cqs[(i + ncq / 2) % ncq],
						   kOps + 1, kSends + 1, 1, 1);
				if (!d.qps[i]) {
					check(false, strf("%s: create QP %u: %s",
							  d.dev.c_str(), i,
							  errstr(err_or(EIO)).c_str()));
					return 1;
				}
			}
		}
		create.secs.push_back(since(t0));
	}
	double t_create = since(t_all);

	Series conn{"connect QP pairs (INIT, RTR, RTS)", batch, {}};
	t_all = Clock::now();
	for (uint32_t b = 0; b < n; b += batch) {
		auto t0 = Clock::now();
		for (uint32_t i = b; i < std::min(n, b + batch); i++) {
			for (int si = 0; si < 2; si++) {
				Side &d = s[si], &p = s[1 - si];
				int err = rc_connect(d.qps[i], p.qps[i]->qp_num,
						     p.gid, gid, timeout);
				if (err) {
					check(false, strf("%s: connect QP %u: %s",
							  d.dev.c_str(), i,
							  errstr(err).c_str()));
					return 1;
				}
			}
		}
		conn.secs.push_back(since(t0));
	}
	double t_conn = since(t_all);
	check(true, strf("%u QP pairs created in %.2f s and connected in %.2f s",
			 n, t_create, t_conn));

	// Traffic: every receive first, then every QP's sends, then reap.
	auto t_traffic = Clock::now();
	for (auto &d : s)
		for (uint32_t i = 0; i < n; i++)
			if (!post_recvs(d, i))
				return 1;
	for (uint32_t i = 0; i < n; i++)
		for (int si = 0; si < 2; si++)
			if (!post_sends(s[si], s[1 - si], i, si))
				return 1;
	double t_post = since(t_traffic);
	Tally tally[2];
	uint64_t want = (uint64_t)n * (kOps + kSends);
	for (auto &t : tally)
		t.seen.assign(n, 0);
	auto deadline = deadline_in(wait);
	while ((tally[0].got < want || tally[1].got < want) &&
	       Clock::now() < deadline) {
		bool any = false;
		for (int si = 0; si < 2; si++) {
			for (auto *cq : s[si].cqs) {
				ibv_wc wc[64];
				int got = ibv_poll_cq(cq, 64, wc);
				if (got < 0) {
					check(false, strf("%s: poll_cq: %d",
							  s[si].dev.c_str(), got));
					return 1;
				}
				for (int k = 0; k < got; k++)
					take_wc(s[si], si, tally[si], wc[k]);
				any |= got > 0;
			}
		}
		if (!any)
			std::this_thread::sleep_for(std::chrono::microseconds(200));
	}
	double t_traf = since(t_traffic);
	uint64_t msgs = 2ull * n * kOps;
	bool all = tally[0].got == want && tally[1].got == want &&
		   !tally[0].bad && !tally[1].bad;
	check(all, strf("traffic: %" PRIu64 " WRITEs and SENDs on %u QPs, "
			"%" PRIu64 "+%" PRIu64 " of %" PRIu64 " completions each "
			"side, %" PRIu64 " bad; posted in %.2f s, done in %.2f s "
			"(%.0f messages/s)", msgs, 2 * n, tally[0].got,
			tally[1].got, want, tally[0].bad + tally[1].bad, t_post,
			t_traf, msgs / t_traf));
	if (!all) {
		int shown = 0;
		for (int si = 0; si < 2; si++)
			for (uint32_t i = 0; i < n && shown < 10; i++)
				if (tally[si].seen[i] != (1u << (kOps + kSends)) - 1) {
					note(strf("%s QP %u (0x%x): completions "
						  "0x%02x of 0x7f, state %d",
						  s[si].dev.c_str(), i,
						  s[si].qps[i]->qp_num,
						  tally[si].seen[i],
						  qp_state(s[si].qps[i])));
					shown++;
				}
	}

	// Every QP's data, each way; a guard byte after each message.
	uint32_t bad_qps = 0;
	for (int si = 0; si < 2; si++) {
		for (uint32_t i = 0; i < n; i++) {
			bool good = true;
			for (int j = 0; j < kOps; j++) {
				size_t l = op_len(i, j, 1 - si);
				const uint8_t *p = s[si].buf + dst_off(i, j);
				if (!matches(p, l, op_seed(i, j, 1 - si)) ||
				    (l < kOpStride && p[l] != kGuard))
					good = false;
			}
			if (!good && bad_qps++ < 5)
				note(strf("%s QP %u: data differs", s[si].dev.c_str(),
					  i));
		}
	}
	check(!bad_qps, strf("data of every QP each way checked: %u QPs bad",
			     bad_qps));
	uint32_t not_rts = 0;
	for (auto &d : s)
		for (auto *qp : d.qps)
			not_rts += qp_state(qp) != IBV_QPS_RTS;
	check(!not_rts, strf("%u QPs not in RTS after the traffic", not_rts));

	// Teardown, per batch, oldest first.
	Series destroy{"destroy QP pairs", batch, {}};
	t_all = Clock::now();
	for (uint32_t b = 0; b < n; b += batch) {
		auto t0 = Clock::now();
		for (uint32_t i = b; i < std::min(n, b + batch); i++) {
			for (auto &d : s) {
				int err = ibv_destroy_qp(d.qps[i]);
				if (err) {
					check(false, strf("%s: destroy QP %u: %s",
							  d.dev.c_str(), i,
							  errstr(err).c_str()));
					return 1;
				}
				d.qps[i] = nullptr;
			}
		}
		destroy.secs.push_back(since(t0));
	}
	check(true, strf("%u QP pairs destroyed in %.2f s", n, since(t_all)));
	report_series(create, ratio, slack);
	report_series(conn, ratio, slack);
	report_series(destroy, ratio, slack);
	return failures ? 1 : 0;
}

// ======================================================================
// Object kinds, as the limit, scale and memcg checks make them
// ======================================================================

enum class Type { QP, CQ, SRQ, MR, PD };

struct Kind {
	const char *name;
	Type type;
	uint32_t depth; // QP: send and receive WRs; CQ: CQEs; SRQ: WRs; MR: bytes
	bool connect;	// QP: taken to RTS (looped back to itself)
};

const Kind kMemcgKinds[] = {
	{"qp-4096", Type::QP, 4096, true},
	{"qp-16", Type::QP, 16, true},
	{"cq-4096", Type::CQ, 4096, false},
	{"cq-16", Type::CQ, 16, false},
	{"srq-4096", Type::SRQ, 4096, false},
	{"srq-16", Type::SRQ, 16, false},
	{"mr-4k", Type::MR, 4096, false},
	{"mr-1m", Type::MR, 1 << 20, false},
};

const char *type_name(Type t)
{
	switch (t) {
	case Type::QP: return "QP";
	case Type::CQ: return "CQ";
	case Type::SRQ: return "SRQ";
	case Type::MR: return "MR";
	default: return "PD";
	}
}

// Makes and destroys objects of one kind on a context of its own.
struct Maker {
	Kind k;
	int gid_index = 1;
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	uint8_t *buf = nullptr;
	size_t buf_len = 0;
	ibv_gid gid{};
	ibv_device_attr attr{};
	uint64_t unmake_errors = 0;

	explicit Maker(const Kind &kind, int gid_idx) : k(kind), gid_index(gid_idx) {}
	Maker(const Maker &) = delete;
	Maker &operator=(const Maker &) = delete;

	// 0 or an errno.
	int setup(const std::string &dev)
	{
		ctx = open_dev(dev);
		if (!ctx)
			return err_or(ENODEV);
		if (ibv_query_device(ctx, &attr) ||
		    ibv_query_gid(ctx, 1, gid_index, &gid))
			return EIO;
		pd = ibv_alloc_pd(ctx);
		if (!pd)
			return err_or(EIO);
		if (k.type == Type::QP) {
			cq = ibv_create_cq(ctx, 1, nullptr, nullptr, 0);
			if (!cq)
				return err_or(EIO);
		}
		if (k.type == Type::MR) {
			buf_len = (k.depth + 4095) & ~(size_t)4095;
			buf = map_buf(buf_len);
			if (!buf)
				return ENOMEM;
		}
		return 0;
	}

	// The device's own limit on how many of the kind exist at once.
	uint64_t device_max() const
	{
		switch (k.type) {
		case Type::QP: return attr.max_qp;
		case Type::CQ: return attr.max_cq - (cq ? 1 : 0);
		case Type::SRQ: return attr.max_srq;
		case Type::MR: return attr.max_mr;
		default: return attr.max_pd - 1;
		}
	}

	// An object, or nullptr and *err.
	void *make(int *err)
	{
		errno = 0;
		switch (k.type) {
		case Type::QP: {
			ibv_qp *qp = make_rc(pd, cq, cq, k.depth, k.depth, 1, 1);
			if (!qp) {
				*err = err_or(EIO);
				return nullptr;
			}
			if (k.connect) {
				int e = rc_connect(qp, qp->qp_num, gid, gid_index,
						   14);
				if (e) {
					ibv_destroy_qp(qp);
					*err = e;
					return nullptr;
				}
			}
			return qp;
		}
		case Type::CQ: {
			ibv_cq *c = ibv_create_cq(ctx, k.depth, nullptr, nullptr, 0);
			if (!c)
				*err = err_or(EIO);
			return c;
		}
		case Type::SRQ: {
			ibv_srq_init_attr ia{};
			ia.attr.max_wr = k.depth;
			ia.attr.max_sge = 1;
			ibv_srq *srq = ibv_create_srq(pd, &ia);
			if (!srq)
				*err = err_or(EIO);
			return srq;
		}
		case Type::MR: {
			ibv_mr *mr = ibv_reg_mr(pd, buf, k.depth,
						IBV_ACCESS_LOCAL_WRITE |
						IBV_ACCESS_REMOTE_WRITE |
						IBV_ACCESS_REMOTE_READ);
			if (!mr)
				*err = err_or(EIO);
			return mr;
		}
		default: {
			ibv_pd *p = ibv_alloc_pd(ctx);
			if (!p)
				*err = err_or(EIO);
			return p;
		}
		}
	}

	void unmake(void *o)
	{
		int err;

		switch (k.type) {
		case Type::QP: err = ibv_destroy_qp(static_cast<ibv_qp *>(o)); break;
		case Type::CQ: err = ibv_destroy_cq(static_cast<ibv_cq *>(o)); break;
		case Type::SRQ: err = ibv_destroy_srq(static_cast<ibv_srq *>(o)); break;
		case Type::MR: err = ibv_dereg_mr(static_cast<ibv_mr *>(o)); break;
		default: err = ibv_dealloc_pd(static_cast<ibv_pd *>(o)); break;
		}
		if (err && unmake_errors++ < 5)
			check(false, strf("destroy a %s: %s", k.name,
					  errstr(err).c_str()));
	}

	~Maker()
	{
		if (cq)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
		if (ctx)
			ibv_close_device(ctx);
		if (buf)
			munmap(buf, buf_len);
	}
};

// ======================================================================
// objects: limits, 10000 MRs, 1000 CQs and SRQs, 500 contexts
// ======================================================================

// What a try function returns when the object was created with less than
// asked for.
constexpr int kShort = -1000;

std::string outcome(int err, const std::string &got)
{
	if (!err)
		return "created" + got;
	if (err == kShort)
		return "created, but with less than asked for" + got;
	return "refused: " + errstr(err);
}

// Creating with @max must succeed, with @max + 1 fail with EINVAL.
// @try_fn(value, &granted) returns 0, kShort or an errno.
template <typename F>
void limit_pair(const std::string &what, uint32_t max, F try_fn)
{
	std::string got;
	int at_max = try_fn(max, &got);
	int above = try_fn(max + 1, nullptr);

	check(!at_max, strf("%s = %u: %s", what.c_str(), max,
			    outcome(at_max, got).c_str()));
	check(above == EINVAL,
	      strf("%s = %u (max + 1): %s, expected EINVAL", what.c_str(),
		   max + 1, outcome(above, "").c_str()));
}

int try_qp(ibv_pd *pd, ibv_cq *cq, uint32_t swr, uint32_t rwr, uint32_t ssge,
	   uint32_t rsge, std::string *got)
{
	ibv_qp_cap cap{};
	ibv_qp *qp = make_rc(pd, cq, cq, swr, rwr, ssge, rsge, &cap);

	if (!qp)
		return err_or(EIO);
	if (got)
		*got = strf(" (granted send %u x %u SGEs, recv %u x %u SGEs)",
			    cap.max_send_wr, cap.max_send_sge, cap.max_recv_wr,
			    cap.max_recv_sge);
	bool short_caps = cap.max_send_wr < swr || cap.max_recv_wr < rwr ||
			  cap.max_send_sge < ssge || cap.max_recv_sge < rsge;
	int err = ibv_destroy_qp(qp);
	return err ? err : short_caps ? kShort : 0;
}

int try_srq(ibv_pd *pd, uint32_t wr, uint32_t sge, std::string *got)
{
	ibv_srq_init_attr ia{};

	ia.attr.max_wr = wr;
	ia.attr.max_sge = sge;
	errno = 0;
	ibv_srq *srq = ibv_create_srq(pd, &ia);
	if (!srq)
		return err_or(EIO);
	if (got)
		*got = strf(" (granted %u WRs x %u SGEs)", ia.attr.max_wr,
			    ia.attr.max_sge);
	int err = ibv_destroy_srq(srq);
	return err ? err : ia.attr.max_wr < wr || ia.attr.max_sge < sge ? kShort : 0;
}

void check_limits(const std::string &dev)
{
	ibv_context *ctx = open_dev(dev);
	ibv_device_attr da{};

	if (!ctx || ibv_query_device(ctx, &da)) {
		check(false, strf("open and query %s", dev.c_str()));
		if (ctx)
			ibv_close_device(ctx);
		return;
	}
	note(strf("%s limits: max_qp %d, max_qp_wr %d, max_sge %d, max_cq %d, "
		  "max_cqe %d, max_mr %d, max_mr_size %" PRIu64 ", max_pd %d, "
		  "max_srq %d, max_srq_wr %d, max_srq_sge %d", dev.c_str(),
		  da.max_qp, da.max_qp_wr, da.max_sge, da.max_cq, da.max_cqe,
		  da.max_mr, (uint64_t)da.max_mr_size, da.max_pd, da.max_srq,
		  da.max_srq_wr, da.max_srq_sge));
	ibv_pd *pd = ibv_alloc_pd(ctx);
	ibv_cq *cq = ibv_create_cq(ctx, 1, nullptr, nullptr, 0);
	if (!pd || !cq) {
		check(false, "PD and CQ for the limit checks");
		if (cq)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
		ibv_close_device(ctx);
		return;
	}
	uint32_t wr = da.max_qp_wr, sge = da.max_sge;
	limit_pair("QP max_send_wr (max_qp_wr)", wr, [&](uint32_t v, std::string *g) {
		return try_qp(pd, cq, v, 1, 1, 1, g);
	});
	limit_pair("QP max_recv_wr (max_qp_wr)", wr, [&](uint32_t v, std::string *g) {
		return try_qp(pd, cq, 1, v, 1, 1, g);
	});
	limit_pair("QP max_send_sge (max_sge)", sge, [&](uint32_t v, std::string *g) {
		return try_qp(pd, cq, 1, 1, v, 1, g);
	});
	limit_pair("QP max_recv_sge (max_sge)", sge, [&](uint32_t v, std::string *g) {
		return try_qp(pd, cq, 1, 1, 1, v, g);
	});
	{
		std::string got;
		int err = try_qp(pd, cq, wr, wr, sge, sge, &got);
		check(!err, strf("QP with every limit at its maximum (%u WRs x "
				 "%u SGEs both queues): %s", wr, sge,
				 outcome(err, got).c_str()));
	}
	limit_pair("CQ cqe (max_cqe)", da.max_cqe, [&](uint32_t v, std::string *g) {
		errno = 0;
		ibv_cq *c = ibv_create_cq(ctx, v, nullptr, nullptr, 0);
		if (!c)
			return err_or(EIO);
		if (g)
			*g = strf(" (granted %d CQEs)", c->cqe);
		bool short_cq = (uint32_t)c->cqe < v;
		int err = ibv_destroy_cq(c);
		return err ? err : short_cq ? kShort : 0;
	});
	limit_pair("SRQ max_wr (max_srq_wr)", da.max_srq_wr, [&](uint32_t v, std::string *g) {
		return try_srq(pd, v, 1, g);
	});
	limit_pair("SRQ max_sge (max_srq_sge)", da.max_srq_sge, [&](uint32_t v, std::string *g) {
		return try_srq(pd, 1, v, g);
	});
	{
		std::string got;
		int err = try_srq(pd, da.max_srq_wr, da.max_srq_sge, &got);
		check(!err, strf("SRQ of %d WRs x %d SGEs: %s", da.max_srq_wr,
				 da.max_srq_sge, outcome(err, got).c_str()));
	}
	// An MR one byte longer than max_mr_size, over address space that is
	// reserved but never touched: refused before anything is pinned.
	size_t span = (da.max_mr_size + 1 + 8191) & ~(size_t)4095;
	void *p = mmap(nullptr, span, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p != MAP_FAILED) {
		errno = 0;
		ibv_mr *mr = ibv_reg_mr(pd, p, da.max_mr_size + 1,
					IBV_ACCESS_LOCAL_WRITE);
		int err = mr ? 0 : err_or(EIO);
		check(err == EINVAL,
		      strf("MR of max_mr_size + 1 = %" PRIu64 " bytes: %s, "
			   "expected EINVAL", (uint64_t)da.max_mr_size + 1,
			   mr ? "registered" : errstr(err).c_str()));
		if (mr)
			ibv_dereg_mr(mr);
		munmap(p, span);
	}
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

// --count-limits: max objects of a kind at once, and one more refused.
void count_limit(const std::string &dev, const Kind &k, int gid)
{
	Maker m(k, gid);
	int err = m.setup(dev);

	if (err) {
		check(false, strf("%s: setup: %s", k.name, errstr(err).c_str()));
		return;
	}
	uint64_t max = m.device_max();
	std::vector<void *> objs;
	objs.reserve(max + 1);
	auto t0 = Clock::now();
	err = 0;
	while (objs.size() <= max) {
		void *o = m.make(&err);
		if (!o)
			break;
		objs.push_back(o);
	}
	double t_make = since(t0);
	size_t made = objs.size();
	t0 = Clock::now();
	for (void *o : objs)
		m.unmake(o);
	double t_free = since(t0);
	// The device counts the kernel's own objects too (ib_mad's QP1, its
	// CQ and PD): a few fewer than the maximum may be left for a user.
	bool at_limit = made <= max && made + 4 >= max && err;
	std::string which = k.type == Type::PD ? "max_pd" :
		k.type == Type::CQ ? "max_cq" : k.type == Type::QP ? "max_qp" :
		k.type == Type::SRQ ? "max_srq" : "max_mr";
	check(at_limit, strf("%s count limit (%s): %zu created of %" PRIu64
			     " left by the limit (%" PRIu64 " fewer), then %s "
			     "(%.1f s, freed in %.1f s)", type_name(k.type),
			     which.c_str(), made, max, max - made,
			     err ? errstr(err).c_str() : "no failure", t_make,
			     t_free));
}

// 10000 MRs on pages of their own, offsets and lengths varied.
void scale_mrs(const std::string &dev, uint32_t n, int gid, double ratio,
	       double slack)
{
	ibv_context *ctx = open_dev(dev);
	if (!ctx) {
		check(false, strf("open %s", dev.c_str()));
		return;
	}
	ibv_pd *pd = ibv_alloc_pd(ctx);
	size_t len = (size_t)n * 4096;
	uint8_t *buf = map_buf(len);
	ibv_cq *cq = ibv_create_cq(ctx, 64, nullptr, nullptr, 0);
	ibv_gid g{};
	if (!pd || !buf || !cq || ibv_query_gid(ctx, 1, gid, &g)) {
		check(false, "PD, CQ, GID and buffer for the MRs");
		return;
	}
	auto mr_off = [](uint32_t i) -> size_t { return (i * 131u) % 2048; };
	auto mr_len = [&](uint32_t i) -> size_t {
		return 1 + (i * 997u) % (4096 - mr_off(i));
	};
	std::vector<ibv_mr *> mrs(n, nullptr);
	const uint32_t per = std::min<uint32_t>(1000, n);
	Series reg{"register MRs", per, {}}, dereg{"deregister MRs", per, {}};
	auto t_all = Clock::now();
	for (uint32_t b = 0; b < n; b += per) {
		auto t0 = Clock::now();
		for (uint32_t i = b; i < std::min(n, b + per); i++) {
			errno = 0;
			mrs[i] = ibv_reg_mr(pd, buf + (size_t)i * 4096 + mr_off(i),
					    mr_len(i), IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_READ);
			if (!mrs[i]) {
				check(false, strf("register MR %u: %s", i,
						  errstr(err_or(EIO)).c_str()));
				goto out;
			}
		}
		reg.secs.push_back(since(t0));
	}
	check(true, strf("%u MRs registered in %.2f s", n, since(t_all)));
	{
		std::set<uint32_t> lkeys, rkeys;
		for (auto *mr : mrs) {
			lkeys.insert(mr->lkey);
			rkeys.insert(mr->rkey);
		}
		check(lkeys.size() == n && rkeys.size() == n,
		      strf("MR keys unique: %zu lkeys, %zu rkeys", lkeys.size(),
			   rkeys.size()));
	}
	{
		// Two QPs of the device, connected to each other: WRITEs from
		// the first, oldest and newest MRs (and some between) into
		// others, the data checked in the target MR.
		ibv_qp *qa = make_rc(pd, cq, cq, 32, 1, 1, 1);
		ibv_qp *qb = make_rc(pd, cq, cq, 32, 1, 1, 1);
		int err = !qa || !qb ? err_or(EIO) : 0;
		if (!err)
			err = rc_connect(qa, qb->qp_num, g, gid, 14);
		if (!err)
			err = rc_connect(qb, qa->qp_num, g, gid, 14);
		check(!err, strf("two looped-back QPs for MR traffic: %s",
				 err ? errstr(err).c_str() : "connected"));
		uint32_t wrote = 0, good = 0;
		for (uint32_t k = 0; !err && k < 16; k++) {
			uint32_t x = k == 0 ? 0 : k == 1 ? n - 1 : (k * 997u) % n;
			uint32_t y = n - 1 - x;
			if (x == y)
				y = (y + 1) % n;
			size_t l = std::min(mr_len(x), mr_len(y));
			uint8_t *src = buf + (size_t)x * 4096 + mr_off(x);
			uint8_t *dst = buf + (size_t)y * 4096 + mr_off(y);
			fill(src, l, 0x4d52000000ull + k);
			std::memset(dst, 0, l);
			ibv_sge sge{(uintptr_t)src, (uint32_t)l, mrs[x]->lkey};
			ibv_send_wr wr{}, *bad;
			wr.wr_id = k;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.wr.rdma.remote_addr = (uintptr_t)dst;
			wr.wr.rdma.rkey = mrs[y]->rkey;
			if (ibv_post_send(qa, &wr, &bad))
				break;
			ibv_wc wc{};
			auto deadline = deadline_in(30);
			int got = 0;
			while (!(got = ibv_poll_cq(cq, 1, &wc)) &&
			       Clock::now() < deadline)
				std::this_thread::sleep_for(std::chrono::microseconds(100));
			wrote++;
			if (got == 1 && wc.status == IBV_WC_SUCCESS &&
			    matches(dst, l, 0x4d52000000ull + k))
				good++;
			else if (got == 1)
				note(strf("WRITE MR %u -> MR %u: %s", x, y,
					  ibv_wc_status_str(wc.status)));
		}
		check(!err && wrote == 16 && good == 16,
		      strf("RDMA WRITEs between MRs among %u: %u of %u right",
			   n, good, wrote));
		if (qa)
			ibv_destroy_qp(qa);
		if (qb)
			ibv_destroy_qp(qb);
	}
	t_all = Clock::now();
	for (uint32_t b = 0; b < n; b += per) {
		auto t0 = Clock::now();
		for (uint32_t i = b; i < std::min(n, b + per); i++) {
			int err = ibv_dereg_mr(mrs[i]);
			if (err) {
				check(false, strf("deregister MR %u: %s", i,
						  errstr(err).c_str()));
				goto out;
			}
			mrs[i] = nullptr;
		}
		dereg.secs.push_back(since(t0));
	}
	check(true, strf("%u MRs deregistered in %.2f s", n, since(t_all)));
	report_series(reg, ratio, slack);
	report_series(dereg, ratio, slack);
out:
	for (auto *mr : mrs)
		if (mr)
			ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	munmap(buf, len);
	ibv_close_device(ctx);
}

// @n CQs of 1 to 256 CQEs, then @n SRQs of 1 to 256 WRs and 1 to 4 SGEs,
// each with a receive posted.
void scale_cqs_srqs(const std::string &dev, uint32_t ncq, uint32_t nsrq,
		    double ratio, double slack)
{
	ibv_context *ctx = open_dev(dev);
	if (!ctx) {
		check(false, strf("open %s", dev.c_str()));
		return;
	}
	ibv_pd *pd = ibv_alloc_pd(ctx);
	std::vector<uint8_t> rbuf(4096);
	ibv_mr *mr = pd ? ibv_reg_mr(pd, rbuf.data(), rbuf.size(),
				     IBV_ACCESS_LOCAL_WRITE) : nullptr;
	if (!mr) {
		check(false, "PD and MR for the SRQs");
		return;
	}
	const uint32_t per_cq = std::max<uint32_t>(1, ncq / 4);
	Series cmake{"create CQs", per_cq, {}}, cfree{"destroy CQs", per_cq, {}};
	std::vector<ibv_cq *> cqs;
	bool ok = true;
	for (uint32_t b = 0; ok && b < ncq; b += per_cq) {
		auto t0 = Clock::now();
		for (uint32_t i = b; i < std::min(ncq, b + per_cq); i++) {
			errno = 0;
			ibv_cq *cq = ibv_create_cq(ctx, 1 + (i * 37) % 256,
						   nullptr, nullptr, 0);
			if (!cq) {
				check(false, strf("create CQ %u: %s", i,
						  errstr(err_or(EIO)).c_str()));
				ok = false;
				break;
			}
			cqs.push_back(cq);
		}
		cmake.secs.push_back(since(t0));
	}
	uint32_t polled = 0;
	for (auto *cq : cqs) {
		ibv_wc wc;
		polled += ibv_poll_cq(cq, 1, &wc) == 0;
	}
	if (ok)
		check(polled == ncq, strf("%u CQs created, %u polled empty", ncq,
					  polled));
	for (size_t b = 0; b < cqs.size(); b += per_cq) {
		auto t0 = Clock::now();
		for (size_t i = b; i < std::min(cqs.size(), b + per_cq); i++) {
			int err = ibv_destroy_cq(cqs[i]);
			if (err && ok) {
				check(false, strf("destroy CQ %zu: %s", i,
						  errstr(err).c_str()));
				ok = false;
			}
		}
		cfree.secs.push_back(since(t0));
	}
	if (ok) {
		report_series(cmake, ratio, slack);
		report_series(cfree, ratio, slack);
	}

	const uint32_t per_srq = std::max<uint32_t>(1, nsrq / 4);
	Series smake{"create SRQs", per_srq, {}}, sfree{"destroy SRQs", per_srq, {}};
	std::vector<ibv_srq *> srqs;
	ok = true;
	for (uint32_t b = 0; ok && b < nsrq; b += per_srq) {
		auto t0 = Clock::now();
		for (uint32_t i = b; i < std::min(nsrq, b + per_srq); i++) {
			ibv_srq_init_attr ia{};
			ia.attr.max_wr = 1 + (i * 37) % 256;
			ia.attr.max_sge = 1 + i % 4;
			errno = 0;
			ibv_srq *srq = ibv_create_srq(pd, &ia);
			if (!srq) {
				check(false, strf("create SRQ %u: %s", i,
						  errstr(err_or(EIO)).c_str()));
				ok = false;
				break;
			}
			srqs.push_back(srq);
			ibv_sge sge{(uintptr_t)rbuf.data(), 64, mr->lkey};
			ibv_recv_wr wr{}, *bad;
			wr.wr_id = i;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			int err = ibv_post_srq_recv(srq, &wr, &bad);
			if (err) {
				check(false, strf("post a receive to SRQ %u: %s",
						  i, errstr(err).c_str()));
				ok = false;
				break;
			}
		}
		smake.secs.push_back(since(t0));
	}
	if (ok)
		check(true, strf("%u SRQs created, a receive posted on each",
				 nsrq));
	for (size_t b = 0; b < srqs.size(); b += per_srq) {
		auto t0 = Clock::now();
		for (size_t i = b; i < std::min(srqs.size(), b + per_srq); i++) {
			int err = ibv_destroy_srq(srqs[i]);
			if (err && ok) {
				check(false, strf("destroy SRQ %zu: %s", i,
						  errstr(err).c_str()));
				ok = false;
			}
		}
		sfree.secs.push_back(since(t0));
	}
	if (ok) {
		report_series(smake, ratio, slack);
		report_series(sfree, ratio, slack);
	}
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

// A child of scale_contexts(): @n contexts, each with a PD and a CQ; one
// byte to @ready ('r', or 'f' on a failure), then hold them until @go
// closes, close everything and exit 0 (1 if a close failed).
[[noreturn]] void context_child(const std::string &dev, int n, int ready,
				int go)
{
	struct Ctx {
		ibv_context *ctx;
		ibv_pd *pd;
		ibv_cq *cq;
	};
	std::vector<Ctx> held;
	int num = 0, err = 0;
	ibv_device **list = ibv_get_device_list(&num);
	ibv_device *d = nullptr;

	for (int i = 0; list && i < num; i++)
		if (dev == ibv_get_device_name(list[i]))
			d = list[i];
	for (int i = 0; d && i < n; i++) {
		Ctx c{};
		errno = 0;
		c.ctx = ibv_open_device(d);
		c.pd = c.ctx ? ibv_alloc_pd(c.ctx) : nullptr;
		c.cq = c.pd ? ibv_create_cq(c.ctx, 16, nullptr, nullptr, 0)
			    : nullptr;
		if (!c.cq) {
			err = err_or(EIO);
			std::fprintf(stderr, "pid %d: context %d: %s\n", getpid(),
				     i, errstr(err).c_str());
		}
		held.push_back(c);
		if (err)
			break;
	}
	char c = d && !err ? 'r' : 'f';
	if (write(ready, &c, 1) != 1)
		_exit(3);
	// Wait for the word (EOF), at most 10 minutes.
	pollfd pfd{go, POLLIN, 0};
	poll(&pfd, 1, 600000);
	int bad = 0;
	for (auto &h : held) {
		if (h.cq && ibv_destroy_cq(h.cq))
			bad++;
		if (h.pd && ibv_dealloc_pd(h.pd))
			bad++;
		if (h.ctx && ibv_close_device(h.ctx))
			bad++;
	}
	if (list)
		ibv_free_device_list(list);
	_exit(bad || c != 'r' ? 1 : 0);
}

// Objects in use of a slab cache, from /proc/slabinfo; -1 if not listed.
// The cache is shrunk first: freed objects leave the per-CPU slabs and
// KASAN's quarantine, which would count as in use.
long slab_active(const char *cache)
{
	std::ofstream(std::string("/sys/kernel/slab/") + cache + "/shrink")
		<< "1\n";
	std::ifstream f("/proc/slabinfo");
	std::string name, line;
	long active;

	while (f >> name) {
		if (name == cache && f >> active)
			return active;
		std::getline(f, line);
	}
	return -1;
}

// With the device full, processes whose context is refused exit: their
// tasks must go.  ib_core's ioctl GET_CONTEXT (6.1, 6.12) drops no task
// reference when alloc_ucontext fails, and wookie drops it itself; a
// leak would keep every one of these task_structs.
void refused_contexts_leak_nothing(const std::string &dev)
{
	const int n = 256;
	long before = slab_active("task_struct");
	int refused = 0, other = 0;

	std::fflush(stdout);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			errno = 0;
			ibv_context *c = open_dev(dev);
			_exit(c ? 1 : errno == ENOMEM ? 0 : 2);
		}
		if (pid < 0) {
			check(false, strf("fork: %s", std::strerror(errno)));
			return;
		}
		int st = 0;
		if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		    !WEXITSTATUS(st))
			refused++;
		else
			other++;
	}
	// Let RCU free the tasks (put_task_struct's last free is deferred).
	std::this_thread::sleep_for(std::chrono::seconds(2));
	long after = slab_active("task_struct");
	check(before >= 0 && after >= 0 && refused == n &&
		      after - before < n / 2,
	      strf("%d processes refused a context (ENOMEM; %d otherwise) "
		   "leave no task behind: task_struct objects %ld -> %ld",
		   refused, other, before, after));
}

void scale_contexts(const std::string &dev, int procs, int per)
{
	int ready[2], go[2];

	std::fflush(stdout);
	if (pipe(ready) || pipe(go)) {
		check(false, "pipes");
		return;
	}
	auto t0 = Clock::now();
	std::vector<pid_t> kids;
	for (int p = 0; p < procs; p++) {
		pid_t pid = fork();
		if (pid == 0) {
			close(ready[0]);
			close(go[1]);
			context_child(dev, per, ready[1], go[0]);
		}
		if (pid < 0) {
			check(false, strf("fork: %s", std::strerror(errno)));
			break;
		}
		kids.push_back(pid);
	}
	close(ready[1]);
	close(go[0]);
	int up = 0, down = 0;
	auto deadline = deadline_in(300);
	while (up + down < (int)kids.size() && Clock::now() < deadline) {
		pollfd pfd{ready[0], POLLIN, 0};
		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		char c;
		ssize_t r = read(ready[0], &c, 1);
		if (r <= 0)
			break;
		(c == 'r' ? up : down)++;
	}
	double t_open = since(t0);
	check(up == procs && !down,
	      strf("%d contexts (each with a PD and a CQ) open at once in %d "
		   "processes: %d processes ready, %d failed, in %.2f s",
		   procs * per, procs, up, down, t_open));

	// How many more fit, in this process (the device's context limit
	// is not among ibv_query_device's figures): reported, not checked.
	if (up == procs) {
		std::vector<ibv_context *> more;
		int err = 0;
		while (more.size() < 64) {
			errno = 0;
			ibv_context *c = open_dev(dev);
			if (!c) {
				err = err_or(EIO);
				break;
			}
			more.push_back(c);
		}
		note(strf("%zu more contexts opened beside the %d, then %s",
			  more.size(), procs * per,
			  err ? errstr(err).c_str() : "stopped trying"));
		if (err == ENOMEM)
			refused_contexts_leak_nothing(dev);
		for (auto *c : more)
			ibv_close_device(c);
	}

	t0 = Clock::now();
	close(go[1]);
	int clean = 0, dirty = 0;
	for (pid_t pid : kids) {
		int st = 0;
		// Children exit within the poll above; bounded by the lane.
		if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		    !WEXITSTATUS(st))
			clean++;
		else
			dirty++;
	}
	close(ready[0]);
	check(!dirty, strf("%d processes closed their contexts and exited "
			   "cleanly (%d did not) in %.2f s", clean, dirty,
			   since(t0)));
}

int mode_objects(const Args &a)
{
	if (a.pos.size() != 2)
		usage();
	const std::string dev = a.pos[1];
	int gid = a.num("gid", 1, 0, 255);
	double ratio = a.real("ratio", 3), slack = a.real("slack", 0.25);
	uint32_t nmr = a.num("mrs", 10000, 1, 1000000);
	uint32_t ncq = a.num("cqs", 1000, 1, 100000);
	uint32_t nsrq = a.num("srqs", 1000, 1, 100000);
	int procs = a.num("procs", 50, 1, 1000);
	int per = a.num("contexts", 10, 1, 100);

	std::printf("objects on %s: limits, %u MRs, %u CQs, %u SRQs, %d "
		    "contexts in %d processes\n", dev.c_str(), nmr, ncq, nsrq,
		    procs * per, procs);
	auto t0 = Clock::now();
	check_limits(dev);
	note(strf("limits checked in %.1f s", since(t0)));
	if (a.flag("count-limits")) {
		const Kind kinds[] = {
			{"cq-1", Type::CQ, 1, false},
			{"srq-1", Type::SRQ, 1, false},
			{"qp-1", Type::QP, 1, false},
			{"mr-4k", Type::MR, 4096, false},
			{"pd", Type::PD, 0, false},
		};
		for (const auto &k : kinds)
			count_limit(dev, k, gid);
	}
	t0 = Clock::now();
	scale_mrs(dev, nmr, gid, ratio, slack);
	note(strf("MRs in %.1f s", since(t0)));
	t0 = Clock::now();
	scale_cqs_srqs(dev, ncq, nsrq, ratio, slack);
	note(strf("CQs and SRQs in %.1f s", since(t0)));
	t0 = Clock::now();
	scale_contexts(dev, procs, per);
	note(strf("contexts in %.1f s", since(t0)));
	return failures ? 1 : 0;
}

// ======================================================================
// memcg: objects until the cgroup's memory.max, ENOMEM from the verb
// ======================================================================

struct MemStat {
	int64_t current = -1, anon = 0, kernel = 0, slab = 0, vmalloc = 0,
		percpu = 0, pagetables = 0;
	int64_t host_used = 0; // MemTotal - MemFree
};

std::map<std::string, int64_t> read_keyed(const std::string &path)
{
	std::map<std::string, int64_t> out;
	std::ifstream f(path);
	std::string key;
	int64_t v;

	while (f >> key >> v) {
		if (!key.empty() && key.back() == ':')
			key.pop_back();
		out[key] = v;
		// /proc/meminfo: "kB" after the number.
		f.ignore(64, '\n');
	}
	return out;
}

int64_t read_num(const std::string &path)
{
	std::ifstream f(path);
	int64_t v = -1;

	f >> v;
	return f ? v : -1;
}

int64_t host_used()
{
	auto m = read_keyed("/proc/meminfo");
	return (m["MemTotal"] - m["MemFree"]) * 1024;
}

MemStat mem_stat(const std::string &cg)
{
	MemStat s;
	auto st = read_keyed(cg + "/memory.stat");

	s.current = read_num(cg + "/memory.current");
	s.anon = st["anon"];
	s.kernel = st["kernel"];
	s.slab = st["slab_reclaimable"] + st["slab_unreclaimable"];
	s.vmalloc = st["vmalloc"];
	s.percpu = st["percpu"];
	s.pagetables = st["pagetables"];
	s.host_used = host_used();
	return s;
}

// Between a memcg child and its parent: memory shared before the fork,
// polled on both sides.  At the cgroup's limit the child makes no system
// call that allocates but the verbs (a pipe's buffer, a /proc read's
// seq_file buffer or a heap page would be charged to the cgroup and wake
// its OOM killer), so it neither writes to pipes nor reads files: the
// parent, outside the cgroup, reads the cgroup's figures.
struct Shared {
	volatile uint32_t state;    // a ChildState, set by the child
	volatile uint32_t go;       // raised by the parent: the next state
	volatile uint32_t stop_now; // the parent's budget or time ran out
	volatile uint32_t created;  // objects alive now
	volatile uint32_t stop;     // a Stop
	volatile int32_t fail_errno;
	volatile int32_t setup_errno;
	volatile uint64_t cap;      // the device's limit for the kind
	volatile double secs;
};

enum ChildState : uint32_t {
	kStarting = 0,
	kReady,		// set up, outside the cgroup: waits for go 1
	kCreating,	// in the cgroup
	kHolding,	// stopped (sh->stop), objects held: waits for go 2
	kFreed,		// objects destroyed: waits for go 3, then exits
};

enum Stop : uint32_t {
	kRunning = 0,
	kFailed,	// a verb failed: fail_errno
	kDeviceMax,	// the device's own count limit
	kBudget,	// host memory budget used up without a failure
	kTime,		// time up without a failure
	kSetup,		// setup failed: setup_errno
};

void wait_go(Shared *sh, uint32_t level)
{
	// At most 10 minutes; nanosleep allocates nothing.
	for (int i = 0; sh->go < level && i < 600000; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, nullptr);
	}
}

[[noreturn]] void memcg_child(const std::string &dev, const Kind &k, int gid,
			      Shared *sh)
{
	// Everything but the objects themselves is made before the parent
	// moves this process into the cgroup, and so is charged outside it:
	// the context, its PD and CQ, the MR buffer, the list of objects,
	// and heap the provider's per-object allocations will come from.
	// (32 MiB is the largest mmap threshold glibc takes: the block comes
	// from the heap, and stays there once freed.)
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	void *heap = std::malloc(24 << 20);
	if (heap)
		std::memset(heap, 1, 24 << 20);
	// Or the compiler drops the three calls.
	asm volatile("" : : "r"(heap) : "memory");
	std::free(heap);
	Maker m(k, gid);
	int err = m.setup(dev);
	if (err) {
		sh->setup_errno = err;
		sh->stop = kSetup;
		sh->state = kHolding;
		_exit(1);
	}
	uint64_t cap = m.device_max();
	sh->cap = cap;
	std::vector<void *> objs(cap + 1, nullptr);
	size_t n = 0;
	sh->state = kReady;
	wait_go(sh, 1);
	sh->state = kCreating;
	auto t0 = Clock::now();
	uint32_t stop = kRunning;
	while (stop == kRunning) {
		if (n >= cap) {
			stop = kDeviceMax;
			break;
		}
		if (sh->stop_now) {
			stop = sh->stop_now;
			break;
		}
		void *o = m.make(&err);
		if (!o) {
			sh->fail_errno = err;
			stop = kFailed;
			break;
		}
		objs[n++] = o;
		sh->created = n;
	}
	sh->secs = since(t0);
	sh->stop = stop;
	sh->state = kHolding;
	wait_go(sh, 2);
	for (size_t i = 0; i < n; i++)
		m.unmake(objs[i]);
	sh->created = 0;
	sh->state = kFreed;
	wait_go(sh, 3);
	_exit(m.unmake_errors ? 1 : 0);
}

std::string per_object(const MemStat &a, const MemStat &b, uint64_t n)
{
	double d = n ? (double)n : 1;

	return strf("memory.current %s, kernel %s (slab %s, vmalloc %s, "
		    "percpu %s), pagetables %s, anon %s; host memory used %s",
		    human((b.current - a.current) / d).c_str(),
		    human((b.kernel - a.kernel) / d).c_str(),
		    human((b.slab - a.slab) / d).c_str(),
		    human((b.vmalloc - a.vmalloc) / d).c_str(),
		    human((b.percpu - a.percpu) / d).c_str(),
		    human((b.pagetables - a.pagetables) / d).c_str(),
		    human((b.anon - a.anon) / d).c_str(),
		    human((b.host_used - a.host_used) / d).c_str());
}

// Wait until the child reaches @state or dies; false if it died (*st
// then holds its status) or did not get there within @secs.
bool await_child(Shared *sh, pid_t pid, uint32_t state, double secs, int *st,
		 bool *dead, const std::function<void()> &tick = nullptr)
{
	auto deadline = deadline_in(secs);
	while (sh->state < state) {
		if (waitpid(pid, st, WNOHANG) == pid) {
			*dead = true;
			return false;
		}
		if (Clock::now() >= deadline)
			return false;
		if (tick)
			tick();
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
	return true;
}

void memcg_kind(const std::string &dev, const std::string &cg, const Kind &k,
		int gid, double seconds, int64_t budget)
{
	auto *sh = static_cast<Shared *>(mmap(nullptr, sizeof(Shared),
					      PROT_READ | PROT_WRITE,
					      MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	if (sh == MAP_FAILED) {
		check(false, "shared memory");
		return;
	}
	new (sh) Shared{};
	auto ev0 = read_keyed(cg + "/memory.events");
	int64_t before = read_num(cg + "/memory.current");
	std::fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		memcg_child(dev, k, gid, sh);
	if (pid < 0) {
		check(false, strf("fork: %s", std::strerror(errno)));
		munmap(sh, sizeof(Shared));
		return;
	}

	int st = 0;
	bool dead = false;
	MemStat base, at_stop, freed;
	uint32_t held = 0;
	bool ready = await_child(sh, pid, kReady, 120, &st, &dead);
	if (sh->stop == kSetup) {
		check(false, strf("%s: the child's setup failed: %s", k.name,
				  errstr(sh->setup_errno).c_str()));
	} else if (!ready) {
		check(false, strf("%s: the child did not get ready", k.name));
	} else {
		// Into the cgroup; from here on what it allocates is charged
		// there.
		std::ofstream procs(cg + "/cgroup.procs");
		procs << pid << std::endl;
		if (!procs)
			check(false, strf("%s: move the child into %s", k.name,
					  cg.c_str()));
		base = mem_stat(cg);
		sh->go = 1;
		auto t_end = deadline_in(seconds);
		auto tick = [&]() {
			if (sh->stop_now)
				return;
			if (host_used() - base.host_used > budget)
				sh->stop_now = kBudget;
			else if (Clock::now() >= t_end)
				sh->stop_now = kTime;
		};
		if (await_child(sh, pid, kHolding, seconds + 120, &st, &dead,
				tick)) {
			at_stop = mem_stat(cg);
			held = sh->created;
		}
	}
	if (sh->state == kHolding && held) {
		// As many of the same kind from outside the cgroup, while
		// the cgroup is at its limit; the device's count limit is
		// shared, so at most what the child left of it.
		uint64_t room = sh->cap > held + 8 ? sh->cap - held - 8 : 0;
		uint32_t want = std::min<uint64_t>(held, room);
		Maker m(k, gid);
		int err = m.setup(dev);
		std::vector<void *> objs;
		if (!err) {
			while (objs.size() < want) {
				void *o = m.make(&err);
				if (!o)
					break;
				objs.push_back(o);
			}
		}
		if (!want)
			note(strf("%s: none made outside the cgroup: the child "
				  "holds the device's limit", k.name));
		else
			check(objs.size() == want,
			      strf("%s: outside the cgroup, %zu of %u made "
				   "while the cgroup holds %u%s%s", k.name,
				   objs.size(), want, held,
				   objs.size() == want ? "" : ": ",
				   objs.size() == want ? ""
						       : errstr(err).c_str()));
		for (void *o : objs)
			m.unmake(o);
	}
	if (!dead) {
		sh->go = 2;
		if (await_child(sh, pid, kFreed, 120, &st, &dead)) {
			// RCU-deferred frees: until two readings agree.
			freed = mem_stat(cg);
			for (int i = 0; i < 30; i++) {
				std::this_thread::sleep_for(
					std::chrono::milliseconds(100));
				MemStat again = mem_stat(cg);
				bool same = again.current == freed.current;
				freed = again;
				if (same)
					break;
			}
		}
		sh->go = 3;
	}
	auto deadline = deadline_in(dead ? 0 : 60);
	pid_t w = dead ? pid : 0;
	while (!w && (w = waitpid(pid, &st, WNOHANG)) == 0 &&
	       Clock::now() < deadline)
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		check(false, strf("%s: the child did not finish in time (state "
				  "%u)", k.name, sh->state));
	}
	auto ev1 = read_keyed(cg + "/memory.events");
	int64_t oom_kills = ev1["oom_kill"] - ev0["oom_kill"];
	int64_t ooms = ev1["oom"] - ev0["oom"];
	int64_t maxes = ev1["max"] - ev0["max"];

	if (WIFSIGNALED(st)) {
		check(false, strf("%s: the child was killed by signal %d after "
				  "%u objects (memory.events: oom +%" PRId64
				  ", oom_kill +%" PRId64 "): not ENOMEM from "
				  "the verb", k.name, WTERMSIG(st), sh->created,
				  ooms, oom_kills));
	} else if (held || sh->stop != kSetup) {
		std::string fig = strf("%u in %.1f s, memory.current %s -> %s, "
				       "kernel %s -> %s", held, sh->secs,
				       human(base.current).c_str(),
				       human(at_stop.current).c_str(),
				       human(base.kernel).c_str(),
				       human(at_stop.kernel).c_str());
		switch (sh->stop) {
		case kFailed:
			check(sh->fail_errno == ENOMEM,
			      strf("%s: %s, then the verb failed with %s "
				   "(expected ENOMEM)%s", k.name, fig.c_str(),
				   errstr(sh->fail_errno).c_str(),
				   held + 4 >= sh->cap ? ", at the device's own "
				   "count limit" : ""));
			break;
		case kDeviceMax:
			check(true, strf("%s: %s, the device's own limit reached "
					 "before the cgroup's", k.name,
					 fig.c_str()));
			break;
		case kBudget:
			check(false, strf("%s: %s, and no failure though the host "
					  "lost %s: this kernel memory is not "
					  "charged to the cgroup", k.name,
					  fig.c_str(),
					  human(at_stop.host_used -
						base.host_used).c_str()));
			break;
		default:
			check(false, strf("%s: %s, no failure within %.0f s",
					  k.name, fig.c_str(), seconds));
			break;
		}
		if (held)
			note(strf("%s per object: %s", k.name,
				  per_object(base, at_stop, held).c_str()));
		if (WIFEXITED(st) && WEXITSTATUS(st))
			check(false, strf("%s: the child exited %d", k.name,
					  WEXITSTATUS(st)));
		if (freed.current >= 0)
			note(strf("%s freed, the child still alive: "
				  "memory.current %s, kernel %s", k.name,
				  human(freed.current).c_str(),
				  human(freed.kernel).c_str()));
	}
	check(!oom_kills, strf("%s: no OOM kill in the cgroup (memory.events: "
			       "max +%" PRId64 ", oom +%" PRId64 ", oom_kill +%"
			       PRId64 ")", k.name, maxes, ooms, oom_kills));
	// Freed memory goes back, perhaps after an RCU grace period.
	int64_t after = -1;
	auto until = deadline_in(10);
	do {
		after = read_num(cg + "/memory.current");
		if (after <= before + (2 << 20))
			break;
		std::this_thread::sleep_for(std::chrono::milliseconds(200));
	} while (Clock::now() < until);
	check(after >= 0 && after <= before + (2 << 20),
	      strf("%s: memory.current back to %s (%s before; 2 MiB allowed)",
		   k.name, human(after).c_str(), human(before).c_str()));
	munmap(sh, sizeof(Shared));
}

int mode_memcg(const Args &a)
{
	if (a.pos.size() != 3)
		usage();
	const std::string dev = a.pos[1], cg = a.pos[2];
	int gid = a.num("gid", 1, 0, 255);
	double seconds = a.real("seconds", 60);
	int64_t budget = a.num("budget-mb", 256, 1, 1 << 20) << 20;
	std::string kinds = a.str("kinds", "");
	int64_t max = read_num(cg + "/memory.max");

	if (max <= 0) {
		check(false, strf("%s/memory.max: not a number (a cgroup v2 "
				  "directory with a memory limit?)", cg.c_str()));
		return 1;
	}
	std::printf("memcg: %s in %s, memory.max %s; host memory budget %s "
		    "and %.0f s per kind\n", dev.c_str(), cg.c_str(),
		    human(max).c_str(), human(budget).c_str(), seconds);
	for (const auto &k : kMemcgKinds) {
		if (!kinds.empty() &&
		    ("," + kinds + ",").find(std::string(",") + k.name + ",") ==
			    std::string::npos)
			continue;
		memcg_kind(dev, cg, k, gid, seconds, budget);
	}
	return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
	setvbuf(stdout, nullptr, _IOLBF, 0);
	Args a = parse(argc, argv);

	if (a.pos.empty())
		usage();
	if (a.pos[0] == "qps")
		return mode_qps(a);
	if (a.pos[0] == "objects")
		return mode_objects(a);
	if (a.pos[0] == "memcg")
		return mode_memcg(a);
	usage();
}
