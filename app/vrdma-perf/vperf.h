/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VPERF_H
#define VPERF_H

/*
 * vrdma-perf's parts (internal): the options, a device as the tool drives
 * it, and the set-up both the two-device modes (main.c) and the
 * interoperability mode (pingpong.c) use.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vuf_rdma.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2

#define GPA_BASE 0x40000000ull
#define SIGNAL 16          /* bw modes: every SIGNAL-th request is signaled (or tx-depth-th) */
#define POLL_BURST 32
#define PSN 100
#define QKEY 0x11111111u
#define GRH_LEN 40
#define STALL_SECS 5
/* the interop modes' stall floor: the peer is a guest whose CPU may be emulated (TCG) */
#define INTEROP_STALL_SECS 10
#define MAX_DEPTH 1024

enum mode {
	SEND_BW, WRITE_BW, READ_BW, SEND_LAT, UD_SEND_BW, ATOMIC_BW, WRITE_LAT,
	PINGPONG_RC, PINGPONG_UD, PERFTEST,
	READ_LAT, ATOMIC_LAT,       /* --perftest's tests only */
	CM_RPING                    /* --cm: rping through the IB CM */
};

struct vperf_opt {
	const char *sock[2];
	enum mode mode;
	uint32_t size;
	uint64_t iters;
	uint32_t tx_depth, rx_depth;
	bool verify;
	bool cmp_swap;              /* atomic_bw: CMP_AND_SWP (else FETCH_AND_ADD) */
	bool atomic_type_set;       /* --atomic-type given */
	uint8_t qp_timeout;         /* RC: local ACK timeout exponent (4.096 us << it) */
	uint8_t retry_cnt;          /* RC: transport retries */
	uint8_t tclass;             /* traffic class of the QPs' and AHs' packets */
	unsigned int roce_bit, ctrl_class;
	/* interoperability mode (--pingpong) */
	uint16_t listen_port;       /* TCP port of the out-of-band exchange */
	uint8_t gid[16];            /* the device's GID: IPv4-mapped, or IPv6 (--gid-ip) */
	bool gid_set;
	uint8_t peer_mac[6];        /* the peer's Ethernet address (else asked for by ARP / NS) */
	bool peer_mac_set;
	unsigned int accept_secs;   /* wait this long for the peer to connect */
	uint32_t ib_mtu;            /* path MTU in bytes (theirs: -m, default 1024) */
	bool ib_mtu_set;            /* given on the command line */
	/* interoperability mode (--perftest): the test, and the server a client connects to */
	enum mode pt_test;          /* SEND_BW, ..., ATOMIC_BW, SEND_LAT, ..., ATOMIC_LAT */
	uint32_t connect_ip;        /* client: the server's IPv4 address (host order); 0: server */
	uint16_t connect_port;      /* client: its TCP port (perftest's -p, default 18515) */
	bool pt_ud;                 /* UD QPs (perftest's -c UD; send_bw) */
	/* --cm: resends of a REQ or DREQ (Linux's RDMA CM: 15) */
	uint8_t cm_retries;
	bool cm_retries_set;
};
extern struct vperf_opt opt;

/* One side: a device and what the tool made on it. */
struct side {
	const char *name;
	struct vuf_rdma *d;
	uint8_t mac[6];
	uint16_t mtu;
	uint8_t gid[16];
	uint32_t pdn, cqn, qpn, lkey, rkey, ahn;
	uint32_t psn;        /* first PSN of its send queue */
	uint8_t *buf;        /* slots x slot bytes of guest memory */
	uint32_t slots, slot;
	/* progress, read by the other side's lcore */
	uint64_t done;       /* A: requests known complete (lat: round trips); B: received */
	uint64_t errors;     /* failed completions and data mismatches */
	uint64_t t_first, t_last; /* TSC of the first and last completion */
};

/* What a QP needs of its peer to connect. */
struct vperf_peer {
	uint32_t qpn;
	uint32_t psn;        /* the peer's first send PSN: our expected receive PSN */
	uint8_t gid[16];
	uint8_t mac[6];
};

