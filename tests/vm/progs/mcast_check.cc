// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mcast_check: multicast on UD QPs of one device through the verbs alone
// (ibv_attach_mcast, no rdma_cm), over the GID given: an IPv4-mapped GID
// sends to 239.1.2.3, an IPv6 one to ff0e::1:2:3.  Checks, each printed
// as "ok" or "FAIL":
//
//   - attach is refused for an RC QP and for a unicast GID (EINVAL), and
//     detach of a QP that is not attached (EINVAL); a second attach of the
//     same QP (with another LID, which uverbs tells apart) succeeds, and
//     the QP stays attached until it is detached as often;
//   - a QP sends N messages to the group (QPN 0xffffff): each of the two
//     QPs attached receives each once, in order, with its bytes, the
//     sender's QPN, and a GRH whose destination is the group;
//   - the sender's own QP, attached too, gets a copy (the device loops
//     multicast back, as a NIC does without the block-loopback flag);
//   - a message with another Q_Key reaches no one;
//   - after one receiver detaches, only the other receives;
//   - destroying an attached QP fails (EBUSY); detached, it succeeds;
//   - max_mcast_qp_attach QPs attach to one group, one more is refused.
//
// usage: mcast_check -d DEV [-g GID_INDEX] [-n MESSAGES]
// Exit 0 when every check passed.

#include <infiniband/verbs.h>

#include <arpa/inet.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr uint32_t kQkey = 0x11111111;
constexpr uint32_t kMcastQpn = 0xffffff;
constexpr int kGrh = 40;
constexpr int kMsg = 256;
constexpr int kSlot = kGrh + kMsg;

int failures;

void check(bool ok, const std::string &what)
{
	std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
	if (!ok)
		failures++;
}

[[noreturn]] void die(const char *what)
{
	std::fprintf(stderr, "mcast_check: %s: %s\n", what, std::strerror(errno));
	std::exit(2);
}

struct Ud {
	ibv_cq *cq = nullptr;
	ibv_qp *qp = nullptr;
	ibv_mr *mr = nullptr;
	std::vector<uint8_t> buf;
	// Receive completions send_one() polled while waiting for its send.
	int recvs_seen = 0;
};

struct Ctx {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	int gid_index = 1;
	ibv_gid gid{};
};

Ud make_ud(Ctx &c, int depth)
{
	Ud u;

	u.buf.resize(static_cast<size_t>(depth) * kSlot);
	u.cq = ibv_create_cq(c.ctx, 2 * depth, nullptr, nullptr, 0);
	if (!u.cq)
		die("ibv_create_cq");
	u.mr = ibv_reg_mr(c.pd, u.buf.data(), u.buf.size(),
			  IBV_ACCESS_LOCAL_WRITE);
	if (!u.mr)
		die("ibv_reg_mr");
	ibv_qp_init_attr init{};
	init.send_cq = u.cq;
	init.recv_cq = u.cq;
	init.qp_type = IBV_QPT_UD;
	init.cap.max_send_wr = depth;
	init.cap.max_recv_wr = depth;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	u.qp = ibv_create_qp(c.pd, &init);
	if (!u.qp)
		die("ibv_create_qp(UD)");
	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = kQkey;
	if (ibv_modify_qp(u.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					IBV_QP_PORT | IBV_QP_QKEY))
		die("modify to INIT");
	a = {};
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(u.qp, &a, IBV_QP_STATE))
		die("modify to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(u.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("modify to RTS");
	return u;
}

void free_ud(Ud &u)
{
	if (u.qp && ibv_destroy_qp(u.qp))
		die("ibv_destroy_qp");
	if (u.mr && ibv_dereg_mr(u.mr))
		die("ibv_dereg_mr");
	if (u.cq && ibv_destroy_cq(u.cq))
		die("ibv_destroy_cq");
	u = Ud();
}

