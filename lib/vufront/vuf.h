/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VUF_H
#define VUF_H

/**
 * @file
 * A vhost-user frontend: the side QEMU plays. It owns "guest" memory (a
 * memfd shared with the backend), speaks the vhost-user protocol over the
 * backend's socket and drives split virtqueues as a guest driver would.
 * Tests and benchmarks use it to reach what no stock frontend drives (the
 * RoCE queues of app/vhost-user-rdma) and to play a guest that breaks the
 * rules. Plain C: no EAL needed. Not thread-safe: one user per connection.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @name vhost-user requests (the vhost-user protocol specification) */
/**@{*/
#define VUF_GET_FEATURES 1           /**< the backend's features */
#define VUF_SET_FEATURES 2           /**< the features the driver accepts */
#define VUF_SET_OWNER 3              /**< the frontend owns the session */
#define VUF_RESET_OWNER 4            /**< drop the session's state */
#define VUF_SET_MEM_TABLE 5          /**< guest memory regions, with their descriptors */
#define VUF_SET_VRING_NUM 8          /**< a ring's size */
#define VUF_SET_VRING_ADDR 9         /**< a ring's descriptor, available and used areas */
#define VUF_SET_VRING_BASE 10        /**< a ring's next available index */
#define VUF_GET_VRING_BASE 11        /**< stop a ring; its next available index */
#define VUF_SET_VRING_KICK 12        /**< a ring's kick eventfd */
#define VUF_SET_VRING_CALL 13        /**< a ring's call eventfd */
#define VUF_GET_PROTOCOL_FEATURES 15 /**< the backend's protocol features */
#define VUF_SET_PROTOCOL_FEATURES 16 /**< the protocol features the frontend uses */
#define VUF_GET_QUEUE_NUM 17         /**< the backend's largest number of queues */
#define VUF_SET_VRING_ENABLE 18      /**< enable or disable a ring */
#define VUF_GET_CONFIG 24            /**< read the device's configuration space */
#define VUF_SET_STATUS 39            /**< the driver's device status byte */
/**@}*/

/** Feature bit: protocol features may be negotiated (vhost-user). */
#define VUF_F_PROTOCOL_FEATURES 30
/** Protocol feature bit: the backend acks requests that ask for it. */
#define VUF_PROTOCOL_F_REPLY_ACK 3
/** Protocol feature bit: GET_CONFIG / SET_CONFIG. */
#define VUF_PROTOCOL_F_CONFIG 9
/** Protocol feature bit: SET_STATUS / GET_STATUS. */
#define VUF_PROTOCOL_F_STATUS 16

/** Guest memory: one memfd region, mapped shared, handed out by a bump allocator. */
struct vuf_mem;

/**
 * Create guest memory of @p size bytes (rounded up to 4 KiB), zeroed, at
 * guest-physical address @p gpa_base.
 * @param size
 *   Bytes of guest memory.
 * @param gpa_base
 *   Guest-physical address of its first byte.
 * @return The memory, or NULL with errno set on failure.
 */
struct vuf_mem *vuf_mem_create(size_t size, uint64_t gpa_base);

/**
 * Unmap and close guest memory.
 * @param mem
 *   The memory (NULL is ignored).
 */
void vuf_mem_destroy(struct vuf_mem *mem);

/**
 * Take bytes from guest memory (never given back but with the memory).
 * @param mem
 *   Guest memory.
 * @param len
 *   Bytes.
 * @param align
 *   Alignment of the first byte, a power of two.
 * @return Their address, or NULL when @p mem has no room left.
 */
void *vuf_mem_alloc(struct vuf_mem *mem, size_t len, size_t align);

/**
 * @param mem
 *   Guest memory.
 * @param va
 *   An address within @p mem.
 * @return The guest-physical address of @p va.
 */
uint64_t vuf_mem_gpa(const struct vuf_mem *mem, const void *va);

/** A connection to a backend's vhost-user socket. */
struct vuf_conn;