/* true when the QPs are UD */
static inline bool
vperf_ud(void)
{
	return opt.mode == UD_SEND_BW || opt.mode == PINGPONG_UD ||
	       (opt.mode == PERFTEST && opt.pt_ud);
}

/* true when the QPs and MRs must grant atomics (atomic_bw, --perftest atomic_bw) */
static inline bool
vperf_atomics(void)
{
	return opt.mode == ATOMIC_BW ||
	       (opt.mode == PERFTEST && (opt.pt_test == ATOMIC_BW || opt.pt_test == ATOMIC_LAT));
}

/* --perftest: a latency test (one message at a time, the latency report) */
static inline bool
vperf_pt_lat(void)
{
	return opt.pt_test == SEND_LAT || opt.pt_test == WRITE_LAT || opt.pt_test == READ_LAT ||
	       opt.pt_test == ATOMIC_LAT;
}

int side_open(struct side *s, const char *path, const uint8_t gid[16]);
int side_fail(const struct side *s, const char *what, int rc);
/**
 * True for a successful completion; else says so on stderr, its status by its
 * verbs name (scripts match on it), as device @p dev's when @p dev is not NULL.
 */
bool vperf_wc_ok(const struct vrdma_cq_req *wc, const char *dev);
int rc_connect(struct side *s, const struct vperf_peer *p, uint8_t mtu);
int ud_connect(struct side *s, const struct vperf_peer *p);
uint8_t path_mtu(uint16_t eth_mtu, uint32_t *bytes);
int peer_path_mtu(uint16_t eth_mtu, uint32_t *bytes);
/* Seconds without progress that make a stall (the one limit every wait loop uses). */
unsigned int stall_secs(void);
struct vrdma_sge side_sge(const struct side *s, uint32_t slot, uint32_t len);

/* The pingpong examples' "LID:QPN:PSN:GID" message: 51 characters and the NUL. */
#define VPERF_DEST_LEN 52

/*
 * Parse a peer's message (untrusted: from the network).
 * @return 0 and @p p's qpn, psn and gid set, or -1 (nothing set).
 */
int vperf_dest_parse(const char *msg, size_t len, struct vperf_peer *p);

/* Our message: LID 0 (RoCE), @p qpn, @p psn, @p gid. */
void vperf_dest_format(char msg[VPERF_DEST_LEN], uint32_t qpn, uint32_t psn,
		       const uint8_t gid[16]);

/* Interoperability: serve one ibv_rc_pingpong / ibv_ud_pingpong client. @return exit status. */
int pingpong_run(void);

/* Interoperability: perftest's ib_send_bw / ib_write_bw, server or client. @return exit status. */
int perftest_run(void);

/* Interoperability: rping's server or client, connected through the IB CM. @return exit status. */
int cm_run(void);

/*
 * The interoperability modes' options (vperf_args.c): @p c is the option's
 * getopt value. @return 1 when it is one of theirs and fine, 0 when it is
 * not theirs, -1 on a bad value (said on stderr).
 */
int vperf_interop_opt(int c, const char *arg);
/* Their part of --help. */
const char *vperf_interop_usage(void);
/* Check and complete the options of --pingpong or --perftest. @return 0 or -1 (said). */
int vperf_interop_args(void);

/* vperf_net.c: the guest's Ethernet side and the exchange's TCP side (see there). */
int vnet_start(struct side *s);
void vnet_serve(void *arg);
void vnet_report(const char *who);
void vnet_stop(void);
/* The peer's MAC for its GID: --peer-mac, learned, or asked for. @return 0 or -1 (said). */
int vnet_resolve(const char *who, const char *peer_name, struct vperf_peer *peer);
/* Read exactly @p len bytes, at most 10 s for each part. @return bytes read, -1 on error. */
ssize_t vnet_read_full(int fd, void *buf, size_t len);
/* The same, at most @p secs for each part. */
ssize_t vnet_read_within(int fd, void *buf, size_t len, unsigned int secs);
int vnet_write(int fd, const void *buf, size_t len);
/* One client on --listen, within --accept-timeout. @return its socket or -1. */
int vnet_accept(const char *who);
/* --connect's server, tried until --accept-timeout. @return the socket or -1. */
int vnet_connect(const char *who);

#endif /* VPERF_H */
