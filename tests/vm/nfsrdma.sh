#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-pair: --timeout 1200
#
# NFS over RDMA on wookie between two hosts (two guests, scripts/
# vm-pair): host 1 runs the kernel's NFS server (nfsd with svcrdma
# listening on RDMA port 20049, rpcbind and rpc.mountd) exporting a tmpfs;
# host 2 mounts it with NFSv4.2 over xprtrdma (proto=rdma), writes a tree
# of files of mixed sizes (empty, odd, page-sized, page-crossing, 1 MiB
# and larger), unmounts, mounts again so that every byte comes from the
# server, and compares each file's checksum with the source's.  Then the
# same on rdma_rxe (rxe0 on each wan0), for its throughput in this boot
# (WOOKIE_TEST_ULP_RXE=1, as make check-ulp runs it; not in make check).
# Afterwards no object is left on either wookie device.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"
. "$(dirname "$0")/_ulp.sh"

EXPORT=/tmp/export
MNT=/tmp/nfs
# soft: were the server to go, I/O fails (and the test with it) rather
# than hang until the VM's time runs out.
NFS_OPTS=vers=4.2,proto=rdma,port=20049,soft,timeo=300,retrans=2
SRC=/tmp/src
SLOW=$RDMA_SLOW

# ---- host 1: the server ----
server() {
	ok "load nfsd and rpcrdma" modprobe -a nfsd rpcrdma
	ulp_wookie_up
	mkdir -p "$EXPORT" /var/lib/nfs/rpc_pipefs
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	ok "rpcbind" rpcbind
	# The NFSv4 root itself (fsid=0): a pseudo root over the guest's
	# / would be the 9p file system, which nfsd cannot export.
	ok "export $EXPORT" exportfs -o rw,no_root_squash,insecure,fsid=0 \
		"10.1.0.0/24:$EXPORT"
	ok "rpc.mountd" rpc.mountd
	# NFSv4 only, no TCP or UDP listener but what nfsd needs, and
	# svcrdma on 20049.
	# The shortest grace period and lease (10 s): a new server makes
	# NFSv4 clients wait for its grace period before they may open.
	ok "nfsd on RDMA port 20049" rpc.nfsd -N 3 -V 4 -G 10 -L 10 \
		--rdma=20049 2
	{ grep . /proc/fs/nfsd/portlist 2>/dev/null || true; } |
		sed 's/^/     portlist: /'
	grep -q '^rdma 20049' /proc/fs/nfsd/portlist ||
		fatal "nfsd does not listen on RDMA port 20049"
	peer_signal server-up

	peer_wait $((900 * SLOW)) client-done || fatal "host 2 did not finish"
	# The RDMA listener goes with nfsd's threads.
	ok "stop nfsd" rpc.nfsd 0
	ulp_end

	if [ "$ULP_RXE_RUNS" = 1 ]; then
		ulp_rxe_up
		ok "nfsd on RDMA port 20049 (rxe0)" rpc.nfsd -N 3 -V 4 -G 10 -L 10 \
			--rdma=20049 2
		peer_signal rxe-server-up
		peer_wait $((600 * SLOW)) rxe-done || fatal "host 2 did not finish on rxe"
		ok "stop nfsd" rpc.nfsd 0
	fi
	ok "unexport" exportfs -ua
	pkill rpc.mountd || true
	pkill rpcbind || true
	umount /proc/fs/nfsd 2>/dev/null || true
	[ "$ULP_RXE_RUNS" != 1 ] || ok "delete rxe0" rdma link delete rxe0
}

