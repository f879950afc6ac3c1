// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// teardown_load [-e] [-g GID_INDEX] DEV_A DEV_B: load for tests/vm/teardown.sh,
// which deletes the devices under it.  One process, its QPs connected to
// each other in-process (no TCP exchange), so that traffic runs within a
// fraction of a second of the start:
//
//   - RC QP pairs A->B and B->A (over the wire when A and B are on two
//     netdevs), and one on A alone and one on B alone (the local path):
//     each requester keeps 16 WRs in flight, a random mix of RDMA WRITE,
//     SEND (the responder keeps receives posted), RDMA READ and
//     FETCH_AND_ADD, 1 byte to 16 KiB;
//   - a UD QP on A sending 512-byte datagrams to one on B;
//   - on each device, a thread creating and destroying a CQ, an MR and a
//     QP (moved to INIT) in a loop: the device may go in the middle of a
//     verb.
//
// With -e the traffic threads sleep on completion events (a completion
// channel), otherwise they poll (napping 50 us when a poll found nothing,
// and the churn threads 1 ms between rounds: the guest has two vCPUs).  "running" is printed once every traffic
// thread has seen 4 successful completions (with the milliseconds since
// the start, as the other progress lines).  A thread stops at its first
// error (a failed post, a completion in error, a failed verb); once every
// thread stopped, the process destroys what it can, prints what each
// thread saw and exits 3.  The test kills it otherwise: on a device that
// is gone, a thread may also wait forever (no completion will come).

#include <infiniband/verbs.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr size_t kSlot = 64 * 1024;      // per QP: 32 KiB send, 32 KiB receive
constexpr size_t kSlots = 16;
constexpr uint32_t kMaxLen = 16 * 1024;
constexpr int kWindow = 16;
constexpr int kRecvs = 64;
constexpr uint32_t kQkey = 0x11111111;
constexpr int kPort = 1;

int gid_index = 1;
bool events;
std::mutex print_lock;

struct Dev {
	std::string name;
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_mr *mr = nullptr;
	char *buf = nullptr;
	ibv_gid gid{};
	ibv_mtu mtu = IBV_MTU_1024;
	uint8_t rd_atom = 1;
	size_t next_slot = 0;
};

struct Qp {
	Dev *d = nullptr;
	ibv_cq *cq = nullptr;
	ibv_comp_channel *ch = nullptr;
	ibv_qp *qp = nullptr;
	size_t slot = 0;
	uint32_t psn = 0;

	char *send_buf() const { return d->buf + slot * kSlot; }
	char *recv_buf() const { return d->buf + slot * kSlot + kSlot / 2; }
	uint64_t addr() const { return reinterpret_cast<uintptr_t>(send_buf()); }
};

struct Worker {
	std::string name;
	std::atomic<uint64_t> ok{0};
	std::atomic<bool> done{false};
	std::string error;
};

std::vector<std::unique_ptr<Worker>> workers;
const auto t_start = std::chrono::steady_clock::now();

// Milliseconds since the start, for the log.
long ms()
{
	return std::chrono::duration_cast<std::chrono::milliseconds>(
		       std::chrono::steady_clock::now() - t_start)
		.count();
}

void say(const std::string &s)
{
	std::lock_guard<std::mutex> g(print_lock);
	std::printf("%s\n", s.c_str());
	std::fflush(stdout);
}

std::string err_text(const char *what)
{
	return std::string(what) + ": " + std::strerror(errno);
}

