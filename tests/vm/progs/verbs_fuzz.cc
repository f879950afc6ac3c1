// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// verbs_fuzz [--seed S] [--seconds T] [--workers N] DEVICE CHECKDEVICE
// verbs_fuzz --replay WORKER_SEED [--trace] DEVICE CHECKDEVICE
//
// A verbs and ring fuzzer.  For T seconds, N worker processes (fork) run
// random sequences of every verb on DEVICE with valid and invalid
// attributes: PDs, MRs (reg, rereg, dereg; random access, lengths from 0
// to huge, bad addresses), MWs (type 1 bound with ibv_bind_mw, type 2
// with a BIND_MW WQE), completion channels, CQs (classic and extended,
// resize, depths from 0 to huge), SRQs (basic, and XRC with
// ibv_create_srq_ex and ibv_get_srq_num), XRC domains (ibv_open_xrcd on
// no file, on a file of the worker's own, or on one file that all the
// workers share, with and without O_CREAT and O_EXCL; ibv_close_xrcd),
// QPs of RC/UC/UD/XRC_SEND/XRC_RECV (classic and extended with the
// ibv_wr_* API) with random capabilities, ibv_open_qp on XRC domains
// (the worker's XRC_RECV QPs, other workers' in the shared domain, random
// numbers), random modify_qp transitions and attribute masks (XRC_SEND
// connected to XRC_RECV QPs for traffic into XRC SRQs), queries, AHs
// with random GIDs, multicast attach/detach, post_send/post_recv with
// random opcodes, SGEs, lkeys, rkeys, inline sizes and XRC SRQ numbers
// (the worker's, another domain's, any 24-bit one, above 24 bits),
// poll_cq, req_notify_cq and completion and async events (non-blocking),
// and destruction in random order, where out of dependency order must
// give EBUSY.  A worker may scribble over its own mapped rings (indices,
// WQEs, the CQ consumer; XRC_SEND SQs and XRC SRQs among them) at a
// random step: from then on it only posts, rings doorbells, polls CQs it
// did not scribble on, queries, modifies QPs (never to RESET, whose CQ
// clean-up would walk a corrupt CQ) and destroys; then it ends.  Workers
// end by destroying everything in random order, by closing the device with
// objects left, or by just exiting; the parent also kills them with
// SIGKILL at random moments, and replaces every worker that ends until the
// time is up.
//
// Meanwhile a checker process runs RC traffic of its own on CHECKDEVICE
// (SEND, SEND with immediate, inline SEND, WRITE, WRITE with immediate,
// READ, both atomics), every byte and every completion checked.  The
// workers never aim at CHECKDEVICE: their GIDs avoid its addresses and
// every on-link address but their own device's, so anything reaching the
// checker's QPs would be the kernel's doing.
//
// Worker i's seed is derived from S and i; every failure line names the
// seeds and a --replay command that runs that worker alone (the replay is
// the same sequence of verbs; completions and kill timing may differ, and
// so may what the shared XRC domain held: a worker alone finds no other
// worker's domain or XRC_RECV QP there, and its sequence may part from
// the run's after such a call).
// Prints "ok"/"FAIL" lines and a summary (verbs called and succeeded,
// errors by errno, kills, scribbles, completions); exit 0 only when every
// check passed.  The kernel side (splats, leaks, objects left over) is the
// VM lane's, tests/vm/fuzz.sh.

#include <infiniband/verbs.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/wookie-abi.h>

// A command with no work request: the doorbell, as the provider rings it.
extern "C" int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
				 struct ibv_send_wr **bad_wr);
extern "C" int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
				 struct ibv_recv_wr **bad_wr);
extern "C" int ibv_cmd_post_srq_recv(struct ibv_srq *srq,
				     struct ibv_recv_wr *wr,
				     struct ibv_recv_wr **bad_wr);

namespace {

// The send ops (IBV_QP_EX_WITH_*) of RC and XRC_SEND QPs: the ten of
// rdma-core 44 and IBTA 1.5's FLUSH (1 << 11, which 44's headers do not
// name) and ATOMIC WRITE.
constexpr uint64_t kRcOps = 0x3ffull | 1ull << 11 | IBV_QP_EX_WITH_ATOMIC_WRITE;

// ---------------------------------------------------------------------------
// Options, output, random numbers

struct Options {
	uint64_t seed = 0;
	double seconds = 60;
	int workers = 4;
	double stall = 60;	// no progress for this long: a hang
	int kill_pct = 50;	// workers the parent kills at a random moment
	int scribble_pct = 40;	// workers that scribble on their rings
	bool replay = false;
	uint64_t replay_seed = 0;
	bool trace = false;
	const char *dev = nullptr;
	const char *checkdev = nullptr;
} opt;

const char *prog = "verbs_fuzz";

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	// One write per line: the processes share stdout.
	for (int off = 0; off < n;) {
		ssize_t w = write(1, buf + off, n - off);

		if (w <= 0)
			break;
		off += w;
	}
}

std::string errname(int e)
{
	const char *s = e > 0 ? strerrorname_np(e) : nullptr;

	return s ? s : "errno " + std::to_string(e);
}

double now()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void sleep_s(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - ts.tv_sec) * 1e9);
	nanosleep(&ts, nullptr);
}

uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

// splitmix64: the same sequence on every machine and library version.
struct Rng {
	uint64_t s;

	explicit Rng(uint64_t seed) : s(seed) {}
	uint64_t next()
	{
		s += 0x9e3779b97f4a7c15ull;
		return mix64(s);
	}
	uint32_t u32() { return (uint32_t)next(); }
	uint64_t below(uint64_t n) { return n ? next() % n : 0; }
	bool pct(unsigned p) { return below(100) < p; }
	template <class T>
	T *pick(std::vector<std::unique_ptr<T>> &v)
	{
		return v.empty() ? nullptr : v[below(v.size())].get();
	}
};

uint64_t worker_seed(uint64_t run, uint64_t gen)
{
	return mix64(run ^ mix64(gen + 1));
}

uint64_t checker_seed(uint64_t run)
{
	return mix64(run ^ 0x636865636b6572ull);
}

// ---------------------------------------------------------------------------
// Statistics, shared between the parent and its children

enum Verb {
	V_OPEN_DEVICE,
	V_CLOSE_DEVICE,
	V_QUERY_DEVICE,
	V_QUERY_DEVICE_EX,
	V_QUERY_PORT,
	V_QUERY_GID,
	V_QUERY_PKEY,
	V_QUERY_RT_VALUES,
	V_ALLOC_PD,
	V_DEALLOC_PD,
	V_OPEN_XRCD,
	V_CLOSE_XRCD,
	V_REG_MR,
	V_REREG_MR,
	V_DEREG_MR,
	V_ALLOC_MW,
	V_BIND_MW,
	V_DEALLOC_MW,
	V_CREATE_COMP_CHANNEL,
	V_DESTROY_COMP_CHANNEL,
	V_CREATE_CQ,
	V_CREATE_CQ_EX,
	V_RESIZE_CQ,
	V_DESTROY_CQ,
	V_POLL_CQ,
	V_START_POLL,
	V_REQ_NOTIFY_CQ,
	V_GET_CQ_EVENT,
	V_GET_ASYNC_EVENT,
	V_CREATE_SRQ,
	V_CREATE_SRQ_EX,
	V_MODIFY_SRQ,
	V_QUERY_SRQ,
	V_GET_SRQ_NUM,
	V_POST_SRQ_RECV,
	V_DESTROY_SRQ,
	V_CREATE_QP,
	V_CREATE_QP_EX,
	V_OPEN_QP,
	V_MODIFY_QP,
	V_QUERY_QP,
	V_DESTROY_QP,
	V_POST_SEND,
	V_WR_COMPLETE,
	V_POST_RECV,
	V_CREATE_AH,
	V_DESTROY_AH,
	V_ATTACH_MCAST,
	V_DETACH_MCAST,
	V_DOORBELL,
	V_UNSUPPORTED,
	V_COUNT
};

const char *const kVerbName[] = {
	"ibv_open_device",	"ibv_close_device",
	"ibv_query_device",	"ibv_query_device_ex",
	"ibv_query_port",	"ibv_query_gid",
	"ibv_query_pkey",	"ibv_query_rt_values_ex",
	"ibv_alloc_pd",		"ibv_dealloc_pd",
	"ibv_open_xrcd",	"ibv_close_xrcd",
	"ibv_reg_mr",		"ibv_rereg_mr",
	"ibv_dereg_mr",		"ibv_alloc_mw",
	"ibv_bind_mw",		"ibv_dealloc_mw",
	"ibv_create_comp_channel", "ibv_destroy_comp_channel",
	"ibv_create_cq",	"ibv_create_cq_ex",
	"ibv_resize_cq",	"ibv_destroy_cq",
	"ibv_poll_cq",		"ibv_start_poll",
	"ibv_req_notify_cq",	"ibv_get_cq_event",
	"ibv_get_async_event",	"ibv_create_srq",
	"ibv_create_srq_ex",	"ibv_modify_srq",
	"ibv_query_srq",	"ibv_get_srq_num",
	"ibv_post_srq_recv",	"ibv_destroy_srq",
	"ibv_create_qp",	"ibv_create_qp_ex",
	"ibv_open_qp",		"ibv_modify_qp",
	"ibv_query_qp",		"ibv_destroy_qp",
	"ibv_post_send",	"ibv_wr_complete",
	"ibv_post_recv",	"ibv_create_ah",
	"ibv_destroy_ah",	"ibv_attach_mcast",
	"ibv_detach_mcast",	"doorbell (empty post command)",
	"thread and device-memory verbs",
};
static_assert(sizeof(kVerbName) / sizeof(kVerbName[0]) == V_COUNT,
	      "a name for every verb");

constexpr int kErrnos = 160;
constexpr int kMaxWorkers = 64;

struct Counters {
	uint64_t calls[V_COUNT];
	uint64_t ok[V_COUNT];
	uint64_t err[kErrnos];	// by errno; kErrnos - 1: others
	uint64_t steps, scribbles, wc_ok, wc_err, cq_events, async_events;
	uint64_t wc_xrc;	// of wc_ok: of the worker's XRC QPs
	uint64_t failures;

	void add(const Counters &o)
	{
		for (int i = 0; i < V_COUNT; i++) {
			calls[i] += o.calls[i];
			ok[i] += o.ok[i];
		}
		for (int i = 0; i < kErrnos; i++)
			err[i] += o.err[i];
		steps += o.steps;
		scribbles += o.scribbles;
		wc_ok += o.wc_ok;
		wc_err += o.wc_err;
		wc_xrc += o.wc_xrc;
		cq_events += o.cq_events;
		async_events += o.async_events;
		failures += o.failures;
	}
};

enum Phase { P_RUN, P_SCRIBBLED, P_TEARDOWN, P_DONE };
const char *const kPhaseName[] = {"running", "after scribbling",
				  "tearing down", "done"};

// One per running worker; the parent reads it live (step, verb: what a
// hung or crashed worker was doing) and adds the counters up when it ends.
struct Slot {
	std::atomic<uint64_t> progress;	// verbs called so far
	std::atomic<uint64_t> step;
	std::atomic<int> verb;
	std::atomic<int> phase;
	std::atomic<int> scribbled;
	Counters c;
};

struct CheckerState {
	std::atomic<int> ready;		// 1: running, -1: set-up failed
	std::atomic<uint64_t> progress;	// transfers done
	std::atomic<int> op;
};

// XRC_RECV QPs that workers made in the shared XRC domain, for the others
// to open: numbers written over in any order, maybe stale.
constexpr int kXrcShared = 16;

struct Shared {
	std::atomic<int> stop_workers;
	std::atomic<int> stop_checker;
	CheckerState checker;
	Slot slot[kMaxWorkers];
	std::atomic<uint32_t> xrc_tgt[kXrcShared];
};

Shared *shm;

// The file whose XRC domain every worker may open (created and unlinked
// before forking, the descriptor inherited), or -1.
int shared_xrcd_fd = -1;

// A file for XRC domains (unlinked: the descriptor keeps it), or -1.
int xrcd_file()
{
	char path[] = "/tmp/verbs_fuzz-xrcd-XXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

// The GIDs of the checker's device (sysfs, read before forking).
std::vector<ibv_gid> checker_gids;

bool gid_is_zero(const ibv_gid &g)
{
	static const uint8_t zero[16] = {};

	return !memcmp(g.raw, zero, 16);
}

bool gid_is_v4(const ibv_gid &g)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0,
					   0, 0, 0, 0, 0xff, 0xff};

	return !memcmp(g.raw, prefix, 12);
}

bool gid_eq(const ibv_gid &a, const ibv_gid &b)
{
	return !memcmp(a.raw, b.raw, 16);
}

std::string gid_str(const ibv_gid &g)
{
	char s[INET6_ADDRSTRLEN];

	return inet_ntop(AF_INET6, g.raw, s, sizeof(s)) ? s : "?";
}

std::vector<ibv_gid> sysfs_gids(const char *dev)
{
	std::vector<ibv_gid> out;

	for (int i = 0; i < 256; i++) {
		std::string path = std::string("/sys/class/infiniband/") + dev +
				   "/ports/1/gids/" + std::to_string(i);
		FILE *f = fopen(path.c_str(), "re");
		char line[128] = "";

		if (!f)
			break;
		bool got = fgets(line, sizeof(line), f);
		fclose(f);
		if (!got)
			continue;
		line[strcspn(line, "\n")] = 0;
		ibv_gid g{};
		if (inet_pton(AF_INET6, line, g.raw) == 1 && !gid_is_zero(g))
			out.push_back(g);
	}
	return out;
}

ibv_context *open_by_name(const char *name, ibv_device **devp)
{
	int n = 0;
	ibv_device **list = ibv_get_device_list(&n);
	ibv_context *ctx = nullptr;

	for (int i = 0; list && i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = ibv_open_device(list[i]);
		if (devp)
			*devp = list[i];
	}
	// The list stays: *devp is used for more contexts later.
	if (!devp && list)
		ibv_free_device_list(list);
	return ctx;
}

// The IPv4-mapped RoCEv2 GID of port 1, or index 1.
int v4_gid_index(ibv_context *ctx, ibv_gid *gid)
{
	for (int i = 0; i < 16; i++) {
		ibv_gid g{};

		if (!ibv_query_gid(ctx, 1, i, &g) && gid_is_v4(g)) {
			*gid = g;
			return i;
		}
	}
	ibv_query_gid(ctx, 1, 1, gid);
	return 1;
}

// The shared read-write mappings of the uverbs device: the rings.
using Ring = std::pair<uintptr_t, size_t>;
std::set<Ring> ring_maps()
{
	std::set<Ring> out;
	FILE *f = fopen("/proc/self/maps", "re");
	char *line = nullptr;
	size_t cap = 0;

	if (!f)
		return out;
	while (getline(&line, &cap, f) > 0) {
		unsigned long a, b;

		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    !strstr(line, " rw-s "))
			continue;
		if (sscanf(line, "%lx-%lx", &a, &b) == 2 && b > a)
			out.insert({a, b - a});
	}
	free(line);
	fclose(f);
	return out;
}

// ---------------------------------------------------------------------------
// Workers

constexpr size_t kBufLen = 1 << 20;	// registered memory, and inline data
constexpr size_t kGuardLen = 64 << 10;	// PROT_NONE after it
constexpr size_t kRoLen = 64 << 10;	// read-only, never written
constexpr int kMaxSge = 40;		// SGE arrays (device limit: 32)
constexpr uint32_t kQkey = 0x11110000;
constexpr int kMcastGroups = 8;
// The XRCETH carries 24 bits: a larger SRQ number is refused when posted.
constexpr uint32_t kXrcSrqnMax = 0xffffff;

struct Pd {
	ibv_pd *pd;
};
// Where an XRC domain lives: the kernel keeps one domain per file, while
// a handle on it is open; each ibv_open_xrcd with fd -1 is a domain.
enum XrcFile { XF_NONE, XF_OWN, XF_SHARED };
struct Xrcd {
	ibv_xrcd *x;
	XrcFile file;
	// Equal for two handles open on one domain (the file, or a number
	// of the handle's own for fd -1).
	uint64_t domain;
};
struct Mr {
	ibv_mr *mr;
	Pd *pd;
	int access;
	bool iova;	// addresses are not mr->addr's
};
struct Mw {
	ibv_mw *mw;
	Pd *pd;
};
struct Chan {
	ibv_comp_channel *ch;
};
struct Cq {
	ibv_cq *cq;
	ibv_cq_ex *cqx;		// created with ibv_create_cq_ex
	Chan *ch;
	std::vector<Ring> rings;
	bool scribbled = false;
	bool big = false;
};
struct Srq {
	ibv_srq *srq;
	Pd *pd;
	uint32_t max_sge;
	std::vector<Ring> rings;
	bool big = false;
	// XRC SRQs: their domain handle, their CQ (both held by the kernel;
	// a basic SRQ holds no CQ) and their number.
	bool xrc = false;
	Xrcd *xrcd = nullptr;
	Cq *cq = nullptr;
	uint32_t srqn = 0;
};
struct Qp {
	ibv_qp *qp;
	Pd *pd;
	Cq *scq, *rcq;
	Srq *srq;
	ibv_qp_type type;
	ibv_qp_cap cap;
	uint64_t send_ops;	// ibv_wr_* builders (ibv_create_qp_ex)
	std::vector<Ring> rings;
	// Multicast attachments, as uverbs keeps them (one per GID and
	// LID); a QP that has any cannot be destroyed (EBUSY).
	std::vector<std::pair<ibv_gid, uint16_t>> mcast;
	bool big = false;
	// XRC_RECV QPs, created or opened: the domain handle used (no PD,
	// CQ or SRQ); XRC_SEND QPs hold only their PD and send CQ.
	Xrcd *xrcd = nullptr;
	uint32_t dest = 0;	// the last destination QP number set
	// Opened (ibv_open_qp): ib_uverbs_open_qp() (6.1 to 6.12) leaves the
	// uobject's mcast_lock uninitialised, which attach and detach take
	// (lockdep's DEBUG_LOCKS_WARN_ON on the sanitizer kernel): ib_core's
	// bug, whatever the driver, so the fuzzer spares it.
	bool opened = false;
};
struct Ah {
	ibv_ah *ah;
	Pd *pd;
};

// An enum field set to any 32-bit value (casting one outside the enum's
// range would be undefined in C++), and read back as an integer.
template <class E>
void set_raw(E &field, uint32_t v)
{
	static_assert(sizeof(E) == sizeof(v), "a 32-bit enum");
	memcpy(&field, &v, sizeof(v));
}

template <class E>
uint32_t get_raw(const E &field)
{
	uint32_t v;

	static_assert(sizeof(E) == sizeof(v), "a 32-bit enum");
	memcpy(&v, &field, sizeof(v));
	return v;
}

template <class T>
void erase(std::vector<std::unique_ptr<T>> &v, T *p)
{
	for (auto it = v.begin(); it != v.end(); ++it)
		if (it->get() == p) {
			v.erase(it);
			return;
		}
}

struct Worker {
	Rng rng;
	uint64_t gen, seed;
	Slot *slot;
	Counters &c;
	uint64_t step = 0;
	bool scribbled = false;

	ibv_device *device = nullptr;
	ibv_context *ctx = nullptr;
	ibv_device_attr dattr{};
	int gid_tbl_len = 1;
	std::vector<ibv_gid> own_gids;
	ibv_gid v4_gid{};
	int v4_index = 1;

	uint8_t *buf = nullptr, *ro = nullptr;

	std::vector<std::unique_ptr<Pd>> pds;
	std::vector<std::unique_ptr<Mr>> mrs;
	std::vector<std::unique_ptr<Mw>> mws;
	std::vector<std::unique_ptr<Chan>> chans;
	std::vector<std::unique_ptr<Cq>> cqs;
	std::vector<std::unique_ptr<Srq>> srqs;
	std::vector<std::unique_ptr<Qp>> qps;
	std::vector<std::unique_ptr<Ah>> ahs;
	std::vector<std::unique_ptr<Xrcd>> xrcds;
	std::set<Ring> known;	// rings mapped, as of the last look
	int own_xrcd_fd = -1;	// this worker's file for XRC domains
	uint64_t next_domain = 16;

	Worker(uint64_t g, uint64_t s, Slot *sl)
		: rng(s), gen(g), seed(s), slot(sl), c(sl->c)
	{
	}

	// --- bookkeeping ---------------------------------------------------

