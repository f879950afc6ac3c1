#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init
# vm-group: short
#
# The distro's libibverbs (rdma-core 44) with the wookie provider: device
# listing, ibv_devinfo -v, a context with its doorbell page, PDs, CQs, MRs,
# QPs, device memory, dma-buf MRs on vgem's buffers, the provider next to
# another provider's device, and nothing left behind after a process dies.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

probe=$WOOKIE_TOP/build/vm-progs/uverbs_probe

# rdma_rxe binds UDP port 4791 in the initial namespace when it loads,
# and fails to load where a wookie device holds it: load it first, so
# that zz0 comes up next to it reaching only its own QPs, and says so.
ok "load rdma_rxe" modprobe rdma_rxe
ok "add zz0 on vethA" rdma link add zz0 type wookie netdev vethA
ok "zz0 says the UDP port is taken" sh -c \
	'dmesg | grep -q "zz0: UDP port 4791 (IPv4) is taken"'
ok "ACTIVE" wait_until 5 port_is zz0 "4: ACTIVE"
ok "ibv_devices" sh -c 'ibv_devices | grep -qw zz0'

ibv_devinfo -v -d zz0 >/tmp/devinfo.txt 2>&1 || true
sed 's/^/  | /' /tmp/devinfo.txt
for want in 'hca_id:[[:space:]]+zz0' 'transport:[[:space:]]+InfiniBand' \
	    'fw_ver:[[:space:]]+0\.1\.0' 'node_guid:' 'phys_port_cnt:[[:space:]]+1' \
	    'state:[[:space:]]+PORT_ACTIVE' 'link_layer:[[:space:]]+Ethernet' \
	    'active_mtu:[[:space:]]+1024' 'max_pd:[[:space:]]+65536' \
	    'GID\[[[:space:]]*1\]:[[:space:]]+::ffff:10\.0\.0\.1, RoCE v2'; do
	ok "ibv_devinfo shows /$want/" grep -Eq "$want" /tmp/devinfo.txt
done
equals "sysfs fw_ver" 0.1.0 "$(cat /sys/class/infiniband/zz0/fw_ver)"
ok "ibv_devinfo -v exits 0" ibv_devinfo -v -d zz0
ok "uverbs_probe" "$probe" zz0
cat /tmp/vm-step.log

# dma-buf MRs, with buffers of the kernel's vgem driver as the exporter
# (Debian's kernels and the sanitizer kernels build it).
if modprobe vgem 2>/dev/null; then
	ok "dmabuf_check (vgem's buffers)" \
		"$WOOKIE_TOP/build/vm-progs/dmabuf_check" zz0 1
	cat /tmp/vm-step.log
	# Nothing of the MRs keeps vgem's buffers (or the module) alive.
	ok "unload vgem" modprobe -r vgem
else
	echo "ok   dma-buf MRs not run: no vgem module in $(uname -r)"
fi

# Next to a device of another provider (rxe, matched by driver id), both
# providers find their own devices and nothing crashes.
ip link add rxeA type veth peer name rxeB
ip link set rxeA up
ip link set rxeB up
ok "add rxe9 next to zz0" rdma link add rxe9 type rxe netdev rxeA
ok "ibv_devices lists zz0 and rxe9" sh -c 'ibv_devices >/tmp/devs.txt &&
	grep -qw zz0 /tmp/devs.txt && grep -qw rxe9 /tmp/devs.txt'
ok "ibv_devinfo -d zz0 with rxe9 present" ibv_devinfo -d zz0
ok "ibv_devinfo -d rxe9 with the wookie provider loaded" ibv_devinfo -d rxe9
ok "delete rxe9" rdma link delete rxe9
ip link del rxeA
modprobe -r rdma_rxe || true

# Nothing stays behind a process that exits or is killed (objects with a
# pid: the kernel's own, such as ib_mad's QP1, stay).
no_wookie_objects() {
	rdma_no_objects zz0
}
ok "no objects after exit" no_wookie_objects
"$probe" zz0 hold >/tmp/hold.log 2>&1 &
holder=$!
ok "holder running" wait_until 10 grep -q holding /tmp/hold.log
held() {
	rdma_user_objects zz0 | grep -q "^$1: .* comm uverbs_probe"
}
for kind in ctx pd cq mr qp; do
	ok "rdma resource shows the holder's $kind" held $kind
done
# The driver's details (-dd): the engine's state of each QP, what each
# CQ holds, what memory each MR is.
rdma -dd resource show qp link zz0/1 >/tmp/res-qp.txt 2>&1 || true
rdma -dd resource show cq dev zz0 >/tmp/res-cq.txt 2>&1 || true
rdma -dd resource show mr dev zz0 >/tmp/res-mr.txt 2>&1 || true
# (The tool prefixes the driver's names with drv_.)
ok "rdma -dd: a QP's PSNs and rings" \
	grep -Eq 'drv_req_psn [0-9]+ .*drv_resp_psn [0-9]+ .*drv_rq_prod [0-9]+' /tmp/res-qp.txt
ok "rdma -dd: a CQ's ring" \
	grep -Eq 'comm uverbs_probe drv_cq_prod [0-9]+ drv_cq_cons [0-9]+ drv_cq_slots [1-9][0-9]* drv_cq_arm [0-9]+ drv_cq_overflow 0' \
	/tmp/res-cq.txt
ok "rdma -dd: a user MR, valid, of pinned pages" \
	grep -Eq 'comm uverbs_probe drv_kind user drv_state valid drv_pages [1-9][0-9]* drv_page_shift 12 .*drv_windows 0' \
	/tmp/res-mr.txt
sed -n '1,3p' /tmp/res-cq.txt /tmp/res-mr.txt | sed 's/^/     | /'
kill -9 $holder
wait $holder 2>/dev/null || true
ok "no objects after kill -9" wait_until 10 no_wookie_objects
rdma resource show

# Deleting a device with a user attached disassociates the user.
"$probe" zz0 hold >/tmp/hold.log 2>&1 &
holder=$!
ok "holder running again" wait_until 10 grep -q holding /tmp/hold.log
ok "delete zz0 while in use" timeout 60 rdma link delete zz0
ok "zz0 gone" rdma_dev_gone zz0
ok "holder survives disassociation" kill -0 $holder
kill -9 $holder
wait $holder 2>/dev/null || true

vm_done