ibv_context *open_by_name(const std::string &name)
{
	int n = 0;
	ibv_device **list = ibv_get_device_list(&n);
	ibv_context *ctx = nullptr;

	for (int i = 0; list && i < n; i++)
		if (name == ibv_get_device_name(list[i]))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

bool open_dev(Dev &d)
{
	ibv_port_attr pa{};
	ibv_device_attr da{};

	d.ctx = open_by_name(d.name);
	if (!d.ctx) {
		say("open " + d.name + " failed");
		return false;
	}
	if (ibv_query_port(d.ctx, kPort, &pa) || ibv_query_device(d.ctx, &da) ||
	    ibv_query_gid(d.ctx, kPort, gid_index, &d.gid)) {
		say(err_text(("query " + d.name).c_str()));
		return false;
	}
	d.mtu = pa.active_mtu;
	d.rd_atom = static_cast<uint8_t>(std::clamp(da.max_qp_rd_atom, 1, 4));
	d.pd = ibv_alloc_pd(d.ctx);
	d.buf = static_cast<char *>(aligned_alloc(4096, kSlot * kSlots));
	if (!d.pd || !d.buf) {
		say(err_text("alloc_pd"));
		return false;
	}
	std::memset(d.buf, 0, kSlot * kSlots);
	d.mr = ibv_reg_mr(d.pd, d.buf, kSlot * kSlots,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC);
	if (!d.mr) {
		say(err_text("reg_mr"));
		return false;
	}
	return true;
}

bool make_qp(Dev &d, Qp &q, ibv_qp_type type, ibv_comp_channel *ch)
{
	ibv_qp_init_attr ia{};

	q.d = &d;
	q.slot = d.next_slot++;
	q.psn = static_cast<uint32_t>(random()) & 0xffffff;
	q.ch = ch;
	q.cq = ibv_create_cq(d.ctx, 256, nullptr, ch, 0);
	if (!q.cq) {
		say(err_text("create_cq"));
		return false;
	}
	ia.send_cq = q.cq;
	ia.recv_cq = q.cq;
	ia.qp_type = type;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 128;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	q.qp = ibv_create_qp(d.pd, &ia);
	if (!q.qp) {
		say(err_text("create_qp"));
		return false;
	}
	return true;
}

ibv_ah_attr ah_to(const Qp &to)
{
	ibv_ah_attr ah{};

	ah.is_global = 1;
	ah.grh.dgid = to.d->gid;
	ah.grh.sgid_index = static_cast<uint8_t>(gid_index);
	ah.grh.hop_limit = 64;
	ah.port_num = kPort;
	return ah;
}

bool connect_rc(Qp &a, const Qp &b)
{
	ibv_qp_attr at{};

	at.qp_state = IBV_QPS_INIT;
	at.port_num = kPort;
	at.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			     IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return false;
	at = {};
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = std::min(a.d->mtu, b.d->mtu);
	at.dest_qp_num = b.qp->qp_num;
	at.rq_psn = b.psn;
	at.max_dest_rd_atomic = b.d->rd_atom;
	at.min_rnr_timer = 12;
	at.ah_attr = ah_to(b);
	if (ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_AV |
					   IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
					   IBV_QP_MIN_RNR_TIMER))
		return false;
	at = {};
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = a.psn;
	at.timeout = 16;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = a.d->rd_atom;
	return !ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN |
					      IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

bool ready_ud(Qp &q)
{
	ibv_qp_attr at{};

	at.qp_state = IBV_QPS_INIT;
	at.port_num = kPort;
	at.qkey = kQkey;
	if (ibv_modify_qp(q.qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					   IBV_QP_PORT | IBV_QP_QKEY))
		return false;
	at = {};
	at.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(q.qp, &at, IBV_QP_STATE))
		return false;
	at = {};
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = q.psn;
	return !ibv_modify_qp(q.qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

bool post_recv(Qp &q, uint32_t len, uint64_t id)
{
	ibv_sge sge{reinterpret_cast<uintptr_t>(q.recv_buf()), len, q.d->mr->lkey};
	ibv_recv_wr wr{}, *bad = nullptr;

	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return !ibv_post_recv(q.qp, &wr, &bad);
}

// Arm the CQs (those with a channel) of a worker that sleeps on events;
// wait for one when nothing was polled.
bool arm(std::vector<Qp *> qps)
{
	for (Qp *q : qps)
		if (q->ch && ibv_req_notify_cq(q->cq, 0))
			return false;
	return true;
}

bool wait_event(ibv_comp_channel *ch)
{
	ibv_cq *cq = nullptr;
	void *cq_ctx = nullptr;

	if (ibv_get_cq_event(ch, &cq, &cq_ctx))
		return false;
	ibv_ack_cq_events(cq, 1);
	return true;
}

// RC: a requests, b responds (and receives the SENDs).
void rc_worker(Worker &w, Qp &a, Qp &b, unsigned seed)
{
	std::mt19937 rng(seed);
	int outstanding = 0;
	ibv_wc wc[32]; // 16 from each CQ

	for (int i = 0; i < kRecvs; i++)
		if (!post_recv(b, kMaxLen, i)) {
			w.error = err_text("post_recv");
			w.done = true;
			return;
		}
	for (;;) {
		while (outstanding < kWindow) {
			ibv_sge sge{a.addr(), 1 + static_cast<uint32_t>(rng() % kMaxLen),
				    a.d->mr->lkey};
			ibv_send_wr wr{}, *bad = nullptr;

			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.send_flags = IBV_SEND_SIGNALED;
			switch (rng() % 4) {
			case 0:
				wr.opcode = IBV_WR_SEND;
				break;
			case 1:
				wr.opcode = IBV_WR_RDMA_WRITE;
				wr.wr.rdma.remote_addr = b.addr();
				wr.wr.rdma.rkey = b.d->mr->rkey;
				break;
			case 2:
				wr.opcode = IBV_WR_RDMA_READ;
				wr.wr.rdma.remote_addr = b.addr();
				wr.wr.rdma.rkey = b.d->mr->rkey;
				break;
			default:
				wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
				sge.length = 8;
				wr.wr.atomic.remote_addr = b.addr();
				wr.wr.atomic.rkey = b.d->mr->rkey;
				wr.wr.atomic.compare_add = 1;
				break;
			}
			if (ibv_post_send(a.qp, &wr, &bad)) {
				w.error = err_text("post_send");
				w.done = true;
				return;
			}
			outstanding++;
		}
		if (events && !arm({&a, &b})) {
			w.error = err_text("req_notify_cq");
			break;
		}
		int n = ibv_poll_cq(a.cq, 16, wc);
		int m = n < 0 ? 0 : ibv_poll_cq(b.cq, 16, wc + n);

		if (n < 0 || m < 0) {
			w.error = "poll_cq failed";
			break;
		}
		for (int i = 0; i < n + m; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				w.error = std::string("completion ") +
					  ibv_wc_status_str(wc[i].status);
				break;
			}
			if (i < n) {
				outstanding--;
				w.ok++;
			} else if (!post_recv(b, kMaxLen, wc[i].wr_id)) {
				w.error = err_text("post_recv");
				break;
			}
		}
		if (!w.error.empty())
			break;
		if (n + m == 0) {
			if (events && !wait_event(a.ch)) {
				w.error = err_text("get_cq_event");
				break;
			}
			// Polling: a short nap when idle leaves the guest's
			// two vCPUs to the rest of the load.
			if (!events)
				usleep(50);
		}
	}
	w.done = true;
}

// UD: a sends datagrams to b.
void ud_worker(Worker &w, Qp &a, Qp &b, ibv_ah *ah)
{
	int outstanding = 0;
	ibv_wc wc[32]; // 16 from each CQ
	const uint32_t len = 512;

	for (int i = 0; i < kRecvs; i++)
		if (!post_recv(b, len + 40, i)) {
			w.error = err_text("post_recv");
			w.done = true;
			return;
		}
	for (;;) {
		while (outstanding < kWindow) {
			ibv_sge sge{a.addr(), len, a.d->mr->lkey};
			ibv_send_wr wr{}, *bad = nullptr;

			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = IBV_WR_SEND;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = b.qp->qp_num;
			wr.wr.ud.remote_qkey = kQkey;
			if (ibv_post_send(a.qp, &wr, &bad)) {
				w.error = err_text("post_send");
				w.done = true;
				return;
			}
			outstanding++;
		}
		if (events && !arm({&a, &b})) {
			w.error = err_text("req_notify_cq");
			break;
		}
		int n = ibv_poll_cq(a.cq, 16, wc);
		int m = n < 0 ? 0 : ibv_poll_cq(b.cq, 16, wc + n);

		if (n < 0 || m < 0) {
			w.error = "poll_cq failed";
			break;
		}
		for (int i = 0; i < n + m; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				w.error = std::string("completion ") +
					  ibv_wc_status_str(wc[i].status);
				break;
			}
			if (i < n) {
				outstanding--;
				w.ok++;
			} else if (!post_recv(b, len + 40, wc[i].wr_id)) {
				w.error = err_text("post_recv");
				break;
			}
		}
		if (!w.error.empty())
			break;
		if (n + m == 0) {
			if (events && !wait_event(a.ch)) {
				w.error = err_text("get_cq_event");
				break;
			}
			// Polling: a short nap when idle leaves the guest's
			// two vCPUs to the rest of the load.
			if (!events)
				usleep(50);
		}
	}
	w.done = true;
}

