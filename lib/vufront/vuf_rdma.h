/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VUF_RDMA_H
#define VUF_RDMA_H

/**
 * @file
 * The guest driver of a virtio-net device with RoCE queues, over lib/vufront:
 * negotiation, guest memory, the control queue's commands, and the send,
 * receive and completion queues, behind a verbs-like API. Requests and
 * completions are the RFC's layouts, and the verbs values in them the
 * ABI's (lib/vrdma/abi/vrdma_abi.h, the only part of lib/vrdma this driver
 * sees). Not thread-safe: one thread drives a device.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vrdma_abi.h"
#include "vuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How to reach and drive the device. */
struct vuf_rdma_conf {
	const char *path;        /**< the backend's vhost-user socket */
	size_t mem_size;         /**< guest memory, one region (buffers, rings, requests) */
	uint64_t gpa_base;       /**< its guest-physical address */
	unsigned int roce_bit;   /**< RoCE feature bit (the RFC: 55) */
	uint8_t ctrl_class;      /**< RoCE control class (the RFC: 6) */
	unsigned int timeout_ms; /**< wait for a reply or a control answer */
	/**
	 * Called while waiting for the device, e.g. to poll a backend that runs
	 * in the same thread; NULL for a backend of its own.
	 */
	void (*poll)(void *arg);
	void *poll_arg;          /**< the hook's argument */
};

/** A device as its guest driver sees it. */
struct vuf_rdma;

/**
 * Connect, negotiate VERSION_1, CTRL_VQ and RoCE, map guest memory and
 * start the control queue.
 * @param conf
 *   How to reach and drive the device.
 * @param err
 *   Receives why it failed.
 * @param errlen
 *   Size of @p err.
 * @return The device, or NULL with @p err saying why.
 */
struct vuf_rdma *vuf_rdma_open(const struct vuf_rdma_conf *conf, char *err, size_t errlen);

/**
 * Disconnect and free everything.
 * @param d
 *   The device (NULL is ignored).
 */
void vuf_rdma_close(struct vuf_rdma *d);

/**
 * @param d
 *   The device.
 * @return Its guest memory, to place buffers in (vuf_mem_alloc()).
 */
struct vuf_mem *vuf_rdma_mem(struct vuf_rdma *d);

/**
 * The device's max_rdma_qps and max_rdma_cqs (configuration space).
 * @param d
 *   The device.
 * @param max_qps
 *   Receives max_rdma_qps.
 * @param max_cqs
 *   Receives max_rdma_cqs.
 */
void vuf_rdma_limits(const struct vuf_rdma *d, uint32_t *max_qps, uint32_t *max_cqs);

/**
 * The device's MAC and MTU (configuration space): a peer's address vector needs them.
 * @param d
 *   The device.
 * @param mac
 *   Receives the MAC.
 * @param mtu
 *   Receives the MTU.
 */
void vuf_rdma_addr(const struct vuf_rdma *d, uint8_t mac[6], uint16_t *mtu);

/**
 * Run control command @p cmd with @p len bytes of data; up to @p acklen
 * bytes of its ack-specific data go to @p ack.
 * @param d
 *   The device.
 * @param cmd
 *   enum vrdma_cmd_code.
 * @param data
 *   The command-specific data.
 * @param len
 *   Its bytes.
 * @param ack
 *   Receives the ack-specific data (NULL when @p acklen is 0).
 * @param acklen
 *   Bytes of it expected.
 * @return 0; -EIO when the device answered VIRTIO_NET_ERR; -ETIMEDOUT;
 *   another negative errno.
 */
int vuf_rdma_cmd(struct vuf_rdma *d, uint8_t cmd, const void *data, uint32_t len, void *ack,
		 uint32_t acklen);

/**
 * CREATE_PD.
 * @param d
 *   The device.
 * @param pdn
 *   Receives the PD's number.
 * @return 0, or a negative errno as vuf_rdma_cmd().
 */
int vuf_rdma_create_pd(struct vuf_rdma *d, uint32_t *pdn);

