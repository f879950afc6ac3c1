// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rc_verify: RC reliability between two devices (two hosts), for the loss
// recovery tests (tests/vm/netem.sh).  One process serves, the other is the
// client; they exchange QPN, PSN, GID, rkey and address over TCP, connect an
// RC QP pair (path MTU 1024, the given GID index, ACK timeout and retry
// counts) and then:
//
//   --size N (default 64M): the client fills a buffer with a pseudo-random
//     pattern, RDMA WRITEs it into the server's MR (one signaled WR per
//     chunk), READs it back into a second buffer and compares byte for
//     byte.  It then tells the server, which compares what it received
//     against the same pattern.  Each exits 0 only if the bytes are equal
//     (and, on the client, every completion succeeded).
//
//   --odp: this side's buffers are on-demand paging MRs, never touched
//     before the device writes or reads them (it faults them in).
//   --odp-implicit: the same through one implicit ODP MR (the whole
//     address space).
//
//   --expect-retry-exc: the client posts one 64-byte WRITE (one packet)
//     into a path that loses everything and times its completion, which
//     must be IBV_WC_RETRY_EXC_ERR after about
//     4.096 us * 2^timeout * (retry_cnt + 1)
//     (IBTA: the local ACK timeout is 4.096 us * 2^timeout; retry_cnt
//     retries follow the first try), within --tolerance percent; the QP must
//     be in the error state afterwards.
//
// Every wait (accept, TCP messages, completions) has a deadline.
//
// usage: rc_verify -d DEV [-g GID_INDEX] [-p PORT] [options] [SERVER_IPV4]
// Without SERVER_IPV4 it is the server.  The client's --size, --seed and
// mode rule: the server takes them from the client.

#include <infiniband/verbs.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kMagic = 0x77726376; // "wrcv"
constexpr uint32_t kModeData = 1;
constexpr uint32_t kModeRetryExc = 2;

struct Options {
	std::string dev;
	int gid_index = 1;
	int port = 18515;
	std::string server; // empty: this is the server
	uint64_t size = 64ull << 20;
	uint64_t chunk = 1ull << 20;
	int depth = 16; // WRs in flight
	int timeout = 14;
	int retry_cnt = 7;
	int rnr_retry = 7;
	bool expect_retry_exc = false;
	double tolerance = 50; // percent
	double wait = 300;     // seconds, bound of every wait
	uint64_t seed = 0;     // 0: random
	bool odp = false;      // IBV_ACCESS_ON_DEMAND buffers
	bool implicit = false; // ... in one implicit ODP MR
};

// The connection message, both ways.
struct Hello {
	uint32_t magic;
	uint32_t mode;
	uint64_t size;
	uint64_t seed;
	uint32_t qpn;
	uint32_t psn;
	uint8_t gid[16];
	uint64_t addr;
	uint32_t rkey;
	uint32_t rd_atomic; // responder resources (server) / initiator depth
};

// Client to server when done, and the server's verdict back.
struct Done {
	uint32_t magic;
	uint32_t status; // 0 = ok
	uint64_t mismatches;
	uint64_t first_bad;
};

[[noreturn]] void usage()
{
	std::fprintf(stderr,
		"usage: rc_verify -d DEV [-g GID_INDEX] [-p PORT] [--size N[K|M|G]]\n"
		"         [--chunk N] [--depth N] [--timeout T] [--retry-cnt R]\n"
		"         [--rnr-retry R] [--expect-retry-exc] [--tolerance PCT]\n"
		"         [--wait SECONDS] [--seed N] [--odp | --odp-implicit]\n"
		"         [SERVER_IPV4]\n");
	std::exit(2);
}

uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = std::strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end || end == s)
		usage();
	return v;
}

int parse_int(const char *s, int lo, int hi)
{
	char *end;
	long v = std::strtol(s, &end, 0);

	if (*end || end == s || v < lo || v > hi)
		usage();
	return static_cast<int>(v);
}