/**
 * Connect to the backend listening on @p path.
 * @param path
 *   The backend's vhost-user socket.
 * @param timeout_ms
 *   How long each read of a reply may wait before the request fails with
 *   -ETIMEDOUT (0: no limit).
 * @return The connection, or NULL with errno set on failure.
 */
struct vuf_conn *vuf_connect(const char *path, unsigned int timeout_ms);

/**
 * Close the connection; the backend sees the guest go away.
 * @param c
 *   The connection (NULL is ignored).
 */
void vuf_close(struct vuf_conn *c);

/**
 * Send request @p req, one without a reply of its own (vuf_call() is for
 * those), with @p len payload bytes and @p nfds descriptors. When the
 * backend acks (REPLY_ACK negotiated), asks for the ack and waits for it.
 * @param c
 *   The connection.
 * @param req
 *   The request (VUF_SET_..., or any number: tests send bad ones).
 * @param payload
 *   Its payload.
 * @param len
 *   Bytes of @p payload.
 * @param fds
 *   Descriptors passed with it (SCM_RIGHTS).
 * @param nfds
 *   How many (at most 8).
 * @return 0, a negative errno, or the backend's non-zero ack as -EIO.
 *   After a failed exchange (timeout, short read, malformed reply) the
 *   stream may hold a late reply, so every later call fails with -EPIPE.
 */
int vuf_send(struct vuf_conn *c, uint32_t req, const void *payload, uint32_t len,
	     const int *fds, unsigned int nfds);

/**
 * Send request @p req and read its reply into @p reply (@p len bytes expected).
 * @param c
 *   The connection.
 * @param req
 *   The request.
 * @param payload
 *   Its payload.
 * @param plen
 *   Bytes of @p payload.
 * @param reply
 *   Receives the reply's payload.
 * @param len
 *   Bytes the reply must carry.
 * @return 0, or a negative errno (-EPROTO for a malformed reply; later
 *   calls then fail with -EPIPE, as for vuf_send()).
 */
int vuf_call(struct vuf_conn *c, uint32_t req, const void *payload, uint32_t plen,
	     void *reply, uint32_t len);

/**
 * GET_FEATURES.
 * @param c
 *   The connection.
 * @param features
 *   Receives the backend's features.
 * @return 0, or a negative errno (vuf_send(), vuf_call()).
 */
int vuf_get_features(struct vuf_conn *c, uint64_t *features);

/**
 * SET_FEATURES.
 * @param c
 *   The connection.
 * @param features
 *   The features the driver accepts.
 * @return 0, or a negative errno (vuf_send(), vuf_call()).
 */
int vuf_set_features(struct vuf_conn *c, uint64_t features);

/**
 * GET_PROTOCOL_FEATURES.
 * @param c
 *   The connection.
 * @param features
 *   Receives the backend's protocol features.
 * @return 0, or a negative errno (vuf_send(), vuf_call()).
 */
int vuf_get_protocol_features(struct vuf_conn *c, uint64_t *features);

/**
 * SET_PROTOCOL_FEATURES; REPLY_ACK in @p features turns acks on for later requests.
 * @param c
 *   The connection.
 * @param features
 *   The protocol features to use (VUF_PROTOCOL_F_* bits).
 * @return 0, or a negative errno (vuf_send(), vuf_call()).
 */
int vuf_set_protocol_features(struct vuf_conn *c, uint64_t features);

/**
 * SET_OWNER.
 * @param c
 *   The connection.
 * @return 0, or a negative errno (vuf_send(), vuf_call()).
 */
int vuf_set_owner(struct vuf_conn *c);

/**
 * SET_MEM_TABLE with @p mem as the one region.
 * @param c
 *   The connection.
 * @param mem
 *   Guest memory.
 * @return 0, or a negative errno (vuf_send(), vuf_call()).
 */
int vuf_set_mem_table(struct vuf_conn *c, const struct vuf_mem *mem);