// @n receives into slots @first.. of @u's buffer.
void post_recvs(Ud &u, int n, int first = 0)
{
	for (int i = first; i < first + n; i++) {
		ibv_sge sge{};
		sge.addr = reinterpret_cast<uintptr_t>(u.buf.data()) +
			   static_cast<uintptr_t>(i) * kSlot;
		sge.length = kSlot;
		sge.lkey = u.mr->lkey;
		ibv_recv_wr wr{}, *bad;
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (ibv_post_recv(u.qp, &wr, &bad))
			die("ibv_post_recv");
	}
}

uint8_t byte_of(int msg, int i)
{
	return static_cast<uint8_t>(msg * 31 + i * 7 + 1);
}

// Send message @msg (kMsg bytes) from slot 0 of @u's buffer; wait for its
// completion.
bool send_one(Ud &u, ibv_ah *ah, int msg, uint32_t qkey)
{
	uint8_t *p = u.buf.data();

	for (int i = 0; i < kMsg; i++)
		p[i] = byte_of(msg, i);
	ibv_sge sge{};
	sge.addr = reinterpret_cast<uintptr_t>(p);
	sge.length = kMsg;
	sge.lkey = u.mr->lkey;
	ibv_send_wr wr{}, *bad;
	wr.wr_id = 1000 + msg;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = kMcastQpn;
	wr.wr.ud.remote_qkey = qkey;
	if (ibv_post_send(u.qp, &wr, &bad))
		die("ibv_post_send");
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
	ibv_wc wc{};
	while (std::chrono::steady_clock::now() < end) {
		int n = ibv_poll_cq(u.cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n && wc.opcode == IBV_WC_SEND)
			return wc.status == IBV_WC_SUCCESS;
		if (n) {
			// A receive: the sender's own copy of a message.
			u.recvs_seen++;
			continue;
		}
		usleep(200);
	}
	return false;
}

// Up to @n receive completions of @u within @wait_ms (sends skipped).
std::vector<ibv_wc> recv_wcs(Ud &u, int n, int wait_ms)
{
	std::vector<ibv_wc> got;
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::milliseconds(wait_ms);

	while (static_cast<int>(got.size()) < n &&
	       std::chrono::steady_clock::now() < end) {
		ibv_wc wc{};
		int r = ibv_poll_cq(u.cq, 1, &wc);
		if (r < 0)
			die("ibv_poll_cq");
		if (r && wc.opcode & IBV_WC_RECV)
			got.push_back(wc);
		else if (!r)
			usleep(200);
	}
	return got;
}

// Did @u receive messages @first.. in order, each once, intact?
bool received(Ud &u, const ibv_gid &group, uint32_t src_qpn, int first,
	      int n, std::string *why)
{
	std::vector<ibv_wc> wcs = recv_wcs(u, n, 20000);

	if (static_cast<int>(wcs.size()) != n) {
		*why = std::to_string(wcs.size()) + " of " + std::to_string(n);
		return false;
	}
	for (int k = 0; k < n; k++) {
		const ibv_wc &wc = wcs[k];
		const uint8_t *slot = u.buf.data() + wc.wr_id * kSlot;

		if (wc.status != IBV_WC_SUCCESS || wc.byte_len != kSlot ||
		    wc.src_qp != src_qpn || !(wc.wc_flags & IBV_WC_GRH)) {
			*why = "completion " + std::to_string(k) + ": status " +
			       std::to_string(wc.status) + " len " +
			       std::to_string(wc.byte_len) + " src_qp " +
			       std::to_string(wc.src_qp);
			return false;
		}
		// The GRH's destination: IPv6's at byte 24, IPv4's at 36.
		bool dst_ok = group.raw[10] == 0xff && group.raw[0] == 0 ?
			!std::memcmp(slot + 36, group.raw + 12, 4) :
			!std::memcmp(slot + 24, group.raw, 16);
		if (!dst_ok) {
			*why = "GRH destination is not the group";
			return false;
		}
		for (int i = 0; i < kMsg; i++) {
			if (slot[kGrh + i] != byte_of(first + k, i)) {
				*why = "message " + std::to_string(first + k) +
				       " byte " + std::to_string(i) + " differs";
				return false;
			}
		}
	}
	return true;
}

}  // namespace