Options parse(int argc, char **argv)
{
	Options o;

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto next = [&]() -> const char * {
			if (i + 1 >= argc)
				usage();
			return argv[++i];
		};
		if (a == "-d" || a == "--ib-dev")
			o.dev = next();
		else if (a == "-g" || a == "--gid-idx")
			o.gid_index = parse_int(next(), 0, 255);
		else if (a == "-p" || a == "--port")
			o.port = parse_int(next(), 1, 65535);
		else if (a == "--size")
			o.size = parse_size(next());
		else if (a == "--chunk")
			o.chunk = parse_size(next());
		else if (a == "--depth")
			o.depth = parse_int(next(), 1, 1024);
		else if (a == "--timeout")
			o.timeout = parse_int(next(), 0, 31);
		else if (a == "--retry-cnt")
			o.retry_cnt = parse_int(next(), 0, 7);
		else if (a == "--rnr-retry")
			o.rnr_retry = parse_int(next(), 0, 7);
		else if (a == "--expect-retry-exc")
			o.expect_retry_exc = true;
		else if (a == "--tolerance")
			o.tolerance = parse_int(next(), 0, 1000);
		else if (a == "--wait")
			o.wait = parse_int(next(), 1, 86400);
		else if (a == "--seed")
			o.seed = parse_size(next());
		else if (a == "--odp")
			o.odp = true;
		else if (a == "--odp-implicit")
			o.odp = o.implicit = true;
		else if (!a.empty() && a[0] != '-' && o.server.empty())
			o.server = a;
		else
			usage();
	}
	if (o.dev.empty() || !o.size || !o.chunk ||
	    o.chunk > (1ull << 31))
		usage();
	return o;
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

int ms_left(Clock::time_point deadline)
{
	auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
		deadline - Clock::now()).count();
	return left < 0 ? 0 : static_cast<int>(left > 1000 ? 1000 : left);
}

// --- The pattern: word i of the buffer is splitmix64(seed + i). ---

uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void fill(uint8_t *buf, uint64_t size, uint64_t seed)
{
	uint64_t i;

	for (i = 0; i + 8 <= size; i += 8) {
		uint64_t w = splitmix64(seed + i / 8);
		std::memcpy(buf + i, &w, 8);
	}
	if (i < size) {
		uint64_t w = splitmix64(seed + i / 8);
		std::memcpy(buf + i, &w, size - i);
	}
}

// Compare against the pattern; counts the bad bytes, the first one and the
// bad 1 KiB blocks (path MTU payloads).
struct Diff {
	uint64_t bytes = 0;
	uint64_t first = UINT64_MAX;
	uint64_t blocks = 0;
};

Diff compare(const uint8_t *buf, uint64_t size, uint64_t seed)
{
	Diff d;
	uint64_t last_block = UINT64_MAX;

	for (uint64_t i = 0; i < size; i += 8) {
		uint64_t w = splitmix64(seed + i / 8);
		uint64_t n = size - i < 8 ? size - i : 8;
		if (!std::memcmp(buf + i, &w, n))
			continue;
		const uint8_t *want = reinterpret_cast<const uint8_t *>(&w);
		for (uint64_t j = 0; j < n; j++) {
			if (buf[i + j] == want[j])
				continue;
			d.bytes++;
			if (d.first == UINT64_MAX)
				d.first = i + j;
			if ((i + j) / 1024 != last_block) {
				last_block = (i + j) / 1024;
				d.blocks++;
			}
		}
	}
	return d;
}

// --- TCP, every call bounded. ---

bool send_all(int fd, const void *p, size_t len, Clock::time_point deadline)
{
	const char *c = static_cast<const char *>(p);

	while (len) {
		pollfd pfd{fd, POLLOUT, 0};
		int r = poll(&pfd, 1, ms_left(deadline));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return false;
		if (r == 0) {
			if (Clock::now() >= deadline) {
				std::fprintf(stderr, "TCP send: timed out\n");
				return false;
			}
			continue;
		}
		ssize_t n = send(fd, c, len, MSG_NOSIGNAL);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			std::perror("TCP send");
			return false;
		}
		c += n;
		len -= n;
	}
	return true;
}

bool recv_all(int fd, void *p, size_t len, Clock::time_point deadline)
{
	char *c = static_cast<char *>(p);

	while (len) {
		pollfd pfd{fd, POLLIN, 0};
		int r = poll(&pfd, 1, ms_left(deadline));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return false;
		if (r == 0) {
			if (Clock::now() >= deadline) {
				std::fprintf(stderr, "TCP receive: timed out\n");
				return false;
			}
			continue;
		}
		ssize_t n = recv(fd, c, len, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			if (n == 0)
				std::fprintf(stderr, "TCP receive: peer closed\n");
			else
				std::perror("TCP receive");
			return false;
		}
		c += n;
		len -= n;
	}
	return true;
}