# ---- host 2: the client ----
# A tree of files of mixed sizes under SRC, from a fixed seed.
make_tree() {
	local i size sizes=(0 1 100 511 4095 4096 4097 65535 65536 65537
		262144 1048576 1048583 3145728 10485760)

	mkdir -p "$SRC/a/b/c" "$SRC/d"
	for ((i = 0; i < ${#sizes[@]}; i++)); do
		size=${sizes[i]}
		head -c "$size" /dev/urandom >"$SRC/a/f$i"
		head -c $((size / 3)) /dev/urandom >"$SRC/a/b/c/g$i"
		head -c $((size / 7 + i)) /dev/urandom >"$SRC/d/h$i"
	done
	ln -s ../a/f3 "$SRC/d/link"
}

# nfs_copy NAME: mount, copy the tree, unmount, mount again, compare.
nfs_copy() {
	local name=$1 bytes t0 ms

	mkdir -p "$MNT"
	mount -t nfs -o "$NFS_OPTS" \
		"$ULP_TARGET:/" "$MNT" || {
		echo "FAIL mount over RDMA ($name)"
		vm_failures=$((vm_failures + 1))
		return 0
	}
	grep " $MNT " /proc/mounts | sed 's/^/     /'
	grep " $MNT " /proc/mounts | grep -q 'proto=rdma' || {
		echo "FAIL the mount is not over RDMA ($name)"
		vm_failures=$((vm_failures + 1))
	}
	# A first open waits out the server's grace period (10 s after
	# nfsd starts); not part of the timing.
	rm -rf "${MNT:?}/$name"
	: >"$MNT/.warm-$name" && rm -f "$MNT/.warm-$name"
	bytes=$(find "$SRC" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
	t0=$(date +%s%N)
	cp -a "$SRC" "$MNT/$name" && sync
	ms=$((($(date +%s%N) - t0) / 1000000))
	ok "umount ($name, before reading back)" umount "$MNT"
	# Nothing cached: every byte read below comes from the server.
	echo 3 >/proc/sys/vm/drop_caches
	mount -t nfs -o "$NFS_OPTS" \
		"$ULP_TARGET:/" "$MNT" || {
		echo "FAIL mount again ($name)"
		vm_failures=$((vm_failures + 1))
		return 0
	}
	if (cd "$SRC" && find . -type f -print0 | sort -z |
		xargs -0 sha256sum) >"$RDMA_OUT/$name.src.sum" &&
		(cd "$MNT/$name" && find . -type f -print0 | sort -z |
		 xargs -0 sha256sum) >"$RDMA_OUT/$name.nfs.sum" &&
		cmp -s "$RDMA_OUT/$name.src.sum" "$RDMA_OUT/$name.nfs.sum" &&
		[ "$(readlink "$MNT/$name/d/link")" = ../a/f3 ]; then
		echo "ok   $name: $(wc -l <"$RDMA_OUT/$name.src.sum") files, $bytes bytes, read back equal"
		awk -v n="$name" -v b="$bytes" -v ms="$ms" \
			'BEGIN { printf "%-24s write %7.1f MiB/s (cp -a and sync of %d bytes)\n", n, b / 1048576 / (ms / 1000), b }' \
			>>"$ULP_RESULTS"
	else
		echo "FAIL $name: the tree read back differs"
		diff "$RDMA_OUT/$name.src.sum" "$RDMA_OUT/$name.nfs.sum" |
			head -n 10 | sed 's/^/     | /'
		vm_failures=$((vm_failures + 1))
	fi
	rm -rf "${MNT:?}/$name"
	ok "umount ($name)" umount "$MNT"
	return 0
}

client() {
	ok "load rpcrdma" modprobe rpcrdma
	ulp_wookie_up
	ulp_count_start wookie_map_mr_sg wookie_fast_reg_mr \
		wookie_remote_invalidate wookie_local_invalidate ib_drain_qp \
		ib_drain_rq __ib_alloc_cq
	make_tree
	peer_wait $((300 * SLOW)) server-up || fatal "the server never came up"
	nfs_copy nfs-two-hosts
	ulp_count_report "xprtrdma on wookie" wookie_map_mr_sg \
		wookie_fast_reg_mr wookie_remote_invalidate \
		wookie_local_invalidate ib_drain_qp? ib_drain_rq? __ib_alloc_cq
	ulp_count_stop
	ulp_end
	peer_signal client-done
	[ "$ULP_RXE_RUNS" = 1 ] || return 0

	peer_wait $((600 * SLOW)) rxe-server-up || fatal "no server on rxe"
	ulp_rxe_up
	nfs_copy rxe-nfs-two-hosts
	ok "delete rxe0" rdma link delete rxe0
	peer_signal rxe-done
}

ulp_main server client