int main(int argc, char **argv)
{
	const char *dev_name = nullptr;
	int messages = 8;
	Ctx c;
	int opt;

	while ((opt = getopt(argc, argv, "d:g:n:")) != -1) {
		switch (opt) {
		case 'd': dev_name = optarg; break;
		case 'g': c.gid_index = std::atoi(optarg); break;
		case 'n': messages = std::atoi(optarg); break;
		default:
			std::fprintf(stderr, "usage: mcast_check -d DEV [-g GID_INDEX] [-n MESSAGES]\n");
			return 2;
		}
	}
	if (!dev_name || messages < 1 || messages > 63) {
		std::fprintf(stderr, "usage: mcast_check -d DEV [-g GID_INDEX] [-n 1..63]\n");
		return 2;
	}
	int num;
	ibv_device **list = ibv_get_device_list(&num);
	if (!list)
		die("ibv_get_device_list");
	for (int i = 0; i < num && !c.ctx; i++)
		if (!std::strcmp(ibv_get_device_name(list[i]), dev_name))
			c.ctx = ibv_open_device(list[i]);
	if (!c.ctx)
		die(dev_name);
	c.pd = ibv_alloc_pd(c.ctx);
	if (!c.pd)
		die("ibv_alloc_pd");
	if (ibv_query_gid(c.ctx, 1, c.gid_index, &c.gid))
		die("ibv_query_gid");
	ibv_device_attr dattr{};
	if (ibv_query_device(c.ctx, &dattr))
		die("ibv_query_device");

	bool v4 = !std::memcmp(c.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
	ibv_gid group{}, unicast = c.gid;
	if (v4) {
		group.raw[10] = group.raw[11] = 0xff;
		inet_pton(AF_INET, "239.1.2.3", group.raw + 12);
	} else {
		inet_pton(AF_INET6, "ff0e::1:2:3", group.raw);
	}
	std::printf("# %s GID index %d (%s), group %s\n", dev_name,
		    c.gid_index, v4 ? "IPv4" : "IPv6",
		    v4 ? "239.1.2.3" : "ff0e::1:2:3");

	// --- refusals ---
	{
		ibv_cq *cq = ibv_create_cq(c.ctx, 4, nullptr, nullptr, 0);
		ibv_qp_init_attr init{};
		init.send_cq = init.recv_cq = cq;
		init.qp_type = IBV_QPT_RC;
		init.cap.max_send_wr = init.cap.max_recv_wr = 1;
		init.cap.max_send_sge = init.cap.max_recv_sge = 1;
		ibv_qp *rc = cq ? ibv_create_qp(c.pd, &init) : nullptr;
		if (!rc)
			die("RC QP");
		int rc_err = ibv_attach_mcast(rc, &group, 0);
		check(rc_err == EINVAL, "attach of an RC QP: EINVAL (got " +
					       std::to_string(rc_err) + ")");
		ibv_destroy_qp(rc);
		ibv_destroy_cq(cq);
	}
	Ud a = make_ud(c, 64), b = make_ud(c, 64), r2 = make_ud(c, 64);
	int err = ibv_attach_mcast(b.qp, &unicast, 0);
	check(err == EINVAL, "attach to a unicast GID: EINVAL (got " +
				     std::to_string(err) + ")");
	err = ibv_detach_mcast(b.qp, &group, 0);
	check(err == EINVAL, "detach of a QP not attached: EINVAL (got " +
				     std::to_string(err) + ")");

	// --- delivery ---
	check(!ibv_attach_mcast(b.qp, &group, 0), "attach receiver 1");
	check(!ibv_attach_mcast(r2.qp, &group, 0), "attach receiver 2");
	check(!ibv_attach_mcast(a.qp, &group, 0), "attach the sender");
	check(!ibv_attach_mcast(b.qp, &group, 1),
	      "attach receiver 1 again (LID 1): succeeds");

	ibv_ah_attr ah_attr{};
	ah_attr.is_global = 1;
	ah_attr.port_num = 1;
	ah_attr.grh.dgid = group;
	ah_attr.grh.sgid_index = c.gid_index;
	ah_attr.grh.hop_limit = 1;
	ibv_ah *ah = ibv_create_ah(c.pd, &ah_attr);
	if (!ah)
		die("ibv_create_ah(group)");

	post_recvs(b, messages);
	post_recvs(r2, messages);
	// The sender sends from slot 0: its own copies land in slots 1...
	post_recvs(a, messages, 1);
	bool sent = true;
	for (int m = 0; m < messages; m++)
		sent = send_one(a, ah, m, kQkey) && sent;
	check(sent, std::to_string(messages) + " sends to the group complete");
	std::string why;
	check(received(b, group, a.qp->qp_num, 0, messages, &why),
	      "receiver 1 got each message once, in order, intact " + why);
	why.clear();
	check(received(r2, group, a.qp->qp_num, 0, messages, &why),
	      "receiver 2 got each message once, in order, intact " + why);
	int own = a.recvs_seen +
		  static_cast<int>(recv_wcs(a, messages - a.recvs_seen,
					    20000).size());
	check(own == messages, "the sender's QP got its own " +
			       std::to_string(own) + " of " +
			       std::to_string(messages));

	// --- another Q_Key: dropped ---
	post_recvs(b, 1);
	post_recvs(r2, 1);
	check(send_one(a, ah, 100, kQkey ^ 1), "send with another Q_Key");
	check(recv_wcs(b, 1, 1000).empty() && recv_wcs(r2, 1, 10).empty(),
	      "nobody receives a message with another Q_Key");

	// --- detach one ---
	check(!ibv_detach_mcast(r2.qp, &group, 0), "detach receiver 2");
	check(send_one(a, ah, 1, kQkey), "send after the detach");
	why.clear();
	check(received(b, group, a.qp->qp_num, 1, 1, &why),
	      "receiver 1 still receives " + why);
	check(recv_wcs(r2, 1, 1000).empty(), "receiver 2 no longer receives");

	// --- destroy while attached ---
	err = ibv_destroy_qp(b.qp);
	check(err == EBUSY, "destroy of an attached QP: EBUSY (got " +
				    std::to_string(err) + ")");
	if (!err)
		b.qp = nullptr;
	if (b.qp) {
		check(!ibv_detach_mcast(b.qp, &group, 1),
		      "detach receiver 1's second attach (LID 1)");
		post_recvs(b, 1);
		check(send_one(a, ah, 2, kQkey), "send after that detach");
		why.clear();
		check(received(b, group, a.qp->qp_num, 2, 1, &why),
		      "receiver 1, attached once more, still receives " + why);
		err = ibv_destroy_qp(b.qp);
		check(err == EBUSY, "destroy while attached once: EBUSY (got " +
					    std::to_string(err) + ")");
		if (!err)
			b.qp = nullptr;
	}
	if (b.qp)
		check(!ibv_detach_mcast(b.qp, &group, 0), "detach receiver 1");
	check(!ibv_detach_mcast(a.qp, &group, 0), "detach the sender");
	ibv_destroy_ah(ah);
	free_ud(b);
	free_ud(r2);

	// --- the per-group limit ---
	int max = static_cast<int>(dattr.max_mcast_qp_attach);
	std::vector<Ud> many;
	int attached = 0;
	for (int i = 0; i <= max && i < 4096; i++) {
		many.push_back(make_ud(c, 1));
		if (!ibv_attach_mcast(many.back().qp, &group, 0))
			attached++;
	}
	check(max > 0 && attached == max,
	      std::to_string(attached) + " of " + std::to_string(max + 1) +
	      " QPs attach to one group (max_mcast_qp_attach " +
	      std::to_string(max) + ")");
	for (Ud &u : many) {
		ibv_detach_mcast(u.qp, &group, 0);
		free_ud(u);
	}
	free_ud(a);
	ibv_dealloc_pd(c.pd);
	ibv_close_device(c.ctx);
	ibv_free_device_list(list);
	std::printf("mcast_check: %s\n", failures ? "FAILED" : "passed");
	return failures ? 1 : 0;
}
