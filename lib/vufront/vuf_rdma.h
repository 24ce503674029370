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
 * A ring of the device, for tests that misbehave on purpose.
 * @param d
 *   The device.
 * @param index
 *   Ring index: the control ring, a CQ's, a QP's send or receive ring.
 * @return The ring, or NULL when it is not set up.
 */
struct vuf_vq *vuf_rdma_ring(struct vuf_rdma *d, uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* VUF_RDMA_H */