int tcp_listen_accept(int port, double wait)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	sockaddr_in sa{};

	if (ls < 0) {
		std::perror("socket");
		return -1;
	}
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(ls, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) ||
	    listen(ls, 1)) {
		std::perror("bind/listen");
		close(ls);
		return -1;
	}
	std::printf("listening on port %d\n", port);
	std::fflush(stdout);
	auto deadline = deadline_in(wait);
	for (;;) {
		pollfd pfd{ls, POLLIN, 0};
		int r = poll(&pfd, 1, ms_left(deadline));
		if (r > 0)
			break;
		if (r < 0 && errno != EINTR) {
			std::perror("poll");
			close(ls);
			return -1;
		}
		if (Clock::now() >= deadline) {
			std::fprintf(stderr, "no client within %.0f s\n", wait);
			close(ls);
			return -1;
		}
	}
	int fd = accept(ls, nullptr, nullptr);
	if (fd < 0)
		std::perror("accept");
	close(ls);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int tcp_connect(const std::string &host, int port, double wait)
{
	sockaddr_in sa{};
	int one = 1;

	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	if (inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) {
		std::fprintf(stderr, "not an IPv4 address: %s\n", host.c_str());
		return -1;
	}
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		std::perror("socket");
		return -1;
	}
	if (connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) &&
	    errno != EINPROGRESS) {
		std::perror("connect");
		close(fd);
		return -1;
	}
	auto deadline = deadline_in(wait);
	for (;;) {
		pollfd pfd{fd, POLLOUT, 0};
		int r = poll(&pfd, 1, ms_left(deadline));
		if (r > 0)
			break;
		if ((r < 0 && errno != EINTR) || Clock::now() >= deadline) {
			std::fprintf(stderr, "connect to %s:%d: timed out\n",
				     host.c_str(), port);
			close(fd);
			return -1;
		}
	}
	int err = 0;
	socklen_t len = sizeof(err);
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err) {
		std::fprintf(stderr, "connect to %s:%d: %s\n", host.c_str(),
			     port, std::strerror(err));
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

// --- Verbs ---

struct Rdma {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	ibv_qp *qp = nullptr;
	ibv_mr *mr[2] = {};
	ibv_mr *whole = nullptr; // --odp-implicit: mr[] are this one
	uint8_t *buf[2] = {};
	uint64_t len = 0;
	ibv_gid gid{};
	uint32_t psn = 0;
	uint32_t rd_atomic = 1;
	int cq_depth = 0;

	~Rdma()
	{
		if (qp)
			ibv_destroy_qp(qp);
		if (whole)
			ibv_dereg_mr(whole);
		for (int i = 0; i < 2; i++) {
			if (mr[i] && !whole)
				ibv_dereg_mr(mr[i]);
			if (buf[i])
				munmap(buf[i], len);
		}
		if (cq)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
		if (ctx)
			ibv_close_device(ctx);
	}
};

bool rdma_open(Rdma &r, const Options &o, uint64_t len, int nbufs)
{
	int n;
	ibv_device **list = ibv_get_device_list(&n);
	ibv_device_attr da{};

	for (int i = 0; list && i < n; i++)
		if (o.dev == ibv_get_device_name(list[i]))
			r.ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!r.ctx) {
		std::fprintf(stderr, "cannot open device %s\n", o.dev.c_str());
		return false;
	}
	if (ibv_query_device(r.ctx, &da) ||
	    ibv_query_gid(r.ctx, 1, o.gid_index, &r.gid)) {
		std::fprintf(stderr, "cannot query %s or its GID %d\n",
			     o.dev.c_str(), o.gid_index);
		return false;
	}
	r.rd_atomic = std::min({16, da.max_qp_rd_atom, da.max_qp_init_rd_atom});
	if (r.rd_atomic < 1)
		r.rd_atomic = 1;
	r.pd = ibv_alloc_pd(r.ctx);
	r.cq_depth = std::min(2 * o.depth + 2, da.max_cqe);
	r.cq = r.pd ? ibv_create_cq(r.ctx, r.cq_depth, nullptr, nullptr, 0)
		    : nullptr;
	if (!r.cq) {
		std::fprintf(stderr, "cannot create PD/CQ: %s\n",
			     std::strerror(errno));
		return false;
	}
	r.len = len;
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ |
			   (o.odp ? IBV_ACCESS_ON_DEMAND : 0);
	if (o.implicit) {
		r.whole = ibv_reg_mr(r.pd, nullptr, SIZE_MAX, access);
		if (!r.whole) {
			std::fprintf(stderr, "implicit ODP ibv_reg_mr: %s\n",
				     std::strerror(errno));
			return false;
		}
	}
	for (int i = 0; i < nbufs; i++) {
		void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS |
			       (o.odp ? 0 : MAP_POPULATE), -1, 0);
		if (p == MAP_FAILED) {
			std::perror("mmap");
			return false;
		}
		r.buf[i] = static_cast<uint8_t *>(p);
		r.mr[i] = r.whole ? r.whole : ibv_reg_mr(r.pd, p, len, access);
		if (!r.mr[i]) {
			std::fprintf(stderr, "ibv_reg_mr(%" PRIu64 "): %s\n",
				     len, std::strerror(errno));
			return false;
		}
	}
	ibv_qp_init_attr ia{};
	ia.send_cq = r.cq;
	ia.recv_cq = r.cq;
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 0;
	ia.cap.max_send_wr = o.depth;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	r.qp = ibv_create_qp(r.pd, &ia);
	if (!r.qp) {
		std::fprintf(stderr, "ibv_create_qp: %s\n", std::strerror(errno));
		return false;
	}
	std::random_device rd;
	r.psn = rd() & 0xffffff;
	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(r.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		std::fprintf(stderr, "modify QP to INIT: %s\n",
			     std::strerror(errno));
		return false;
	}
	return true;
}

