// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// roce_target DEVICE GID_INDEX PEER_IP [--ud] [--psn N] [--peer-qpn N]
//             [--qkey N] [--timeout N]
//
// The victim of a hostile peer: one QP (RC, or UD with --ud) whose peer is
// whoever sends from PEER_IP (roce_inject), so that the test knows its
// QPN, PSNs, R_Key and buffers.  RC: connected to --peer-qpn (0xabcde, a
// QP that need not exist) at PEER_IP, send and receive PSN --psn (0x100),
// path MTU 1024, ACK timeout --timeout (0: infinite, no retransmission:
// only the peer's packets move the QP), 7 retries.  An MR of 4096 bytes, zeroed, open to remote
// write, read and atomics, is the peer's target; receives and local
// buffers are in another MR.
//
// Prints "qpn Q psn P rkey R va V mr_len 4096 qkey K", then reads commands
// from stdin and answers each with one line:
//   recv                 post a receive of 4096 bytes        -> ok | error E
//   send LEN [fence] | write LEN [fence] | read LEN [fence]
//                        post it (signaled, fenced if asked; LEN at most
//                        4096, WRITE 65536: lbuf holds that much); WRITE
//                        and READ at remote address 0x10000, R_Key 0x1234
//                                                            -> ok | error E
//   fadd 8 [fence]       FETCH & ADD 1 there, the original value to
//                        lbuf 0 (zeroed first)               -> ok | error E
//   poll MS [N]          poll the CQ for MS ms or until N completions
//                        -> wc COUNT [STATUS/OPCODE/LEN]...
//   events MS            async events seen within MS ms -> events COUNT [NAME]...
//   state                -> state RESET|INIT|RTR|RTS|SQD|SQE|ERR
//   check mr|rbuf|lbuf OFF LEN FILL
//                        bytes that differ from (FILL + i) & 0xff -> mismatch N
//   nonzero mr|rbuf|lbuf OFF LEN                              -> nonzero N
//   quit                 destroy everything                   -> bye
// EOF is quit.  Exit 0 when set-up and tear-down succeeded.

#include <infiniband/verbs.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr size_t kMrLen = 4096;
// The receive buffer (4096 bytes), then the send/read buffer.
constexpr size_t kLocalLen = 4096 + 65536;
constexpr uint64_t kRemoteVa = 0x10000;
constexpr uint32_t kRemoteRkey = 0x1234;

struct Target {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	ibv_qp *qp = nullptr;
	ibv_ah *ah = nullptr;
	ibv_mr *mr = nullptr;		// the peer's target
	ibv_mr *local = nullptr;	// receives, sends, READ destination
	alignas(4096) uint8_t mr_buf[kMrLen] = {};
	alignas(4096) uint8_t local_buf[kLocalLen] = {};
	bool ud = false;
	uint32_t psn = 0x100;
	uint32_t peer_qpn = 0xabcde;
	uint32_t qkey = 0x11111111;
	uint8_t timeout = 0;
	int gid_index = 1;
	ibv_gid peer{};
	uint64_t wr_id = 0;
};

bool fail(const char *what)
{
	std::fprintf(stderr, "roce_target: %s: %s\n", what, std::strerror(errno));
	return false;
}

bool open_device(Target &t, const char *name)
{
	int n;
	ibv_device **list = ibv_get_device_list(&n);

	for (int i = 0; list && i < n; i++)
		if (!std::strcmp(ibv_get_device_name(list[i]), name))
			t.ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!t.ctx) {
		std::fprintf(stderr, "roce_target: cannot open %s\n", name);
		return false;
	}
	int flags = fcntl(t.ctx->async_fd, F_GETFL);
	if (fcntl(t.ctx->async_fd, F_SETFL, flags | O_NONBLOCK))
		return fail("async fd");
	return true;
}