/**
 * CREATE_CQ of @p cqe entries, and its completion ring (as many 48-byte
 * buffers, at most 4096), all made available to the device.
 * @param d
 *   The device.
 * @param cqe
 *   Entries.
 * @param cqn
 *   Receives the CQ's number.
 * @return 0, or a negative errno as vuf_rdma_cmd(); -EPROTO for a CQ number
 *   the device cannot have given, -ENOMEM when guest memory is short.
 */
int vuf_rdma_create_cq(struct vuf_rdma *d, uint32_t cqe, uint32_t *cqn);

/**
 * DESTROY_CQ; its ring is stopped.
 * @param d
 *   The device.
 * @param cqn
 *   The CQ.
 * @return 0, or a negative errno as vuf_rdma_cmd().
 */
int vuf_rdma_destroy_cq(struct vuf_rdma *d, uint32_t cqn);

/**
 * REG_USER_MR over @p len bytes at @p addr (guest memory), its 4 KiB pages
 * by guest-physical address.
 * @param d
 *   The device.
 * @param pdn
 *   Protection domain.
 * @param addr
 *   First byte, in guest memory.
 * @param len
 *   Bytes.
 * @param access
 *   VRDMA_ACCESS_* bits.
 * @param lkey
 *   Receives the local key.
 * @param rkey
 *   Receives the remote key.
 * @return 0, or a negative errno as vuf_rdma_cmd(); -EINVAL for an empty
 *   range, one outside guest memory or one of more than 4096 pages (16 MiB);
 *   -ENOMEM.
 */
int vuf_rdma_reg_mr(struct vuf_rdma *d, uint32_t pdn, void *addr, uint64_t len, uint32_t access,
		    uint32_t *lkey, uint32_t *rkey);

/**
 * @param d
 *   The device.
 * @param va
 *   An address in its guest memory.
 * @return The guest-physical address of @p va (for SGEs and remote addresses).
 */
uint64_t vuf_rdma_gpa(const struct vuf_rdma *d, const void *va);

/**
 * CREATE_QP, and its send and receive rings (sized by the caps, rounded up
 * to a power of two).
 * @param d
 *   The device.
 * @param c
 *   The command's data.
 * @param qpn
 *   Receives the QP's number.
 * @return 0, or a negative errno as vuf_rdma_cmd(); -EPROTO for a QP number
 *   the device cannot have given, -ENOMEM when guest memory is short.
 */
int vuf_rdma_create_qp(struct vuf_rdma *d, const struct vrdma_cmd_create_qp *c, uint32_t *qpn);

/**
 * MODIFY_QP.
 * @param d
 *   The device.
 * @param m
 *   The command's data.
 * @return 0, or a negative errno as vuf_rdma_cmd().
 */
int vuf_rdma_modify_qp(struct vuf_rdma *d, const struct vrdma_cmd_modify_qp *m);

/**
 * QUERY_QP of every attribute.
 * @param d
 *   The device.
 * @param qpn
 *   The QP.
 * @param a
 *   Receives the attributes.
 * @return 0, or a negative errno as vuf_rdma_cmd().
 */
int vuf_rdma_query_qp(struct vuf_rdma *d, uint32_t qpn, struct vrdma_ack_query_qp *a);

/**
 * DESTROY_QP; its rings are stopped.
 * @param d
 *   The device.
 * @param qpn
 *   The QP.
 * @return 0, or a negative errno as vuf_rdma_cmd().
 */
int vuf_rdma_destroy_qp(struct vuf_rdma *d, uint32_t qpn);

/**
 * Queue a send request: @p req's head (num_sge, or inline_len with
 * VRDMA_SEND_INLINE, says how much follows) and @p sg. Kicks.
 * @param d
 *   The device.
 * @param qpn
 *   The QP.
 * @param req
 *   The request's head.
 * @param sg
 *   Its SGEs (num_sge of them; none when inline).
 * @return 0; -ENOSPC when the send ring is full (poll the CQ); -EINVAL.
 */
