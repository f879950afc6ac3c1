// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// roce_inject: a hostile RoCEv2 peer.  Sends one crafted packet (or
// --count of them) from user space through a raw IP socket, so that it
// owns every byte the ICRC covers: good packets with a correct ICRC, and
// packets that are wrong in one way each (tests/vm/progs/roce_packet.h).
// It also replays the RoCEv2 packets of a capture to new addresses, and
// sniffs the RoCEv2 packets a host receives (to see a victim's answers).
//
//   roce_inject [OPTIONS] SRC DST QPN KIND     one kind of packet
//   roce_inject [OPTIONS] SRC DST QPN replay FILE
//   roce_inject [OPTIONS] sniff                 print received packets
//
// SRC and DST are IPv4 or IPv6 addresses (both the same family); QPN is
// the destination QP ("-" for replay: keep the captured ones).  Needs
// CAP_NET_RAW.  Exit 0 when everything was sent.

#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "roce_packet.h"

namespace {

using roce::Bytes;

void usage(FILE *f)
{
	std::fprintf(f,
		"usage: roce_inject [OPTIONS] SRC DST QPN KIND\n"
		"       roce_inject [OPTIONS] SRC DST QPN|- replay FILE\n"
		"       roce_inject [--seconds N] [--qpn N] sniff\n"
		"KIND (defaults in parentheses):\n");
	for (const auto &k : roce::kinds())
		std::fprintf(f, "  %-19s %s\n", k.name, k.what);
	std::fprintf(f,
		"  replay FILE         the RoCEv2 packets of a pcap or pcapng capture, BTH\n"
		"                      to pad as captured, IP/UDP/ICRC new for SRC and DST;\n"
		"                      QPN other than '-' replaces their destination QP\n"
		"  sniff               print each RoCEv2 packet this host receives (AF_PACKET),\n"
		"                      for --seconds (10), only those to --qpn if given\n"
		"OPTIONS: --psn --len --rkey --va --mr-len --qkey --src-qpn --msn --far\n"
		"  --opcode --syndrome --pkey --tver --cut --fill (numbers: C syntax, 0x...)\n"
		"  --ack-req 0|1 (RC requests: 1) --sport N (49152) --ttl N (64)\n"
		"  --count N (1) --gap-us N (pause between packets: 0) --from IP (replay: only\n"
		"  packets captured from IP) --pcap FILE (write Ethernet frames there\n"
		"  instead of sending) --hex (print each datagram) --quiet\n");
}

bool parse_num(const char *s, uint64_t &v)
{
	char *end;

	errno = 0;
	v = std::strtoull(s, &end, 0);
	return *s && !*end && !errno;
}

// An address into 16 bytes (IPv4 in the first 4); false if neither.
bool parse_addr(const char *s, bool &v6, uint8_t *out)
{
	std::memset(out, 0, 16);
	if (inet_pton(AF_INET, s, out) == 1) {
		v6 = false;
		return true;
	}
	if (inet_pton(AF_INET6, s, out) == 1) {
		v6 = true;
		return true;
	}
	return false;
}

std::string addr_str(bool v6, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(v6 ? AF_INET6 : AF_INET, a, buf, sizeof(buf));
	return buf;
}

void hex_dump(const Bytes &d)
{
	for (size_t i = 0; i < d.size(); i++)
		std::printf("%02x%s", d[i], (i % 16 == 15 || i + 1 == d.size()) ?
				"\n" : " ");
}

// Where datagrams go: a raw IP socket, or Ethernet frames in a pcap file.
class Sink {
public:
	bool open(const roce::Endpoints &e, const std::string &pcap)
	{
		ep_ = e;
		if (!pcap.empty()) {
			out_ = std::fopen(pcap.c_str(), "wb");
			if (!out_) {
				std::perror(pcap.c_str());
				return false;
			}
			// Classic pcap, microseconds, Ethernet.
			const uint32_t hdr[6] = {0xa1b2c3d4, 0x00040002, 0, 0,
						 65535, 1};
			return std::fwrite(hdr, sizeof(hdr), 1, out_) == 1;
		}
		fd_ = socket(e.v6 ? AF_INET6 : AF_INET, SOCK_RAW, IPPROTO_RAW);
		if (fd_ < 0) {
			std::perror("socket(SOCK_RAW, IPPROTO_RAW)");
			return false;
		}
		if (e.v6) {
			int one = 1;

			// Implied by IPPROTO_RAW; said anyway (Linux >= 4.5).
			setsockopt(fd_, IPPROTO_IPV6, IPV6_HDRINCL, &one,
				   sizeof(one));
		}
		return true;
	}