bool to_rts(Target &t)
{
	ibv_qp_attr a{};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (t.ud) {
		a.qkey = t.qkey;
		mask |= IBV_QP_QKEY;
	} else {
		// And FLUSH to global visibility (IBV_ACCESS_FLUSH_GLOBAL of
		// rdma-core 45 on, which Debian's 44 headers do not name):
		// a FLUSH then fails on the MR's rights, not the QP's.
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC | (1 << 8);
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	if (ibv_modify_qp(t.qp, &a, mask))
		return fail("modify to INIT");

	a = {};
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (!t.ud) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = t.peer_qpn;
		a.rq_psn = t.psn;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = t.peer;
		a.ah_attr.grh.sgid_index = (uint8_t)t.gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
	}
	if (ibv_modify_qp(t.qp, &a, mask))
		return fail("modify to RTR");

	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = t.psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (!t.ud) {
		a.timeout = t.timeout;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	if (ibv_modify_qp(t.qp, &a, mask))
		return fail("modify to RTS");
	return true;
}

bool setup(Target &t, const char *dev)
{
	if (!open_device(t, dev))
		return false;
	t.pd = ibv_alloc_pd(t.ctx);
	if (!t.pd)
		return fail("alloc PD");
	t.cq = ibv_create_cq(t.ctx, 64, nullptr, nullptr, 0);
	if (!t.cq)
		return fail("create CQ");
	t.mr = ibv_reg_mr(t.pd, t.mr_buf, kMrLen,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	t.local = ibv_reg_mr(t.pd, t.local_buf, kLocalLen,
			     IBV_ACCESS_LOCAL_WRITE);
	if (!t.mr || !t.local)
		return fail("register MRs");

	ibv_qp_init_attr ia{};
	ia.send_cq = t.cq;
	ia.recv_cq = t.cq;
	ia.qp_type = t.ud ? IBV_QPT_UD : IBV_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	t.qp = ibv_create_qp(t.pd, &ia);
	if (!t.qp)
		return fail("create QP");
	if (!to_rts(t))
		return false;
	if (t.ud) {
		ibv_ah_attr ah{};

		ah.is_global = 1;
		ah.grh.dgid = t.peer;
		ah.grh.sgid_index = (uint8_t)t.gid_index;
		ah.grh.hop_limit = 64;
		ah.port_num = 1;
		t.ah = ibv_create_ah(t.pd, &ah);
		if (!t.ah)
			return fail("create AH");
	}
	return true;
}

bool teardown(Target &t)
{
	bool ok = true;

	if (t.qp && ibv_destroy_qp(t.qp))
		ok = fail("destroy QP");
	if (t.ah && ibv_destroy_ah(t.ah))
		ok = fail("destroy AH");
	if (t.mr && ibv_dereg_mr(t.mr))
		ok = fail("dereg MR");
	if (t.local && ibv_dereg_mr(t.local))
		ok = fail("dereg local MR");
	if (t.cq && ibv_destroy_cq(t.cq))
		ok = fail("destroy CQ");
	if (t.pd && ibv_dealloc_pd(t.pd))
		ok = fail("dealloc PD");
	if (t.ctx && ibv_close_device(t.ctx))
		ok = fail("close device");
	t.qp = nullptr;
	t.ah = nullptr;
	t.mr = t.local = nullptr;
	t.cq = nullptr;
	t.pd = nullptr;
	t.ctx = nullptr;
	return ok;
}

std::string post_recv(Target &t)
{
	ibv_sge sge = {(uintptr_t)t.local_buf, 4096, t.local->lkey};
	ibv_recv_wr wr{}, *bad;

	wr.wr_id = ++t.wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	int err = ibv_post_recv(t.qp, &wr, &bad);
	return err ? "error " + std::to_string(err) : "ok";
}

std::string post_send(Target &t, const std::string &op, uint32_t len,
		      bool fence)
{
	ibv_sge sge = {(uintptr_t)t.local_buf + 4096, len, t.local->lkey};
	ibv_send_wr wr{}, *bad;

	if (len > (op == "write" ? kLocalLen - 4096 : 4096) ||
	    (op == "fadd" && len != 8))
		return "error length";
	if (op == "send")
		for (uint32_t i = 0; i < len; i++)
			t.local_buf[4096 + i] = (uint8_t)(0x5a + i);
	wr.wr_id = ++t.wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED | (fence ? IBV_SEND_FENCE : 0);
	if (op == "send") {
		wr.opcode = IBV_WR_SEND;
		if (t.ud) {
			wr.wr.ud.ah = t.ah;
			wr.wr.ud.remote_qpn = t.peer_qpn;
			wr.wr.ud.remote_qkey = t.qkey;
		}
	} else if (op == "write" || op == "read") {
		wr.opcode = op == "write" ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = kRemoteVa;
		wr.wr.rdma.rkey = kRemoteRkey;
	} else if (op == "fadd") {
		// The original value lands where a READ's data would.
		std::memset(t.local_buf + 4096, 0, 8);
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = kRemoteVa;
		wr.wr.atomic.rkey = kRemoteRkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		return "error opcode";
	}
	int err = ibv_post_send(t.qp, &wr, &bad);
	return err ? "error " + std::to_string(err) : "ok";
}

const char *status_name(ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_SUCCESS: return "success";
	case IBV_WC_LOC_LEN_ERR: return "loc_len";
	case IBV_WC_LOC_QP_OP_ERR: return "loc_qp_op";
	case IBV_WC_LOC_PROT_ERR: return "loc_prot";
	case IBV_WC_WR_FLUSH_ERR: return "flush";
	case IBV_WC_BAD_RESP_ERR: return "bad_resp";
	case IBV_WC_LOC_ACCESS_ERR: return "loc_access";
	case IBV_WC_REM_INV_REQ_ERR: return "rem_inv_req";
	case IBV_WC_REM_ACCESS_ERR: return "rem_access";
	case IBV_WC_REM_OP_ERR: return "rem_op";
	case IBV_WC_RETRY_EXC_ERR: return "retry_exc";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "rnr_retry_exc";
	default: return "other";
	}
}

const char *opcode_name(ibv_wc_opcode o)
{
	switch (o) {
	case IBV_WC_SEND: return "send";
	case IBV_WC_RDMA_WRITE: return "rdma_write";
	case IBV_WC_RDMA_READ: return "rdma_read";
	case IBV_WC_COMP_SWAP: return "comp_swap";
	case IBV_WC_FETCH_ADD: return "fetch_add";
	case IBV_WC_RECV: return "recv";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "recv_rdma_imm";
	default: return "other";
	}
}

double now_ms()
{
	timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void pause_ms(long ms)
{
	timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, nullptr);
}

std::string poll_cq(Target &t, long ms, long want)
{
	std::vector<ibv_wc> got;
	std::string out;

	for (double end = now_ms() + ms;
	     now_ms() < end && (want <= 0 || (long)got.size() < want);) {
		ibv_wc wc[8];
		int n = ibv_poll_cq(t.cq, 8, wc);

		if (n < 0)
			return "error poll";
		got.insert(got.end(), wc, wc + n);
		if (!n)
			pause_ms(2);
	}
	out = "wc " + std::to_string(got.size());
	for (auto &wc : got)
		out += std::string(" ") + status_name(wc.status) + "/" +
		       (wc.status == IBV_WC_SUCCESS ? opcode_name(wc.opcode) :
						      "-") +
		       "/" + std::to_string(wc.byte_len);
	return out;
}

const char *event_name(ibv_event_type e)
{
	switch (e) {
	case IBV_EVENT_QP_FATAL: return "qp_fatal";
	case IBV_EVENT_QP_REQ_ERR: return "qp_req_err";
	case IBV_EVENT_QP_ACCESS_ERR: return "qp_access_err";
	case IBV_EVENT_COMM_EST: return "comm_est";
	case IBV_EVENT_SQ_DRAINED: return "sq_drained";
	case IBV_EVENT_QP_LAST_WQE_REACHED: return "last_wqe";
	case IBV_EVENT_CQ_ERR: return "cq_err";
	case IBV_EVENT_PORT_ACTIVE: return "port_active";
	case IBV_EVENT_PORT_ERR: return "port_err";
	default: return "other";
	}
}

std::string events(Target &t, long ms)
{
	std::vector<std::string> got;

	for (double end = now_ms() + ms; now_ms() < end;) {
		pollfd p = {t.ctx->async_fd, POLLIN, 0};
		ibv_async_event ev;

		if (poll(&p, 1, (int)(end - now_ms()) + 1) <= 0)
			continue;
		if (ibv_get_async_event(t.ctx, &ev))
			continue;
		got.push_back(event_name(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	std::string out = "events " + std::to_string(got.size());
	for (auto &e : got)
		out += " " + e;
	return out;
}

std::string state(Target &t)
{
	static const char *names[] = {"RESET", "INIT", "RTR", "RTS",
				      "SQD", "SQE", "ERR"};
	ibv_qp_attr a{};
	ibv_qp_init_attr ia{};

	if (ibv_query_qp(t.qp, &a, IBV_QP_STATE, &ia))
		return "error query";
	if (a.qp_state > IBV_QPS_ERR)
		return "state UNKNOWN";
	return std::string("state ") + names[a.qp_state];
}

// A buffer by name, or nullptr; @len bytes from @off must fit.
const uint8_t *buffer(Target &t, const std::string &which, size_t off,
		      size_t len)
{
	if (which == "mr" && off + len <= kMrLen)
		return t.mr_buf + off;
	if (which == "rbuf" && off + len <= 4096)
		return t.local_buf + off;
	if (which == "lbuf" && off + len <= 4096)
		return t.local_buf + 4096 + off;
	return nullptr;
}

std::string command(Target &t, const std::string &line, bool &quit)
{
	std::istringstream in(line);
	std::string cmd, which;
	long a = 0, b = 0, c = 0;

	in >> cmd;
	// Numbers in C syntax (0x...), as the test writes them.
	auto num = [&in](long &v) {
		std::string s;

		if (in >> s)
			v = std::strtol(s.c_str(), nullptr, 0);
	};
	if (cmd == "recv")
		return post_recv(t);
	if (cmd == "send" || cmd == "write" || cmd == "read" ||
	    cmd == "fadd") {
		std::string flag;

		num(a);
		in >> flag;
		if (!flag.empty() && flag != "fence")
			return "error flag";
		return post_send(t, cmd, (uint32_t)a, flag == "fence");
	}
	if (cmd == "poll") {
		num(a);
		num(b);
		return poll_cq(t, a, b);
	}
	if (cmd == "events") {
		num(a);
		return events(t, a);
	}
	if (cmd == "state")
		return state(t);
	if (cmd == "check" || cmd == "nonzero") {
		in >> which;
		num(a);
		num(b);
		num(c);
		const uint8_t *p = buffer(t, which, (size_t)a, (size_t)b);
		long bad = 0;

		if (!p || a < 0 || b < 0)
			return "error range";
		for (long i = 0; i < b; i++)
			if (cmd == "check" ? p[i] != (uint8_t)(c + i) : p[i])
				bad++;
		return (cmd == "check" ? "mismatch " : "nonzero ") +
		       std::to_string(bad);
	}
	if (cmd == "quit") {
		quit = true;
		return teardown(t) ? "bye" : "error teardown";
	}
	return "error unknown command";
}

}  // namespace

int main(int argc, char **argv)
{
	static Target t;
	std::vector<std::string> pos;

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];

		if (a == "--ud") {
			t.ud = true;
		} else if ((a == "--psn" || a == "--peer-qpn" || a == "--qkey" ||
			    a == "--timeout") && i + 1 < argc) {
			uint32_t v = (uint32_t)std::strtoul(argv[++i], nullptr, 0);

			if (a == "--psn")
				t.psn = v & 0xffffff;
			else if (a == "--peer-qpn")
				t.peer_qpn = v & 0xffffff;
			else if (a == "--timeout")
				t.timeout = (uint8_t)(v & 0x1f);
			else
				t.qkey = v;
		} else {
			pos.push_back(a);
		}
	}
	if (pos.size() != 3) {
		std::fprintf(stderr, "usage: roce_target DEVICE GID_INDEX PEER_IP [--ud] [--psn N] [--peer-qpn N] [--qkey N] [--timeout N]\n");
		return 2;
	}
	t.gid_index = std::atoi(pos[1].c_str());
	in_addr v4;
	if (inet_pton(AF_INET, pos[2].c_str(), &v4) == 1) {
		t.peer.raw[10] = 0xff;
		t.peer.raw[11] = 0xff;
		std::memcpy(&t.peer.raw[12], &v4, 4);
	} else if (inet_pton(AF_INET6, pos[2].c_str(), t.peer.raw) != 1) {
		std::fprintf(stderr, "roce_target: bad address %s\n",
			     pos[2].c_str());
		return 2;
	}

	std::setvbuf(stdout, nullptr, _IOLBF, 0);
	if (!setup(t, pos[0].c_str())) {
		std::printf("error setup\n");
		teardown(t);
		return 1;
	}
	std::printf("qpn 0x%06x psn 0x%06x rkey 0x%08x va 0x%llx mr_len %zu qkey 0x%08x\n",
		    t.qp->qp_num, t.psn, t.mr->rkey,
		    (unsigned long long)(uintptr_t)t.mr_buf, kMrLen, t.qkey);

	std::string line;
	bool quit = false;
	while (!quit && std::getline(std::cin, line)) {
		std::string reply = command(t, line, quit);

		std::printf("%s\n", reply.c_str());
		if (quit)
			return reply == "bye" ? 0 : 1;
	}
	return teardown(t) ? 0 : 1;
}