int vuf_rdma_post_send(struct vuf_rdma *d, uint32_t qpn, const struct vrdma_sq_req *req,
		       const struct vrdma_sge *sg);

/**
 * Queue @p n send requests, @p reqs[i] with its SGEs @p sgs[i], and notify
 * the device once. @p done says how many were queued.
 * @param d
 *   The device.
 * @param qpn
 *   The QP.
 * @param reqs
 *   The requests' heads.
 * @param sgs
 *   Their SGEs.
 * @param n
 *   How many requests.
 * @param done
 *   Receives how many were queued.
 * @return 0, or why request @p done was not (see vuf_rdma_post_send()).
 */
int vuf_rdma_post_send_list(struct vuf_rdma *d, uint32_t qpn,
			    const struct vrdma_sq_req *const *reqs,
			    const struct vrdma_sge *const *sgs, unsigned int n, unsigned int *done);

/**
 * Queue a receive request of @p n SGEs. Kicks.
 * @param d
 *   The device.
 * @param qpn
 *   The QP.
 * @param wr_id
 *   Returned in its completion.
 * @param sg
 *   Its SGEs.
 * @param n
 *   How many.
 * @return 0; -ENOSPC when the receive ring is full; -EINVAL.
 */
int vuf_rdma_post_recv(struct vuf_rdma *d, uint32_t qpn, uint64_t wr_id,
		       const struct vrdma_sge *sg, uint32_t n);

/**
 * Queue @p n receive requests of @p nsge SGEs each (@p wr_ids[i] with
 * @p sg[i * nsge ...]) and notify the device once; see
 * vuf_rdma_post_send_list().
 * @param d
 *   The device.
 * @param qpn
 *   The QP.
 * @param wr_ids
 *   Returned in their completions.
 * @param sg
 *   Their SGEs, @p nsge each, one request after the other.
 * @param nsge
 *   SGEs per request.
 * @param n
 *   How many requests.
 * @param done
 *   Receives how many were queued.
 * @return 0, or why request @p done was not (see vuf_rdma_post_recv()).
 */
int vuf_rdma_post_recv_list(struct vuf_rdma *d, uint32_t qpn, const uint64_t *wr_ids,
			    const struct vrdma_sge *sg, uint32_t nsge, unsigned int n,
			    unsigned int *done);

/**
 * Take up to @p n completions of CQ @p cqn (the buffers go back to the
 * device).
 * @param d
 *   The device.
 * @param cqn
 *   The CQ.
 * @param wc
 *   Receive the completions.
 * @param n
 *   Room in @p wc.
 * @return How many, or a negative errno.
 */
int vuf_rdma_poll_cq(struct vuf_rdma *d, uint32_t cqn, struct vrdma_cq_req *wc, int n);

/**
 * REQ_NOTIFY_CQ: arm a CQ.
 * @param d
 *   The device.
 * @param cqn
 *   The CQ.
 * @param flags
 *   VRDMA_NOTIFY_* bits.
 * @return 0, or a negative errno as vuf_rdma_cmd().
 */
int vuf_rdma_req_notify(struct vuf_rdma *d, uint32_t cqn, uint32_t flags);

/**
 * Consume a notification of CQ @p cqn (its call eventfd).
 * @param d
 *   The device.
 * @param cqn
 *   The CQ.
 * @return true when the device signalled since the last call.
 */
bool vuf_rdma_cq_signalled(struct vuf_rdma *d, uint32_t cqn);

/**
 * Change the hook called while waiting for the device.
 * @param d
 *   The device.
 * @param poll
 *   The hook (NULL: none).
 * @param arg
 *   Its argument.
 */
void vuf_rdma_set_poll(struct vuf_rdma *d, void (*poll)(void *arg), void *arg);

