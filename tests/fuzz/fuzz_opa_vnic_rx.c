/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_opa_vnic's receive path against any bytes from the fabric. Each input
 * is one fabric packet, put on a live net_opa_vnic's generic fabric port
 * (a net_ring port made with rte_eth_from_rings; the fuzzer holds the
 * rings' other ends), as one mbuf or a chain of 13-, 64- or 2048-byte
 * segments depending on its length. Two vports are configured through the
 * agent, the real way: vport 0 on vesw 10 with MTU 1500, vport 1 on vesw 20
 * with MTU 9000. Both poll, either first (so either dispatches); FM packets
 * go through the control path (run here, synchronously).
 *
 * Oracle, from the facts' packet layout, independent of the driver's code:
 * every input is either delivered to exactly one vport, the right one, as
 * exactly the decapsulated frame (bytes 20 .. 20 + frame length), or
 * counted once in exactly the drop counter its first fault names (or, for
 * FM packets, handed to the agent or refused by the control path); no other
 * drop counter moves, no other vport's packet count either; no mbuf of the
 * fuzzer's pool or of the device's pool leaks.
 * An FM input may reconfigure the vports: the fuzzer configures them back.
 *
 * EAL (--no-huge) is started once; its runtime directory is removed at exit.
 */

#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "opa16b_fm.h"
#include "opa16b_lmac.h"
#include "opa_vnic.h"
#include "vema_agent.h"
#include "vema_mad.h"
#include "vnic.h"

#define POOL_SIZE 4095
#define LID 5
#define NB_OUT 3		/* fabric TX queues: 2 vports x 1 engine + management */
#define SEG_TINY 13		/* headers split over segments */
#define SEG_SMALL 64
#define SEG_BIG 2048

static struct rte_mempool *pool;
static struct rte_ring *r_in, *r_out[NB_OUT];
static uint16_t vp[2];
static struct opa_vnic_dev *dev;
static char runtime_dir[PATH_MAX];
static const uint16_t vesw_of[2] = { 10, 20 };
static const uint16_t mtu_of[2] = { 1500, 9000 };
static uint64_t tid = 1;

/* ---- counters ---- */

/* What the oracle expects of an input. */
enum verdict {
	V_DELIVER,	/* to vport `vport` */
	V_COUNT,	/* counted in `counter` (of vport `vport`, or device-wide) */
};

/* Counters one input may move by one (device-wide ones are read on vport 0). */
static const char *const drop_names[] = {
	"fabric_rx_not_16b", "fabric_rx_other_l4", "fabric_rx_mgmt_full",
	"fabric_rx_decap_truncated", "fabric_rx_decap_bad_l2", "fabric_rx_decap_bad_l4",
	"fabric_rx_decap_bad_length", "fabric_rx_decap_bad_pad", "fabric_rx_decap_runt",
	"fabric_rx_decap_oversize", "mgmt_rx", "mgmt_rx_not_fm",
	/* per vport */
	"rx_drop_state", "rx_runt", "rx_oversize", "rx_bad_veswid", "rx_logic",
};
#define NB_DEV_DROPS 12
#define NB_DROPS RTE_DIM(drop_names)

static uint64_t drop_id[2][NB_DROPS];
static uint64_t good_id[2];	/* rx_good_packets */

static void
ids_init(void)
{
	unsigned int p, i;

	for (p = 0; p < 2; p++) {
		for (i = 0; i < NB_DROPS; i++)
			if (rte_eth_xstats_get_id_by_name(vp[p], drop_names[i],
							  &drop_id[p][i]) != 0)
				abort();
		if (rte_eth_xstats_get_id_by_name(vp[p], "rx_good_packets", &good_id[p]) != 0)
			abort();
	}
}

/* Snapshot: [port][counter], device counters on port 0 only; then good. */
struct snap {
	uint64_t drop[2][NB_DROPS];
	uint64_t good[2];
};

static void
snap_take(struct snap *s)
{
	unsigned int p;

	for (p = 0; p < 2; p++) {
		if (rte_eth_xstats_get_by_id(vp[p], drop_id[p], s->drop[p], NB_DROPS) != NB_DROPS ||
		    rte_eth_xstats_get_by_id(vp[p], &good_id[p], &s->good[p], 1) != 1)
			abort();
	}
}

/* ---- EM: configure the vports through the agent ---- */

/* Run the control path once (what its alarm does). */
static void
ctl_run(void)
{
	opa_vnic_ctl_tick(dev);
}

/* Put a packet on the fabric's receive side. */
static void
inject(const uint8_t *buf, size_t len)
{
	struct rte_mbuf *head = NULL, *m;
	/* the length picks the shape: one segment (up to 2 KiB), or chains */
	uint32_t seg = len % 3 == 0 ? SEG_SMALL :
		len % 3 == 1 || len > SEG_TINY * 256 ? SEG_BIG : SEG_TINY;
	size_t off = 0;

	do {
		uint32_t n = (uint32_t)RTE_MIN(len - off, (size_t)seg);

		m = rte_pktmbuf_alloc(pool);
		if (m == NULL || (n != 0 && rte_pktmbuf_append(m, (uint16_t)n) == NULL))
			abort();
		memcpy(rte_pktmbuf_mtod(m, void *), buf + off, n);
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0)
			abort();
		off += n;
	} while (off < len);
	if (rte_ring_enqueue(r_in, head) != 0)
		abort();
}

