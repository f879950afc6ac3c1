// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// ring_corruption DEVICE: user space scribbles over its own rings; only its
// own QPs and CQs may suffer.  Each round builds a victim (a connected RC
// pair and its CQ in one context), corrupts the victim's mapped rings in
// one way, rings the doorbells, and then checks that:
//   - the victim QP is in the error state (or, for harmless damage, still
//     usable), and destroying everything works;
//   - a bystander pair in another context still moves data.
// Then one scenario that needs a QP with WQEs in flight: the SQ producer
// rewritten back between what the kernel completed and what it fetched,
// then a move to the error state (flush_rewound_producer() below).
// The kernel side (no oops, no KASAN report, no leak, no soft lockup) is
// the VM harness's.  Exit 0 when every check passes; prints "ok"/"FAIL"
// lines.

#include <infiniband/verbs.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <rdma/wookie-abi.h>

// The doorbell without a work request, as the provider makes it.
extern "C" int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
				 struct ibv_send_wr **bad_wr);
extern "C" int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
				 struct ibv_recv_wr **bad_wr);

namespace {

int failures;

void check(bool cond, const std::string &what)
{
	std::printf("%s %s\n", cond ? "ok  " : "FAIL", what.c_str());
	if (!cond)
		failures++;
}

struct Mapping {
	uintptr_t start;
	size_t len;
	bool operator<(const Mapping &o) const { return start < o.start; }
};

// Shared read-write mappings of the uverbs device: the rings.
std::set<Mapping> ring_mappings()
{
	std::set<Mapping> out;
	std::ifstream maps("/proc/self/maps");
	std::string line;

	while (std::getline(maps, line)) {
		if (line.find("/dev/infiniband/uverbs") == std::string::npos ||
		    line.find(" rw-s ") == std::string::npos)
			continue;
		std::istringstream in(line);
		std::string range;
		in >> range;
		auto dash = range.find('-');
		uintptr_t a = std::stoull(range.substr(0, dash), nullptr, 16);
		uintptr_t b = std::stoull(range.substr(dash + 1), nullptr, 16);
		out.insert({a, b - a});
	}
	return out;
}

struct Side {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	ibv_qp *qp[2] = {};
	ibv_mr *mr = nullptr;
	std::vector<char> buf = std::vector<char>(8192);
	ibv_gid gid{};
};

// @timeout: the local ACK timeout; 0 waits for ever (no retransmission).
// 67 ms by default: a round trip between two QPs of the sanitizer kernel
// took 5 ms when the responder was preempted, so the 1 ms this test once
// used failed SENDs that had arrived.  A victim that never answers still
// fails within the second poll() waits.
constexpr int kTimeout = 14;
bool to_rts(ibv_qp *qp, uint32_t dest, const ibv_gid &gid,
	    int timeout = kTimeout)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return false;
	a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		return false;
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.timeout = timeout;
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.max_rd_atomic = 1;
	return !ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
					 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					 IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

bool open_side(Side &s, const char *dev, int timeout = kTimeout)
{
	int n;
	ibv_device **list = ibv_get_device_list(&n);

	for (int i = 0; list && i < n; i++)
		if (!std::strcmp(ibv_get_device_name(list[i]), dev))
			s.ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!s.ctx || ibv_query_gid(s.ctx, 1, 1, &s.gid))
		return false;
	s.pd = ibv_alloc_pd(s.ctx);
	s.cq = s.pd ? ibv_create_cq(s.ctx, 64, nullptr, nullptr, 0) : nullptr;
	s.mr = s.cq ? ibv_reg_mr(s.pd, s.buf.data(), s.buf.size(),
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_READ) : nullptr;
	if (!s.mr)
		return false;
	for (auto &q : s.qp) {
		ibv_qp_init_attr ia{};

		ia.send_cq = s.cq;
		ia.recv_cq = s.cq;
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = 16;
		ia.cap.max_recv_wr = 16;
		ia.cap.max_send_sge = 2;
		ia.cap.max_recv_sge = 2;
		q = ibv_create_qp(s.pd, &ia);
		if (!q)
			return false;
	}
	return to_rts(s.qp[0], s.qp[1]->qp_num, s.gid, timeout) &&
	       to_rts(s.qp[1], s.qp[0]->qp_num, s.gid, timeout);
}

void close_side(Side &s)
{
	for (auto &q : s.qp)
		if (q && ibv_destroy_qp(q))
			check(false, "destroy QP");
	if (s.mr && ibv_dereg_mr(s.mr))
		check(false, "dereg MR");
	if (s.cq && ibv_destroy_cq(s.cq))
		check(false, "destroy CQ");
	if (s.pd && ibv_dealloc_pd(s.pd))
		check(false, "dealloc PD");
	if (s.ctx && ibv_close_device(s.ctx))
		check(false, "close device");
	s = Side{};
}