// Objects created and destroyed in a loop; stops at the first failure.
void churn_worker(Worker &w, Dev &d)
{
	std::vector<char> buf(8192);

	for (;;) {
		ibv_cq *cq = ibv_create_cq(d.ctx, 16, nullptr, nullptr, 0);
		if (!cq) {
			w.error = err_text("create_cq");
			break;
		}
		ibv_mr *mr = ibv_reg_mr(d.pd, buf.data(), buf.size(),
					IBV_ACCESS_LOCAL_WRITE);
		ibv_qp_init_attr ia{};
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = 8;
		ia.cap.max_recv_wr = 8;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		ibv_qp *qp = mr ? ibv_create_qp(d.pd, &ia) : nullptr;
		ibv_qp_attr at{};
		at.qp_state = IBV_QPS_INIT;
		at.port_num = kPort;
		bool ok = qp && !ibv_modify_qp(qp, &at, IBV_QP_STATE |
						       IBV_QP_PKEY_INDEX |
						       IBV_QP_PORT |
						       IBV_QP_ACCESS_FLAGS);
		if (!ok)
			w.error = err_text(!mr ? "reg_mr" : !qp ? "create_qp" : "modify_qp");
		if ((qp && ibv_destroy_qp(qp)) || (mr && ibv_dereg_mr(mr)) ||
		    ibv_destroy_cq(cq)) {
			if (w.error.empty())
				w.error = err_text("destroy");
		}
		if (!w.error.empty())
			break;
		w.ok++;
		usleep(1000);
	}
	w.done = true;
}