bool rdma_connect(Rdma &r, const Options &o, const Hello &peer,
		  uint32_t rd_atomic)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer.qpn;
	a.rq_psn = peer.psn;
	a.max_dest_rd_atomic = r.rd_atomic;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	std::memcpy(a.ah_attr.grh.dgid.raw, peer.gid, 16);
	a.ah_attr.grh.sgid_index = o.gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(r.qp, &a, IBV_QP_STATE | IBV_QP_AV |
				    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER)) {
		std::fprintf(stderr, "modify QP to RTR: %s\n",
			     std::strerror(errno));
		return false;
	}
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = r.psn;
	a.timeout = o.timeout;
	a.retry_cnt = o.retry_cnt;
	a.rnr_retry = o.rnr_retry;
	a.max_rd_atomic = rd_atomic;
	if (ibv_modify_qp(r.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY |
				    IBV_QP_MAX_QP_RD_ATOMIC)) {
		std::fprintf(stderr, "modify QP to RTS: %s\n",
			     std::strerror(errno));
		return false;
	}
	return true;
}

ibv_qp_state qp_state(ibv_qp *qp, ibv_qp_attr *out = nullptr)
{
	ibv_qp_attr a{};
	ibv_qp_init_attr ia{};

	if (ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY, &ia))
		return static_cast<ibv_qp_state>(-1);
	if (out)
		*out = a;
	return a.qp_state;
}

const char *state_name(ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "?";
	}
}

// One completion, or false at the deadline.  Polls, yielding the CPU
// between empty polls so that the kernel engine (and, under TCG, the other
// vCPU) gets to run.
bool poll_one(ibv_cq *cq, ibv_wc *wc, Clock::time_point deadline)
{
	for (unsigned spins = 0;; spins++) {
		int n = ibv_poll_cq(cq, 1, wc);
		if (n < 0) {
			std::fprintf(stderr, "ibv_poll_cq: %d\n", n);
			return false;
		}
		if (n == 1)
			return true;
		if ((spins & 63) == 0 && Clock::now() >= deadline)
			return false;
		if (spins > 256)
			std::this_thread::sleep_for(std::chrono::microseconds(50));
	}
}