	bool send(const Bytes &d)
	{
		if (out_)
			return write_frame(d);
		ssize_t n;
		if (ep_.v6) {
			sockaddr_in6 to{};

			to.sin6_family = AF_INET6;
			std::memcpy(&to.sin6_addr, ep_.dst, 16);
			n = sendto(fd_, d.data(), d.size(), 0,
				   (const sockaddr *)&to, sizeof(to));
		} else {
			sockaddr_in to{};

			to.sin_family = AF_INET;
			std::memcpy(&to.sin_addr, ep_.dst, 4);
			n = sendto(fd_, d.data(), d.size(), 0,
				   (const sockaddr *)&to, sizeof(to));
		}
		if (n != (ssize_t)d.size()) {
			std::perror("sendto");
			return false;
		}
		return true;
	}

	~Sink()
	{
		if (fd_ >= 0)
			close(fd_);
		if (out_)
			std::fclose(out_);
	}

private:
	bool write_frame(const Bytes &d)
	{
		static const uint8_t eth4[14] = {
			2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
		Bytes f(eth4, eth4 + 14);
		uint32_t rec[4] = {0, 0, 0, 0};

		if (ep_.v6) {
			f[12] = 0x86;
			f[13] = 0xdd;
		}
		f.insert(f.end(), d.begin(), d.end());
		rec[2] = rec[3] = (uint32_t)f.size();
		return std::fwrite(rec, sizeof(rec), 1, out_) == 1 &&
		       std::fwrite(f.data(), f.size(), 1, out_) == 1;
	}

	roce::Endpoints ep_;
	int fd_ = -1;
	FILE *out_ = nullptr;
};

// ---- Captures ----

uint32_t rd32(const uint8_t *p, bool swap)
{
	uint32_t v;

	std::memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

uint16_t rd16(const uint8_t *p, bool swap)
{
	uint16_t v;

	std::memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

// The IP packet in a frame of link type @link, or nullptr.
const uint8_t *frame_ip(uint32_t link, const uint8_t *f, size_t &len)
{
	size_t off;
	uint16_t proto;

	switch (link) {
	case 1:		// Ethernet, possibly VLAN-tagged
		off = 12;
		if (len < 14)
			return nullptr;
		proto = (uint16_t)(f[off] << 8 | f[off + 1]);
		while ((proto == 0x8100 || proto == 0x88a8) && len >= off + 6) {
			off += 4;
			proto = (uint16_t)(f[off] << 8 | f[off + 1]);
		}
		off += 2;
		break;
	case 12: case 14: case 101: case 228: case 229:	// raw IP
		off = 0;
		proto = 0x0800;
		break;
	case 113:	// Linux cooked
		if (len < 16)
			return nullptr;
		proto = (uint16_t)(f[14] << 8 | f[15]);
		off = 16;
		break;
	case 276:	// Linux cooked v2
		if (len < 20)
			return nullptr;
		proto = (uint16_t)(f[0] << 8 | f[1]);
		off = 20;
		break;
	default:
		return nullptr;
	}
	if ((proto != 0x0800 && proto != 0x86dd) || len <= off)
		return nullptr;
	len -= off;
	return f + off;
}

struct Captured {
	Bytes transport;
	uint8_t src[16];
};

// The RoCEv2 packets of a classic pcap or a pcapng file.
bool read_capture(const std::string &path, std::vector<Captured> &out)
{
	std::ifstream in(path, std::ios::binary);
	Bytes b((std::istreambuf_iterator<char>(in)),
		std::istreambuf_iterator<char>());
	auto take = [&](uint32_t link, const uint8_t *f, size_t len) {
		Captured c;
		const uint8_t *ip = frame_ip(link, f, len);

		if (ip && roce::roce_transport(ip, len, c.transport, c.src))
			out.push_back(c);
	};

	if (!in && b.empty()) {
		std::fprintf(stderr, "%s: cannot read\n", path.c_str());
		return false;
	}
	if (b.size() < 24) {
		std::fprintf(stderr, "%s: not a capture\n", path.c_str());
		return false;
	}
	uint32_t magic = rd32(b.data(), false);
	if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d ||
	    magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1) {
		bool swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
		uint32_t link = rd32(b.data() + 20, swap) & 0xffff;

		for (size_t off = 24; off + 16 <= b.size();) {
			uint32_t incl = rd32(b.data() + off + 8, swap);

			if (incl > b.size() - off - 16)
				break;
			take(link, b.data() + off + 16, incl);
			off += 16 + incl;
		}
		return true;
	}
	if (magic != 0x0a0d0d0a) {
		std::fprintf(stderr, "%s: neither pcap nor pcapng\n",
			     path.c_str());
		return false;
	}
	// pcapng: sections, interfaces (link types), packet blocks.
	std::vector<uint32_t> links;
	bool swap = false;
	for (size_t off = 0; off + 12 <= b.size();) {
		uint32_t type = rd32(b.data() + off, swap);

		if (type == 0x0a0d0d0a) {
			swap = rd32(b.data() + off + 8, false) != 0x1a2b3c4d;
			links.clear();
		}
		uint32_t blen = rd32(b.data() + off + 4, swap);
		if (blen < 12 || blen > b.size() - off)
			break;
		const uint8_t *body = b.data() + off + 8;
		if (type == 1 && blen >= 20) {
			links.push_back(rd16(body, swap));
		} else if (type == 6 && blen >= 32) {
			uint32_t ifc = rd32(body, swap);
			uint32_t caplen = rd32(body + 12, swap);

			if (ifc < links.size() && caplen <= blen - 32)
				take(links[ifc], body + 20, caplen);
		} else if (type == 3 && blen >= 16 && !links.empty()) {
			uint32_t caplen = std::min<uint32_t>(
				rd32(body, swap), blen - 16);

			take(links[0], body + 4, caplen);
		}
		off += blen;
	}
	return true;
}

// ---- Sniffing ----

double now()
{
	timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

// The kernel keeps only UDP/4791 packets (to @qpn, if >= 0) for the
// socket: other traffic, however heavy, cannot crowd them out.
bool sniff_filter(int fd, int64_t qpn)
{
	uint32_t mask = qpn >= 0 ? 0xffffff : 0;
	uint32_t want = qpn >= 0 ? (uint32_t)qpn : 0;
	enum { V6 = 12, ACCEPT = 19, DROP = 20 };
	// Jump offsets count from the next instruction.
#define J(pc, to) (uint8_t)((to) - (pc) - 1)
	sock_filter code[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
		/* 1 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0),
		/* 2 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x60, J(2, V6), 0),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x40, 0, J(3, DROP)),
		/* 4 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, J(5, DROP)),
		/* 6 */ BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
		/* 7 */ BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),
		/* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WOOKIE_ROCE_UDP_PORT, 0, J(8, DROP)),
		/* 9 */ BPF_STMT(BPF_LD | BPF_W | BPF_IND, 12),
		/* 10 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, mask),
		/* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, want, J(11, ACCEPT), J(11, DROP)),
		/* 12 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6),
		/* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, J(13, DROP)),
		/* 14 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 42),
		/* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WOOKIE_ROCE_UDP_PORT, 0, J(15, DROP)),
		/* 16 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 52),
		/* 17 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, mask),
		/* 18 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, want, J(18, ACCEPT), J(18, DROP)),
		/* 19 */ BPF_STMT(BPF_RET | BPF_K, 0x40000),
		/* 20 */ BPF_STMT(BPF_RET | BPF_K, 0),
	};
#undef J
	sock_fprog prog = {(unsigned short)(sizeof(code) / sizeof(code[0])), code};
	int rcvbuf = 4 << 20;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog))) {
		std::perror("SO_ATTACH_FILTER");
		return false;
	}
	return true;
}