Worker &add_worker(const std::string &name)
{
	workers.push_back(std::make_unique<Worker>());
	workers.back()->name = name;
	return *workers.back();
}

} // namespace

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "eg:")) != -1) {
		switch (opt) {
		case 'e':
			events = true;
			break;
		case 'g':
			gid_index = std::atoi(optarg);
			break;
		default:
			std::fprintf(stderr, "usage: %s [-e] [-g GID_INDEX] DEV_A DEV_B\n", argv[0]);
			return 2;
		}
	}
	if (argc - optind != 2) {
		std::fprintf(stderr, "usage: %s [-e] [-g GID_INDEX] DEV_A DEV_B\n", argv[0]);
		return 2;
	}
	srandom(static_cast<unsigned>(getpid()));

	Dev devs[2];
	devs[0].name = argv[optind];
	devs[1].name = argv[optind + 1];
	for (Dev &d : devs)
		if (!open_dev(d))
			return 1;

	ibv_comp_channel *ch[2] = {};
	if (events)
		for (int i = 0; i < 2; i++)
			if (!(ch[i] = ibv_create_comp_channel(devs[i].ctx))) {
				say(err_text("create_comp_channel"));
				return 1;
			}

	// RC pairs: A->B, B->A, A->A, B->B; UD A->B.  With events, a
	// worker sleeps on its requester's channel; its responder's CQ is on
	// that channel too when both are on one device, and has none
	// otherwise (its receive completions are polled whenever the
	// requester's come).
	struct Pair {
		int a, b;
		const char *name;
	};
	const Pair pairs[] = {{0, 1, "rc A->B"}, {1, 0, "rc B->A"},
			      {0, 0, "rc A->A"}, {1, 1, "rc B->B"}};
	static Qp rc[4][2];
	for (int i = 0; i < 4; i++) {
		Pair p = pairs[i];
		if (!make_qp(devs[p.a], rc[i][0], IBV_QPT_RC, ch[p.a]) ||
		    !make_qp(devs[p.b], rc[i][1], IBV_QPT_RC,
			     p.a == p.b ? ch[p.a] : nullptr) ||
		    !connect_rc(rc[i][0], rc[i][1]) ||
		    !connect_rc(rc[i][1], rc[i][0])) {
			say(err_text((std::string("set up ") + p.name).c_str()));
			return 1;
		}
	}
	static Qp ud[2];
	if (!make_qp(devs[0], ud[0], IBV_QPT_UD, ch[0]) ||
	    !make_qp(devs[1], ud[1], IBV_QPT_UD, nullptr) || !ready_ud(ud[0]) ||
	    !ready_ud(ud[1])) {
		say(err_text("set up ud"));
		return 1;
	}
	ibv_ah_attr aha = ah_to(ud[1]);
	ibv_ah *ah = ibv_create_ah(devs[0].pd, &aha);
	if (!ah) {
		say(err_text("create_ah"));
		return 1;
	}

	say("connected (" + std::to_string(ms()) + " ms)");
	std::vector<std::thread> threads;
	for (int i = 0; i < 4; i++)
		threads.emplace_back(rc_worker, std::ref(add_worker(pairs[i].name)),
				     std::ref(rc[i][0]), std::ref(rc[i][1]),
				     static_cast<unsigned>(random()));
	threads.emplace_back(ud_worker, std::ref(add_worker("ud A->B")),
			     std::ref(ud[0]), std::ref(ud[1]), ah);
	const size_t traffic = workers.size();
	for (int i = 0; i < 2; i++)
		threads.emplace_back(churn_worker,
				     std::ref(add_worker("churn " + devs[i].name)),
				     std::ref(devs[i]));

	bool running = false;
	for (;;) {
		bool all_done = true, all_going = true;

		for (size_t i = 0; i < workers.size(); i++) {
			all_done = all_done && workers[i]->done;
			if (i < traffic)
				all_going = all_going && workers[i]->ok >= 4;
		}
		if (!running && all_going) {
			say("running (" + std::to_string(ms()) + " ms)");
			running = true;
		}
		if (all_done)
			break;
		usleep(20000);
	}
	for (auto &t : threads)
		t.join();
	say("all stopped (" + std::to_string(ms()) + " ms)");
	for (auto &w : workers)
		say(w->name + ": " + std::to_string(w->ok.load()) + " ok, then " +
		    w->error);

	// Destroy what can be destroyed; on a device that went, each verb
	// may fail, none may crash.
	int failed = 0;
	failed += ibv_destroy_ah(ah) != 0;
	for (Qp &q : ud)
		failed += (ibv_destroy_qp(q.qp) != 0) + (ibv_destroy_cq(q.cq) != 0);
	for (auto &p : rc)
		for (Qp &q : p)
			failed += (ibv_destroy_qp(q.qp) != 0) + (ibv_destroy_cq(q.cq) != 0);
	for (ibv_comp_channel *c : ch)
		if (c)
			failed += ibv_destroy_comp_channel(c) != 0;
	for (Dev &d : devs) {
		failed += (ibv_dereg_mr(d.mr) != 0) + (ibv_dealloc_pd(d.pd) != 0);
		failed += ibv_close_device(d.ctx) != 0;
	}
	say("destroyed, " + std::to_string(failed) + " verbs failed");
	return 3;
}