// Post LEN bytes as WRs of CHUNK bytes, OPCODE, with up to DEPTH in flight;
// false unless every completion is a success of the right kind, in order.
bool transfer(Rdma &r, const Options &o, ibv_wr_opcode opcode, uint8_t *local,
	      uint32_t lkey, uint64_t remote, uint32_t rkey, uint64_t len,
	      Clock::time_point deadline)
{
	const char *what = opcode == IBV_WR_RDMA_WRITE ? "WRITE" : "READ";
	uint64_t nwr = (len + o.chunk - 1) / o.chunk, posted = 0, done = 0;
	ibv_wc_opcode want = opcode == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE
							 : IBV_WC_RDMA_READ;

	while (done < nwr) {
		while (posted < nwr && posted - done < (uint64_t)o.depth) {
			uint64_t off = posted * o.chunk;
			ibv_sge sge{};
			ibv_send_wr wr{}, *bad;

			sge.addr = reinterpret_cast<uintptr_t>(local + off);
			sge.length = static_cast<uint32_t>(
				std::min<uint64_t>(o.chunk, len - off));
			sge.lkey = lkey;
			wr.wr_id = posted;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = opcode;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.wr.rdma.remote_addr = remote + off;
			wr.wr.rdma.rkey = rkey;
			int err = ibv_post_send(r.qp, &wr, &bad);
			if (err) {
				std::fprintf(stderr, "%s: ibv_post_send of WR %"
					     PRIu64 ": %s\n", what, posted,
					     std::strerror(err));
				return false;
			}
			posted++;
		}
		ibv_wc wc{};
		if (!poll_one(r.cq, &wc, deadline)) {
			std::fprintf(stderr,
				"%s: no completion for WR %" PRIu64 " of %" PRIu64
				" (%" PRIu64 " posted) within the deadline; QP %s\n",
				what, done, nwr, posted,
				state_name(qp_state(r.qp)));
			return false;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != want ||
		    wc.wr_id != done) {
			std::fprintf(stderr,
				"%s: completion of WR %" PRIu64 " (expected %" PRIu64
				"): status %s (%d), opcode %d, vendor_err %u; "
				"QP %s\n", what, (uint64_t)wc.wr_id, done,
				ibv_wc_status_str(wc.status), wc.status,
				wc.opcode, wc.vendor_err,
				state_name(qp_state(r.qp)));
			return false;
		}
		done++;
	}
	return true;
}

double expected_secs(const Options &o)
{
	return 4.096e-6 * std::ldexp(1.0, o.timeout) * (o.retry_cnt + 1);
}

// --- Client ---