/* Take everything the VNIC sent; returns the status of the reply to @want_tid. */
static int
drain_out(uint64_t want_tid)
{
	static uint8_t buf[VEMA_PKT_MAX];
	struct rte_mbuf *m;
	unsigned int q;
	int status = -1;

	for (q = 0; q < NB_OUT; q++)
		while (rte_ring_dequeue(r_out[q], (void **)&m) == 0) {
			struct opa16b_fm_info fi;
			struct vema_hdr h;
			const uint8_t *p = m->pkt_len <= sizeof(buf) ?
				rte_pktmbuf_read(m, 0, m->pkt_len, buf) : NULL;

			if (p != NULL && opa16b_fm_parse(p, m->pkt_len, &fi) == OPA16B_FM_OK &&
			    fi.mad_len >= VEMA_HDR_LEN) {
				vema_hdr_decode(fi.mad, &h);
				if (h.mad.tid == want_tid && h.mad.method == VEMA_METHOD_GET_RESP)
					status = h.mad.status;
			}
			rte_pktmbuf_free(m);
		}
	return status;
}

/* Poll both vports (dropping frames) and run the control path. */
static void
pump(void)
{
	struct rte_mbuf *r[32];
	unsigned int p;
	uint16_t n;

	for (p = 0; p < 2; p++) {
		n = rte_eth_rx_burst(vp[p], 0, r, RTE_DIM(r));
		rte_pktmbuf_free_bulk(r, n);
	}
	ctl_run();
}

/* SET VESWPORT_INFO of vport @idx, FORWARDING; aborts unless it succeeds. */
static void
configure(uint8_t idx)
{
	static uint8_t mad[VEMA_MAD_SIZE], pkt[VEMA_PKT_MAX];
	struct opa16b_fm_fields f = {
		.slid = 2, .dlid = LID, .pkey = 0xFFFF, .dest_qpn = OPA16B_QPN_GSI, .src_qpn = 9,
	};
	struct opa16b_lmac l = { .fabric_id = 1, .vesw_id = vesw_of[idx], .lid = LID };
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vema_hdr h;
	int n, status = -1, tries;

	vnic_info_defaults(&v, &p);
	v.fabric_id = 1;
	v.vesw_id = vesw_of[idx];
	v.pkey = 0x8001;
	v.eth_mtu = mtu_of[idx];
	opa16b_lmac_build(&l, &p.base_mac_addr);
	p.config_state = VNIC_STATE_FORWARDING;
	p.encap_slid = LID;
	memset(mad, 0, sizeof(mad));
	vema_hdr_request(&h, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, idx, ++tid);
	vema_hdr_encode(mad, &h);
	vema_veswport_info_encode(mad + VEMA_HDR_LEN, &v, &p);
	n = opa16b_fm_build(pkt, sizeof(pkt), &f, mad, sizeof(mad));
	if (n <= 0)
		abort();
	inject(pkt, (size_t)n);
	for (tries = 0; tries < 100 && status < 0; tries++) {
		pump();
		status = drain_out(tid);
	}
	if (status != VEMA_STATUS_OK) {
		fprintf(stderr, "configuring vport %u: status %d\n", idx, status);
		abort();
	}
}

/* Whether vport @idx is as configure() left it. */
static bool
configured(uint8_t idx)
{
	const struct vnic_policy *p = vnic_vport_policy(dev->ports[idx]->vp);

	return p->vesw.vesw_id == vesw_of[idx] && p->vesw.eth_mtu == mtu_of[idx] &&
		vnic_forwarding(p) && dev->vesw_map[vesw_of[idx]] == idx + 1;
}

static void
configure_all(void)
{
	if (configured(0) && configured(1))
		return;
	configure(0);
	configure(1);
	/* the control path applies the state (vesw map, link) */
	ctl_run();
	if (!configured(0) || !configured(1))
		abort();
}

/*
 * The agent and its policy snapshots are malloc'ed, but pointed to from
 * DPDK memory, which LeakSanitizer does not scan: keep them in globals so
 * that libFuzzer's per-input leak check sees them reachable.
 */