// One line per received RoCEv2 packet (to @qpn, if >= 0): addresses,
// the decoded headers, and whether the ICRC checks.
int sniff(double seconds, int64_t qpn)
{
	int fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	uint8_t buf[65536];

	if (fd < 0) {
		std::perror("socket(AF_PACKET)");
		return 1;
	}
	if (!sniff_filter(fd, qpn)) {
		close(fd);
		return 1;
	}
	std::setvbuf(stdout, nullptr, _IOLBF, 0);
	std::printf("sniffing\n");
	for (double end = now() + seconds; now() < end;) {
		pollfd p = {fd, POLLIN, 0};
		sockaddr_ll from{};
		socklen_t flen = sizeof(from);

		if (poll(&p, 1, (int)((end - now()) * 1000) + 1) <= 0)
			continue;
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0,
				     (sockaddr *)&from, &flen);
		if (n <= 0 || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		Bytes t;
		uint8_t src[16], dst[16] = {};
		if (!roce::roce_transport(buf, (size_t)n, t, src))
			continue;
		bool v6 = buf[0] >> 4 == 6;
		std::memcpy(dst, buf + (v6 ? 24 : 16), v6 ? 16 : 4);
		size_t total = v6 ? 40 + (buf[4] << 8 | buf[5]) :
				    (size_t)(buf[2] << 8 | buf[3]);
		wookie_hdrs h;
		if (wookie_hdrs_parse(t.data(), t.size(), &h)) {
			std::printf("rx %s > %s malformed %zu bytes\n",
				    addr_str(v6, src).c_str(),
				    addr_str(v6, dst).c_str(), t.size());
			continue;
		}
		if (qpn >= 0 && h.bth.dest_qp != (uint64_t)qpn)
			continue;
		std::printf("rx %s > %s opcode 0x%02x qpn 0x%06x psn 0x%06x",
			    addr_str(v6, src).c_str(), addr_str(v6, dst).c_str(),
			    h.bth.opcode, h.bth.dest_qp, h.bth.psn);
		if (h.flags & WOOKIE_OPF_AETH)
			std::printf(" syndrome 0x%02x msn %u", h.aeth.syndrome,
				    h.aeth.msn);
		std::printf(" payload %u icrc %s\n", h.payload_len,
			    roce::icrc_ok(buf, std::min(total, (size_t)n)) ?
			    "ok" : "bad");
	}
	close(fd);
	return 0;
}

}  // namespace