int client(const Options &o)
{
	bool retry = o.expect_retry_exc;
	// One packet per try in the retry mode: the test can count them.
	uint64_t len = retry ? 64 : o.size;
	uint64_t seed = o.seed;
	Rdma r;

	if (!seed) {
		std::random_device rd;
		seed = (uint64_t)rd() << 32 | rd();
	}
	if (!rdma_open(r, o, len, 2))
		return 1;
	int fd = tcp_connect(o.server, o.port, o.wait);
	if (fd < 0)
		return 1;

	Hello me{}, peer{};
	me.magic = kMagic;
	me.mode = retry ? kModeRetryExc : kModeData;
	me.size = len;
	me.seed = seed;
	me.qpn = r.qp->qp_num;
	me.psn = r.psn;
	std::memcpy(me.gid, r.gid.raw, 16);
	me.addr = reinterpret_cast<uintptr_t>(r.buf[0]);
	me.rkey = r.mr[0]->rkey;
	me.rd_atomic = r.rd_atomic;
	auto tcp_deadline = deadline_in(o.wait);
	if (!send_all(fd, &me, sizeof(me), tcp_deadline) ||
	    !recv_all(fd, &peer, sizeof(peer), tcp_deadline) ||
	    peer.magic != kMagic) {
		std::fprintf(stderr, "connection exchange failed\n");
		close(fd);
		return 1;
	}
	uint32_t rd_atomic = std::min(r.rd_atomic, peer.rd_atomic);
	if (!rd_atomic)
		rd_atomic = 1;
	if (!rdma_connect(r, o, peer, rd_atomic)) {
		close(fd);
		return 1;
	}
	ibv_qp_attr qa{};
	qp_state(r.qp, &qa);
	std::printf("client: %s GID %d QPN 0x%06x PSN 0x%06x -> QPN 0x%06x "
		    "PSN 0x%06x; timeout %u retry_cnt %u rnr_retry %u "
		    "rd_atomic %u\n", o.dev.c_str(), o.gid_index,
		    r.qp->qp_num, r.psn, peer.qpn, peer.psn, qa.timeout,
		    qa.retry_cnt, qa.rnr_retry, rd_atomic);

	int rc = 0;
	Done done{kMagic, 0, 0, 0};
	if (retry) {
		double want = expected_secs(o);
		double limit = std::max(10.0, 4 * want);
		ibv_sge sge{};
		ibv_send_wr wr{}, *bad;
		ibv_wc wc{};

		fill(r.buf[0], len, seed);
		sge.addr = reinterpret_cast<uintptr_t>(r.buf[0]);
		sge.length = static_cast<uint32_t>(len);
		sge.lkey = r.mr[0]->lkey;
		wr.wr_id = 42;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = peer.addr;
		wr.wr.rdma.rkey = peer.rkey;
		auto start = Clock::now();
		int err = ibv_post_send(r.qp, &wr, &bad);
		bool got = !err && poll_one(r.cq, &wc, deadline_in(limit));
		double took = since(start);
		ibv_qp_state st = qp_state(r.qp);
		double ratio = took / want;
		bool in_time = std::fabs(ratio - 1) * 100 <= o.tolerance;

		std::printf("expected: 4.096 us * 2^%d * (%d + 1) = %.1f ms "
			    "(+-%.0f%%)\n", o.timeout, o.retry_cnt,
			    want * 1e3, o.tolerance);
		if (err) {
			std::printf("FAIL ibv_post_send: %s\n",
				    std::strerror(err));
			rc = 1;
		} else if (!got) {
			std::printf("FAIL no completion within %.1f s "
				    "(QP %s)\n", limit, state_name(st));
			rc = 1;
		} else {
			std::printf("completion after %.1f ms (%.2f x expected):"
				    " status %s (%d), wr_id %" PRIu64
				    ", QP %s\n", took * 1e3, ratio,
				    ibv_wc_status_str(wc.status), wc.status,
				    (uint64_t)wc.wr_id, state_name(st));
			if (wc.status != IBV_WC_RETRY_EXC_ERR ||
			    wc.wr_id != 42) {
				std::printf("FAIL expected IBV_WC_RETRY_EXC_ERR"
					    " for wr_id 42\n");
				rc = 1;
			}
			if (!in_time) {
				std::printf("FAIL %.1f ms is not within %.0f%%"
					    " of %.1f ms\n", took * 1e3,
					    o.tolerance, want * 1e3);
				rc = 1;
			}
			if (st != IBV_QPS_ERR) {
				std::printf("FAIL QP in %s, not ERR\n",
					    state_name(st));
				rc = 1;
			}
		}
		if (!rc)
			std::printf("ok   retry exceeded after %.1f ms, "
				    "expected %.1f ms\n", took * 1e3,
				    want * 1e3);
	} else {
		auto deadline = deadline_in(o.wait);

		fill(r.buf[0], len, seed);
		std::memset(r.buf[1], 0xa5, len);
		std::printf("client: %" PRIu64 " bytes, %" PRIu64
			    "-byte WRs, %d in flight, seed 0x%016" PRIx64
			    "\n", len, o.chunk, o.depth, seed);
		std::fflush(stdout);
		auto t0 = Clock::now();
		bool ok = transfer(r, o, IBV_WR_RDMA_WRITE, r.buf[0],
				   r.mr[0]->lkey, peer.addr, peer.rkey, len,
				   deadline);
		double tw = since(t0);
		if (ok)
			std::printf("WRITE %" PRIu64 " bytes: %.2f s (%.1f MB/s)\n",
				    len, tw, len / tw / 1e6);
		std::fflush(stdout);
		double tr = 0;
		if (ok) {
			auto t1 = Clock::now();
			ok = transfer(r, o, IBV_WR_RDMA_READ, r.buf[1],
				      r.mr[1]->lkey, peer.addr, peer.rkey, len,
				      deadline);
			tr = since(t1);
			if (ok)
				std::printf("READ  %" PRIu64 " bytes: %.2f s "
					    "(%.1f MB/s)\n", len, tr,
					    len / tr / 1e6);
		}
		if (ok) {
			Diff d = compare(r.buf[1], len, seed);
			if (d.bytes) {
				std::printf("FAIL read back: %" PRIu64
					    " bytes differ in %" PRIu64
					    " 1 KiB blocks, first at %" PRIu64
					    "\n", d.bytes, d.blocks, d.first);
				ok = false;
			}
		}
		if (!ok) {
			std::printf("FAIL client (QP %s)\n",
				    state_name(qp_state(r.qp)));
			rc = 1;
			done.status = 1;
		}
		std::printf("client: %s, %.2f s in all\n",
			    ok ? "data read back equal" : "failed", since(t0));
	}
	std::fflush(stdout);

	// Tell the server, and hear its verdict.
	Done verdict{};
	tcp_deadline = deadline_in(o.wait);
	if (!send_all(fd, &done, sizeof(done), tcp_deadline) ||
	    !recv_all(fd, &verdict, sizeof(verdict), tcp_deadline) ||
	    verdict.magic != kMagic) {
		std::printf("FAIL no verdict from the server\n");
		rc = 1;
	} else if (!retry) {
		if (verdict.status)
			std::printf("server: FAIL, %" PRIu64 " bytes differ, "
				    "first at %" PRIu64 "\n",
				    verdict.mismatches, verdict.first_bad);
		else
			std::printf("server: received data equal\n");
	}
	close(fd);
	if (!retry && !rc)
		std::printf("ok   %" PRIu64 " bytes written, read back and "
			    "checked on both sides\n", len);
	return rc;
}