	void at(Verb v)
	{
		slot->verb.store(v, std::memory_order_relaxed);
		slot->progress.fetch_add(1, std::memory_order_relaxed);
		c.calls[v]++;
	}
	// @err: 0 for success, else the errno.
	void note(Verb v, int err)
	{
		if (opt.trace)
			fprintf(stderr, "  worker %llu step %llu: %s: %s\n",
				(unsigned long long)gen, (unsigned long long)step,
				kVerbName[v], err ? errname(err).c_str() : "ok");
		if (!err)
			c.ok[v]++;
		else
			c.err[err > 0 && err < kErrnos ? err : kErrnos - 1]++;
	}
	void trace(const char *fmt, ...) __attribute__((format(printf, 2, 3)))
	{
		if (!opt.trace)
			return;
		char b[512];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(b, sizeof(b), fmt, ap);
		va_end(ap);
		fprintf(stderr, "  worker %llu step %llu: %s\n",
			(unsigned long long)gen, (unsigned long long)step, b);
	}
	void fail(const char *fmt, ...) __attribute__((format(printf, 2, 3)))
	{
		char b[1024];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(b, sizeof(b), fmt, ap);
		va_end(ap);
		c.failures++;
		say("FAIL worker %llu (seed %#llx, run seed %#llx) step %llu%s: %s; "
		    "replay: %s --replay %#llx %s %s",
		    (unsigned long long)gen, (unsigned long long)seed,
		    (unsigned long long)opt.seed, (unsigned long long)step,
		    scribbled ? " (after scribbling)" : "", b, prog,
		    (unsigned long long)seed, opt.dev, opt.checkdev);
	}
	// A check failed in a way that leaves user-space objects dangling
	// (an object freed while another still points at it): stop here.
	[[noreturn]] void fatal()
	{
		slot->phase.store(P_DONE);
		_exit(1);
	}

	// --- random values -------------------------------------------------

	// A depth, count or size around a device limit.
	uint32_t count(uint32_t limit, uint32_t small = 64)
	{
		switch (rng.below(14)) {
		case 0: return 0;
		case 1: return 1;
		case 2: return limit;
		case 3: return limit + 1;
		case 4: return 0xffffffffu;
		case 5: return 0x80000000u;
		case 6: return rng.u32();
		case 7: return (uint32_t)rng.below(limit + 1ull);
		default: return 1 + (uint32_t)rng.below(small);
		}
	}

	int big_objects() const
	{
		int n = 0;

		for (auto &q : qps)
			n += q->big;
		for (auto &s : srqs)
			n += s->big;
		return n;
	}

	// Keep memory bounded: two big queues per worker at most.
	uint32_t tame(uint32_t v, uint32_t limit)
	{
		if (v > 256 && v <= limit && big_objects() >= 2)
			return 1 + (uint32_t)rng.below(256);
		return v;
	}

	ibv_gid random_gid_bytes()
	{
		ibv_gid g;

		for (auto &b : g.raw)
			b = (uint8_t)rng.next();
		return g;
	}

	// 2001:db8::/32, documentation addresses: never routed here.
	ibv_gid doc_gid()
	{
		ibv_gid g = random_gid_bytes();

		g.raw[0] = 0x20;
		g.raw[1] = 0x01;
		g.raw[2] = 0x0d;
		g.raw[3] = 0xb8;
		return g;
	}

	// A GID the workers must not aim at: the checker's device (and its
	// subnets), and on-link addresses other than this device's own (they
	// would reach the checker's netdev, or wait for ARP/ND).
	bool forbidden(const ibv_gid &g) const
	{
		// The device's own addresses first: the checker's device may
		// share their subnets (10.0.0.1 here, 10.0.0.2 there).
		for (auto &o : own_gids)
			if (gid_eq(g, o))
				return false;
		for (auto &k : checker_gids) {
			if (gid_eq(g, k))
				return true;
			if (gid_is_v4(k) && gid_is_v4(g) &&
			    !memcmp(k.raw + 12, g.raw + 12, 3))
				return true;
			if (!gid_is_v4(k) && !gid_is_v4(g) &&
			    !memcmp(k.raw, g.raw, 8))
				return true;
		}
		for (auto &o : own_gids) {
			if (gid_is_v4(o) && gid_is_v4(g) &&
			    !memcmp(o.raw + 12, g.raw + 12, 3))
				return true;
			if (!gid_is_v4(o) && !gid_is_v4(g) &&
			    !memcmp(o.raw, g.raw, 8))
				return true;
		}
		return g.raw[0] == 0xfe && (g.raw[1] & 0xc0) == 0x80;
	}

	void sanitize(ibv_gid &g)
	{
		while (forbidden(g))
			g = doc_gid();
	}

	ibv_gid mcast_gid()
	{
		ibv_gid g{};

		g.raw[0] = 0xff;
		g.raw[1] = 0x0e;
		g.raw[15] = 1 + (uint8_t)rng.below(kMcastGroups);
		return g;
	}

	ibv_gid any_gid()
	{
		ibv_gid g{};

		switch (rng.below(12)) {
		case 0: case 1: case 2: case 3: case 4:
			g = v4_gid;
			break;
		case 7:
			// Off-link IPv4: address resolution fails only after
			// its timeout; now and then.
			g = v4_gid;
			if (rng.pct(25))
				for (int i = 12; i < 16; i++)
					g.raw[i] = (uint8_t)rng.next();
			break;
		case 5:
			if (!own_gids.empty())
				g = own_gids[rng.below(own_gids.size())];
			break;
		case 6:
			g = random_gid_bytes();
			break;
		case 8:
			g = mcast_gid();
			break;
		case 9:
			break;	// zero
		case 10:
			g = v4_gid;
			g.raw[rng.below(16)] ^= 1 + (uint8_t)rng.below(255);
			break;
		default:
			g = doc_gid();
			break;
		}
		sanitize(g);
		return g;
	}

	int access_flags()
	{
		static const int known[] = {
			IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
			IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC,
			IBV_ACCESS_MW_BIND, IBV_ACCESS_ZERO_BASED,
			IBV_ACCESS_ON_DEMAND, IBV_ACCESS_HUGETLB,
			IBV_ACCESS_RELAXED_ORDERING,
		};
		int a = 0;

		if (rng.pct(50))
			return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			       (rng.pct(50) ? IBV_ACCESS_MW_BIND : 0);
		for (int k : known)
			if (rng.pct(k >= IBV_ACCESS_ZERO_BASED ? 5 : 50))
				a |= k;
		if (rng.pct(3))
			a |= 1 << rng.below(31);
		return a;
	}

	// An address in the registered buffer, room for @len after it.
	uintptr_t buf_addr(size_t len)
	{
		len = std::min(len, kBufLen);
		return (uintptr_t)buf + rng.below(kBufLen - len + 1);
	}

	// An address for the kernel to refuse, or to find outside any MR.
	uintptr_t bad_addr()
	{
		switch (rng.below(8)) {
		case 0: return 0;
		case 1: return 0x1000;
		case 2: return 0xffff888000000000ull;
		case 3: return 0x0000800000000000ull;	// non-canonical
		case 4: return (uintptr_t)buf + kBufLen;	// the guard
		case 5: return (uintptr_t)ro;		// read-only
		case 6: return rng.next();
		default: return (uintptr_t)buf + rng.below(kBufLen) - 4096;
		}
	}

	// One SGE: mostly within one of our MRs, else random keys,
	// addresses and lengths.  @inl: the provider copies it (inline
	// data), so it must be memory we can read.
	ibv_sge sge(bool inl, bool atomic = false)
	{
		ibv_sge s{};
		Mr *m = rng.pick(mrs);

		if (m && rng.pct(75)) {
			uint64_t len = m->mr->length;
			uint64_t off = rng.below(len + 1);

			s.lkey = m->mr->lkey;
			s.addr = (uintptr_t)m->mr->addr + off;
			s.length = (uint32_t)rng.below(std::min<uint64_t>(len - off, 70000) + 1);
			if (rng.pct(8))
				s.length = (uint32_t)(len - off + 1 + rng.below(64));
			if (atomic) {
				s.addr &= ~7ull;
				s.length = rng.pct(90) ? 8 : (uint32_t)rng.below(17);
			}
		} else {
			s.lkey = rng.pct(50) ? rng.u32() : (m ? m->mr->rkey : 0);
			s.addr = rng.pct(50) ? buf_addr(0) : bad_addr();
			s.length = rng.pct(70) ? (uint32_t)rng.below(5000)
					       : count(0x80000000u);
			if (atomic)
				s.length = 8;
		}
		if (inl) {
			if (s.length > kBufLen)
				s.length = (uint32_t)rng.below(600);
			s.addr = buf_addr(s.length);
		}
		return s;
	}

	// An MR of ours in the buffer with all of @access, or none.
	Mr *mr_with(int access, Pd *pd)
	{
		std::vector<Mr *> v;

		for (auto &m : mrs)
			if ((m->access & access) == access && m->pd == pd &&
			    !(m->access & IBV_ACCESS_ZERO_BASED) && !m->iova &&
			    (uintptr_t)m->mr->addr >= (uintptr_t)buf &&
			    (uintptr_t)m->mr->addr + m->mr->length <=
				    (uintptr_t)buf + kBufLen)
				v.push_back(m.get());
		return v.empty() ? nullptr : v[rng.below(v.size())];
	}

	// An SGE the kernel should accept: within an MR of the QP's PD.
	bool valid_sge(ibv_sge &s, Pd *pd, bool write, uint32_t max_len,
		       bool atomic = false)
	{
		Mr *m = mr_with(write ? IBV_ACCESS_LOCAL_WRITE : 0, pd);

		if (!m || m->mr->length < 8)
			return false;
		uint64_t len = atomic ? 8 : 1 + rng.below(std::min<uint64_t>(
					m->mr->length, max_len));
		uint64_t off = rng.below(m->mr->length - len + 1);
		s.addr = (uintptr_t)m->mr->addr + off;
		if (atomic)
			s.addr = ((uintptr_t)m->mr->addr + 7 + off) & ~7ull;
		if (s.addr + len > (uintptr_t)m->mr->addr + m->mr->length)
			return false;
		s.length = (uint32_t)len;
		s.lkey = m->mr->lkey;
		return true;
	}

	// A remote address and key: one of ours (MR or MW), or random.
	void remote(uint64_t &addr, uint32_t &rkey, bool atomic)
	{
		Mr *m = rng.pick(mrs);
		Mw *w = rng.pick(mws);

		if (m && rng.pct(70)) {
			rkey = m->mr->rkey;
			addr = (uintptr_t)m->mr->addr + rng.below(m->mr->length + 1);
		} else if (w && rng.pct(50)) {
			rkey = w->mw->rkey;
			addr = buf_addr(64);
		} else {
			rkey = rng.u32();
			addr = rng.pct(50) ? buf_addr(64) : bad_addr();
		}
		if (atomic && rng.pct(90))
			addr &= ~7ull;
	}

	// --- rings -----------------------------------------------------------

	// The rings mapped since the last look (a create or resize).
	std::vector<Ring> new_rings()
	{
		std::set<Ring> cur = ring_maps();
		std::vector<Ring> out;

		for (auto &r : cur)
			if (!known.count(r))
				out.push_back(r);
		known = cur;
		return out;
	}
	void forget(const std::vector<Ring> &rings)
	{
		for (auto &r : rings)
			known.erase(r);
	}
	// After a resize: the old mapping may be gone, a new one there.
	void moved(std::vector<Ring> &rings)
	{
		std::set<Ring> cur = ring_maps();
		std::vector<Ring> out;

		for (auto &r : rings)
			if (cur.count(r))
				out.push_back(r);
		for (auto &r : cur)
			if (!known.count(r))
				out.push_back(r);
		rings = out;
		known = cur;
	}

	// --- dependencies ------------------------------------------------------

	int users(const Pd *p) const
	{
		int n = 0;

		for (auto &m : mrs)
			n += m->pd == p;
		for (auto &w : mws)
			n += w->pd == p;
		for (auto &s : srqs)
			n += s->pd == p;
		for (auto &q : qps)
			n += q->pd == p;
		for (auto &a : ahs)
			n += a->pd == p;
		return n;
	}
	int users(const Cq *cq) const
	{
		int n = 0;

		for (auto &q : qps)
			n += q->scq == cq || q->rcq == cq;
		for (auto &s : srqs)
			n += s->cq == cq;
		return n;
	}
	// The SRQs and QPs made or opened with this handle (ib_uverbs counts
	// them per handle: another handle's, or another process's, do not
	// keep this one open).
	int users(const Xrcd *x) const
	{
		int n = 0;

		for (auto &s : srqs)
			n += s->xrcd == x;
		for (auto &q : qps)
			n += q->xrcd == x;
		return n;
	}
	int users(const Srq *s) const
	{
		int n = 0;

		for (auto &q : qps)
			n += q->srq == s;
		return n;
	}
	int users(const Qp *q) const
	{
		return (int)q->mcast.size();
	}
	int users(const Chan *ch) const
	{
		int n = 0;

		for (auto &cq : cqs)
			n += cq->ch == ch;
		return n;
	}

	// A destroy verb returned @rc; @busy: the object still has users.
	// True if the object is gone.
	bool destroyed(Verb v, int rc, int busy, const char *what)
	{
		note(v, rc);
		if (busy && !rc) {
			fail("%s succeeded while %d objects still use it (expected EBUSY)",
			     what, busy);
			fatal();
		}
		if (busy && rc != EBUSY)
			fail("%s with %d users: %s, expected EBUSY", what, busy,
			     errname(rc).c_str());
		if (!busy && rc)
			fail("%s of an unused object: %s", what,
			     errname(rc).c_str());
		return !rc;
	}

	// --- PD, MR, MW ------------------------------------------------------

	void alloc_pd()
	{
		if (pds.size() >= 4)
			return;
		at(V_ALLOC_PD);
		errno = 0;
		ibv_pd *pd = ibv_alloc_pd(ctx);
		note(V_ALLOC_PD, pd ? 0 : errno);
		if (pd)
			pds.push_back(std::unique_ptr<Pd>(new Pd{pd}));
		else
			fail("ibv_alloc_pd: %s", errname(errno).c_str());
	}

	void dealloc_pd(Pd *p)
	{
		at(V_DEALLOC_PD);
		int busy = users(p);
		if (destroyed(V_DEALLOC_PD, ibv_dealloc_pd(p->pd), busy,
			      "ibv_dealloc_pd"))
			erase(pds, p);
	}

	void reg_mr()
	{
		Pd *p = rng.pick(pds);

		if (!p || mrs.size() >= 16)
			return;
		uintptr_t addr;
		uint64_t len;
		switch (rng.below(10)) {
		case 0:
			addr = bad_addr();
			len = rng.below(1 << 20);
			break;
		case 1:
			addr = buf_addr(0);
			len = rng.pct(50) ? 0 : rng.pct(50) ? 1ull << 40
				: 0x80000000ull + rng.below(2);
			break;
		case 2:	// across the end of the buffer into the guard
			addr = (uintptr_t)buf + kBufLen - rng.below(8192);
			len = 4096 + rng.below(65536);
			break;
		default: {
			uint64_t off = rng.below(kBufLen);

			addr = (uintptr_t)buf + off;
			len = 1 + rng.below(kBufLen - off);
			if (rng.pct(30)) {	// page aligned
				addr &= ~4095ull;
				len = kBufLen - (addr - (uintptr_t)buf);
			}
		}
		}
		int access = access_flags();
		bool iova = rng.pct(20);
		uint64_t hca_va = rng.pct(50) ? rng.next() : rng.below(1 << 20);
		trace("reg_mr %#lx+%#llx access %#x%s", (unsigned long)addr,
		      (unsigned long long)len, access, iova ? " iova" : "");
		at(V_REG_MR);
		errno = 0;
		ibv_mr *mr = iova ? ibv_reg_mr_iova(p->pd, (void *)addr, len,
						    hca_va, access)
				  : ibv_reg_mr(p->pd, (void *)addr, len, access);
		note(V_REG_MR, mr ? 0 : errno);
		if (!mr) {
			if (!errno)
				fail("ibv_reg_mr failed without an errno");
			return;
		}
		if (len > dattr.max_mr_size)
			fail("ibv_reg_mr of %#llx bytes succeeded, max_mr_size %#llx",
			     (unsigned long long)len,
			     (unsigned long long)dattr.max_mr_size);
		mrs.push_back(std::unique_ptr<Mr>(new Mr{mr, p, access, iova}));
	}