/**
 * SET_MEM_TABLE announcing only the first @p size bytes of @p mem: guest
 * memory that shrank.
 * @param c
 *   The connection.
 * @param mem
 *   Guest memory.
 * @param size
 *   Bytes announced: a multiple of 4 KiB, at most the memory's size.
 * @return 0, or a negative errno (vuf_send(), vuf_call()).
 */
int vuf_set_mem_table_size(struct vuf_conn *c, const struct vuf_mem *mem, size_t size);

/**
 * GET_CONFIG of @p len bytes at @p offset into @p buf.
 * @param c
 *   The connection.
 * @param offset
 *   First byte of the configuration space.
 * @param buf
 *   Receives the bytes.
 * @param len
 *   Bytes to read.
 * @return 0, or a negative errno (vuf_send(), vuf_call()).
 */
int vuf_get_config(struct vuf_conn *c, uint32_t offset, void *buf, uint32_t len);

/**
 * GET_VRING_BASE: stop a ring.
 * @param c
 *   The connection.
 * @param index
 *   The ring.
 * @param base
 *   Receives its next available index.
 * @return 0, or a negative errno (vuf_send(), vuf_call()).
 */
int vuf_get_vring_base(struct vuf_conn *c, uint32_t index, uint32_t *base);

/**
 * SET_VRING_ENABLE.
 * @param c
 *   The connection.
 * @param index
 *   The ring.
 * @param enable
 *   Enable it, or disable it.
 * @return 0, or a negative errno (vuf_send(), vuf_call()).
 */
int vuf_set_vring_enable(struct vuf_conn *c, uint32_t index, bool enable);

/** One buffer of a descriptor chain; @p addr must lie in the ring's guest memory. */
struct vuf_buf {
	void *addr;   /**< first byte */
	uint32_t len; /**< bytes */
};

/** A split virtqueue, driver side. Its fields are private (the functions below keep them). */
struct vuf_vq {
	struct vuf_mem *mem;     /**< guest memory the ring lives in */
	uint32_t index;          /**< ring index */
	uint16_t size;           /**< entries, a power of two */
	uint16_t free_head;      /**< first free descriptor */
	uint16_t num_free;       /**< free descriptors */
	uint16_t avail_idx;      /**< next available index to publish */
	uint16_t last_used;      /**< next used element to take */
	struct vuf_desc *desc;   /**< descriptor table (guest memory) */
	struct vuf_avail *avail; /**< available ring (guest memory) */
	struct vuf_used *used;   /**< used ring (guest memory) */
	void **cookie;       /**< per chain head, while in flight */
	uint16_t *chain_len; /**< per chain head, 0 when not in flight */
	uint32_t *in_len;    /**< per chain head: bytes of its device-writable buffers */
	uint16_t *next;      /**< free list and chains, kept here: the backend can write desc */
	uint16_t *held;      /**< heads recycled and not yet published (vuf_vq_recycle_burst) */
	uint16_t nheld;      /**< entries of held */
	int kickfd;          /**< kick eventfd (driver to device) */
	int callfd;          /**< call eventfd (device to driver) */
};

/**
 * Lay out ring @p index (below 256) of @p size entries (a power of two) in
 * @p mem and create its kick and call eventfds. VIRTIO_F_EVENT_IDX is not
 * supported: do not negotiate it (used_event stays 0).
 * @param vq
 *   The ring to set up.
 * @param mem
 *   Guest memory to place it in.
 * @param index
 *   Ring index, below 256.
 * @param size
 *   Entries, a power of two.
 * @return 0 or a negative errno.
 */
int vuf_vq_init(struct vuf_vq *vq, struct vuf_mem *mem, uint32_t index, uint16_t size);

/**
 * Close the eventfds and free the bookkeeping (the ring memory stays in mem).
 * @param vq
 *   The ring.
 */
void vuf_vq_fini(struct vuf_vq *vq);

/**
 * Hand the ring to the backend: SET_VRING_NUM, _BASE (the first chain not
 * yet used: 0 on a new ring), _ADDR, _KICK, _CALL, then SET_VRING_ENABLE
 * when @p enable.
 * @param c
 *   The connection.
 * @param vq
 *   The ring.
 * @param enable
 *   Also enable it.
 * @return 0, or a negative errno (vuf_send()).
 */