// --- Server ---

int server(const Options &o)
{
	int fd = tcp_listen_accept(o.port, o.wait);
	if (fd < 0)
		return 1;

	Hello peer{}, me{};
	auto tcp_deadline = deadline_in(o.wait);
	if (!recv_all(fd, &peer, sizeof(peer), tcp_deadline) ||
	    peer.magic != kMagic || !peer.size || peer.size > (16ull << 30)) {
		std::fprintf(stderr, "bad or no hello from the client\n");
		close(fd);
		return 1;
	}
	Rdma r;
	if (!rdma_open(r, o, peer.size, 1)) {
		close(fd);
		return 1;
	}
	uint32_t rd_atomic = std::min(r.rd_atomic, peer.rd_atomic);
	if (!rd_atomic)
		rd_atomic = 1;
	if (!rdma_connect(r, o, peer, rd_atomic)) {
		close(fd);
		return 1;
	}
	me.magic = kMagic;
	me.mode = peer.mode;
	me.size = peer.size;
	me.seed = peer.seed;
	me.qpn = r.qp->qp_num;
	me.psn = r.psn;
	std::memcpy(me.gid, r.gid.raw, 16);
	me.addr = reinterpret_cast<uintptr_t>(r.buf[0]);
	me.rkey = r.mr[0]->rkey;
	me.rd_atomic = r.rd_atomic;
	if (!send_all(fd, &me, sizeof(me), tcp_deadline)) {
		close(fd);
		return 1;
	}
	std::printf("server: %s GID %d QPN 0x%06x, %" PRIu64 " bytes, mode %s,"
		    " client QPN 0x%06x\n", o.dev.c_str(), o.gid_index,
		    r.qp->qp_num, peer.size,
		    peer.mode == kModeRetryExc ? "retry-exc" : "data",
		    peer.qpn);
	std::fflush(stdout);

	Done done{}, verdict{kMagic, 0, 0, 0};
	// The client's whole run fits in its --wait; allow the same again.
	if (!recv_all(fd, &done, sizeof(done), deadline_in(2 * o.wait)) ||
	    done.magic != kMagic) {
		std::printf("FAIL no word from the client\n");
		close(fd);
		return 1;
	}
	int rc = 0;
	if (peer.mode == kModeData) {
		Diff d = compare(r.buf[0], peer.size, peer.seed);
		if (d.bytes) {
			std::printf("FAIL received data: %" PRIu64 " bytes "
				    "differ in %" PRIu64 " 1 KiB blocks, first "
				    "at %" PRIu64 "\n", d.bytes, d.blocks,
				    d.first);
			verdict.status = 1;
			verdict.mismatches = d.bytes;
			verdict.first_bad = d.first;
			rc = 1;
		} else {
			std::printf("ok   %" PRIu64 " bytes received equal\n",
				    peer.size);
		}
		if (done.status)
			std::printf("(the client reported a failure)\n");
	} else {
		std::printf("server: client done (status %u)\n", done.status);
	}
	send_all(fd, &verdict, sizeof(verdict), deadline_in(o.wait));
	close(fd);
	return rc;
}

} // namespace

int main(int argc, char **argv)
{
	Options o = parse(argc, argv);

	setvbuf(stdout, nullptr, _IOLBF, 0);
	return o.server.empty() ? server(o) : client(o);
}
