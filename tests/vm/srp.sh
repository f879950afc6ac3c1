#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-pair: --timeout 1200
#
# SCSI RDMA Protocol on wookie between two hosts (two guests, scripts/
# vm-pair): host 1 runs LIO's SRP target (ib_srpt, listening with RDMA/CM
# on port 5000) over a 320 MiB ramdisk, set up through configfs; host 2
# logs in with ib_srp (add_target with dest=10.1.0.1:5000), runs fio with
# verification (random writes of 4 KiB to 1 MiB blocks, iodepth 32,
# 256 MiB, read back and checked) and removes the target port.
# Afterwards no object is left on either wookie device.  No run on
# rdma_rxe here: 6.1's rxe fails ib_srp's fast registrations ("rxe_reg_
# fast_mr: mr->lkey = ... not free"), and the SCSI layer then aborts and
# resets for as long as the test would let it (tried 2026-11-24).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"
. "$(dirname "$0")/_ulp.sh"

# The target port ID the initiator names (id_ext and ioc_guid): ib_srpt
# checks it against its service GUID, fixed here.
GUID=0x776b000000005e01
# The ACL: ib_srp's initiator port ID, an extension of 0 and the interface
# ID of the port's GID 0, which follows the MAC vm-run gives host N
# (52:54:00:77:6b:0N).
INITIATOR=0x0000000000000000505400fffe776b0$((3 - ${WOOKIE_VM_HOST:-1}))
SLOW=$RDMA_SLOW

# ---- host 1: the target ----
# ib_srpt names a port by its GID 0, as 0x and 32 hex digits (the
# name whose ACLs are initiator port IDs; by the GUID's name, an RDMA/CM
# login is matched against an address).
srpt_port_name() {
	local gid

	gid=$(cat "/sys/class/infiniband/$1/ports/1/gids/0")
	echo "0x${gid//:/}"
}

srpt_up() {
	local tpg=$LIO/srpt/$1/tpgt_1

	mkdir -p "$tpg/lun/lun_0" &&
		ln -s "$LIO_RAM0" "$tpg/lun/lun_0/ram0" &&
		mkdir -p "$tpg/acls/$INITIATOR/lun_0" &&
		ln -s "$tpg/lun/lun_0" "$tpg/acls/$INITIATOR/lun_0/lun_0" &&
		echo 1 >"$tpg/enable"
}

srpt_down() {
	local tpg=$LIO/srpt/$1/tpgt_1

	echo 0 >"$tpg/enable"
	rm -f "$tpg/acls/$INITIATOR/lun_0/lun_0" "$tpg/lun/lun_0/ram0"
	rmdir "$tpg/acls/$INITIATOR/lun_0" "$tpg/acls/$INITIATOR" \
		"$tpg/lun/lun_0" "$tpg" "$LIO/srpt/$1"
}

# srpt_start DEV: ib_srpt listening on RDMA/CM port 5000, serving the
# backstore on DEV's port to the initiator.
srpt_start() {
	local port

	port=$(srpt_port_name "$1")
	modprobe ib_srpt srpt_service_guid=$GUID &&
		mkdir -p "$LIO/srpt" &&
		echo 5000 >"$LIO/srpt/discovery_auth/rdma_cm_port" &&
		srpt_up "$port" &&
		echo "ok   SRP target on $1 ($port), RDMA/CM port 5000, for $INITIATOR"
}

# srpt_stop DEV: and all of it undone.  ib_srpt keeps a PD and a listener
# on every device until it goes.
srpt_stop() {
	srpt_down "$(srpt_port_name "$1")" &&
		echo 0 >"$LIO/srpt/discovery_auth/rdma_cm_port" &&
		rmdir "$LIO/srpt" &&
		modprobe -r ib_srpt
}

target() {
	lio_backstore_up 320
	ulp_wookie_up
	srpt_start $ULP_DEV || fatal "the SRP target on $ULP_DEV"
	peer_signal target-up

	peer_wait $((900 * SLOW)) host-done || fatal "host 2 did not finish"
	ok "stop the SRP target" srpt_stop $ULP_DEV
	lio_backstore_down
	ulp_end
}

# ---- host 2: the initiator ----
# srp_login DEV: log in to the target through DEV; its disk appears.
srp_login() {
	echo "id_ext=$GUID,ioc_guid=$GUID,dest=$ULP_TARGET:5000" \
		>"/sys/class/infiniband_srp/srp-$1-1/add_target" &&
		wait_until $((30 * SLOW)) scsi_blk
}

srp_logout() {
	local p

	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	wait_until $((30 * SLOW)) no_scsi_blk
}

initiator() {
	local blk

	ok "load ib_srp" modprobe -a ib_srp sd_mod
	ulp_wookie_up
	ulp_count_start wookie_map_mr_sg wookie_fast_reg_mr \
		wookie_remote_invalidate wookie_local_invalidate ib_drain_qp \
		__ib_alloc_cq
	peer_wait $((300 * SLOW)) target-up || fatal "the target never came up"
	srp_login $ULP_DEV || fatal "SRP login through $ULP_DEV"
	blk=$(scsi_blk)
	echo "ok   logged in with SRP over RDMA/CM: $blk"
	fio_verify srp-two-hosts "$blk" "$ULP_FIO_SIZE"
	ok "remove the target port" srp_logout
	ulp_count_report "ib_srp on wookie" wookie_map_mr_sg \
		wookie_fast_reg_mr wookie_remote_invalidate? \
		wookie_local_invalidate ib_drain_qp __ib_alloc_cq
	ulp_count_stop
	# ib_srp keeps a PD on each device it serves until it lets go of
	# the device.
	ok "unload ib_srp" modprobe -r ib_srp
	ulp_end
	peer_signal host-done
}

ulp_main target initiator