// Poll up to @want completions for at most a second; returns them.
std::vector<ibv_wc> poll(ibv_cq *cq, int want)
{
	std::vector<ibv_wc> out;

	for (int spin = 0; spin < 1000 && (int)out.size() < want; spin++) {
		ibv_wc wc[8];
		int n = ibv_poll_cq(cq, 8, wc);

		if (n < 0)
			break;
		out.insert(out.end(), wc, wc + n);
		if (!n) {
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, nullptr);
		}
	}
	return out;
}

// SEND from qp[0] to qp[1] of @s, with the data checked.
bool send_works(Side &s)
{
	ibv_sge rsge = {(uintptr_t)s.buf.data() + 4096, 64, s.mr->lkey};
	ibv_recv_wr rwr{}, *rbad;
	ibv_sge ssge = {(uintptr_t)s.buf.data(), 64, s.mr->lkey};
	ibv_send_wr swr{}, *sbad;

	std::memset(s.buf.data(), 0x5a, 64);
	std::memset(s.buf.data() + 4096, 0, 64);
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	swr.sg_list = &ssge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_recv(s.qp[1], &rwr, &rbad) ||
	    ibv_post_send(s.qp[0], &swr, &sbad))
		return false;
	auto wcs = poll(s.cq, 2);
	if (wcs.size() != 2)
		return false;
	for (auto &wc : wcs)
		if (wc.status != IBV_WC_SUCCESS)
			return false;
	return s.buf[4096] == 0x5a && s.buf[4096 + 63] == 0x5a;
}