static void *keep_agent, *keep_retired;

/* libFuzzer ends with exit(): free everything (LeakSanitizer checks after
 * us) and leave no runtime directory behind. */
static void
cleanup(void)
{
	struct rte_mbuf *m;
	unsigned int i;

	for (i = 0; i < 2; i++)
		rte_eth_dev_stop(vp[i]);
	rte_vdev_uninit("net_opa_vnic_fz");
	rte_vdev_uninit("net_ring_fzfab");
	while (rte_ring_dequeue(r_in, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r_in);
	for (i = 0; i < NB_OUT; i++) {
		while (rte_ring_dequeue(r_out[i], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(r_out[i]);
	}
	rte_mempool_free(pool);
	rte_eal_cleanup();
	rmdir(runtime_dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { "fuzz_opa_vnic_rx", "--no-huge", "-m", "256", "--no-pci",
		"--no-shconf", "--no-telemetry", "-l", "0", "--log-level=lib.eal:error",
		"--log-level=pmd.net.opa_vnic:error", "--log-level=lib.vema:error",
		"--log-level=lib.vnic:error", "--log-level=pmd.net.ring:error", prefix, NULL };
	struct rte_eth_conf conf = { .txmode.offloads = 0 };
	char name[RTE_RING_NAMESIZE];
	unsigned int i;
	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fuzzvnic-%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	pool = rte_pktmbuf_pool_create("fuzz_pool", POOL_SIZE, 0, 0,
				       RTE_PKTMBUF_HEADROOM + SEG_BIG, SOCKET_ID_ANY);
	r_in = rte_ring_create("fz_in", 1024, SOCKET_ID_ANY, 0);
	if (pool == NULL || r_in == NULL)
		abort();
	for (i = 0; i < NB_OUT; i++) {
		snprintf(name, sizeof(name), "fz_out%u", i);
		r_out[i] = rte_ring_create(name, 1024, SOCKET_ID_ANY, 0);
		if (r_out[i] == NULL)
			abort();
	}
	/* The fuzzer is the far end: it uses the rings directly. */
	if (rte_eth_from_rings("fzfab", &r_in, 1, r_out, NB_OUT, SOCKET_ID_ANY) < 0)
		abort();
	/* mgmt_ms=1000: the fuzzer runs the control path itself */
	if (rte_vdev_init("net_opa_vnic_fz",
			  "fabric=net_ring_fzfab,vports=2,queues=1,lid=5,mgmt_ms=1000") != 0)
		abort();
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "net_opa_vnic_fz_vp%u", i);
		if (rte_eth_dev_get_port_by_name(name, &vp[i]) != 0 ||
		    rte_eth_dev_configure(vp[i], 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup(vp[i], 0, 1024, SOCKET_ID_ANY, NULL, pool) != 0 ||
		    rte_eth_tx_queue_setup(vp[i], 0, 256, SOCKET_ID_ANY, NULL) != 0 ||
		    rte_eth_dev_start(vp[i]) != 0)
			abort();
	}
	dev = ((struct opa_vnic_port *)rte_eth_devices[vp[0]].data->dev_private)->dev;
	keep_agent = dev->agent;
	atexit(cleanup);
	ctl_run();	/* sees the fabric link up */
	configure_all();
	ids_init();
	return 0;
}

/* ---- the oracle ---- */

static uint32_t
le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		(uint32_t)b[3] << 24;
}

/* Index of a counter in drop_names. */
static unsigned int
drop_idx(const char *name)
{
	unsigned int i;

	for (i = 0; i < NB_DROPS; i++)
		if (strcmp(drop_names[i], name) == 0)
			return i;
	abort();
}

struct expect {
	enum verdict v;
	int vport;		/* delivery, or the vport of a per-vport counter */
	unsigned int counter;	/* index in drop_names */
	uint32_t eth_len;
};

/*
 * The fate of a packet, from the 16B layout (facts 1.2, 1.5, 2.6) and the
 * configuration: first fault wins, in the order a receiver meets them.
 */
static struct expect
judge(const uint8_t *b, size_t len)
{
	struct expect e = { .v = V_COUNT, .vport = -1 };
	uint32_t pad, eth, lenf;
	uint16_t vesw;
	int v;

	if (len < 20 || ((le32(b + 4) >> 29) & 3) != 2) {
		e.counter = drop_idx("fabric_rx_not_16b");
		return e;
	}
	if (b[8] == 0x08) {
		/* to the control path: the agent takes 24 .. 2080-byte packets */
		e.counter = drop_idx(len >= OPA16B_FM_HDR_LEN && len <= VEMA_PKT_MAX ?
				     "mgmt_rx" : "mgmt_rx_not_fm");
		return e;
	}
	if (b[8] != 0x78) {
		e.counter = drop_idx("fabric_rx_other_l4");
		return e;
	}
	if (len < 25) {
		e.counter = drop_idx("fabric_rx_decap_truncated");
		return e;
	}
	lenf = (le32(b) >> 20) & 0x7FF;
	if ((size_t)lenf * 8 != len) {
		e.counter = drop_idx("fabric_rx_decap_bad_length");
		return e;
	}
	pad = b[len - 1] & 0x3F;
	if (pad > 7 || pad > len - 25) {
		e.counter = drop_idx("fabric_rx_decap_bad_pad");
		return e;
	}
	eth = (uint32_t)len - 25 - pad;
	vesw = (uint16_t)((b[18] | b[19] << 8) & 0xFFF);
	v = vesw == vesw_of[0] ? 0 : vesw == vesw_of[1] ? 1 : -1;
	e.eth_len = eth;
	if (eth < 60) {
		e.vport = v;
		e.counter = drop_idx(v >= 0 ? "rx_runt" : "fabric_rx_decap_runt");
		return e;
	}
	if (v < 0) {
		e.vport = 0;	/* counted on the first vport, as Linux does */
		e.counter = drop_idx("rx_bad_veswid");
		return e;
	}
	e.vport = v;
	if (eth > (uint32_t)mtu_of[v] + 18) {
		e.counter = drop_idx("rx_oversize");
		return e;
	}
	e.v = V_DELIVER;
	return e;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snap before, after;
	struct rte_mbuf *got[2][8];
	uint16_t n[2];
	struct expect e;
	unsigned int p, i, first;
	bool fm;

	if (size > 16400)
		return 0;
	e = judge(data, size);
	fm = e.v == V_COUNT && (e.counter == drop_idx("mgmt_rx") ||
				e.counter == drop_idx("mgmt_rx_not_fm"));
	snap_take(&before);
	inject(data, size);
	/* the entropy's low bit (byte 12, which no receive decision reads)
	 * picks the vport that polls first, hence the one that dispatches */
	first = size > 12 ? data[12] & 1 : 0;
	n[first] = rte_eth_rx_burst(vp[first], 0, got[first], RTE_DIM(got[0]));
	n[!first] = rte_eth_rx_burst(vp[!first], 0, got[!first], RTE_DIM(got[0]));
	if (fm)
		ctl_run();
	snap_take(&after);

	/* delivered: to exactly one vport, the right one, the frame exactly */
	for (p = 0; p < 2; p++) {
		unsigned int want = e.v == V_DELIVER && e.vport == (int)p;
		static uint8_t buf[16384];

		if (n[p] != want || after.good[p] - before.good[p] != want) {
			fprintf(stderr, "vport %u: %u frames delivered (ipackets +%" PRIu64
				"), expected %u\n", p, n[p], after.good[p] - before.good[p], want);
			abort();
		}
		if (want && (got[p][0]->pkt_len != e.eth_len ||
			     memcmp(rte_pktmbuf_read(got[p][0], 0, e.eth_len, buf),
				    data + OPA16B_VNIC_HDR_LEN, e.eth_len) != 0)) {
			fprintf(stderr, "vport %u: frame of %u bytes, not the %u decapsulated\n", p,
				got[p][0]->pkt_len, e.eth_len);
			abort();
		}
		rte_pktmbuf_free_bulk(got[p], n[p]);
	}
	/* counted: in exactly the expected counter, once */
	for (p = 0; p < 2; p++)
		for (i = 0; i < NB_DROPS; i++) {
			uint64_t d = after.drop[p][i] - before.drop[p][i], want = 0;

			if (i < NB_DEV_DROPS && p != 0)
				continue;	/* device-wide: read on vport 0 */
			if (e.v == V_COUNT && e.counter == i &&
			    (i < NB_DEV_DROPS || e.vport == (int)p))
				want = 1;
			if (d != want) {
				fprintf(stderr, "vport %u: %s +%" PRIu64 ", expected +%"
					PRIu64 "\n", p, drop_names[i], d, want);
				abort();
			}
		}

	if (fm) {
		/* replies and traps; then undo whatever the input configured */
		drain_out(0);
		configure_all();
		drain_out(0);
	}
	keep_retired = dev->retired;
	if (rte_mempool_avail_count(pool) != POOL_SIZE ||
	    rte_mempool_avail_count(dev->pool) != dev->pool->size) {
		fprintf(stderr, "mbuf leak: fuzzer pool %u/%u, device pool %u/%u\n",
			rte_mempool_avail_count(pool), POOL_SIZE,
			rte_mempool_avail_count(dev->pool), dev->pool->size);
		abort();
	}
	return 0;
}