/**
 * @name The device's Ethernet queues (receiveq1, transmitq1)
 * What the guest kernel's virtio_net driver does with them, for a driver
 * that also plays the guest's network stack (vrdma-perf answers ARP for its
 * GID): frames in guest memory behind the virtio-net header the negotiated
 * features require (12 bytes: VERSION_1 is always negotiated; no offload,
 * no MRG_RXBUF, so one receive buffer holds one frame of up to MTU + 18
 * bytes). The rings are polled: no interrupts asked for.
 */
/**@{*/

/** Counters of the Ethernet queues, from vuf_rdma_net_start() on. */
struct vuf_rdma_net_stats {
	uint64_t rx_frames;    /**< frames taken by vuf_rdma_net_recv() */
	uint64_t rx_dropped;   /**< frames dropped: shorter than the header, longer than the room */
	uint64_t tx_frames;    /**< frames queued by vuf_rdma_net_send() */
	uint64_t tx_full;      /**< frames refused: every transmit buffer in flight */
};

/**
 * Set up receiveq1 with @p rx_bufs receive buffers, all made available, and
 * transmitq1 with @p tx_bufs transmit buffers (each rounded up to a power of
 * two, at most 256), in guest memory. Until this is called, the device drops
 * the frames it has for the guest (as a NIC with no driver does).
 * @param d
 *   The device.
 * @param rx_bufs
 *   Receive buffers, 1..256.
 * @param tx_bufs
 *   Transmit buffers, 1..256.
 * @return 0; -EALREADY when started; -EINVAL for a count out of range;
 *   -ENOMEM when guest memory is short; or a negative errno of the
 *   connection (vuf_send()).
 */
int vuf_rdma_net_start(struct vuf_rdma *d, unsigned int rx_bufs, unsigned int tx_bufs);

/**
 * Take the next frame the device delivered, copied out of guest memory (the
 * buffer goes back to the device at once): the caller parses a copy the
 * device can no longer change. A frame longer than @p room, or a used
 * buffer shorter than the header, is dropped and counted, and the next one
 * taken.
 * @param d
 *   The device.
 * @param frame
 *   Receives the frame (from the Ethernet header on).
 * @param room
 *   Bytes of @p frame.
 * @param len
 *   Receives the frame's length.
 * @return 1 with @p frame and @p len set; 0 when none is waiting; -ENODEV
 *   before vuf_rdma_net_start(); -EPROTO when the device returned a buffer
 *   it was not given (vuf_vq_get_used()).
 */
int vuf_rdma_net_recv(struct vuf_rdma *d, void *frame, uint32_t room, uint32_t *len);

/**
 * Queue one frame on transmitq1 (copied into a transmit buffer behind a
 * header asking for no offload) and notify the device. Buffers the device
 * is done with are taken back first.
 * @param d
 *   The device.
 * @param frame
 *   The frame, from the Ethernet header on.
 * @param len
 *   Its bytes: 14 (a header) to MTU + 18 (one VLAN tag).
 * @return 0; -ENOSPC (counted) when every transmit buffer is in flight;
 *   -EINVAL for a length out of range; -ENODEV before vuf_rdma_net_start().
 */
int vuf_rdma_net_send(struct vuf_rdma *d, const void *frame, uint32_t len);

/**
 * @param d
 *   The device.
 * @param st
 *   Receives the counters of the Ethernet queues.
 */
void vuf_rdma_net_stats(const struct vuf_rdma *d, struct vuf_rdma_net_stats *st);

/**
 * @param d
 *   The device.
 * @return The longest frame the Ethernet queues carry: MTU + 18 (one VLAN tag).
 */
uint32_t vuf_rdma_net_frame_max(const struct vuf_rdma *d);

/**@}*/

/**
 * A ring of the device, for tests that misbehave on purpose.
 * @param d
 *   The device.
 * @param index
 *   Ring index: receiveq1 or transmitq1 (once started), the control ring,
 *   a CQ's, a QP's send or receive ring.
 * @return The ring, or NULL when it is not set up.
 */
struct vuf_vq *vuf_rdma_ring(struct vuf_rdma *d, uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* VUF_RDMA_H */