ibv_qp_state qp_state(ibv_qp *qp)
{
	ibv_qp_attr a{};
	ibv_qp_init_attr ia{};

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

enum class Damage {
	SqProducerFar,		// SQ producer far beyond the ring
	SqSlotsGarbage,		// garbage WQEs within a sane producer
	RqProducerFar,		// RQ producer far beyond the ring
	RqSlotsGarbage,		// garbage receive WQEs
	CqConsumerFar,		// CQ consumer index nonsense
	EverythingRandom,	// every byte of every ring random
};

const char *name(Damage d)
{
	switch (d) {
	case Damage::SqProducerFar: return "SQ producer out of range";
	case Damage::SqSlotsGarbage: return "garbage send WQEs";
	case Damage::RqProducerFar: return "RQ producer out of range";
	case Damage::RqSlotsGarbage: return "garbage receive WQEs";
	case Damage::CqConsumerFar: return "CQ consumer out of range";
	default: return "all rings random";
	}
}

// Post a signaled SEND of 64 bytes with @wr_id on qp[0].
bool post_send(Side &s, uint64_t wr_id)
{
	ibv_sge sge = {(uintptr_t)s.buf.data(), 64, s.mr->lkey};
	ibv_send_wr wr{}, *bad;

	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	return !ibv_post_send(s.qp[0], &wr, &bad);
}

// The ring of @s whose header reads @producer / @consumer; none if not one.
wookie_ring_hdr *ring_with(const std::vector<Mapping> &rings, uint32_t producer,
			   uint32_t consumer)
{
	wookie_ring_hdr *found = nullptr;

	for (auto &m : rings) {
		auto *hdr = reinterpret_cast<wookie_ring_hdr *>(m.start);

		if (hdr->producer == producer && hdr->consumer == consumer) {
			if (found)
				return nullptr;
			found = hdr;
		}
	}
	return found;
}

// Two SENDs complete, four more are fetched by the kernel and never
// acknowledged (the peer is in the error state and no ACK timeout runs),
// then user space rewrites its SQ producer to 4, between the kernel's
// completed index (2) and its fetched one (6), and moves the QP to ERR.
// The flush must end at once with the four fetched WQEs flushed, not count
// the producer up to 2^32 (a soft lockup of one CPU for minutes).
void flush_rewound_producer(const char *dev,
			    const std::set<Mapping> &bystander_maps)
{
	const char *what = "SQ producer rewritten into (completed, fetched)";
	Side v;

	if (!open_side(v, dev, 0)) {
		check(false, std::string(what) + ": set up");
		close_side(v);
		return;
	}
	std::vector<Mapping> rings;
	for (auto &m : ring_mappings())
		if (!bystander_maps.count(m))
			rings.push_back(m);

	// Two SENDs that complete.
	ibv_sge rsge = {(uintptr_t)v.buf.data() + 4096, 64, v.mr->lkey};
	ibv_recv_wr rwr{}, *rbad;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	bool ok = !ibv_post_recv(v.qp[1], &rwr, &rbad) &&
		  !ibv_post_recv(v.qp[1], &rwr, &rbad) &&
		  post_send(v, 100) && post_send(v, 101);
	auto wcs = poll(v.cq, 4);
	int good = 0;
	for (auto &wc : wcs)
		good += wc.status == IBV_WC_SUCCESS;
	check(ok && good == 4, std::string(what) + ": 2 SENDs complete (" +
			       std::to_string(good) + " of 4 completions)");

	// The peer drops everything from now on: four SENDs stay in flight.
	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_ERR;
	ok = !ibv_modify_qp(v.qp[1], &a, IBV_QP_STATE);
	for (uint64_t id = 102; id < 106; id++)
		ok = ok && post_send(v, id);
	wcs = poll(v.cq, 1);
	check(ok && wcs.empty(), std::string(what) +
		  ": 4 SENDs in flight, none completed");

	// SQ of qp[0]: 6 produced, 2 completed (the consumer index).
	wookie_ring_hdr *sq = ring_with(rings, 6, 2);
	check(sq != nullptr, std::string(what) + ": found the SQ (6, 2)");
	if (!sq) {
		close_side(v);
		return;
	}
	sq->producer = 4;

	auto start = std::chrono::steady_clock::now();
	a.qp_state = IBV_QPS_ERR;
	ok = !ibv_modify_qp(v.qp[0], &a, IBV_QP_STATE);
	ibv_send_wr *bad = nullptr;
	ibv_cmd_post_send(v.qp[0], nullptr, &bad);
	wcs = poll(v.cq, 4);
	auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
			  std::chrono::steady_clock::now() - start).count();
	int flushed = 0;
	uint64_t next = 102;
	for (auto &wc : wcs)
		if (wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == next &&
		    wc.qp_num == v.qp[0]->qp_num) {
			flushed++;
			next++;
		}
	check(ok && flushed == 4 && wcs.size() == 4,
	      std::string(what) + ": the 4 fetched WQEs flushed in order, in " +
	      std::to_string(ms) + " ms (" + std::to_string(wcs.size()) +
	      " completions, " + std::to_string(flushed) + " as expected)");
	check(poll(v.cq, 1).empty(), std::string(what) +
	      ": nothing more completes");
	check(qp_state(v.qp[0]) == IBV_QPS_ERR,
	      std::string(what) + ": QP in ERR");
	close_side(v);
}

}  // namespace

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "zz0";
	std::mt19937_64 rng(20261122);
	Side bystander;

	if (!open_side(bystander, dev)) {
		std::printf("FAIL cannot set up the bystander on %s\n", dev);
		return 1;
	}
	check(send_works(bystander), "bystander moves data before");
	auto bystander_maps = ring_mappings();

	for (int d = 0; d <= (int)Damage::EverythingRandom; d++) {
		Damage damage = (Damage)d;
		Side victim;

		if (!open_side(victim, dev)) {
			check(false, std::string("victim set up for ") + name(damage));
			close_side(victim);
			continue;
		}
		check(send_works(victim), std::string("victim works before: ") +
					      name(damage));
		// The victim's rings: the mappings the bystander does not have.
		std::vector<Mapping> rings;
		for (auto &m : ring_mappings())
			if (!bystander_maps.count(m))
				rings.push_back(m);
		check(rings.size() == 5, "victim has 5 rings (CQ, 2 x SQ+RQ): " +
					 std::to_string(rings.size()));
		// Every ring of the victim gets the same damage; the doorbells
		// below decide what the kernel trips over first.
		for (auto &m : rings) {
			auto *hdr = reinterpret_cast<wookie_ring_hdr *>(m.start);
			auto *slots = reinterpret_cast<uint8_t *>(m.start) +
				      WOOKIE_RING_HDR_SIZE;
			size_t slot_bytes = m.len - WOOKIE_RING_HDR_SIZE;

			switch (damage) {
			case Damage::SqProducerFar:
			case Damage::RqProducerFar:
				hdr->producer = hdr->consumer + 0x80000000u;
				break;
			case Damage::SqSlotsGarbage:
			case Damage::RqSlotsGarbage:
				for (size_t i = 0; i < slot_bytes; i++)
					slots[i] = (uint8_t)rng();
				hdr->producer = hdr->consumer + 3;
				break;
			case Damage::CqConsumerFar:
				hdr->consumer = hdr->producer + 0x40000000u;
				break;
			default:
				for (size_t i = 0; i < m.len; i++)
					reinterpret_cast<uint8_t *>(m.start)[i] =
						(uint8_t)rng();
				break;
			}
		}
		// Doorbells, and a message to make the responder read its RQ.
		ibv_send_wr *bad = nullptr;
		ibv_recv_wr *rbad = nullptr;
		for (auto *q : victim.qp) {
			ibv_cmd_post_send(q, nullptr, &bad);
			ibv_cmd_post_recv(q, nullptr, &rbad);
		}
		send_works(victim);
		poll(victim.cq, 16);
		for (auto *q : victim.qp) {
			ibv_qp_state st = qp_state(q);
			check(st == IBV_QPS_ERR || st == IBV_QPS_RTS,
			      std::string(name(damage)) + ": victim QP " +
			      std::to_string(q->qp_num) + " state " +
			      std::to_string(st) + " (ERR or RTS)");
		}
		check(send_works(bystander),
		      std::string("bystander moves data after: ") + name(damage));
		close_side(victim);
	}
	flush_rewound_producer(dev, bystander_maps);
	check(send_works(bystander),
	      "bystander moves data after: SQ producer rewritten back");
	close_side(bystander);
	std::printf("%s: %d failures\n", argv[0], failures);
	return failures ? 1 : 0;
}