int vuf_vq_start(struct vuf_conn *c, struct vuf_vq *vq, bool enable);

/**
 * Make a chain of @p n_out device-readable then @p n_in device-writable
 * buffers available (not yet kicked).
 * @param vq
 *   The ring.
 * @param out
 *   Device-readable buffers.
 * @param n_out
 *   How many.
 * @param in
 *   Device-writable buffers.
 * @param n_in
 *   How many.
 * @param cookie
 *   Returned with the chain when the device has used it.
 * @return 0, -ENOSPC when the ring lacks free descriptors, -EINVAL for
 *   no buffers or a buffer outside guest memory.
 */
int vuf_vq_add(struct vuf_vq *vq, const struct vuf_buf *out, unsigned int n_out,
	       const struct vuf_buf *in, unsigned int n_in, void *cookie);

/**
 * Ask the backend not to signal this ring (VRING_AVAIL_F_NO_INTERRUPT), or
 * to signal it again: a driver that polls the ring does not need calls.
 * @param vq
 *   The ring.
 * @param on
 *   Signals wanted.
 */
void vuf_vq_set_interrupts(struct vuf_vq *vq, bool on);

/**
 * Notify the backend (write the kick eventfd) unless it asked not to be
 * (VRING_USED_F_NO_NOTIFY).
 * @param vq
 *   The ring.
 */
void vuf_vq_kick(struct vuf_vq *vq);

/**
 * Take the next used chain.
 * @param vq
 *   The ring.
 * @param cookie
 *   Receives the chain's cookie.
 * @param len
 *   Receives the bytes the device wrote.
 * @return 1 with @p cookie and @p len (bytes the device wrote) set, 0 when
 *   none is used, -EPROTO when the device returned an id that is not a
 *   chain head in flight or a length beyond the chain's writable buffers
 *   (the element stays unconsumed).
 */
int vuf_vq_get_used(struct vuf_vq *vq, void **cookie, uint32_t *len);

/**
 * Take up to @p n used chains at once (the used index is read once).
 * @param vq
 *   The ring.
 * @param cookies
 *   Receive the chains' cookies.
 * @param lens
 *   Receive the bytes the device wrote to each.
 * @param n
 *   Room in @p cookies and @p lens.
 * @return how many, with @p cookies and @p lens set; or -EPROTO as
 *   vuf_vq_get_used() when the first one is refused (a later refused one
 *   ends the burst before it).
 */
int vuf_vq_get_used_burst(struct vuf_vq *vq, void **cookies, uint32_t *lens, unsigned int n);

/**
 * Take up to @p n used one-buffer chains and queue each again as it was
 * (same descriptor, buffer and length), for buffers the driver hands back
 * at once (completion buffers): no free-list or descriptor work. The
 * device sees them only at vuf_vq_publish(), after the caller read them.
 * @param vq
 *   The ring.
 * @param cookies
 *   Receive the chains' cookies.
 * @param lens
 *   Receive the bytes the device wrote to each.
 * @param n
 *   Room in @p cookies and @p lens.
 * @return how many, with @p cookies and @p lens set; or -EPROTO as
 *   vuf_vq_get_used() (an element that is not a one-buffer chain in flight:
 *   one recycled and not yet published is not), and the element stays
 *   unconsumed.
 */
int vuf_vq_recycle_burst(struct vuf_vq *vq, void **cookies, uint32_t *lens, unsigned int n);

/**
 * Make the chains queued by vuf_vq_recycle_burst() available to the device.
 * @param vq
 *   The ring.
 */
void vuf_vq_publish(struct vuf_vq *vq);

/**
 * @param vq
 *   The ring.
 * @return Chains made available and not yet used.
 */
unsigned int vuf_vq_in_flight(const struct vuf_vq *vq);

#ifdef __cplusplus
}
#endif

#endif /* VUF_H */