	void rereg_mr()
	{
		Mr *m = rng.pick(mrs);
		Pd *p = rng.pick(pds);

		if (!m || !p)
			return;
		int flags = (int)rng.below(8);
		if (rng.pct(5))
			flags |= 1 << rng.below(31);
		uintptr_t addr = 0;
		uint64_t len = 0;
		if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
			if (rng.pct(80)) {
				uint64_t off = rng.below(kBufLen);

				addr = (uintptr_t)buf + off;
				len = 1 + rng.below(kBufLen - off);
			} else {
				addr = bad_addr();
				len = rng.pct(50) ? rng.below(1 << 20) : 1ull << 40;
			}
		}
		int access = (flags & IBV_REREG_MR_CHANGE_ACCESS) || rng.pct(5)
				     ? access_flags() : 0;
		at(V_REREG_MR);
		errno = 0;
		int rc = ibv_rereg_mr(m->mr, flags, p->pd, (void *)addr, len,
				      access);
		note(V_REREG_MR, rc ? (errno ? errno : EINVAL) : 0);
		if (!rc && (flags & IBV_REREG_MR_CHANGE_PD))
			m->pd = p;
		if (!rc && (flags & IBV_REREG_MR_CHANGE_ACCESS))
			m->access = access;
		if (!rc && (flags & IBV_REREG_MR_CHANGE_TRANSLATION))
			m->iova = false;
	}

	void dereg_mr(Mr *m)
	{
		at(V_DEREG_MR);
		int rc = ibv_dereg_mr(m->mr);
		note(V_DEREG_MR, rc);
		// A window bound to it makes it busy; binds complete
		// asynchronously, so any live window may be one.
		if (rc == EBUSY && !mws.empty())
			return;
		if (rc)
			fail("ibv_dereg_mr: %s (%zu windows)", errname(rc).c_str(),
			     mws.size());
		else
			erase(mrs, m);
	}

	void alloc_mw()
	{
		Pd *p = rng.pick(pds);

		if (!p || mws.size() >= 8)
			return;
		ibv_mw_type type = rng.pct(45) ? IBV_MW_TYPE_1 : rng.pct(90)
					? IBV_MW_TYPE_2 : (ibv_mw_type)rng.below(4);
		at(V_ALLOC_MW);
		errno = 0;
		ibv_mw *mw = ibv_alloc_mw(p->pd, type);
		note(V_ALLOC_MW, mw ? 0 : errno);
		if (mw)
			mws.push_back(std::unique_ptr<Mw>(new Mw{mw, p}));
	}

	ibv_mw_bind_info bind_info()
	{
		ibv_mw_bind_info bi{};
		Mr *m = rng.pct(85) ? rng.pick(mrs) : nullptr;

		bi.mr = m ? m->mr : nullptr;
		if (m && rng.pct(70)) {
			uint64_t off = rng.below(m->mr->length + 1);

			bi.addr = (uintptr_t)m->mr->addr + off;
			bi.length = rng.below(m->mr->length - off + 1);
		} else if (m || rng.pct(50)) {
			bi.addr = rng.pct(50) ? buf_addr(0) : rng.next();
			bi.length = rng.pct(50) ? rng.below(8192) : rng.next();
		}
		bi.mw_access_flags = rng.pct(80)
			? (unsigned)(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_REMOTE_ATOMIC) & rng.u32()
			: rng.u32();
		return bi;
	}

	// ibv_bind_mw: type 1 windows (libibverbs refuses others, and a
	// window and MR of different PDs, before the provider).
	void bind_mw()
	{
		Mw *w = rng.pick(mws);
		Qp *q = rng.pick(qps);

		if (!w || !q)
			return;
		ibv_mw_bind b{};
		b.wr_id = rng.next();
		b.send_flags = rng.pct(70) ? IBV_SEND_SIGNALED : 0;
		if (rng.pct(5))
			b.send_flags |= 1u << rng.below(32);
		b.bind_info = bind_info();
		at(V_BIND_MW);
		int rc = ibv_bind_mw(q->qp, w->mw, &b);
		note(V_BIND_MW, rc);
	}

	void dealloc_mw(Mw *w)
	{
		at(V_DEALLOC_MW);
		if (destroyed(V_DEALLOC_MW, ibv_dealloc_mw(w->mw), 0,
			      "ibv_dealloc_mw"))
			erase(mws, w);
	}

	// --- XRC domains ---------------------------------------------------------

	int xrcd_fd(XrcFile f) const
	{
		return f == XF_OWN ? own_xrcd_fd : f == XF_SHARED ? shared_xrcd_fd : -1;
	}

	// A handle of ours open on file @f's domain (the domain exists).
	bool xrcd_held(XrcFile f) const
	{
		for (auto &x : xrcds)
			if (x->file == f)
				return true;
		return false;
	}

	// On no file (a domain of its own), on this worker's file (no other
	// process has its domain: it exists exactly while a handle of ours is
	// open), on the shared file (other workers may hold its domain, or
	// not), or on a descriptor that is not open; random flags and masks.
	void open_xrcd()
	{
		if (xrcds.size() >= 4)
			return;
		ibv_xrcd_init_attr a{};
		XrcFile file = XF_NONE;
		bool badfd = false;
		unsigned k = (unsigned)rng.below(10);

		if (k >= 3 && k < 6)
			file = XF_OWN;
		else if (k >= 6 && k < 9)
			file = XF_SHARED;
		a.fd = xrcd_fd(file);
		if (a.fd < 0)
			file = XF_NONE;	// no file could be made: fd -1
		if (k == 9) {
			// Beyond any descriptor table (2^20 at most), or negative.
			a.fd = rng.pct(50) ? (1 << 21) + (int)rng.below(1000)
					   : -2 - (int)rng.below(100);
			badfd = true;
		}
		a.oflags = (rng.pct(75) ? O_CREAT : 0) | (rng.pct(15) ? O_EXCL : 0);
		if (rng.pct(5))
			a.oflags |= (int)rng.u32();
		a.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
		if (rng.pct(5))
			a.comp_mask = rng.pct(50) ? (uint32_t)rng.below(8) : rng.u32();
		bool mask_ok = a.comp_mask == (IBV_XRCD_INIT_ATTR_FD |
					       IBV_XRCD_INIT_ATTR_OFLAGS);
		bool creat = a.oflags & O_CREAT, excl = a.oflags & O_EXCL;
		bool held = file != XF_NONE && xrcd_held(file);

		// What ib_uverbs must answer (-1: it depends on other workers).
		int want;
		if (!mask_ok)
			want = EINVAL;	// or EOPNOTSUPP: some error
		else if (badfd)
			want = EBADF;
		else if (file == XF_NONE)
			want = 0;
		else if (held)
			want = excl ? EINVAL : 0;
		else if (file == XF_OWN)
			want = creat ? 0 : EAGAIN;
		else
			want = -1;
		trace("open_xrcd fd %d oflags %#x mask %#x (%s file)", a.fd,
		      a.oflags, a.comp_mask,
		      file == XF_OWN ? "own" : file == XF_SHARED ? "shared" : "no");
		at(V_OPEN_XRCD);
		errno = 0;
		ibv_xrcd *x = ibv_open_xrcd(ctx, &a);
		int err = x ? 0 : errno;
		note(V_OPEN_XRCD, err);
		if (!x && !err)
			fail("ibv_open_xrcd failed without an errno");
		else if (!mask_ok) {
			if (x)
				fail("ibv_open_xrcd with comp_mask %#x succeeded",
				     a.comp_mask);
		} else if (want >= 0 && err != want)
			fail("ibv_open_xrcd of fd %d (%s), oflags %#x%s: %s, expected %s",
			     a.fd, badfd ? "not open" : file == XF_NONE ? "none"
			     : file == XF_OWN ? "this worker's file" : "the shared file",
			     a.oflags, held ? ", its domain open here" : "",
			     err ? errname(err).c_str() : "success",
			     want ? errname(want).c_str() : "success");
		else if (want < 0 && err && !(err == EAGAIN && !creat) &&
			 !(err == EINVAL && excl))
			fail("ibv_open_xrcd of the shared file, oflags %#x: %s",
			     a.oflags, errname(err).c_str());
		if (!x)
			return;
		uint64_t domain = file != XF_NONE ? (uint64_t)file : next_domain++;
		xrcds.push_back(std::unique_ptr<Xrcd>(new Xrcd{x, file, domain}));
	}

	void close_xrcd(Xrcd *x)
	{
		at(V_CLOSE_XRCD);
		int busy = users(x);
		if (destroyed(V_CLOSE_XRCD, ibv_close_xrcd(x->x), busy,
			      "ibv_close_xrcd"))
			erase(xrcds, x);
	}

	// --- completion channels and CQs ----------------------------------------

	void create_channel()
	{
		if (chans.size() >= 2)
			return;
		at(V_CREATE_COMP_CHANNEL);
		errno = 0;
		ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
		note(V_CREATE_COMP_CHANNEL, ch ? 0 : errno);
		if (!ch) {
			fail("ibv_create_comp_channel: %s", errname(errno).c_str());
			return;
		}
		// ibv_get_cq_event must not block.
		fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
		chans.push_back(std::unique_ptr<Chan>(new Chan{ch}));
	}

	void destroy_channel(Chan *ch)
	{
		at(V_DESTROY_COMP_CHANNEL);
		int busy = users(ch);
		if (destroyed(V_DESTROY_COMP_CHANNEL,
			      ibv_destroy_comp_channel(ch->ch), busy,
			      "ibv_destroy_comp_channel"))
			erase(chans, ch);
	}

	int comp_vector()
	{
		return rng.pct(85) ? 0 : rng.pct(50) ? (int)rng.below(4)
						     : (int)rng.u32();
	}

	void create_cq(bool ex)
	{
		if (cqs.size() >= 8)
			return;
		Chan *ch = rng.pct(40) ? rng.pick(chans) : nullptr;
		uint32_t cqe = count(dattr.max_cqe);
		Verb v = ex ? V_CREATE_CQ_EX : V_CREATE_CQ;
		ibv_cq *cq = nullptr;
		ibv_cq_ex *cqx = nullptr;

		trace("create_cq%s cqe %u", ex ? "_ex" : "", cqe);
		at(v);
		errno = 0;
		if (ex) {
			ibv_cq_init_attr_ex a{};

			a.cqe = cqe;
			a.channel = ch ? ch->ch : nullptr;
			a.comp_vector = comp_vector();
			a.wc_flags = IBV_WC_STANDARD_FLAGS;
			if (rng.pct(50))
				a.wc_flags = rng.next() & ((1ull << 12) - 1);
			if (rng.pct(5))
				a.wc_flags = rng.next();
			if (rng.pct(30)) {
				// Never IBV_CQ_INIT_ATTR_MASK_PD: a parent domain.
				a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
				a.flags = rng.pct(80) ? (uint32_t)rng.below(4)
						      : rng.u32();
			}
			cqx = ibv_create_cq_ex(ctx, &a);
			if (cqx)
				cq = ibv_cq_ex_to_cq(cqx);
		} else {
			cq = ibv_create_cq(ctx, (int)cqe, nullptr,
					   ch ? ch->ch : nullptr, comp_vector());
		}
		note(v, cq ? 0 : errno);
		if (!cq) {
			if (!errno)
				fail("%s failed without an errno", kVerbName[v]);
			return;
		}
		if (cqe > (uint32_t)dattr.max_cqe)
			fail("%s with %u CQEs succeeded, max_cqe %d", kVerbName[v],
			     cqe, dattr.max_cqe);
		else if ((uint32_t)cq->cqe < cqe)
			fail("%s: asked for %u CQEs, granted %d", kVerbName[v],
			     cqe, cq->cqe);
		auto o = std::unique_ptr<Cq>(new Cq{cq, cqx, ch, new_rings()});
		cqs.push_back(std::move(o));
	}

	void resize_cq(Cq *cq)
	{
		uint32_t cqe = count(dattr.max_cqe);

		at(V_RESIZE_CQ);
		int rc = ibv_resize_cq(cq->cq, (int)cqe);
		note(V_RESIZE_CQ, rc);
		if (!rc && cqe > (uint32_t)dattr.max_cqe)
			fail("ibv_resize_cq to %u CQEs succeeded, max_cqe %d", cqe,
			     dattr.max_cqe);
		moved(cq->rings);
	}

	void destroy_cq(Cq *cq)
	{
		at(V_DESTROY_CQ);
		int busy = users(cq);
		if (destroyed(V_DESTROY_CQ, ibv_destroy_cq(cq->cq), busy,
			      "ibv_destroy_cq")) {
			forget(cq->rings);
			erase(cqs, cq);
		}
	}

	void count_wc(ibv_wc_status st, uint32_t qpn)
	{
		if (st != IBV_WC_SUCCESS) {
			c.wc_err++;
			return;
		}
		c.wc_ok++;
		// XRC_SEND completions, and XRC_RECV ones on XRC SRQs' CQs.
		for (auto &q : qps)
			if (q->qp->qp_num == qpn && is_xrc(q->type)) {
				c.wc_xrc++;
				break;
			}
	}

	// A CQ the provider may read: not one we scribbled over (a corrupt
	// producer index would have the provider walk up to 2^32 slots).
	Cq *pollable_cq()
	{
		std::vector<Cq *> ok;

		for (auto &cq : cqs)
			if (!cq->scribbled)
				ok.push_back(cq.get());
		return ok.empty() ? nullptr : ok[rng.below(ok.size())];
	}

	void poll_cq()
	{
		Cq *cq = pollable_cq();

		if (!cq)
			return;
		if (cq->cqx && rng.pct(40)) {
			ibv_poll_cq_attr pa{};

			if (rng.pct(5))
				pa.comp_mask = rng.u32() | 1;
			at(V_START_POLL);
			int rc = ibv_start_poll(cq->cqx, &pa);
			note(V_START_POLL, rc == ENOENT ? 0 : rc);
			if (rc)
				return;
			for (int n = 0; n < 32; n++) {
				volatile uint64_t sink = 0;

				count_wc(cq->cqx->status,
					 ibv_wc_read_qp_num(cq->cqx));
				sink += ibv_wc_read_opcode(cq->cqx);
				sink += ibv_wc_read_byte_len(cq->cqx);
				sink += ibv_wc_read_qp_num(cq->cqx);
				sink += ibv_wc_read_src_qp(cq->cqx);
				sink += ibv_wc_read_wc_flags(cq->cqx);
				sink += ibv_wc_read_imm_data(cq->cqx);
				sink += ibv_wc_read_completion_ts(cq->cqx);
				(void)sink;
				if (ibv_next_poll(cq->cqx))
					break;
			}
			ibv_end_poll(cq->cqx);
			return;
		}
		ibv_wc wc[32];
		int ne = rng.pct(5) ? (int)rng.below(3) - 1 : 1 + (int)rng.below(32);
		at(V_POLL_CQ);
		int n = ibv_poll_cq(cq->cq, ne, wc);
		note(V_POLL_CQ, n < 0 ? -n : 0);
		for (int i = 0; i < n && i < 32; i++)
			count_wc(wc[i].status, wc[i].qp_num);
		if (n > std::max(ne, 0))
			fail("ibv_poll_cq returned %d completions for %d", n, ne);
	}

	bool own_cq(ibv_cq *p, Chan *ch)
	{
		for (auto &cq : cqs)
			if (cq->cq == p)
				return cq->ch == ch;
		return false;
	}

	void cq_events(Chan *ch)
	{
		for (int i = 0; i < 8; i++) {
			ibv_cq *ev_cq = nullptr;
			void *ev_ctx = nullptr;

			at(V_GET_CQ_EVENT);
			errno = 0;
			int rc = ibv_get_cq_event(ch->ch, &ev_cq, &ev_ctx);
			if (rc && errno == EAGAIN) {
				note(V_GET_CQ_EVENT, 0);
				return;
			}
			note(V_GET_CQ_EVENT, rc ? errno : 0);
			if (rc)
				return;
			if (!own_cq(ev_cq, ch)) {
				fail("ibv_get_cq_event gave CQ %p, not one of this channel's",
				     (void *)ev_cq);
				fatal();
			}
			c.cq_events++;
			ibv_ack_cq_events(ev_cq, 1);
		}
	}

	void notify()
	{
		Cq *cq = rng.pick(cqs);

		if (cq) {
			at(V_REQ_NOTIFY_CQ);
			note(V_REQ_NOTIFY_CQ,
			     ibv_req_notify_cq(cq->cq, rng.pct(30)));
		}
		Chan *ch = rng.pick(chans);
		if (ch)
			cq_events(ch);
	}

	// Async events are acknowledged at once: destroying a QP, CQ or SRQ
	// waits for the acknowledgement of every event read for it.
	void async_events()
	{
		for (int i = 0; i < 8; i++) {
			ibv_async_event ev;

			at(V_GET_ASYNC_EVENT);
			errno = 0;
			int rc = ibv_get_async_event(ctx, &ev);
			if (rc && errno == EAGAIN) {
				note(V_GET_ASYNC_EVENT, 0);
				return;
			}
			note(V_GET_ASYNC_EVENT, rc ? errno : 0);
			if (rc)
				return;
			c.async_events++;
			trace("async event %d", ev.event_type);
			ibv_ack_async_event(&ev);
		}
	}

	// --- SRQ ---------------------------------------------------------------

	void create_srq()
	{
		Pd *p = rng.pick(pds);

		if (!p || srqs.size() >= 4)
			return;
		ibv_srq_init_attr a{};
		uint32_t wr = tame(count(dattr.max_srq_wr),
				   (uint32_t)dattr.max_srq_wr);
		uint32_t sge = count(dattr.max_srq_sge, 4);
		a.attr.max_wr = wr;
		a.attr.max_sge = sge;
		a.attr.srq_limit = rng.pct(70) ? (uint32_t)rng.below(wr + 1ull)
					       : rng.u32();
		at(V_CREATE_SRQ);
		errno = 0;
		ibv_srq *srq = ibv_create_srq(p->pd, &a);
		note(V_CREATE_SRQ, srq ? 0 : errno);
		if (!srq) {
			if (!errno)
				fail("ibv_create_srq failed without an errno");
			return;
		}
		if (wr > (uint32_t)dattr.max_srq_wr ||
		    sge > (uint32_t)dattr.max_srq_sge)
			fail("ibv_create_srq of %u WRs, %u SGEs succeeded (max %d, %d)",
			     wr, sge, dattr.max_srq_wr, dattr.max_srq_sge);
		else if (a.attr.max_wr < wr || a.attr.max_sge < sge)
			fail("ibv_create_srq: asked %u WRs %u SGEs, granted %u, %u",
			     wr, sge, a.attr.max_wr, a.attr.max_sge);
		auto s = std::unique_ptr<Srq>(new Srq{srq, p, a.attr.max_sge,
						      new_rings()});
		s->big = wr > 1024;
		srqs.push_back(std::move(s));
	}

	// Basic and XRC SRQs through ibv_create_srq_ex: random attributes,
	// masks, and PD, CQ and XRC domain (ours, or none).  libibverbs
	// passes a mask of PD and type BASIC on to ibv_create_srq, which
	// follows the PD pointer: never a NULL one there.
	void create_srq_ex()
	{
		if (srqs.size() >= 6)
			return;
		Pd *p = rng.pct(95) ? rng.pick(pds) : nullptr;
		Cq *cq = rng.pct(95) ? rng.pick(cqs) : nullptr;
		Xrcd *x = rng.pct(95) ? rng.pick(xrcds) : nullptr;
		bool xrc = rng.pct(75);
		ibv_srq_init_attr_ex a{};
		uint32_t wr = tame(count(dattr.max_srq_wr),
				   (uint32_t)dattr.max_srq_wr);
		uint32_t sge = count(dattr.max_srq_sge, 4);

		a.attr.max_wr = wr;
		a.attr.max_sge = sge;
		a.attr.srq_limit = rng.pct(70) ? (uint32_t)rng.below(wr + 1ull)
					       : rng.u32();
		a.srq_type = xrc ? IBV_SRQT_XRC : IBV_SRQT_BASIC;
		a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
		if (xrc || rng.pct(20))
			a.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
		if (!xrc && rng.pct(30))
			a.comp_mask &= ~(uint32_t)IBV_SRQ_INIT_ATTR_TYPE;
		if (rng.pct(10))
			a.comp_mask &= ~(1u << rng.below(4));
		if (rng.pct(4))
			a.comp_mask |= 1u << rng.below(32);	// TM and beyond
		if (rng.pct(3))
			set_raw(a.srq_type, rng.pct(50) ? (uint32_t)IBV_SRQT_TM
							: (uint32_t)rng.below(256));
		a.pd = p ? p->pd : nullptr;
		a.cq = cq ? cq->cq : nullptr;
		a.xrcd = x ? x->x : nullptr;
		uint32_t mask = a.comp_mask, type = get_raw(a.srq_type);
		bool typed = mask & IBV_SRQ_INIT_ATTR_TYPE;
		bool basic = !typed || type == IBV_SRQT_BASIC;
		if (!(mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE)) &&
		    (mask & IBV_SRQ_INIT_ATTR_PD) && basic && !p)
			return;
		bool is_xrc = typed && type == IBV_SRQT_XRC;
		// Refused whatever the sizes: a mask or type not offered, a PD,
		// CQ or domain missing.
		bool bad = (mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_TYPE |
					       IBV_SRQ_INIT_ATTR_PD |
					       IBV_SRQ_INIT_ATTR_XRCD |
					       IBV_SRQ_INIT_ATTR_CQ)) ||
			   (!basic && !is_xrc) || !(mask & IBV_SRQ_INIT_ATTR_PD) ||
			   !p || ((mask & IBV_SRQ_INIT_ATTR_CQ) && !cq) ||
			   (is_xrc && (!(mask & IBV_SRQ_INIT_ATTR_XRCD) || !x ||
				       !(mask & IBV_SRQ_INIT_ATTR_CQ)));

		trace("create_srq_ex type %u mask %#x wr %u sge %u", type, mask,
		      wr, sge);
		at(V_CREATE_SRQ_EX);
		errno = 0;
		ibv_srq *srq = ibv_create_srq_ex(ctx, &a);
		note(V_CREATE_SRQ_EX, srq ? 0 : errno);
		if (!srq) {
			if (!errno)
				fail("ibv_create_srq_ex failed without an errno");
			return;
		}
		if (bad)
			fail("ibv_create_srq_ex of type %u, mask %#x, PD %p, CQ %p, domain %p succeeded",
			     type, mask, (void *)p, (void *)cq, (void *)x);
		else if (wr > (uint32_t)dattr.max_srq_wr ||
			 sge > (uint32_t)dattr.max_srq_sge)
			fail("ibv_create_srq_ex of %u WRs, %u SGEs succeeded (max %d, %d)",
			     wr, sge, dattr.max_srq_wr, dattr.max_srq_sge);
		else if (a.attr.max_wr < wr || a.attr.max_sge < sge)
			fail("ibv_create_srq_ex: asked %u WRs %u SGEs, granted %u, %u",
			     wr, sge, a.attr.max_wr, a.attr.max_sge);
		auto s = std::unique_ptr<Srq>(new Srq{srq, p, a.attr.max_sge,
						      new_rings()});
		s->big = wr > 1024;
		if (is_xrc) {
			s->xrc = true;
			s->xrcd = x;
			s->cq = cq;
			uint32_t n = 0;

			at(V_GET_SRQ_NUM);
			int rc = ibv_get_srq_num(srq, &n);
			note(V_GET_SRQ_NUM, rc);
			if (rc)
				fail("ibv_get_srq_num of a new XRC SRQ: %s",
				     errname(rc).c_str());
			else if (n > kXrcSrqnMax)
				fail("XRC SRQ number %#x: above 24 bits", n);
			for (auto &o : srqs)
				if (!rc && o->xrc && o->srqn == n)
					fail("XRC SRQ number %#x given twice", n);
			s->srqn = n;
		}
		srqs.push_back(std::move(s));
	}

	// libwookie(7): an XRC SRQ's number, EINVAL on a basic SRQ.
	void get_srq_num(Srq *s)
	{
		uint32_t n = 0;

		at(V_GET_SRQ_NUM);
		int rc = ibv_get_srq_num(s->srq, &n);
		note(V_GET_SRQ_NUM, rc);
		if (!s->xrc && rc != EINVAL)
			fail("ibv_get_srq_num of a basic SRQ: %s, expected EINVAL",
			     rc ? errname(rc).c_str() : "success");
		else if (s->xrc && rc)
			fail("ibv_get_srq_num of an XRC SRQ: %s", errname(rc).c_str());
		else if (s->xrc && n != s->srqn)
			fail("ibv_get_srq_num: %#x, %#x when the XRC SRQ was created",
			     n, s->srqn);
	}

	void modify_srq(Srq *s)
	{
		ibv_srq_attr a{};
		int mask = (int)rng.below(4);

		if (rng.pct(5))
			mask |= 1 << rng.below(31);
		a.max_wr = tame(count(dattr.max_srq_wr),
				(uint32_t)dattr.max_srq_wr);
		a.srq_limit = rng.pct(70) ? (uint32_t)rng.below(64) : rng.u32();
		at(V_MODIFY_SRQ);
		int rc = ibv_modify_srq(s->srq, &a, mask);
		note(V_MODIFY_SRQ, rc);
		if (!rc && (mask & IBV_SRQ_MAX_WR) &&
		    a.max_wr > (uint32_t)dattr.max_srq_wr)
			fail("ibv_modify_srq to %u WRs succeeded, max_srq_wr %d",
			     a.max_wr, dattr.max_srq_wr);
		if (mask & IBV_SRQ_MAX_WR)
			moved(s->rings);
		if (!rc && (mask & IBV_SRQ_MAX_WR))
			s->big = a.max_wr > 1024;
	}

	void query_srq(Srq *s)
	{
		ibv_srq_attr a{};

		at(V_QUERY_SRQ);
		note(V_QUERY_SRQ, ibv_query_srq(s->srq, &a));
	}

	void destroy_srq(Srq *s)
	{
		at(V_DESTROY_SRQ);
		int busy = users(s);
		if (destroyed(V_DESTROY_SRQ, ibv_destroy_srq(s->srq), busy,
			      "ibv_destroy_srq")) {
			forget(s->rings);
			erase(srqs, s);
		}
	}

	// --- QP ------------------------------------------------------------------

	ibv_qp_type qp_type()
	{
		static const ibv_qp_type types[] = {IBV_QPT_RC, IBV_QPT_UC,
						    IBV_QPT_UD};

		if (rng.pct(4))
			return rng.pct(50) ? IBV_QPT_XRC_SEND : (ibv_qp_type)rng.below(256);
		return types[rng.below(3)];
	}

	ibv_qp_cap qp_cap()
	{
		ibv_qp_cap cap{};
		uint32_t wr = (uint32_t)dattr.max_qp_wr;
		uint32_t sge = (uint32_t)dattr.max_sge;

		cap.max_send_wr = tame(count(wr, 32), wr);
		cap.max_recv_wr = tame(count(wr, 32), wr);
		cap.max_send_sge = count(sge, 4);
		cap.max_recv_sge = count(sge, 4);
		static const uint32_t inl[] = {0, 0, 16, 64, 100, 256, 511, 512,
					       513, 4096, 0xffffffffu};
		cap.max_inline_data = rng.pct(90) ? inl[rng.below(11)] : rng.u32();
		return cap;
	}

	// Checks of a create_qp result: limits enforced, caps granted.
	void check_qp_caps(Verb v, const ibv_qp_cap &want, const ibv_qp_cap &got,
			   bool srq)
	{
		uint32_t wr = (uint32_t)dattr.max_qp_wr, sge = (uint32_t)dattr.max_sge;

		if (want.max_send_wr > wr || want.max_send_sge > sge ||
		    (!srq && (want.max_recv_wr > wr || want.max_recv_sge > sge)))
			fail("%s beyond the device limits succeeded: send %u x %u, recv %u x %u (max %u x %u)",
			     kVerbName[v], want.max_send_wr, want.max_send_sge,
			     want.max_recv_wr, want.max_recv_sge, wr, sge);
		else if (got.max_send_wr < want.max_send_wr ||
			 got.max_send_sge < want.max_send_sge ||
			 got.max_inline_data < want.max_inline_data ||
			 (!srq && (got.max_recv_wr < want.max_recv_wr ||
				   got.max_recv_sge < want.max_recv_sge)))
			fail("%s granted less than asked: send %u x %u inline %u, recv %u x %u "
			     "for send %u x %u inline %u, recv %u x %u",
			     kVerbName[v], got.max_send_wr, got.max_send_sge,
			     got.max_inline_data, got.max_recv_wr,
			     got.max_recv_sge, want.max_send_wr,
			     want.max_send_sge, want.max_inline_data,
			     want.max_recv_wr, want.max_recv_sge);
	}

	static bool big_qp(const ibv_qp_cap &cap)
	{
		return cap.max_send_wr > 1024 || cap.max_recv_wr > 1024;
	}

	void create_qp(bool ex)
	{
		Pd *p = rng.pick(pds);
		Cq *scq = rng.pick(cqs), *rcq = rng.pct(70) ? scq : rng.pick(cqs);
		Srq *srq = rng.pct(25) ? rng.pick(srqs) : nullptr;

		if (!p || !scq || !rcq || qps.size() >= 12)
			return;
		ibv_qp_type type = qp_type();
		ibv_qp_cap want = qp_cap();
		int sig_all = rng.pct(20);
		Verb v = ex ? V_CREATE_QP_EX : V_CREATE_QP;
		ibv_qp *qp;
		ibv_qp_cap got;
		uint64_t send_ops = 0;

		trace("create_qp%s type %d send %u x %u inline %u recv %u x %u srq %d",
		      ex ? "_ex" : "", type, want.max_send_wr, want.max_send_sge,
		      want.max_inline_data, want.max_recv_wr, want.max_recv_sge,
		      srq != nullptr);
		at(v);
		errno = 0;
		if (ex) {
			ibv_qp_init_attr_ex a{};

			a.send_cq = scq->cq;
			a.recv_cq = rcq->cq;
			a.srq = srq ? srq->srq : nullptr;
			a.cap = want;
			a.qp_type = type;
			a.sq_sig_all = sig_all;
			a.pd = p->pd;
			a.comp_mask = IBV_QP_INIT_ATTR_PD;
			if (rng.pct(85)) {
				a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
				// What the provider has for each type
				// (IBV_QP_EX_WITH_*), or any of the ten.
				uint64_t sup = type == IBV_QPT_RC ||
					       type == IBV_QPT_XRC_SEND ? kRcOps
					     : type == IBV_QPT_UC ? 0x18f : 0xc;
				a.send_ops_flags = rng.next() &
					(rng.pct(80) ? sup : (1ull << 10) - 1);
				if (rng.pct(5))
					a.send_ops_flags |= 1ull << rng.below(64);
			}
			if (rng.pct(5)) {
				a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
				a.create_flags = rng.u32();
			}
			qp = ibv_create_qp_ex(ctx, &a);
			got = a.cap;
			if (qp && (a.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
				send_ops = a.send_ops_flags;
		} else {
			ibv_qp_init_attr a{};

			a.send_cq = scq->cq;
			a.recv_cq = rcq->cq;
			a.srq = srq ? srq->srq : nullptr;
			a.cap = want;
			a.qp_type = type;
			a.sq_sig_all = sig_all;
			qp = ibv_create_qp(p->pd, &a);
			got = a.cap;
		}
		note(v, qp ? 0 : errno);
		if (!qp) {
			if (!errno)
				fail("%s failed without an errno", kVerbName[v]);
			return;
		}
		// ib_core: an XRC SRQ is for XRC_RECV QPs only.
		if (srq && srq->xrc && type != IBV_QPT_XRC_SEND &&
		    type != IBV_QPT_XRC_RECV)
			fail("%s of type %u on an XRC SRQ succeeded", kVerbName[v],
			     get_raw(type));
		check_qp_caps(v, want, got, srq != nullptr ||
					  type == IBV_QPT_XRC_SEND);
		keep_qp(qp, type, p, scq, rcq, srq, nullptr, got, send_ops);
	}

	// A new QP, with what the kernel holds for it: an XRC_SEND QP its PD
	// and send CQ only (ib_core drops its receive CQ, and its SRQ if it
	// does not refuse one), an XRC_RECV QP (or any opened one) its
	// domain handle only.
	void keep_qp(ibv_qp *qp, ibv_qp_type type, Pd *p, Cq *scq, Cq *rcq,
		     Srq *srq, Xrcd *x, const ibv_qp_cap &got, uint64_t send_ops,
		     bool opened = false)
	{
		if (type == IBV_QPT_XRC_SEND) {
			rcq = nullptr;
			srq = nullptr;
			x = nullptr;
		} else if (type == IBV_QPT_XRC_RECV || opened) {
			p = nullptr;
			scq = rcq = nullptr;
			srq = nullptr;
		} else {
			x = nullptr;
		}
		auto q = std::unique_ptr<Qp>(new Qp{qp, p, scq, rcq, srq, type, got,
						    send_ops, new_rings(), {}});
		q->big = big_qp(got);
		q->xrcd = x;
		q->opened = opened;
		qps.push_back(std::move(q));
	}

	static bool is_xrc(ibv_qp_type t)
	{
		return t == IBV_QPT_XRC_SEND || t == IBV_QPT_XRC_RECV;
	}

	// An XRC QP: XRC_SEND through ibv_create_qp_ex or ibv_create_qp
	// (a PD and a send CQ; the receive CQ, SRQ and receive caps are
	// ignored), or XRC_RECV through ibv_create_qp_ex (an XRC domain;
	// no PD, CQ, queue or send ops).  Random masks, pointers of ours or
	// none: refusals where a PD, CQ or domain is missing.  ibv_create_qp_ex
	// passes a mask of the PD alone to ibv_create_qp, which follows the
	// PD pointer: never a NULL one there.
	void create_xrc_qp()
	{
		if (qps.size() >= 12)
			return;
		unsigned how = (unsigned)rng.below(10);
		Pd *p = rng.pct(95) ? rng.pick(pds) : nullptr;
		Cq *scq = rng.pct(95) ? rng.pick(cqs) : nullptr;
		Cq *rcq = rng.pct(50) ? rng.pick(cqs) : nullptr;
		Srq *srq = rng.pct(how < 6 ? 5 : 10) ? rng.pick(srqs) : nullptr;
		Xrcd *x = rng.pct(how < 6 ? 10 : 95) ? rng.pick(xrcds) : nullptr;
		ibv_qp_cap want = how >= 6 && rng.pct(60) ? ibv_qp_cap{} : qp_cap();
		ibv_qp_type type = how < 6 ? IBV_QPT_XRC_SEND : IBV_QPT_XRC_RECV;
		int sig_all = rng.pct(20);
		Verb v = how < 6 && how >= 4 ? V_CREATE_QP : V_CREATE_QP_EX;
		ibv_qp_cap got{};
		uint64_t send_ops = 0;
		// A refusal is due (true), or success is (the XRC_RECV QPs
		// of an open domain with nothing else asked).
		bool bad, good = false;
		ibv_qp *qp;

		if (how >= 4 && how < 6) {
			ibv_qp_init_attr a{};

			if (!p)
				return;
			a.send_cq = scq ? scq->cq : nullptr;
			a.recv_cq = rcq ? rcq->cq : nullptr;
			a.srq = srq ? srq->srq : nullptr;
			a.cap = want;
			a.qp_type = type;
			a.sq_sig_all = sig_all;
			bad = !scq;
			trace("create_qp XRC_SEND send %u x %u inline %u, send CQ %d",
			      want.max_send_wr, want.max_send_sge,
			      want.max_inline_data, scq != nullptr);
			at(v);
			errno = 0;
			qp = ibv_create_qp(p->pd, &a);
			got = a.cap;
		} else {
			ibv_qp_init_attr_ex a{};
			bool recv = type == IBV_QPT_XRC_RECV;

			a.qp_type = type;
			a.send_cq = scq && (!recv || rng.pct(20)) ? scq->cq : nullptr;
			a.recv_cq = rcq ? rcq->cq : nullptr;
			a.srq = srq ? srq->srq : nullptr;
			a.cap = want;
			a.sq_sig_all = sig_all;
			if (recv) {
				a.comp_mask = rng.pct(95) ? IBV_QP_INIT_ATTR_XRCD : 0;
				if (rng.pct(20))
					a.comp_mask |= IBV_QP_INIT_ATTR_PD;
			} else {
				a.comp_mask = rng.pct(95) ? IBV_QP_INIT_ATTR_PD : 0;
				if (x)
					a.comp_mask |= IBV_QP_INIT_ATTR_XRCD;
			}
			a.pd = p && (!recv || rng.pct(50)) ? p->pd : nullptr;
			a.xrcd = x ? x->x : nullptr;
			if (rng.pct(recv ? 5 : 70)) {
				a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
				a.send_ops_flags = rng.next() & (rng.pct(85) ? 0x3ff : 0x7ff);
				if (rng.pct(5))
					a.send_ops_flags |= 1ull << rng.below(64);
			}
			if (rng.pct(5)) {
				a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
				a.create_flags = rng.pct(50) ? 0 : rng.u32();
			}
			if (a.comp_mask == IBV_QP_INIT_ATTR_PD && !a.pd)
				return;
			bool flags = (a.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
				     a.create_flags;
			bool ops = a.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
			if (recv) {
				bad = !(a.comp_mask & IBV_QP_INIT_ATTR_XRCD) || !x ||
				      ops || flags;
				good = !bad && !srq &&
				       !(a.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS);
			} else {
				bad = !(a.comp_mask & IBV_QP_INIT_ATTR_PD) || !a.pd ||
				      !scq || flags ||
				      (ops && (a.send_ops_flags & ~kRcOps));
			}
			trace("create_qp_ex %s mask %#x send %u x %u inline %u, ops %#llx",
			      recv ? "XRC_RECV" : "XRC_SEND", a.comp_mask,
			      want.max_send_wr, want.max_send_sge,
			      want.max_inline_data,
			      (unsigned long long)a.send_ops_flags);
			at(v);
			errno = 0;
			qp = ibv_create_qp_ex(ctx, &a);
			got = a.cap;
			if (qp && ops)
				send_ops = a.send_ops_flags;
		}
		int err = qp ? 0 : errno;
		note(v, err);
		if (!qp && !err)
			fail("%s failed without an errno", kVerbName[v]);
		else if (!qp && good)
			fail("%s of an XRC_RECV QP in an open domain: %s",
			     kVerbName[v], errname(err).c_str());
		else if (qp && bad)
			fail("%s of an XRC_%s QP without %s succeeded", kVerbName[v],
			     type == IBV_QPT_XRC_SEND ? "SEND" : "RECV",
			     type == IBV_QPT_XRC_SEND
				     ? "a PD and send CQ, or with flags or send ops it has not"
				     : "a domain, or with flags or send ops");
		if (!qp)
			return;
		// An XRC_RECV QP has no queue: what it was asked is ignored.
		if (type == IBV_QPT_XRC_SEND)
			check_qp_caps(v, want, got, true);
		keep_qp(qp, type, p, scq, rcq, srq, x, got, send_ops);
		if (type == IBV_QPT_XRC_RECV && x && x->file == XF_SHARED)
			shm->xrc_tgt[rng.below(kXrcShared)].store(qp->qp_num);
	}

	// ibv_open_qp: numbers of this worker's XRC_RECV QPs (in the
	// handle's domain: success is due; in another: a refusal), of its
	// other QPs (a refusal), other workers' in the shared domain, or
	// random; random masks and types.
	void open_qp()
	{
		if (qps.size() >= 12)
			return;
		std::vector<Qp *> tgt, other;
		for (auto &q : qps)
			(q->type == IBV_QPT_XRC_RECV ? tgt : other).push_back(q.get());
		ibv_qp_open_attr a{};
		Qp *mine = nullptr;
		unsigned k = (unsigned)rng.below(20);

		if (k < 10 && !tgt.empty())
			mine = tgt[rng.below(tgt.size())];
		else if (k < 13 && !other.empty())
			mine = other[rng.below(other.size())];
		// A handle: mostly one on the target's domain, if ours.
		Xrcd *x = rng.pct(95) ? rng.pick(xrcds) : nullptr;
		if (x && mine && mine->type == IBV_QPT_XRC_RECV && mine->xrcd &&
		    rng.pct(70)) {
			std::vector<Xrcd *> same;

			for (auto &h : xrcds)
				if (h->domain == mine->xrcd->domain)
					same.push_back(h.get());
			x = same[rng.below(same.size())];
		}
		if (mine)
			a.qp_num = mine->qp->qp_num;
		else if (k < 16)
			a.qp_num = shm->xrc_tgt[rng.below(kXrcShared)].load();
		else
			a.qp_num = rng.pct(50) ? (uint32_t)rng.below(0x400) : rng.u32();
		a.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			      IBV_QP_OPEN_ATTR_TYPE;
		if (rng.pct(50))
			a.comp_mask |= IBV_QP_OPEN_ATTR_CONTEXT;
		if (rng.pct(10))
			a.comp_mask = (uint32_t)rng.below(32);
		a.xrcd = x ? x->x : nullptr;
		a.qp_type = IBV_QPT_XRC_RECV;
		if (rng.pct(10))
			set_raw(a.qp_type, rng.pct(50) ? (uint32_t)IBV_QPT_XRC_SEND
							: (uint32_t)rng.below(256));
		a.qp_context = this;
		uint32_t need = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
				IBV_QP_OPEN_ATTR_TYPE;
		bool valid = (a.comp_mask & need) == need &&
			     a.comp_mask < IBV_QP_OPEN_ATTR_RESERVED && x &&
			     a.qp_type == IBV_QPT_XRC_RECV;
		// QP numbers are unique on the device: a live QP of ours that
		// is not a target in the handle's domain is in no domain's.
		bool same = mine && mine->type == IBV_QPT_XRC_RECV && x &&
			    mine->xrcd && mine->xrcd->domain == x->domain;
		bool good = valid && same, bad = !valid || (mine && !same);

		trace("open_qp %u mask %#x type %u", a.qp_num, a.comp_mask,
		      get_raw(a.qp_type));
		at(V_OPEN_QP);
		errno = 0;
		ibv_qp *qp = ibv_open_qp(ctx, &a);
		int err = qp ? 0 : errno;
		note(V_OPEN_QP, err);
		if (!qp && !err)
			fail("ibv_open_qp failed without an errno");
		else if (!qp && good)
			fail("ibv_open_qp of XRC_RECV QP %u in the handle's domain: %s",
			     a.qp_num, errname(err).c_str());
		else if (qp && bad)
			fail("ibv_open_qp of QP %u (mask %#x, type %u, %s) succeeded",
			     a.qp_num, a.comp_mask, get_raw(a.qp_type),
			     !valid ? "the mask, type or domain missing"
			     : mine->type == IBV_QPT_XRC_RECV
				     ? "an XRC_RECV QP of another domain"
				     : "not an XRC_RECV QP");
		if (!qp)
			return;
		keep_qp(qp, qp->qp_type, nullptr, nullptr, nullptr, nullptr, x,
			ibv_qp_cap{}, 0, true);
	}

	int modify(Qp *q, ibv_qp_attr &a, int mask)
	{
		if (scribbled && (mask & IBV_QP_STATE) &&
		    get_raw(a.qp_state) == IBV_QPS_RESET)
			a.qp_state = IBV_QPS_ERR;
		at(V_MODIFY_QP);
		int rc = ibv_modify_qp(q->qp, &a, mask);
		note(V_MODIFY_QP, rc);
		trace("modify_qp %u mask %#x state %u: %d", q->qp->qp_num, mask,
		      get_raw(a.qp_state), rc);
		if (!rc && (mask & IBV_QP_DEST_QPN))
			q->dest = a.dest_qp_num;
		return rc;
	}

	void set_av(ibv_ah_attr &ah, const ibv_gid &dgid)
	{
		ah = {};
		ah.is_global = 1;
		ah.grh.dgid = dgid;
		ah.grh.sgid_index = (uint8_t)v4_index;
		ah.grh.hop_limit = 64;
		ah.port_num = 1;
	}

	uint32_t dest_qpn()
	{
		Qp *peer = rng.pick(qps);

		if (peer && rng.pct(70))
			return peer->qp->qp_num;
		return rng.pct(50) ? (uint32_t)rng.below(0x400)
				   : rng.pct(50) ? 0xffffff : rng.u32();
	}

	// The other half of XRC: the QPs of ours of type @t.
	std::vector<Qp *> of_type(ibv_qp_type t)
	{
		std::vector<Qp *> v;

		for (auto &q : qps)
			if (q->type == t)
				v.push_back(q.get());
		return v;
	}

	// A destination for @q: for an XRC QP mostly one of the other half.
	uint32_t dest_qpn(Qp *q)
	{
		if (!is_xrc(q->type) || rng.pct(30))
			return dest_qpn();
		auto peers = of_type(q->type == IBV_QPT_XRC_SEND ? IBV_QPT_XRC_RECV
							      : IBV_QPT_XRC_SEND);
		return peers.empty() ? dest_qpn()
				     : peers[rng.below(peers.size())]->qp->qp_num;
	}

	// ib_core's masks per QP type (qp_state_table): XRC_SEND as RC but
	// without MAX_DEST_RD_ATOMIC and MIN_RNR_TIMER into RTR, XRC_RECV as
	// RC but with only TIMEOUT and SQ_PSN into RTS.  Now and then RC's
	// masks for both: uverbs drops the bits a type ignores.
	struct Masks {
		bool rc;	// RC, XRC_SEND, XRC_RECV: reliable
		bool responder;	// MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER into RTR
		bool requester;	// RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC into RTS
	};
	Masks masks(Qp *q)
	{
		bool exact = rng.pct(75);
		Masks m;

		m.rc = q->type == IBV_QPT_RC || is_xrc(q->type);
		m.responder = m.rc && !(q->type == IBV_QPT_XRC_SEND && exact);
		m.requester = m.rc && !(q->type == IBV_QPT_XRC_RECV && exact);
		return m;
	}

	// The attributes of the usual next transition from @from.
	void next_transition(Qp *q, ibv_qp_attr &a, int &mask)
	{
		bool ud = q->type == IBV_QPT_UD;
		Masks m = masks(q);
		bool rc = m.rc;

		a = {};
		switch (q->qp->state) {
		case IBV_QPS_RESET:
			a.qp_state = IBV_QPS_INIT;
			a.port_num = 1;
			a.pkey_index = 0;
			mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
			if (ud) {
				a.qkey = kQkey;
				mask |= IBV_QP_QKEY;
			} else {
				a.qp_access_flags = rng.u32() & 0xf;
				mask |= IBV_QP_ACCESS_FLAGS;
			}
			break;
		case IBV_QPS_INIT:
			a.qp_state = IBV_QPS_RTR;
			mask = IBV_QP_STATE;
			if (ud)
				break;
			a.path_mtu = (ibv_mtu)(1 + rng.below(5));
			a.dest_qp_num = dest_qpn(q);
			a.rq_psn = rng.u32() & 0xffffff;
			set_av(a.ah_attr, rng.pct(85) ? v4_gid : any_gid());
			mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN;
			if (m.responder) {
				a.max_dest_rd_atomic = (uint8_t)rng.below(17);
				a.min_rnr_timer = (uint8_t)rng.below(32);
				mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
					IBV_QP_MIN_RNR_TIMER;
			}
			break;
		case IBV_QPS_RTR:
		case IBV_QPS_SQD:
		case IBV_QPS_SQE:
			a.qp_state = IBV_QPS_RTS;
			mask = IBV_QP_STATE;
			if (q->qp->state != IBV_QPS_RTR)
				break;
			a.sq_psn = rng.u32() & 0xffffff;
			mask |= IBV_QP_SQ_PSN;
			if (rc) {
				a.timeout = (uint8_t)(rng.pct(80) ? 10 + rng.below(6)
								 : rng.below(32));
				mask |= IBV_QP_TIMEOUT;
			}
			if (m.requester) {
				a.retry_cnt = (uint8_t)rng.below(8);
				a.rnr_retry = (uint8_t)rng.below(8);
				a.max_rd_atomic = (uint8_t)rng.below(17);
				mask |= IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					IBV_QP_MAX_QP_RD_ATOMIC;
			}
			break;
		case IBV_QPS_RTS:
			if (rng.pct(30)) {
				a.qp_state = IBV_QPS_SQD;
				mask = IBV_QP_STATE;
			} else {
				a.qp_state = IBV_QPS_RTS;
				mask = IBV_QP_STATE;
				if (rc && rng.pct(50)) {
					a.min_rnr_timer = (uint8_t)rng.below(32);
					a.timeout = (uint8_t)rng.below(20);
					mask |= IBV_QP_MIN_RNR_TIMER |
						IBV_QP_TIMEOUT;
				}
			}
			break;
		default:
			a.qp_state = IBV_QPS_RESET;
			mask = IBV_QP_STATE;
			break;
		}
		// Perturbed: a mask bit flipped, a field off its range.
		if (rng.pct(15))
			mask ^= 1 << rng.below(21);
		if (rng.pct(10)) {
			switch (rng.below(8)) {
			case 0: a.path_mtu = (ibv_mtu)rng.below(8); break;
			case 1: a.port_num = (uint8_t)rng.next(); break;
			case 2: a.pkey_index = (uint16_t)rng.next(); break;
			case 3: a.max_rd_atomic = (uint8_t)rng.next(); break;
			case 4: a.max_dest_rd_atomic = (uint8_t)rng.next(); break;
			case 5: a.ah_attr.grh.sgid_index = (uint8_t)rng.next(); break;
			case 6: a.dest_qp_num = rng.u32(); break;
			default: a.qp_access_flags = rng.u32(); break;
			}
		}
	}

	void modify_qp(Qp *q)
	{
		ibv_qp_attr a{};
		int mask;
		unsigned mode = (unsigned)rng.below(10);

		if (mode < 5) {
			next_transition(q, a, mask);
		} else if (mode < 7) {
			static const ibv_qp_state st[] = {
				IBV_QPS_RESET, IBV_QPS_ERR, IBV_QPS_SQD,
				IBV_QPS_SQE, IBV_QPS_RTS, IBV_QPS_INIT,
				IBV_QPS_RTR};
			if (rng.pct(90))
				a.qp_state = st[rng.below(7)];
			else
				set_raw(a.qp_state, (uint32_t)rng.below(256));
			mask = IBV_QP_STATE;
			if (rng.pct(20)) {
				a.cur_qp_state = (ibv_qp_state)rng.below(8);
				mask |= IBV_QP_CUR_STATE;
			}
		} else {
			// Every byte random (the structure holds no pointer),
			// GIDs kept away from the checker.
			uint8_t *p = (uint8_t *)&a;
			for (size_t i = 0; i < sizeof(a); i++)
				p[i] = (uint8_t)rng.next();
			sanitize(a.ah_attr.grh.dgid);
			sanitize(a.alt_ah_attr.grh.dgid);
			mask = (int)(rng.u32() & ((1u << 21) - 1));
			if (rng.pct(10))
				mask = (int)rng.u32();
		}
		modify(q, a, mask);
	}

	// Bring @q to RTS aimed at @dest (RC, UC) or with the worker's Q_Key
	// (UD): the path to traffic that succeeds.
	void bring_up(Qp *q, uint32_t dest, const ibv_gid &dgid)
	{
		ibv_qp_attr a{};
		bool ud = q->type == IBV_QPT_UD;
		Masks m = masks(q);
		bool rc = m.rc;

		a.qp_state = IBV_QPS_RESET;
		if (modify(q, a, IBV_QP_STATE))
			return;
		a = {};
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		if (ud) {
			a.qkey = kQkey;
			if (modify(q, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					 IBV_QP_PORT | IBV_QP_QKEY))
				return;
		} else {
			a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_READ |
					    IBV_ACCESS_REMOTE_ATOMIC;
			if (modify(q, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					 IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
				return;
		}
		a = {};
		a.qp_state = IBV_QPS_RTR;
		int mask = IBV_QP_STATE;
		if (!ud) {
			a.path_mtu = (ibv_mtu)(1 + rng.below(5));
			a.dest_qp_num = dest;
			set_av(a.ah_attr, dgid);
			mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN;
			if (m.responder) {
				a.max_dest_rd_atomic = 4;
				a.min_rnr_timer = 1;
				mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
					IBV_QP_MIN_RNR_TIMER;
			}
		}
		if (modify(q, a, mask))
			return;
		a = {};
		a.qp_state = IBV_QPS_RTS;
		mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		if (rc) {
			a.timeout = 12;
			mask |= IBV_QP_TIMEOUT;
		}
		if (m.requester) {
			a.retry_cnt = (uint8_t)rng.below(8);
			a.rnr_retry = (uint8_t)rng.below(8);
			a.max_rd_atomic = 4;
			mask |= IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				IBV_QP_MAX_QP_RD_ATOMIC;
		}
		modify(q, a, mask);
	}

	void connect()
	{
		Qp *q1 = rng.pick(qps);

		if (!q1)
			return;
		if (q1->type != IBV_QPT_RC && q1->type != IBV_QPT_UC &&
		    !is_xrc(q1->type)) {
			bring_up(q1, 0, v4_gid);
			return;
		}
		// A peer of the same type, maybe itself; an XRC QP's other half
		// (XRC_SEND to XRC_RECV: the target's XRC SRQs take the data).
		std::vector<Qp *> peers = of_type(
			!is_xrc(q1->type) ? q1->type
			: q1->type == IBV_QPT_XRC_SEND ? IBV_QPT_XRC_RECV
						       : IBV_QPT_XRC_SEND);
		if (peers.empty()) {
			bring_up(q1, dest_qpn(), v4_gid);
			return;
		}
		Qp *q2 = peers[rng.below(peers.size())];
		ibv_gid g = rng.pct(85) ? v4_gid
			  : own_gids.empty() ? v4_gid
			  : own_gids[rng.below(own_gids.size())];
		bring_up(q1, q2->qp->qp_num, g);
		if (q2 != q1)
			bring_up(q2, q1->qp->qp_num, g);
	}

	void query_qp(Qp *q)
	{
		ibv_qp_attr a;
		ibv_qp_init_attr ia;
		int mask = rng.pct(80) ? (int)(rng.u32() & ((1u << 21) - 1))
				       : (int)rng.u32();

		at(V_QUERY_QP);
		note(V_QUERY_QP, ibv_query_qp(q->qp, &a, mask, &ia));
	}

	void destroy_qp(Qp *q)
	{
		at(V_DESTROY_QP);
		int busy = users(q);
		if (destroyed(V_DESTROY_QP, ibv_destroy_qp(q->qp), busy,
			      "ibv_destroy_qp")) {
			forget(q->rings);
			erase(qps, q);
		}
	}

	// --- AH, multicast -------------------------------------------------------

	void create_ah()
	{
		Pd *p = rng.pick(pds);

		if (!p || ahs.size() >= 8)
			return;
		ibv_ah_attr a{};
		set_av(a, any_gid());
		if (rng.pct(15))
			a.grh.sgid_index = (uint8_t)rng.below(gid_tbl_len + 4);
		if (rng.pct(10))
			a.is_global = 0;
		if (rng.pct(10))
			a.port_num = (uint8_t)rng.below(4);
		if (rng.pct(20)) {
			a.grh.flow_label = rng.u32();
			a.grh.traffic_class = (uint8_t)rng.next();
			a.grh.hop_limit = (uint8_t)rng.next();
			a.sl = (uint8_t)rng.next();
			a.static_rate = (uint8_t)rng.next();
			a.dlid = (uint16_t)rng.next();
			a.src_path_bits = (uint8_t)rng.next();
		}
		trace("create_ah %s", gid_str(a.grh.dgid).c_str());
		at(V_CREATE_AH);
		errno = 0;
		ibv_ah *ah = ibv_create_ah(p->pd, &a);
		note(V_CREATE_AH, ah ? 0 : errno);
		if (ah)
			ahs.push_back(std::unique_ptr<Ah>(new Ah{ah, p}));
	}

	void destroy_ah(Ah *a)
	{
		at(V_DESTROY_AH);
		if (destroyed(V_DESTROY_AH, ibv_destroy_ah(a->ah), 0,
			      "ibv_destroy_ah"))
			erase(ahs, a);
	}

	void attach_mcast()
	{
		Qp *q = rng.pick(qps);

		if (!q || q->opened)
			return;
		ibv_gid g = rng.pct(85) ? mcast_gid() : any_gid();
		uint16_t lid = rng.pct(90) ? 0 : (uint16_t)rng.next();
		at(V_ATTACH_MCAST);
		int rc = ibv_attach_mcast(q->qp, &g, lid);
		note(V_ATTACH_MCAST, rc);
		trace("attach_mcast qp %u %s lid %u: %d", q->qp->qp_num,
		      gid_str(g).c_str(), lid, rc);
		if (rc)
			return;
		// uverbs answers a repeated attach with success, keeping one.
		for (auto &m : q->mcast)
			if (gid_eq(m.first, g) && m.second == lid)
				return;
		q->mcast.push_back({g, lid});
	}

	void detach_mcast(Qp *q = nullptr)
	{
		if (!q)
			q = rng.pick(qps);
		if (!q || q->opened)
			return;
		ibv_gid g = mcast_gid();
		uint16_t lid = 0;
		if (!q->mcast.empty() && rng.pct(80)) {
			size_t k = rng.below(q->mcast.size());

			g = q->mcast[k].first;
			lid = q->mcast[k].second;
		}
		size_t i = 0;
		while (i < q->mcast.size() &&
		       !(gid_eq(q->mcast[i].first, g) && q->mcast[i].second == lid))
			i++;
		at(V_DETACH_MCAST);
		int rc = ibv_detach_mcast(q->qp, &g, lid);
		note(V_DETACH_MCAST, rc);
		trace("detach_mcast qp %u %s lid %u: %d", q->qp->qp_num,
		      gid_str(g).c_str(), lid, rc);
		if (i < q->mcast.size()) {
			if (rc)
				fail("ibv_detach_mcast of an attached group %s: %s",
				     gid_str(g).c_str(), errname(rc).c_str());
			else
				q->mcast.erase(q->mcast.begin() + i);
		}
	}

	// --- posting ---------------------------------------------------------------

	unsigned send_flags()
	{
		unsigned f = 0;

		if (rng.pct(70))
			f |= IBV_SEND_SIGNALED;
		if (rng.pct(10))
			f |= IBV_SEND_SOLICITED;
		if (rng.pct(10))
			f |= IBV_SEND_FENCE;
		if (rng.pct(3))
			f |= 1u << rng.below(32);
		return f;
	}

	int num_sge(uint32_t max)
	{
		if (rng.pct(4))
			return -1 - (int)rng.below(3);
		if (rng.pct(5))
			return (int)std::min<uint32_t>(max + 1 + rng.below(8), kMaxSge);
		return (int)rng.below(std::min<uint32_t>(max, 4) + 1);
	}

	// The domain of the XRC_RECV QP of ours that XRC_SEND @q was last
	// aimed at, or 0.
	uint64_t target_domain(const Qp *q) const
	{
		for (auto &t : qps)
			if (t->type == IBV_QPT_XRC_RECV && t->qp->qp_num == q->dest &&
			    t->xrcd)
				return t->xrcd->domain;
		return 0;
	}

	// This worker's XRC SRQs in XRC_SEND @q's target's domain, and the
	// others.
	void xrc_srqs(const Qp *q, std::vector<Srq *> &same,
		      std::vector<Srq *> &other) const
	{
		uint64_t dom = target_domain(q);

		for (auto &s : srqs)
			if (s->xrc)
				(dom && s->xrcd && s->xrcd->domain == dom ? same : other)
					.push_back(s.get());
	}

	// An XRC SRQ number for a WR of XRC_SEND @q: one of this worker's
	// XRC SRQs in the target's domain, one in another domain, any 24-bit
	// number (another worker's, maybe in the shared domain, or none), or
	// one above 24 bits, which the post must refuse.
	uint32_t xrc_srqn(const Qp *q)
	{
		std::vector<Srq *> same, other;
		unsigned k = (unsigned)rng.below(10);

		xrc_srqs(q, same, other);
		if (k < 6 && !same.empty())
			return same[rng.below(same.size())]->srqn;
		if (k < 8 && !other.empty())
			return other[rng.below(other.size())]->srqn;
		if (k < 9)
			return rng.pct(20) ? (rng.pct(50) ? 0 : kXrcSrqnMax)
					   : rng.u32() & kXrcSrqnMax;
		return rng.pct(50) ? kXrcSrqnMax + 1 + (uint32_t)rng.below(4)
				   : rng.u32() | (kXrcSrqnMax + 1);
	}

	// A send WR the kernel should carry out: an opcode of the QP's
	// transport, SGEs in MRs of its PD, a remote MR of ours with the
	// access it needs (on XRC, in the PD of the XRC SRQ named, one of
	// ours, in the target's domain if we can).  False if there is
	// nothing to build it from.
	bool valid_send_wr(Qp *q, ibv_send_wr &wr, ibv_sge *sg)
	{
		std::vector<ibv_wr_opcode> ops = {IBV_WR_SEND, IBV_WR_SEND_WITH_IMM};
		bool xrc = q->type == IBV_QPT_XRC_SEND;
		Pd *rpd = q->pd;
		uint32_t srqn = 0;

		if (xrc) {
			std::vector<Srq *> same, other;

			xrc_srqs(q, same, other);
			if (same.empty())
				same = other;
			if (same.empty())
				return false;
			Srq *t = same[rng.below(same.size())];
			rpd = t->pd;
			srqn = t->srqn;
		}
		if (q->type != IBV_QPT_UD) {
			ops.push_back(IBV_WR_RDMA_WRITE);
			ops.push_back(IBV_WR_RDMA_WRITE_WITH_IMM);
		}
		if (q->type == IBV_QPT_RC || xrc) {
			ops.push_back(IBV_WR_RDMA_READ);
			ops.push_back(IBV_WR_ATOMIC_CMP_AND_SWP);
			ops.push_back(IBV_WR_ATOMIC_FETCH_AND_ADD);
		}
		wr = {};
		wr.wr_id = rng.next();
		wr.opcode = ops[rng.below(ops.size())];
		wr.qp_type.xrc.remote_srqn = srqn;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (rng.pct(10))
			wr.send_flags |= IBV_SEND_SOLICITED;
		wr.imm_data = rng.u32();
		bool atomic = wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
			      wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
		bool read = wr.opcode == IBV_WR_RDMA_READ;
		uint32_t max = q->type == IBV_QPT_UD ? 1024 : 16384;
		int n = atomic ? 1 : (int)rng.below(std::min<uint32_t>(q->cap.max_send_sge, 2) + 1);
		if (n > (int)q->cap.max_send_sge)
			return false;
		uint64_t total = 0;
		for (int i = 0; i < n; i++) {
			if (!valid_sge(sg[i], q->pd, read || atomic, max / 2, atomic))
				return false;
			total += sg[i].length;
		}
		wr.sg_list = sg;
		wr.num_sge = n;
		if (!read && !atomic && total <= q->cap.max_inline_data &&
		    rng.pct(25))
			wr.send_flags |= IBV_SEND_INLINE;
		if (read || atomic || wr.opcode == IBV_WR_RDMA_WRITE ||
		    wr.opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
			int acc = atomic ? IBV_ACCESS_REMOTE_ATOMIC
				: read ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE;
			Mr *m = mr_with(acc, rpd);

			if (!m || m->mr->length < total + 8)
				return false;
			uint64_t addr = (uintptr_t)m->mr->addr +
					rng.below(m->mr->length - total - 8 + 1);
			if (atomic) {
				addr = (addr + 7) & ~7ull;
				wr.wr.atomic.remote_addr = addr;
				wr.wr.atomic.rkey = m->mr->rkey;
				wr.wr.atomic.compare_add = rng.next();
				wr.wr.atomic.swap = rng.next();
			} else {
				wr.wr.rdma.remote_addr = addr;
				wr.wr.rdma.rkey = m->mr->rkey;
			}
		}
		if (q->type == IBV_QPT_UD) {
			std::vector<Ah *> ah;
			std::vector<Qp *> peer;

			for (auto &a : ahs)
				if (a->pd == q->pd)
					ah.push_back(a.get());
			for (auto &p : qps)
				if (p->type == IBV_QPT_UD)
					peer.push_back(p.get());
			if (ah.empty())
				return false;
			wr.wr.ud.ah = ah[rng.below(ah.size())]->ah;
			wr.wr.ud.remote_qpn = peer[rng.below(peer.size())]->qp->qp_num;
			wr.wr.ud.remote_qkey = kQkey;
		}
		return true;
	}

	bool valid_recv_wr(Pd *pd, uint32_t max_sge, ibv_recv_wr &wr, ibv_sge *sg)
	{
		wr = {};
		wr.wr_id = rng.next();
		int n = 1 + (int)rng.below(std::min<uint32_t>(max_sge, 2));
		if (n > (int)max_sge)
			return false;
		for (int i = 0; i < n; i++)
			if (!valid_sge(sg[i], pd, true, 20000))
				return false;
		wr.sg_list = sg;
		wr.num_sge = n;
		return true;
	}

	// One send WR for @q; false if there is nothing to build it from
	// (UD without an AH, a bind without a window).
	bool send_wr(Qp *q, ibv_send_wr &wr, ibv_sge *sg)
	{
		static const ibv_wr_opcode ops[] = {
			IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_SEND_WITH_INV,
			IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM,
			IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
			IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_LOCAL_INV,
			IBV_WR_BIND_MW, IBV_WR_TSO, IBV_WR_DRIVER1,
		};

		wr = {};
		wr.wr_id = rng.next();
		uint32_t op;
		if (rng.pct(3))
			op = (uint32_t)rng.below(256);
		else if (q->type == IBV_QPT_UD && rng.pct(80))
			op = rng.pct(50) ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM;
		else
			op = ops[rng.below(12)];
		set_raw(wr.opcode, op);
		wr.send_flags = send_flags();
		bool atomic = op == IBV_WR_ATOMIC_CMP_AND_SWP ||
			      op == IBV_WR_ATOMIC_FETCH_AND_ADD;
		if (rng.pct(atomic ? 3 : 15))
			wr.send_flags |= IBV_SEND_INLINE;
		bool inl = wr.send_flags & IBV_SEND_INLINE;
		int n = atomic && rng.pct(85) ? 1 : num_sge(q->cap.max_send_sge);
		for (int i = 0; i < std::max(n, 0); i++)
			sg[i] = sge(inl, atomic);
		wr.sg_list = sg;
		wr.num_sge = n;
		wr.imm_data = rng.u32();
		switch (op) {
		case IBV_WR_SEND_WITH_INV:
		case IBV_WR_LOCAL_INV: {
			uint64_t unused;
			remote(unused, wr.invalidate_rkey, false);
			break;
		}
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
		case IBV_WR_RDMA_READ:
			remote(wr.wr.rdma.remote_addr, wr.wr.rdma.rkey, false);
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			remote(wr.wr.atomic.remote_addr, wr.wr.atomic.rkey, true);
			wr.wr.atomic.compare_add = rng.next();
			wr.wr.atomic.swap = rng.next();
			break;
		case IBV_WR_BIND_MW: {
			Mw *w = rng.pick(mws);

			if (!w)
				return false;
			wr.bind_mw.mw = w->mw;
			wr.bind_mw.rkey = rng.pct(80) ? ibv_inc_rkey(w->mw->rkey)
						      : rng.u32();
			wr.bind_mw.bind_info = bind_info();
			break;
		}
		default:
			break;
		}
		if (q->type == IBV_QPT_UD) {
			Ah *ah = rng.pick(ahs);

			if (!ah)
				return false;
			wr.wr.ud.ah = ah->ah;
			wr.wr.ud.remote_qpn = dest_qpn();
			wr.wr.ud.remote_qkey = rng.pct(80) ? kQkey : rng.u32();
		}
		// Other QPs ignore the field.
		if (q->type == IBV_QPT_XRC_SEND)
			wr.qp_type.xrc.remote_srqn = xrc_srqn(q);
		else if (rng.pct(5))
			wr.qp_type.xrc.remote_srqn = rng.u32();
		return true;
	}

	void post_send()
	{
		Qp *q = rng.pick(qps);

		if (!q)
			return;
		ibv_send_wr wrs[4];
		ibv_sge sgs[4][kMaxSge];
		int n = 1 + (int)rng.below(4);
		bool valid = rng.pct(40);
		for (int i = 0; i < n; i++) {
			if (!(valid && valid_send_wr(q, wrs[i], sgs[i])) &&
			    !send_wr(q, wrs[i], sgs[i]))
				return;
			wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
		}
		// The first WR naming an XRC SRQ above 24 bits: refused.
		int over = -1;
		for (int i = 0; q->type == IBV_QPT_XRC_SEND && i < n; i++)
			if (wrs[i].qp_type.xrc.remote_srqn > kXrcSrqnMax) {
				over = i;
				break;
			}
		ibv_send_wr *bad = nullptr;
		at(V_POST_SEND);
		int rc = ibv_post_send(q->qp, wrs, &bad);
		note(V_POST_SEND, rc);
		trace("post_send %u: %d WRs, opcode %u, SRQ %#x: %d", q->qp->qp_num,
		      n, get_raw(wrs[0].opcode), wrs[0].qp_type.xrc.remote_srqn, rc);
		// After scribbling, a ring's flags may ask for a doorbell
		// that fails once every WR is in: no bad WR then.
		if (rc && !bad && !scribbled)
			fail("ibv_post_send failed (%s) without a bad WR",
			     errname(rc).c_str());
		if (!rc && bad)
			fail("ibv_post_send succeeded with a bad WR");
		if (over >= 0 && !rc)
			fail("ibv_post_send of WR %d of %d naming XRC SRQ %#x (above 24 bits) succeeded",
			     over, n, wrs[over].qp_type.xrc.remote_srqn);
		else if (over >= 0 && bad && bad - wrs > over)
			fail("ibv_post_send posted WR %d of %d naming XRC SRQ %#x (above 24 bits); bad WR %d",
			     over, n, wrs[over].qp_type.xrc.remote_srqn,
			     (int)(bad - wrs));
	}

	// The ibv_wr_* API, with the builders the QP was created with only
	// (the others are NULL function pointers).
	void post_send_ex()
	{
		std::vector<Qp *> ex;

		for (auto &q : qps)
			if (q->send_ops)
				ex.push_back(q.get());
		if (ex.empty())
			return;
		Qp *q = ex[rng.below(ex.size())];
		ibv_qp_ex *qx = ibv_qp_to_qp_ex(q->qp);
		if (!qx)
			return;
		std::vector<uint64_t> ops;
		// Not FLUSH (bit 11): 44's ibv_qp_ex has no wr_flush.
		for (int b = 0; b < 13; b++)
			if (b != 11 && (q->send_ops & (1ull << b)))
				ops.push_back(1ull << b);
		if (ops.empty())
			return;

		ibv_wr_start(qx);
		int n = 1 + (int)rng.below(3);
		bool over = false;	// an XRC SRQ above 24 bits: refused
		for (int i = 0; i < n; i++) {
			uint64_t op = ops[rng.below(ops.size())];
			uint64_t addr;
			uint32_t rkey;
			bool atomic = false, payload = false;

			qx->wr_id = rng.next();
			qx->wr_flags = send_flags();
			remote(addr, rkey, op & (IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
						 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
						 IBV_QP_EX_WITH_ATOMIC_WRITE));
			switch (op) {
			case IBV_QP_EX_WITH_RDMA_WRITE:
				ibv_wr_rdma_write(qx, rkey, addr);
				payload = true;
				break;
			case IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM:
				ibv_wr_rdma_write_imm(qx, rkey, addr, rng.u32());
				payload = true;
				break;
			case IBV_QP_EX_WITH_SEND:
				ibv_wr_send(qx);
				payload = true;
				break;
			case IBV_QP_EX_WITH_SEND_WITH_IMM:
				ibv_wr_send_imm(qx, rng.u32());
				payload = true;
				break;
			case IBV_QP_EX_WITH_RDMA_READ:
				ibv_wr_rdma_read(qx, rkey, addr);
				break;
			case IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP:
				ibv_wr_atomic_cmp_swp(qx, rkey, addr, rng.next(),
						      rng.next());
				atomic = true;
				break;
			case IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD:
				ibv_wr_atomic_fetch_add(qx, rkey, addr, rng.next());
				atomic = true;
				break;
			case IBV_QP_EX_WITH_LOCAL_INV:
				ibv_wr_local_inv(qx, rkey);
				break;
			case IBV_QP_EX_WITH_ATOMIC_WRITE: {
				// Its 8 bytes are copied now: no SGE.
				uint64_t v = rng.next();

				ibv_wr_atomic_write(qx, rkey, addr, &v);
				break;
			}
			case IBV_QP_EX_WITH_BIND_MW: {
				Mw *w = rng.pick(mws);

				if (!w) {
					ibv_wr_abort(qx);
					return;
				}
				ibv_mw_bind_info bi = bind_info();
				ibv_wr_bind_mw(qx, w->mw, ibv_inc_rkey(w->mw->rkey),
					       &bi);
				break;
			}
			case IBV_QP_EX_WITH_SEND_WITH_INV:
				ibv_wr_send_inv(qx, rkey);
				payload = true;
				break;
			}
			// The data: SGEs, or inline (our memory: copied);
			// LOCAL_INV and BIND_MW take none.
			bool data = payload || atomic ||
				    op == IBV_QP_EX_WITH_RDMA_READ;
			if (!data && rng.pct(80)) {
				// nothing
			} else if (payload && rng.pct(25)) {
				if (rng.pct(50)) {
					size_t len = rng.below(600);

					ibv_wr_set_inline_data(qx, (void *)buf_addr(len), len);
				} else {
					ibv_data_buf bufs[4];
					size_t nb = rng.below(5);

					for (size_t k = 0; k < nb; k++) {
						bufs[k].length = rng.below(300);
						bufs[k].addr = (void *)buf_addr(bufs[k].length);
					}
					ibv_wr_set_inline_data_list(qx, nb, bufs);
				}
			} else if (rng.pct(50)) {
				ibv_sge s = sge(false, atomic);

				ibv_wr_set_sge(qx, s.lkey, s.addr, s.length);
			} else {
				ibv_sge sg[kMaxSge];
				int ns = atomic && rng.pct(85) ? 1 : num_sge(q->cap.max_send_sge);

				ns = std::max(ns, 0);
				for (int k = 0; k < ns; k++)
					sg[k] = sge(false, atomic);
				ibv_wr_set_sge_list(qx, ns, sg);
			}
			if (q->type == IBV_QPT_UD) {
				Ah *ah = rng.pick(ahs);

				if (ah)
					ibv_wr_set_ud_addr(qx, ah->ah, dest_qpn(),
							   rng.pct(80) ? kQkey : rng.u32());
			}
			// Mostly each XRC WR names an SRQ (none: 0); on
			// other QPs, now and then (libwookie sets the
			// setter for every QP, which refuses it).
			if (q->type == IBV_QPT_XRC_SEND ? rng.pct(90) : rng.pct(2)) {
				uint32_t srqn = q->type == IBV_QPT_XRC_SEND
							? xrc_srqn(q) : rng.u32();

				over |= q->type == IBV_QPT_XRC_SEND &&
					srqn > kXrcSrqnMax;
				ibv_wr_set_xrc_srqn(qx, srqn);
			}
		}
		if (rng.pct(10)) {
			ibv_wr_abort(qx);
			return;
		}
		at(V_WR_COMPLETE);
		int rc = ibv_wr_complete(qx);
		note(V_WR_COMPLETE, rc);
		if (over && !rc)
			fail("ibv_wr_complete of a WR naming an XRC SRQ above 24 bits succeeded");
	}

	void recv_wr(ibv_recv_wr &wr, ibv_sge *sg, uint32_t max_sge)
	{
		wr = {};
		wr.wr_id = rng.next();
		int n = num_sge(max_sge);
		for (int i = 0; i < std::max(n, 0); i++)
			sg[i] = sge(false);
		wr.sg_list = sg;
		wr.num_sge = n;
	}

	void post_recv()
	{
		Qp *q = rng.pick(qps);

		if (!q)
			return;
		ibv_recv_wr wrs[4];
		ibv_sge sgs[4][kMaxSge];
		int n = 1 + (int)rng.below(4);
		bool valid = rng.pct(50);
		for (int i = 0; i < n; i++) {
			if (!(valid && valid_recv_wr(q->pd, q->cap.max_recv_sge,
						     wrs[i], sgs[i])))
				recv_wr(wrs[i], sgs[i], q->cap.max_recv_sge);
			wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
		}
		ibv_recv_wr *bad = nullptr;
		at(V_POST_RECV);
		int rc = ibv_post_recv(q->qp, wrs, &bad);
		note(V_POST_RECV, rc);
		// After scribbling, a ring's flags may ask for a doorbell
		// that fails once every WR is in: no bad WR then.
		if (rc && !bad && !scribbled)
			fail("ibv_post_recv failed (%s) without a bad WR",
			     errname(rc).c_str());
	}

	void post_srq_recv()
	{
		Srq *s = rng.pick(srqs);

		if (!s)
			return;
		ibv_recv_wr wrs[4];
		ibv_sge sgs[4][kMaxSge];
		int n = 1 + (int)rng.below(4);
		bool valid = rng.pct(50);
		for (int i = 0; i < n; i++) {
			if (!(valid && valid_recv_wr(s->pd, s->max_sge, wrs[i], sgs[i])))
				recv_wr(wrs[i], sgs[i], s->max_sge);
			wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
		}
		ibv_recv_wr *bad = nullptr;
		at(V_POST_SRQ_RECV);
		int rc = ibv_post_srq_recv(s->srq, wrs, &bad);
		note(V_POST_SRQ_RECV, rc);
		// After scribbling, a ring's flags may ask for a doorbell
		// that fails once every WR is in: no bad WR then.
		if (rc && !bad && !scribbled)
			fail("ibv_post_srq_recv failed (%s) without a bad WR",
			     errname(rc).c_str());
	}

	// Empty post commands: what the provider does to wake the kernel.
	void doorbells()
	{
		for (auto &q : qps) {
			ibv_send_wr *sbad = nullptr;
			ibv_recv_wr *rbad = nullptr;

			at(V_DOORBELL);
			note(V_DOORBELL, ibv_cmd_post_send(q->qp, nullptr, &sbad));
			if (!q->srq) {
				at(V_DOORBELL);
				note(V_DOORBELL,
				     ibv_cmd_post_recv(q->qp, nullptr, &rbad));
			}
		}
		for (auto &s : srqs) {
			ibv_recv_wr *rbad = nullptr;

			at(V_DOORBELL);
			note(V_DOORBELL,
			     ibv_cmd_post_srq_recv(s->srq, nullptr, &rbad));
		}
	}

	// --- queries, other contexts, unsupported verbs ----------------------------

	uint8_t port()
	{
		return rng.pct(85) ? 1 : (uint8_t)rng.below(256);
	}

	void query()
	{
		switch (rng.below(6)) {
		case 0: {
			ibv_device_attr a;

			at(V_QUERY_DEVICE);
			note(V_QUERY_DEVICE, ibv_query_device(ctx, &a));
			break;
		}
		case 1: {
			ibv_query_device_ex_input in{};
			ibv_device_attr_ex a;

			if (rng.pct(10))
				in.comp_mask = rng.u32();
			at(V_QUERY_DEVICE_EX);
			note(V_QUERY_DEVICE_EX, ibv_query_device_ex(ctx, &in, &a));
			break;
		}
		case 2: {
			ibv_port_attr a;
			uint8_t p = port();

			at(V_QUERY_PORT);
			int rc = ibv_query_port(ctx, p, &a);
			note(V_QUERY_PORT, rc);
			if (p == 1 && rc)
				fail("ibv_query_port 1: %s", errname(rc).c_str());
			break;
		}
		case 3: {
			ibv_gid g;
			int idx = rng.pct(80) ? (int)rng.below(gid_tbl_len + 2)
					      : (int)rng.u32();

			at(V_QUERY_GID);
			note(V_QUERY_GID, ibv_query_gid(ctx, port(), idx, &g) ? EINVAL : 0);
			break;
		}
		case 4: {
			__be16 pkey;
			int idx = rng.pct(80) ? (int)rng.below(4) : (int)rng.u32();

			at(V_QUERY_PKEY);
			note(V_QUERY_PKEY, ibv_query_pkey(ctx, port(), idx, &pkey) ? EINVAL : 0);
			break;
		}
		default: {
			ibv_values_ex v{};

			v.comp_mask = rng.pct(80) ? (uint32_t)IBV_VALUES_MASK_RAW_CLOCK
						  : rng.u32();
			at(V_QUERY_RT_VALUES);
			note(V_QUERY_RT_VALUES, ibv_query_rt_values_ex(ctx, &v));
			break;
		}
		}
	}

	// Another context for a moment, closed with or without its objects.
	void other_context()
	{
		at(V_OPEN_DEVICE);
		errno = 0;
		ibv_context *c2 = ibv_open_device(device);
		note(V_OPEN_DEVICE, c2 ? 0 : errno);
		if (!c2) {
			fail("a second ibv_open_device: %s", errname(errno).c_str());
			return;
		}
		ibv_pd *pd = ibv_alloc_pd(c2);
		ibv_cq *cq = ibv_create_cq(c2, 16, nullptr, nullptr, 0);
		ibv_qp *qp = nullptr;
		if (pd && cq) {
			ibv_qp_init_attr a{};

			a.send_cq = cq;
			a.recv_cq = cq;
			a.qp_type = IBV_QPT_RC;
			a.cap.max_send_wr = a.cap.max_recv_wr = 8;
			a.cap.max_send_sge = a.cap.max_recv_sge = 1;
			qp = ibv_create_qp(pd, &a);
		}
		// Our shared XRC domain opened again here, and an XRC_RECV QP
		// of ours in it opened through this context.  Not the domain
		// of our own file: left here with objects whose rings stay
		// mapped, the handle lives on until the worker ends, and that
		// domain would no longer be there exactly while we hold it.
		ibv_xrcd *x2 = nullptr;
		ibv_qp *tqp = nullptr;
		std::vector<Xrcd *> files;
		for (auto &x : xrcds)
			if (x->file == XF_SHARED)
				files.push_back(x.get());
		if (!files.empty() && rng.pct(40)) {
			Xrcd *x = files[rng.below(files.size())];
			ibv_xrcd_init_attr xa{};

			xa.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
			xa.fd = xrcd_fd(x->file);
			xa.oflags = rng.pct(50) ? O_CREAT : 0;
			at(V_OPEN_XRCD);
			errno = 0;
			x2 = ibv_open_xrcd(c2, &xa);
			note(V_OPEN_XRCD, x2 ? 0 : errno);
			if (!x2)
				fail("ibv_open_xrcd in a second context of a domain open in the first: %s",
				     errname(errno).c_str());
			std::vector<Qp *> tgt;
			for (auto &q : qps)
				if (q->type == IBV_QPT_XRC_RECV && q->xrcd &&
				    q->xrcd->domain == x->domain)
					tgt.push_back(q.get());
			if (x2 && !tgt.empty()) {
				ibv_qp_open_attr oa{};

				oa.comp_mask = IBV_QP_OPEN_ATTR_NUM |
					       IBV_QP_OPEN_ATTR_XRCD |
					       IBV_QP_OPEN_ATTR_TYPE;
				oa.qp_num = tgt[rng.below(tgt.size())]->qp->qp_num;
				oa.xrcd = x2;
				oa.qp_type = IBV_QPT_XRC_RECV;
				at(V_OPEN_QP);
				errno = 0;
				tqp = ibv_open_qp(c2, &oa);
				note(V_OPEN_QP, tqp ? 0 : errno);
				if (!tqp)
					fail("ibv_open_qp of XRC_RECV QP %u in a second context: %s",
					     oa.qp_num, errname(errno).c_str());
			}
		}
		if (rng.pct(50)) {
			if (tqp && rng.pct(50)) {
				ibv_qp_attr a{};

				a.qp_state = IBV_QPS_ERR;
				ibv_modify_qp(tqp, &a, IBV_QP_STATE);
			}
			if (tqp)
				ibv_destroy_qp(tqp);
			if (x2)
				ibv_close_xrcd(x2);
			if (qp)
				ibv_destroy_qp(qp);
			if (cq)
				ibv_destroy_cq(cq);
			if (pd)
				ibv_dealloc_pd(pd);
		}
		at(V_CLOSE_DEVICE);
		int rc = ibv_close_device(c2);
		note(V_CLOSE_DEVICE, rc);
		if (rc)
			fail("ibv_close_device of a second context: %s",
			     errname(rc).c_str());
		// Its rings (mapped still if its objects were left) are not
		// ours to scribble on, nor the next object's.
		known = ring_maps();
	}

	void unsupported()
	{
		at(V_UNSUPPORTED);
		errno = 0;
		switch (rng.below(2)) {
		case 0: {
			ibv_td_init_attr a{};

			a.comp_mask = rng.pct(80) ? 0 : rng.u32();
			ibv_td *td = ibv_alloc_td(ctx, &a);
			note(V_UNSUPPORTED, td ? 0 : errno);
			if (td)
				ibv_dealloc_td(td);
			break;
		}
		default:
			device_memory();
			break;
		}
	}

	// Device memory: odd sizes, alignments and masks; copies and MRs
	// with odd offsets, lengths and access; each copy's answer checked.
	void device_memory()
	{
		ibv_alloc_dm_attr a{};
		Pd *p = rng.pick(pds);

		a.length = rng.pct(10) ? rng.next() : rng.below(1 << 21);
		a.log_align_req = rng.pct(80) ? (uint32_t)rng.below(8) : rng.u32();
		a.comp_mask = rng.pct(90) ? 0 : rng.u32();
		ibv_dm *dm = ibv_alloc_dm(ctx, &a);
		note(V_UNSUPPORTED, dm ? 0 : errno);
		if (!dm)
			return;
		static char data[8192];
		for (int i = 0; i < 4; i++) {
			uint64_t off = rng.pct(70) ? rng.below(a.length + 8)
						   : rng.next();
			size_t len = rng.below(sizeof(data));
			bool good = !(off % 4) && !(len % 4) && off <= a.length &&
				    len <= a.length - off;
			int rc = rng.pct(50) ? ibv_memcpy_to_dm(dm, off, data, len)
					     : ibv_memcpy_from_dm(data, dm, off, len);
			if (!rc != good)
				fail("DM copy of %zu bytes at %llu of %zu: %d",
				     len, (unsigned long long)off,
				     (size_t)a.length, rc);
		}
		ibv_mr *mr = nullptr;
		if (p) {
			uint64_t off = rng.below(a.length + 16);
			uint64_t len = rng.pct(80) ? rng.below(a.length + 16)
						   : rng.next();
			int access = IBV_ACCESS_ZERO_BASED | access_flags();

			if (rng.pct(10))
				access &= ~IBV_ACCESS_ZERO_BASED;
			mr = ibv_reg_dm_mr(p->pd, dm, off, len, access);
			note(V_UNSUPPORTED, mr ? 0 : errno);
			if (mr && (off > a.length || len > a.length - off))
				fail("DM MR of %llu at %llu of a %zu-byte DM",
				     (unsigned long long)len,
				     (unsigned long long)off, (size_t)a.length);
		}
		if (mr && rng.pct(50)) {
			errno = 0;
			if (ibv_free_dm(dm) != EBUSY)
				fail("DM freed with an MR on it");
		}
		if (mr && ibv_dereg_mr(mr))
			fail("dereg of a DM MR failed");
		if (ibv_free_dm(dm))
			fail("ibv_free_dm failed");
	}

	// --- scribbling --------------------------------------------------------------

	void scribble()
	{
		struct Target {
			Ring r;
			Cq *cq;
			const char *what;
			uint32_t num;
		};
		std::vector<Target> t;

		for (auto &cq : cqs)
			for (auto &r : cq->rings)
				t.push_back({r, cq.get(), "CQ", 0});
		for (auto &q : qps)
			for (auto &r : q->rings)
				t.push_back({r, nullptr, "SQ or RQ of QP", q->qp->qp_num});
		for (auto &s : srqs)
			for (auto &r : s->rings)
				t.push_back({r, nullptr, s->xrc ? "XRC SRQ" : "SRQ",
					     s->srqn});
		if (t.empty())
			return;
		int rounds = 1 + (int)rng.below(3);
		for (int i = 0; i < rounds; i++) {
			Target &x = t[rng.below(t.size())];
			auto *hdr = reinterpret_cast<volatile wookie_ring_hdr *>(x.r.first);
			auto *bytes = reinterpret_cast<volatile uint8_t *>(x.r.first);
			size_t len = x.r.second;
			unsigned kind = (unsigned)rng.below(10);

			switch (kind) {
			case 0: hdr->producer = hdr->consumer + 0x80000000u; break;
			case 1: hdr->producer = rng.u32(); break;
			case 2: hdr->producer = hdr->consumer + 1 + (uint32_t)rng.below(8); break;
			case 3: hdr->producer = hdr->producer - 1 - (uint32_t)rng.below(4); break;
			case 4: hdr->consumer = rng.pct(50) ? rng.u32()
						: hdr->producer + 0x40000000u; break;
			case 5:
				hdr->arm = rng.u32();
				hdr->flags = rng.u32();
				break;
			case 6: {	// some slot bytes
				size_t off = WOOKIE_RING_HDR_SIZE +
					     rng.below(len - WOOKIE_RING_HDR_SIZE);
				size_t n = std::min<size_t>(len - off, 1 + rng.below(512));

				for (size_t k = 0; k < n; k++)
					bytes[off + k] = (uint8_t)rng.next();
				hdr->producer = hdr->producer + (uint32_t)rng.below(4);
				break;
			}
			case 7:
				for (size_t k = 0; k < len; k++)
					bytes[k] = (uint8_t)rng.next();
				break;
			case 8: {
				uint8_t v = rng.pct(50) ? 0xff : 0;

				for (size_t k = WOOKIE_RING_HDR_SIZE; k < len; k++)
					bytes[k] = v;
				hdr->producer = hdr->consumer + (uint32_t)rng.below(64);
				break;
			}
			default:
				bytes[rng.below(len)] = (uint8_t)rng.next();
				break;
			}
			if (x.cq)
				x.cq->scribbled = true;
			trace("scribble %u on %s %u (%#lx, %zu bytes)", kind, x.what,
			      x.num, (unsigned long)x.r.first, len);
		}
		scribbled = true;
		slot->scribbled.store(1);
		slot->phase.store(P_SCRIBBLED);
		c.scribbles++;
		doorbells();
	}

	// --- the run ---------------------------------------------------------------

	void destroy_something()
	{
		switch (rng.below(10)) {
		case 9: if (Xrcd *x = rng.pick(xrcds)) close_xrcd(x); break;
		case 8: {	// what stands in the way of destroying a QP
			std::vector<Qp *> v;

			for (auto &q : qps)
				if (!q->mcast.empty())
					v.push_back(q.get());
			if (!v.empty())
				detach_mcast(v[rng.below(v.size())]);
			break;
		}
		case 0: if (Pd *p = rng.pick(pds)) dealloc_pd(p); break;
		case 1: if (Mr *m = rng.pick(mrs)) dereg_mr(m); break;
		case 2: if (Mw *w = rng.pick(mws)) dealloc_mw(w); break;
		case 3: if (Chan *ch = rng.pick(chans)) destroy_channel(ch); break;
		case 4: if (Cq *cq = rng.pick(cqs)) destroy_cq(cq); break;
		case 5: if (Srq *s = rng.pick(srqs)) destroy_srq(s); break;
		case 6: if (Qp *q = rng.pick(qps)) destroy_qp(q); break;
		default: if (Ah *a = rng.pick(ahs)) destroy_ah(a); break;
		}
	}

	void one_step()
	{
		static const int weights[] = {
			3, 6, 2, 3, 2, 3, 1, 4, 2, 2, 2, 2, 1, 6, 3, 10, 8,
			2, 3, 2, 2, 2, 14, 5, 8, 4, 10, 3, 2, 3, 1, 1, 1,
			2, 3, 1, 4, 2, 10,
		};
		int total = 0;
		for (int w : weights)
			total += w;
		int r = (int)rng.below(total), a = 0;
		while (r >= weights[a])
			r -= weights[a++];

		switch (a) {
		case 0: alloc_pd(); break;
		case 1: reg_mr(); break;
		case 2: rereg_mr(); break;
		case 3: alloc_mw(); break;
		case 4: bind_mw(); break;
		case 5: create_cq(false); break;
		case 6: create_channel(); break;
		case 7: create_cq(rng.pct(50)); break;
		case 8: if (Cq *cq = rng.pick(cqs)) resize_cq(cq); break;
		case 9: create_srq(); break;
		case 10: if (Srq *s = rng.pick(srqs)) modify_srq(s); break;
		case 11: if (Srq *s = rng.pick(srqs)) query_srq(s); break;
		case 12: create_qp(true); break;
		case 13: create_qp(rng.pct(50)); break;
		case 14: create_qp(false); break;
		case 15: if (Qp *q = rng.pick(qps)) modify_qp(q); break;
		case 16: connect(); break;
		case 17: if (Qp *q = rng.pick(qps)) query_qp(q); break;
		case 18: create_ah(); break;
		case 19: attach_mcast(); break;
		case 20: detach_mcast(); break;
		case 21: post_send_ex(); break;
		case 22: post_send(); break;
		case 23: post_send_ex(); break;
		case 24: post_recv(); break;
		case 25: post_srq_recv(); break;
		case 26: poll_cq(); break;
		case 27: notify(); break;
		case 28: async_events(); break;
		case 29: query(); break;
		case 30: other_context(); break;
		case 31: unsupported(); break;
		case 32: doorbells(); break;
		case 33: open_xrcd(); break;
		case 34: create_srq_ex(); break;
		case 35: if (Srq *s = rng.pick(srqs)) get_srq_num(s); break;
		case 36: create_xrc_qp(); break;
		case 37: open_qp(); break;
		default: destroy_something(); break;
		}
	}

	// After scribbling: posts, doorbells, polls of CQs left alone,
	// events, queries, modify (never to RESET), destroys.
	void scribbled_step()
	{
		switch (rng.below(11)) {
		case 0: post_send(); break;
		case 1: post_send_ex(); break;
		case 2: post_recv(); break;
		case 3: post_srq_recv(); break;
		case 4: doorbells(); break;
		case 5: poll_cq(); break;
		case 6: notify(); async_events(); break;
		case 7: if (Qp *q = rng.pick(qps)) query_qp(q); break;
		case 8: if (Qp *q = rng.pick(qps)) modify_qp(q); break;
		case 9: if (rng.pct(20)) scribble(); else query(); break;
		default: destroy_something(); break;
		}
	}

	bool empty() const
	{
		return pds.empty() && mrs.empty() && mws.empty() && chans.empty() &&
		       cqs.empty() && srqs.empty() && qps.empty() && ahs.empty() &&
		       xrcds.empty();
	}

	// Everything destroyed in random order: each refusal must be EBUSY
	// for an object still in use, and everything must go in the end.
	void teardown()
	{
		for (auto &ch : chans)
			cq_events(ch.get());
		async_events();
		for (int i = 0; !empty() && i < 20000; i++)
			destroy_something();
		if (!empty())
			fail("objects left after 20000 destroy attempts: %zu PDs, %zu MRs, %zu MWs, "
			     "%zu channels, %zu CQs, %zu SRQs, %zu QPs, %zu AHs, %zu XRC domains",
			     pds.size(), mrs.size(), mws.size(), chans.size(),
			     cqs.size(), srqs.size(), qps.size(), ahs.size(),
			     xrcds.size());
	}

	bool setup()
	{
		at(V_OPEN_DEVICE);
		errno = 0;
		ctx = open_by_name(opt.dev, &device);
		note(V_OPEN_DEVICE, ctx ? 0 : errno);
		if (!ctx) {
			fail("cannot open %s: %s", opt.dev, errname(errno).c_str());
			return false;
		}
		fcntl(ctx->async_fd, F_SETFL,
		      fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
		at(V_QUERY_DEVICE);
		int rc = ibv_query_device(ctx, &dattr);
		note(V_QUERY_DEVICE, rc);
		ibv_port_attr pa{};
		at(V_QUERY_PORT);
		note(V_QUERY_PORT, ibv_query_port(ctx, 1, &pa));
		if (rc) {
			fail("ibv_query_device: %s", errname(rc).c_str());
			return false;
		}
		gid_tbl_len = std::max(pa.gid_tbl_len, 1);
		for (int i = 0; i < std::min(gid_tbl_len, 32); i++) {
			ibv_gid g{};

			if (!ibv_query_gid(ctx, 1, i, &g) && !gid_is_zero(g))
				own_gids.push_back(g);
		}
		v4_index = v4_gid_index(ctx, &v4_gid);

		// The registered buffer, a guard after it, a read-only area.
		void *p = mmap(nullptr, kBufLen + kGuardLen + kRoLen,
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (p == MAP_FAILED) {
			fail("mmap: %s", strerror(errno));
			return false;
		}
		buf = (uint8_t *)p;
		ro = buf + kBufLen + kGuardLen;
		mprotect(buf + kBufLen, kGuardLen, PROT_NONE);
		mprotect(ro, kRoLen, PROT_READ);
		for (size_t i = 0; i < kBufLen; i += 4096)
			buf[i] = (uint8_t)i;
		own_xrcd_fd = xrcd_file();
		known = ring_maps();
		return true;
	}

	int run()
	{
		if (!setup())
			return 1;
		uint64_t steps = 50 + rng.below(1500);
		uint64_t scribble_at = rng.pct(opt.scribble_pct) ? rng.below(steps)
								 : ~0ull;
		uint64_t after = 5 + rng.below(40);
		unsigned ending = (unsigned)rng.below(10);

		for (step = 0; step < steps; step++) {
			if (shm->stop_workers.load(std::memory_order_relaxed))
				break;
			slot->step.store(step, std::memory_order_relaxed);
			c.steps++;
			if (step == scribble_at) {
				scribble();
				if (scribbled)
					steps = std::min(steps, step + after);
				continue;
			}
			if (scribbled)
				scribbled_step();
			else
				one_step();
		}
		slot->phase.store(P_TEARDOWN);
		// Ends: everything destroyed and the device closed (6 in 10),
		// the device closed over live objects (2), or just exit (2).
		if (ending < 6 || shm->stop_workers.load())
			teardown();
		if (ending < 8 || shm->stop_workers.load()) {
			at(V_CLOSE_DEVICE);
			int rc = ibv_close_device(ctx);
			note(V_CLOSE_DEVICE, rc);
			if (rc)
				fail("ibv_close_device: %s", errname(rc).c_str());
		}
		for (size_t i = 0; i < kRoLen; i++)
			if (ro[i]) {
				fail("byte %zu of a read-only area is %#x: written through an MR",
				     i, ro[i]);
				break;
			}
		slot->phase.store(P_DONE);
		return c.failures ? 1 : 0;
	}
};

[[noreturn]] void worker_main(uint64_t gen, uint64_t seed, Slot *slot)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	Worker w(gen, seed, slot);
	int rc = w.run();
	_exit(rc);
}

// ---------------------------------------------------------------------------
// The checker: RC traffic on the other device, every byte checked

constexpr size_t kCkBuf = 320 << 10;
constexpr size_t kCkSrc = 0, kCkDst = 128 << 10, kCkAtom = 256 << 10;
constexpr size_t kCkMax = 64 << 10;	// largest transfer
constexpr size_t kCkTail = 64;		// must stay zero after the data

enum CkOp { CK_SEND, CK_SEND_IMM, CK_SEND_INLINE, CK_WRITE, CK_WRITE_IMM,
	    CK_READ, CK_FETCH_ADD, CK_CMP_SWP, CK_OPS };
const char *const kCkName[CK_OPS] = {"SEND", "SEND with immediate",
				     "inline SEND", "WRITE",
				     "WRITE with immediate", "READ",
				     "FETCH_AND_ADD", "CMP_AND_SWP"};

uint8_t pattern(uint64_t iter, size_t k)
{
	// Never 0: a buffer left zero does not pass for data.
	return (uint8_t)(1 + (iter * 7919 + k * 31 + (k >> 8) * 17) % 255);
}

struct Checker {
	Rng rng;
	uint64_t seed;
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	uint8_t *a = nullptr, *b = nullptr;
	ibv_mr *mra = nullptr, *mrb = nullptr;
	ibv_cq *cqa = nullptr, *cqb = nullptr;
	ibv_qp *qa = nullptr, *qb = nullptr;
	ibv_gid gid{};
	int gidx = 1;
	uint32_t max_inline = 0;
	uint64_t iter = 0, failures = 0, bytes = 0;
	uint64_t per_op[CK_OPS] = {};

	explicit Checker(uint64_t s) : rng(s), seed(s) {}

	void failed(CkOp op, size_t size, const std::string &why)
	{
		failures++;
		say("FAIL checker (seed %#llx, run seed %#llx) transfer %llu, %s of %zu bytes: %s",
		    (unsigned long long)seed, (unsigned long long)opt.seed,
		    (unsigned long long)iter, kCkName[op], size, why.c_str());
	}

	bool connect(ibv_qp *qp, uint32_t dest)
	{
		ibv_qp_attr x{};

		x.qp_state = IBV_QPS_INIT;
		x.port_num = 1;
		x.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		if (ibv_modify_qp(qp, &x, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			return false;
		x = {};
		x.qp_state = IBV_QPS_RTR;
		x.path_mtu = IBV_MTU_1024;
		x.dest_qp_num = dest;
		x.max_dest_rd_atomic = 4;
		x.min_rnr_timer = 1;
		x.ah_attr.is_global = 1;
		x.ah_attr.grh.dgid = gid;
		x.ah_attr.grh.sgid_index = (uint8_t)gidx;
		x.ah_attr.grh.hop_limit = 1;
		x.ah_attr.port_num = 1;
		if (ibv_modify_qp(qp, &x, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					  IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER))
			return false;
		x = {};
		x.qp_state = IBV_QPS_RTS;
		x.timeout = 14;
		x.retry_cnt = 7;
		x.rnr_retry = 7;
		x.max_rd_atomic = 4;
		return !ibv_modify_qp(qp, &x, IBV_QP_STATE | IBV_QP_TIMEOUT |
					      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					      IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	}

	void destroy_queues()
	{
		if (qa)
			ibv_destroy_qp(qa);
		if (qb)
			ibv_destroy_qp(qb);
		if (cqa)
			ibv_destroy_cq(cqa);
		if (cqb)
			ibv_destroy_cq(cqb);
		qa = qb = nullptr;
		cqa = cqb = nullptr;
	}

	bool queues()
	{
		cqa = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
		cqb = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
		if (!cqa || !cqb)
			return false;
		ibv_qp_init_attr ia{};
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = 8;
		ia.cap.max_recv_wr = 8;
		ia.cap.max_send_sge = 2;
		ia.cap.max_recv_sge = 2;
		ia.cap.max_inline_data = 256;
		ia.send_cq = ia.recv_cq = cqa;
		qa = ibv_create_qp(pd, &ia);
		max_inline = ia.cap.max_inline_data;
		ia.send_cq = ia.recv_cq = cqb;
		qb = qa ? ibv_create_qp(pd, &ia) : nullptr;
		return qb && connect(qa, qb->qp_num) && connect(qb, qa->qp_num);
	}

	bool setup()
	{
		ctx = open_by_name(opt.checkdev, nullptr);
		if (!ctx) {
			say("FAIL checker: cannot open %s: %s", opt.checkdev,
			    strerror(errno));
			return false;
		}
		gidx = v4_gid_index(ctx, &gid);
		pd = ibv_alloc_pd(ctx);
		void *p = mmap(nullptr, 2 * kCkBuf, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (!pd || p == MAP_FAILED) {
			say("FAIL checker: PD or buffer: %s", strerror(errno));
			return false;
		}
		a = (uint8_t *)p;
		b = a + kCkBuf;
		int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		mra = ibv_reg_mr(pd, a, kCkBuf, acc);
		mrb = ibv_reg_mr(pd, b, kCkBuf, acc);
		if (!mra || !mrb || !queues()) {
			say("FAIL checker: cannot set up RC QPs on %s: %s",
			    opt.checkdev, strerror(errno));
			return false;
		}
		return true;
	}

	void teardown()
	{
		destroy_queues();
		if (mra)
			ibv_dereg_mr(mra);
		if (mrb)
			ibv_dereg_mr(mrb);
		if (pd)
			ibv_dealloc_pd(pd);
		if (ctx)
			ibv_close_device(ctx);
	}

	// @n completions from @cq into @wc, within the stall time.
	bool wait(ibv_cq *cq, int n, ibv_wc *wc, std::string &why)
	{
		double deadline = now() + opt.stall;
		int got = 0;

		while (got < n) {
			int r = ibv_poll_cq(cq, n - got, wc + got);

			if (r < 0) {
				why = "ibv_poll_cq: " + std::to_string(r);
				return false;
			}
			got += r;
			if (got >= n)
				break;
			if (now() > deadline) {
				why = "only " + std::to_string(got) + " of " +
				      std::to_string(n) + " completions in " +
				      std::to_string((int)opt.stall) + " s";
				return false;
			}
			if (!r)
				sleep_s(0.0002);
		}
		return true;
	}

	bool wc_ok(const ibv_wc &wc, ibv_wc_opcode op, uint32_t qpn,
		   std::string &why)
	{
		if (wc.status != IBV_WC_SUCCESS)
			why = std::string("completion status ") +
			      ibv_wc_status_str(wc.status) + " (vendor error " +
			      std::to_string(wc.vendor_err) + ")";
		else if (wc.opcode != op)
			why = "completion opcode " + std::to_string(wc.opcode) +
			      ", expected " + std::to_string(op);
		else if (wc.qp_num != qpn)
			why = "completion of QP " + std::to_string(wc.qp_num) +
			      ", expected " + std::to_string(qpn);
		else if (wc.wr_id != iter)
			why = "completion wr_id " + std::to_string(wc.wr_id) +
			      ", expected " + std::to_string(iter);
		else
			return true;
		return false;
	}

	bool data_ok(const uint8_t *p, size_t size, std::string &why)
	{
		for (size_t k = 0; k < size; k++) {
			uint8_t want = pattern(iter, k);

			if (p[k] != want) {
				char s[128];

				snprintf(s, sizeof(s), "byte %zu is %#x, expected %#x",
					 k, p[k], want);
				why = s;
				return false;
			}
		}
		for (size_t k = size; k < size + kCkTail; k++)
			if (p[k]) {
				why = "byte " + std::to_string(k) +
				      " after the data was written";
				return false;
			}
		return true;
	}

	void fill(uint8_t *p, size_t size)
	{
		for (size_t k = 0; k < size; k++)
			p[k] = pattern(iter, k);
	}

	size_t pick_size(CkOp op)
	{
		static const size_t sizes[] = {1, 2, 7, 8, 63, 64, 65, 1023, 1024,
					       1025, 2048, 4095, 4096, 4097,
					       65535, 65536};
		size_t s = rng.pct(50) ? sizes[rng.below(16)]
				       : 1 + rng.below(kCkMax);

		if (op == CK_SEND_INLINE)
			s = 1 + rng.below(std::max<uint32_t>(max_inline, 1));
		return s;
	}

	// One SGE or two over [p, p + len).
	int sges(ibv_sge *sg, uint8_t *p, size_t len, uint32_t lkey)
	{
		if (len > 1 && rng.pct(30)) {
			size_t cut = 1 + rng.below(len - 1);

			sg[0] = {(uintptr_t)p, (uint32_t)cut, lkey};
			sg[1] = {(uintptr_t)p + cut, (uint32_t)(len - cut), lkey};
			return 2;
		}
		sg[0] = {(uintptr_t)p, (uint32_t)len, lkey};
		return 1;
	}

	// One transfer and its checks; false (reported) if anything was off.
	bool transfer()
	{
		CkOp op = (CkOp)rng.below(CK_OPS);
		size_t size = pick_size(op);
		std::string why;
		ibv_wc wc[2];
		ibv_sge ssg[2], rsg[2];
		ibv_send_wr swr{}, *sbad;
		ibv_recv_wr rwr{}, *rbad;
		bool recv = op == CK_SEND || op == CK_SEND_IMM ||
			    op == CK_SEND_INLINE || op == CK_WRITE_IMM;
		iter++;
		uint32_t imm = htonl((uint32_t)iter);
		uint64_t *word = (uint64_t *)(b + kCkAtom);
		uint64_t *result = (uint64_t *)(a + kCkAtom);
		uint64_t old = rng.next() | 1, arg = rng.next(), swap = rng.next();

		shm->checker.op.store(op);
		swr.wr_id = iter;
		swr.send_flags = IBV_SEND_SIGNALED;
		swr.sg_list = ssg;
		rwr.wr_id = iter;
		rwr.sg_list = rsg;

		switch (op) {
		case CK_SEND:
		case CK_SEND_IMM:
		case CK_SEND_INLINE:
			fill(a + kCkSrc, size);
			memset(b + kCkDst, 0, size + kCkTail);
			rwr.num_sge = sges(rsg, b + kCkDst, size + kCkTail, mrb->lkey);
			swr.num_sge = sges(ssg, a + kCkSrc, size, mra->lkey);
			swr.opcode = op == CK_SEND_IMM ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
			if (op == CK_SEND_INLINE)
				swr.send_flags |= IBV_SEND_INLINE;
			swr.imm_data = imm;
			break;
		case CK_WRITE:
		case CK_WRITE_IMM:
			fill(a + kCkSrc, size);
			memset(b + kCkDst, 0, size + kCkTail);
			rwr.num_sge = 0;
			swr.num_sge = sges(ssg, a + kCkSrc, size, mra->lkey);
			swr.opcode = op == CK_WRITE ? IBV_WR_RDMA_WRITE
						    : IBV_WR_RDMA_WRITE_WITH_IMM;
			swr.imm_data = imm;
			swr.wr.rdma.remote_addr = (uintptr_t)(b + kCkDst);
			swr.wr.rdma.rkey = mrb->rkey;
			break;
		case CK_READ:
			fill(b + kCkSrc, size);
			memset(a + kCkDst, 0, size + kCkTail);
			swr.num_sge = sges(ssg, a + kCkDst, size, mra->lkey);
			swr.opcode = IBV_WR_RDMA_READ;
			swr.wr.rdma.remote_addr = (uintptr_t)(b + kCkSrc);
			swr.wr.rdma.rkey = mrb->rkey;
			break;
		default:
			size = 8;
			*word = old;
			*result = ~old;
			ssg[0] = {(uintptr_t)result, 8, mra->lkey};
			swr.num_sge = 1;
			swr.opcode = op == CK_FETCH_ADD ? IBV_WR_ATOMIC_FETCH_AND_ADD
							: IBV_WR_ATOMIC_CMP_AND_SWP;
			if (op == CK_CMP_SWP && rng.pct(50))
				arg = old;	// the compare matches
			swr.wr.atomic.remote_addr = (uintptr_t)word;
			swr.wr.atomic.rkey = mrb->rkey;
			swr.wr.atomic.compare_add = arg;
			swr.wr.atomic.swap = swap;
			break;
		}
		std::atomic_thread_fence(std::memory_order_seq_cst);
		int rc = recv ? ibv_post_recv(qb, &rwr, &rbad) : 0;
		if (rc) {
			failed(op, size, "ibv_post_recv: " + errname(rc));
			return false;
		}
		rc = ibv_post_send(qa, &swr, &sbad);
		if (rc) {
			failed(op, size, "ibv_post_send: " + errname(rc));
			return false;
		}
		ibv_wc_opcode sop[] = {IBV_WC_SEND, IBV_WC_SEND, IBV_WC_SEND,
				       IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE,
				       IBV_WC_RDMA_READ, IBV_WC_FETCH_ADD,
				       IBV_WC_COMP_SWAP};
		if (!wait(cqa, 1, wc, why) || !wc_ok(wc[0], sop[op], qa->qp_num, why)) {
			failed(op, size, "requester: " + why);
			return false;
		}
		if (recv) {
			ibv_wc_opcode rop = op == CK_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM
							       : IBV_WC_RECV;
			if (!wait(cqb, 1, wc + 1, why) ||
			    !wc_ok(wc[1], rop, qb->qp_num, why)) {
				failed(op, size, "responder: " + why);
				return false;
			}
			if (wc[1].byte_len != size) {
				failed(op, size, "received byte_len " +
						 std::to_string(wc[1].byte_len));
				return false;
			}
			bool want_imm = op == CK_SEND_IMM || op == CK_WRITE_IMM;
			if (!!(wc[1].wc_flags & IBV_WC_WITH_IMM) != want_imm ||
			    (want_imm && wc[1].imm_data != imm)) {
				failed(op, size, "immediate data wrong or missing");
				return false;
			}
		}
		std::atomic_thread_fence(std::memory_order_seq_cst);
		switch (op) {
		case CK_READ:
			if (!data_ok(a + kCkDst, size, why)) {
				failed(op, size, why);
				return false;
			}
			break;
		case CK_FETCH_ADD:
		case CK_CMP_SWP: {
			uint64_t want = op == CK_FETCH_ADD ? old + arg
				      : arg == old ? swap : old;
			if (*result != old || *word != want) {
				char s[160];

				snprintf(s, sizeof(s),
					 "returned %#llx (expected %#llx), target %#llx (expected %#llx)",
					 (unsigned long long)*result,
					 (unsigned long long)old,
					 (unsigned long long)*word,
					 (unsigned long long)want);
				failed(op, size, s);
				return false;
			}
			break;
		}
		default:
			if (!data_ok(b + kCkDst, size, why)) {
				failed(op, size, why);
				return false;
			}
		}
		// Nothing more may complete.
		if (ibv_poll_cq(cqa, 1, wc) || ibv_poll_cq(cqb, 1, wc)) {
			failed(op, size, "an extra completion (wr_id " +
					 std::to_string(wc[0].wr_id) + ", status " +
					 ibv_wc_status_str(wc[0].status) + ")");
			return false;
		}
		per_op[op]++;
		bytes += size;
		return true;
	}

	int run()
	{
		if (!setup()) {
			shm->checker.ready.store(-1);
			teardown();
			return 1;
		}
		shm->checker.ready.store(1);
		double start = now();
		while (!shm->stop_checker.load(std::memory_order_relaxed)) {
			if (transfer()) {
				shm->checker.progress.store(iter);
				// Leave the workers some CPU.
				sleep_s(0.001);
				continue;
			}
			shm->checker.progress.store(iter);
			if (failures >= 10) {
				say("FAIL checker: %llu failures, giving up",
				    (unsigned long long)failures);
				break;
			}
			// The pair may be in error now: a new one.
			destroy_queues();
			if (!queues()) {
				say("FAIL checker: cannot rebuild its QPs: %s",
				    strerror(errno));
				failures++;
				break;
			}
		}
		std::string ops;
		for (int i = 0; i < CK_OPS; i++)
			ops += std::string(i ? ", " : "") + kCkName[i] + " " +
			       std::to_string(per_op[i]);
		uint64_t good = iter - failures;
		say("%s checker on %s: %llu transfers in %.0f s, %llu checked correct, %.1f MiB (%s)",
		    failures ? "FAIL" : "ok  ", opt.checkdev,
		    (unsigned long long)iter, now() - start,
		    (unsigned long long)good, bytes / 1048576.0, ops.c_str());
		teardown();
		return failures ? 1 : 0;
	}
};

// ---------------------------------------------------------------------------
// The parent

struct Live {
	pid_t pid;
	int slot;
	uint64_t gen, seed;
	double start, kill_at;	// kill_at < 0: not to be killed
	bool killed = false;
	uint64_t last_step = ~0ull;
	double last_progress;
	bool stall_reported = false;
};

void print_stack(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	if (FILE *f = fopen(path, "re")) {
		char w[128] = "";
		if (fgets(w, sizeof(w), f))
			say("     | wchan: %s", w);
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (FILE *f = fopen(path, "re")) {
		char line[256];
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			say("     | %s", line);
		}
		fclose(f);
	}
}

std::string replay_cmd(uint64_t seed)
{
	char s[256];

	snprintf(s, sizeof(s), "%s --replay %#llx %s %s", prog,
		 (unsigned long long)seed, opt.dev, opt.checkdev);
	return s;
}

std::string sig_name(int sig)
{
	const char *s = sigabbrev_np(sig);

	return s ? std::string("SIG") + s : "signal " + std::to_string(sig);
}

struct Parent {
	Rng rng;
	Counters total{};
	int failures = 0;
	uint64_t started = 0, exited = 0, killed = 0, scribblers = 0;
	uint64_t died = 0, hung = 0;
	std::vector<Live> live;
	bool slot_used[kMaxWorkers] = {};

	explicit Parent(uint64_t s) : rng(mix64(s ^ 0x706172656e74ull)) {}

	void spawn(uint64_t gen, bool may_kill)
	{
		int s = 0;
		while (slot_used[s])
			s++;
		slot_used[s] = true;
		Slot *slot = &shm->slot[s];
		memset(&slot->c, 0, sizeof(slot->c));
		slot->progress.store(0);
		slot->step.store(0);
		slot->verb.store(-1);
		slot->phase.store(P_RUN);
		slot->scribbled.store(0);
		uint64_t seed = opt.replay ? opt.replay_seed : worker_seed(opt.seed, gen);
		pid_t pid = fork();
		if (pid < 0) {
			say("FAIL fork: %s", strerror(errno));
			failures++;
			slot_used[s] = false;
			return;
		}
		if (!pid)
			worker_main(gen, seed, slot);
		Live l{};
		l.pid = pid;
		l.slot = s;
		l.gen = gen;
		l.seed = seed;
		l.start = l.last_progress = now();
		l.kill_at = may_kill && rng.pct(opt.kill_pct)
				    ? l.start + 0.02 + rng.below(1500) / 1000.0
				    : -1;
		live.push_back(l);
		started++;
	}

	const char *verb_of(const Slot *slot)
	{
		int v = slot->verb.load();

		return v >= 0 && v < V_COUNT ? kVerbName[v] : "(none yet)";
	}

	void ended(const Live &l, int status)
	{
		Slot *slot = &shm->slot[l.slot];
		int phase = slot->phase.load();

		total.add(slot->c);
		failures += (int)slot->c.failures;
		scribblers += slot->scribbled.load() != 0;
		slot_used[l.slot] = false;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			exited++;
			return;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 1 && slot->c.failures) {
			exited++;
			return;	// it said why
		}
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && l.killed) {
			killed++;
			return;
		}
		died++;
		failures++;
		std::string how = WIFSIGNALED(status)
			? "died of " + sig_name(WTERMSIG(status)) +
			  (WTERMSIG(status) == SIGKILL ? " (not sent by the parent)" : "")
			: "exited " + std::to_string(WEXITSTATUS(status));
		say("FAIL worker %llu (seed %#llx, run seed %#llx) %s at step %llu in %s (%s); replay: %s",
		    (unsigned long long)l.gen, (unsigned long long)l.seed,
		    (unsigned long long)opt.seed, how.c_str(),
		    (unsigned long long)slot->step.load(), verb_of(slot),
		    kPhaseName[phase & 3], replay_cmd(l.seed).c_str());
	}

	void kill_one(Live &l)
	{
		if (!l.killed) {
			kill(l.pid, SIGKILL);
			l.killed = true;
		}
	}

	// Reap what ended; true if @pid (the checker) was among them.
	void reap(pid_t checker, int *checker_status)
	{
		int status;
		pid_t pid;

		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			if (pid == checker) {
				*checker_status = status;
				continue;
			}
			for (auto it = live.begin(); it != live.end(); ++it)
				if (it->pid == pid) {
					ended(*it, status);
					live.erase(it);
					break;
				}
		}
	}

	void watch(Live &l, double t, bool stopping)
	{
		Slot *slot = &shm->slot[l.slot];
		uint64_t st = slot->step.load();
		uint64_t pr = slot->progress.load();

		if (pr != l.last_step) {
			l.last_progress = t;
			l.last_step = pr;
		}
		if (!stopping && l.kill_at >= 0 && t >= l.kill_at)
			kill_one(l);
		if (t - l.last_progress > opt.stall && !l.stall_reported) {
			l.stall_reported = true;
			hung++;
			failures++;
			say("FAIL worker %llu (seed %#llx, run seed %#llx) made no progress for %.0f s at step %llu in %s (%s)%s; replay: %s",
			    (unsigned long long)l.gen, (unsigned long long)l.seed,
			    (unsigned long long)opt.seed, t - l.last_progress,
			    (unsigned long long)st, verb_of(slot),
			    kPhaseName[slot->phase.load() & 3],
			    l.killed ? " after SIGKILL" : "",
			    replay_cmd(l.seed).c_str());
			print_stack(l.pid);
			kill_one(l);
			l.last_progress = t;
		}
	}

	void summary()
	{
		say("%s: %llu workers: %llu ended by themselves, %llu killed with SIGKILL, "
		    "%llu crashed, %llu hung; %llu scribbled on their rings (%llu scribbles)",
		    prog, (unsigned long long)started, (unsigned long long)exited,
		    (unsigned long long)killed, (unsigned long long)died,
		    (unsigned long long)hung, (unsigned long long)scribblers,
		    (unsigned long long)total.scribbles);
		uint64_t calls = 0;
		for (int v = 0; v < V_COUNT; v++)
			calls += total.calls[v];
		say("%s: %llu steps, %llu verbs called; %llu completions successful (%llu of XRC QPs), "
		    "%llu with an error; %llu CQ events, %llu async events",
		    prog, (unsigned long long)total.steps, (unsigned long long)calls,
		    (unsigned long long)total.wc_ok, (unsigned long long)total.wc_xrc,
		    (unsigned long long)total.wc_err,
		    (unsigned long long)total.cq_events,
		    (unsigned long long)total.async_events);
		say("     %-34s %10s %10s", "verb", "calls", "succeeded");
		for (int v = 0; v < V_COUNT; v++)
			say("     %-34s %10llu %10llu", kVerbName[v],
			    (unsigned long long)total.calls[v],
			    (unsigned long long)total.ok[v]);
		std::string errs;
		for (int e = 1; e < kErrnos; e++)
			if (total.err[e])
				errs += (errs.empty() ? "" : ", ") +
					(e == kErrnos - 1 ? std::string("other")
							  : errname(e)) +
					" " + std::to_string(total.err[e]);
		say("     errors by errno: %s", errs.empty() ? "none" : errs.c_str());
	}

	// The fuzzer reached what it is for; a silent degeneration (nothing
	// ever created or posted) would pass every other check.
	void coverage()
	{
		static const Verb must_succeed[] = {
			V_ALLOC_PD, V_REG_MR, V_ALLOC_MW, V_CREATE_CQ,
			V_CREATE_CQ_EX, V_CREATE_SRQ, V_CREATE_QP,
			V_CREATE_QP_EX, V_MODIFY_QP, V_POST_SEND, V_WR_COMPLETE,
			V_POST_RECV, V_POST_SRQ_RECV, V_POLL_CQ, V_CREATE_AH,
			V_ATTACH_MCAST, V_DESTROY_QP, V_DEALLOC_PD,
			V_OPEN_XRCD, V_CLOSE_XRCD, V_CREATE_SRQ_EX, V_GET_SRQ_NUM,
			V_OPEN_QP,
		};
		std::string never_called, never_ok;

		for (int v = 0; v < V_COUNT; v++)
			if (!total.calls[v])
				never_called += std::string(" ") + kVerbName[v];
		for (Verb v : must_succeed)
			if (!total.ok[v])
				never_ok += std::string(" ") + kVerbName[v];
		bool good = never_called.empty() && never_ok.empty() && total.wc_ok;
		if (!good)
			failures++;
		say("%s coverage: %s%s%s%s%s", good ? "ok  " : "FAIL",
		    good ? "every verb called, the main ones succeeded, traffic completed" : "",
		    never_called.empty() ? "" : " never called:",
		    never_called.c_str(), never_ok.empty() ? "" : "; never succeeded:",
		    never_ok.c_str());
		if (!total.wc_ok)
			say("FAIL coverage: no completion was successful");
	}

	int run_replay()
	{
		say("%s: replaying worker seed %#llx on %s", prog,
		    (unsigned long long)opt.replay_seed, opt.dev);
		spawn(0, false);
		int dummy = 0;
		while (!live.empty()) {
			double t = now();
			for (auto &l : live)
				watch(l, t, true);
			reap(-1, &dummy);
			sleep_s(0.02);
		}
		summary();
		say("%s: %d failures", prog, failures);
		return failures ? 1 : 0;
	}

	int run()
	{
		say("%s --seed %#llx --seconds %.0f --workers %d %s %s (checker on %s; stall limit %.0f s)",
		    prog, (unsigned long long)opt.seed, opt.seconds, opt.workers,
		    opt.dev, opt.checkdev, opt.checkdev, opt.stall);
		pid_t checker = fork();
		if (checker < 0) {
			say("FAIL fork: %s", strerror(errno));
			return 1;
		}
		if (!checker) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			Checker ck(checker_seed(opt.seed));
			_exit(ck.run());
		}
		int checker_status = -1;
		double t0 = now();
		while (!shm->checker.ready.load() && now() - t0 < opt.stall)
			sleep_s(0.02);
		if (shm->checker.ready.load() != 1) {
			say("FAIL the checker did not start on %s", opt.checkdev);
			kill(checker, SIGKILL);
			waitpid(checker, nullptr, 0);
			return 1;
		}

		double start = now(), deadline = start + opt.seconds;
		double stop_deadline = 0;
		bool stopping = false;
		uint64_t gen = 0;
		uint64_t ck_last = 0;
		double ck_progress = start;
		bool ck_reported = false;

		for (;;) {
			double t = now();

			if (!stopping && t >= deadline) {
				stopping = true;
				shm->stop_workers.store(1);
				stop_deadline = t + 2 * opt.stall;
			}
			if (!stopping)
				while ((int)live.size() < opt.workers)
					spawn(gen++, true);
			for (auto &l : live)
				watch(l, t, stopping);
			if (stopping && t > stop_deadline && !live.empty()) {
				for (auto &l : live) {
					if (l.killed)
						continue;
					failures++;
					hung++;
					say("FAIL worker %llu (seed %#llx) did not end within %.0f s of the stop (step %llu, %s, %s); replay: %s",
					    (unsigned long long)l.gen,
					    (unsigned long long)l.seed,
					    2 * opt.stall,
					    (unsigned long long)shm->slot[l.slot].step.load(),
					    verb_of(&shm->slot[l.slot]),
					    kPhaseName[shm->slot[l.slot].phase.load() & 3],
					    replay_cmd(l.seed).c_str());
					print_stack(l.pid);
					kill_one(l);
				}
				if (t > stop_deadline + opt.stall) {
					say("FAIL %zu workers do not die after SIGKILL", live.size());
					for (auto &l : live)
						print_stack(l.pid);
					failures += (int)live.size();
					break;
				}
			}
			// The checker keeps moving.
			uint64_t p = shm->checker.progress.load();
			if (p != ck_last) {
				ck_last = p;
				ck_progress = t;
			} else if (checker_status == -1 && !ck_reported &&
				   t - ck_progress > 2 * opt.stall) {
				ck_reported = true;
				failures++;
				say("FAIL the checker made no progress for %.0f s (transfer %llu, %s)",
				    t - ck_progress, (unsigned long long)p,
				    kCkName[shm->checker.op.load() % CK_OPS]);
				print_stack(checker);
			}
			reap(checker, &checker_status);
			if (checker_status != -1 && !stopping) {
				say("FAIL the checker ended before the time was up");
				failures++;
				deadline = t;
			}
			if (stopping && live.empty())
				break;
			sleep_s(0.02);
		}
		say("%s: workers done after %.0f s; stopping the checker", prog,
		    now() - start);
		shm->stop_checker.store(1);
		double ck_deadline = now() + 2 * opt.stall;
		while (checker_status == -1 && now() < ck_deadline) {
			int st;

			if (waitpid(checker, &st, WNOHANG) == checker)
				checker_status = st;
			else
				sleep_s(0.05);
		}
		if (checker_status == -1) {
			say("FAIL the checker did not end within %.0f s", 2 * opt.stall);
			print_stack(checker);
			kill(checker, SIGKILL);
			waitpid(checker, nullptr, 0);
			failures++;
		} else if (!WIFEXITED(checker_status) || WEXITSTATUS(checker_status)) {
			say("FAIL the checker %s",
			    WIFSIGNALED(checker_status)
				    ? ("died of " + sig_name(WTERMSIG(checker_status))).c_str()
				    : ("exited " + std::to_string(WEXITSTATUS(checker_status))).c_str());
			failures++;
		}
		summary();
		if (opt.seconds >= 30)
			coverage();
		say("%s %llu workers, none crashed, hung or failed a check",
		    died || hung || total.failures ? "FAIL" : "ok  ",
		    (unsigned long long)started);
		say("%s: seed %#llx: %d failures", prog, (unsigned long long)opt.seed,
		    failures);
		return failures ? 1 : 0;
	}
};

void usage()
{
	fprintf(stderr,
		"usage: %s [--seed S] [--seconds T] [--workers N] [--stall SECONDS]\n"
		"          [--kill-percent P] [--scribble-percent P] DEVICE CHECKDEVICE\n"
		"       %s --replay WORKER_SEED [--trace] DEVICE CHECKDEVICE\n",
		prog, prog);
	exit(2);
}

}  // namespace

int main(int argc, char **argv)
{
	int i;

	opt.seed = mix64((uint64_t)time(nullptr) ^ ((uint64_t)getpid() << 32));
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		std::string a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;

		if (a == "--trace") {
			opt.trace = true;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (a == "--seed")
			opt.seed = strtoull(v, nullptr, 0);
		else if (a == "--seconds")
			opt.seconds = atof(v);
		else if (a == "--workers")
			opt.workers = std::clamp(atoi(v), 1, kMaxWorkers);
		else if (a == "--stall")
			opt.stall = std::max(atof(v), 5.0);
		else if (a == "--kill-percent")
			opt.kill_pct = atoi(v);
		else if (a == "--scribble-percent")
			opt.scribble_pct = atoi(v);
		else if (a == "--replay") {
			opt.replay = true;
			opt.replay_seed = strtoull(v, nullptr, 0);
		} else
			usage();
	}
	if (argc - i != 2)
		usage();
	opt.dev = argv[i];
	opt.checkdev = argv[i + 1];

	checker_gids = sysfs_gids(opt.checkdev);
	if (checker_gids.empty()) {
		say("FAIL no GIDs on %s (sysfs)", opt.checkdev);
		return 1;
	}
	if (!strcmp(opt.dev, opt.checkdev)) {
		say("FAIL the checker needs a device of its own");
		return 1;
	}
	void *p = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	shm = new (p) Shared;
	shared_xrcd_fd = xrcd_file();
	Parent parent(opt.seed);
	return opt.replay ? parent.run_replay() : parent.run();
}