int main(int argc, char **argv)
{
	roce::Params p;
	roce::Endpoints e;
	std::vector<std::string> pos;
	std::string pcap, from;
	uint64_t count = 1, seconds = 10, gap_us = 0;
	int64_t sniff_qpn = -1;
	bool hex = false, quiet = false;

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		uint64_t v = 0;

		if (a == "-h" || a == "--help") {
			usage(stdout);
			return 0;
		}
		if (a == "--hex") {
			hex = true;
			continue;
		}
		if (a == "--quiet") {
			quiet = true;
			continue;
		}
		if (a.size() < 3 || a.compare(0, 2, "--")) {
			pos.push_back(a);
			continue;
		}
		if (i + 1 >= argc) {
			std::fprintf(stderr, "%s needs a value\n", a.c_str());
			return 2;
		}
		const char *val = argv[++i];
		if (a == "--pcap") {
			pcap = val;
			continue;
		}
		if (a == "--from") {
			from = val;
			continue;
		}
		if (!parse_num(val, v)) {
			std::fprintf(stderr, "%s: not a number: %s\n", a.c_str(),
				     val);
			return 2;
		}
		if (a == "--psn") p.psn = (uint32_t)v;
		else if (a == "--len") p.len = (int64_t)v;
		else if (a == "--rkey") p.rkey = (uint32_t)v;
		else if (a == "--va") p.va = v;
		else if (a == "--mr-len") p.mr_len = v;
		else if (a == "--qkey") p.qkey = (uint32_t)v;
		else if (a == "--src-qpn") p.src_qpn = (uint32_t)v;
		else if (a == "--msn") p.msn = (uint32_t)v;
		else if (a == "--far") p.far = (uint32_t)v;
		else if (a == "--opcode") p.opcode = (int)(v & 0xff);
		else if (a == "--syndrome") p.syndrome = (int)(v & 0xff);
		else if (a == "--pkey") p.pkey = (int)(v & 0xffff);
		else if (a == "--tver") p.tver = (int)(v & 0xf);
		else if (a == "--cut") p.cut = (int)v;
		else if (a == "--ack-req") p.ack_req = v ? 1 : 0;
		else if (a == "--fill") p.fill = (uint8_t)v;
		else if (a == "--sport") e.sport = (uint16_t)v;
		else if (a == "--ttl") e.ttl = (uint8_t)v;
		else if (a == "--count") count = v;
		else if (a == "--gap-us") gap_us = v;
		else if (a == "--seconds") seconds = v;
		else if (a == "--qpn") sniff_qpn = (int64_t)(v & 0xffffff);
		else {
			std::fprintf(stderr, "unknown option %s\n", a.c_str());
			usage(stderr);
			return 2;
		}
	}
	if (pos.size() == 1 && pos[0] == "sniff")
		return sniff((double)seconds, sniff_qpn);
	bool replay = pos.size() == 5 && pos[3] == "replay";
	if (pos.size() != 4 && !replay) {
		usage(stderr);
		return 2;
	}

	bool v6dst;
	uint64_t qpn = 0;
	bool keep_qpn = replay && pos[2] == "-";
	if (!parse_addr(pos[0].c_str(), e.v6, e.src) ||
	    !parse_addr(pos[1].c_str(), v6dst, e.dst) || e.v6 != v6dst) {
		std::fprintf(stderr, "SRC and DST must be IPv4 or IPv6 addresses of one family\n");
		return 2;
	}
	if (!keep_qpn && (!parse_num(pos[2].c_str(), qpn) || qpn > 0xffffff)) {
		std::fprintf(stderr, "QPN must be a 24-bit number\n");
		return 2;
	}
	p.qpn = (uint32_t)qpn;

	// Datagrams differ in their IPv4 identification, as a stack's do.
	e.ip_id = (uint16_t)(getpid() * 251 + 1);
	if (!e.ip_id)
		e.ip_id = 1;

	std::vector<roce::Packet> pkts;
	std::string what = pos[3];
	if (replay) {
		std::vector<Captured> cap;
		uint8_t want[16];
		bool want_v6 = false;

		if (!from.empty() && !parse_addr(from.c_str(), want_v6, want)) {
			std::fprintf(stderr, "--from: not an address\n");
			return 2;
		}
		if (!read_capture(pos[4], cap))
			return 1;
		for (auto &c : cap) {
			roce::Packet pkt;

			if (!from.empty() && std::memcmp(c.src, want, 16))
				continue;
			pkt.transport = c.transport;
			if (!keep_qpn && pkt.transport.size() >= WOOKIE_BTH_BYTES) {
				pkt.transport[5] = (uint8_t)(qpn >> 16);
				pkt.transport[6] = (uint8_t)(qpn >> 8);
				pkt.transport[7] = (uint8_t)qpn;
			}
			pkts.push_back(pkt);
		}
		what = "replay of " + pos[4];
		count = 1;
	} else {
		roce::Packet pkt;
		std::string err;

		if (!roce::make(pos[3], p, pkt, err)) {
			std::fprintf(stderr, "%s\n", err.c_str());
			usage(stderr);
			return 2;
		}
		pkts.push_back(pkt);
	}

	Sink sink;
	if (!sink.open(e, pcap))
		return 1;
	uint64_t sent = 0;
	for (uint64_t i = 0; i < count; i++) {
		for (auto &pkt : pkts) {
			Bytes d = roce::datagram(e, pkt);

			if (hex)
				hex_dump(d);
			if (sent && gap_us)
				usleep((useconds_t)std::min<uint64_t>(gap_us, 1000000));
			if (!sink.send(d))
				return 1;
			sent++;
			e.ip_id = (uint16_t)(e.ip_id + 1);
			if (!e.ip_id)
				e.ip_id = 1;
		}
	}
	if (!quiet) {
		if (replay) {
			std::printf("replayed %llu packets %s > %s\n",
				    (unsigned long long)sent, pos[0].c_str(),
				    pos[1].c_str());
		} else {
			const Bytes &t = pkts[0].transport;
			std::printf("sent %llu x %s %s > %s qpn 0x%06x",
				    (unsigned long long)sent, what.c_str(),
				    pos[0].c_str(), pos[1].c_str(), p.qpn);
			if (t.size() >= WOOKIE_BTH_BYTES)
				std::printf(" opcode 0x%02x psn 0x%02x%02x%02x",
					    t[0], t[9], t[10], t[11]);
			std::printf(" %zu bytes\n", t.size());
		}
	}
	return 0;
}
