/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "vuf.h"
#include "vuf_internal.h"

struct vuf_conn {
	int fd;
	bool reply_ack;
	/* after a failed exchange the stream may hold a late reply: refuse further use */
	bool broken;
};

struct vuf_conn *
vuf_connect(const char *path, unsigned int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000 };
	struct vuf_conn *c;
	int err;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(sa.sun_path, path);
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		goto fail;
	if (setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		goto fail;
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;
	return c;
fail:
	err = errno;
	if (c->fd >= 0)
		close(c->fd);
	free(c);
	errno = err;
	return NULL;
}

void
vuf_close(struct vuf_conn *c)
{
	if (c == NULL)
		return;
	close(c->fd);
	free(c);
}

static int
send_msg(struct vuf_conn *c, uint32_t req, uint32_t flags, const void *payload, uint32_t len,
	 const int *fds, unsigned int nfds)
{
	struct vuf_hdr hdr = { .request = req, .flags = VUF_HDR_VERSION | flags, .size = len };
	struct iovec iov[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)(uintptr_t)payload, .iov_len = len },
	};
	union {
		char buf[CMSG_SPACE(sizeof(int) * VUF_MAX_REGIONS)];
		struct cmsghdr align;
	} ctl;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len > 0 ? 2 : 1 };
	ssize_t n;

	if (nfds > VUF_MAX_REGIONS)
		return -EINVAL;
	if (nfds > 0) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	do {
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	/* a stream socket may take part of it only if the peer stalls: treat as gone */
	return (size_t)n == sizeof(hdr) + len ? 0 : -EPIPE;
}

static int
read_full(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = read(fd, p, len);

		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
recv_reply(struct vuf_conn *c, uint32_t req, void *reply, uint32_t len)
{
	struct vuf_hdr hdr;
	int r = read_full(c->fd, &hdr, sizeof(hdr));

	if (r < 0)
		return r;
	if (hdr.request != req || (hdr.flags & 3) != VUF_HDR_VERSION ||
	    !(hdr.flags & VUF_HDR_REPLY) || hdr.size != len)
		return -EPROTO;
	return read_full(c->fd, reply, len);
}

int
vuf_send(struct vuf_conn *c, uint32_t req, const void *payload, uint32_t len, const int *fds,
	 unsigned int nfds)
{
	uint64_t ack;
	int r;

	if (c->broken)
		return -EPIPE;
	r = send_msg(c, req, c->reply_ack ? VUF_HDR_NEED_REPLY : 0, payload, len, fds, nfds);
	if (r == 0 && c->reply_ack)
		r = recv_reply(c, req, &ack, sizeof(ack));
	if (r < 0) {
		c->broken = r != -EINVAL;
		return r;
	}
	return !c->reply_ack || ack == 0 ? 0 : -EIO;
}

int
vuf_call(struct vuf_conn *c, uint32_t req, const void *payload, uint32_t plen, void *reply,
	 uint32_t len)
{
	int r;

	if (c->broken)
		return -EPIPE;
	r = send_msg(c, req, 0, payload, plen, NULL, 0);
	if (r == 0)
		r = recv_reply(c, req, reply, len);
	if (r < 0)
		c->broken = r != -EINVAL;
	return r;
}

int
vuf_get_features(struct vuf_conn *c, uint64_t *features)
{
	return vuf_call(c, VUF_GET_FEATURES, NULL, 0, features, sizeof(*features));
}

int
vuf_set_features(struct vuf_conn *c, uint64_t features)
{
	return vuf_send(c, VUF_SET_FEATURES, &features, sizeof(features), NULL, 0);
}

int
vuf_get_protocol_features(struct vuf_conn *c, uint64_t *features)
{
	return vuf_call(c, VUF_GET_PROTOCOL_FEATURES, NULL, 0, features, sizeof(*features));
}

int
vuf_set_protocol_features(struct vuf_conn *c, uint64_t features)
{
	int r = vuf_send(c, VUF_SET_PROTOCOL_FEATURES, &features, sizeof(features), NULL, 0);

	if (r == 0)
		c->reply_ack = (features >> VUF_PROTOCOL_F_REPLY_ACK) & 1;
	return r;
}

int
vuf_set_owner(struct vuf_conn *c)
{
	return vuf_send(c, VUF_SET_OWNER, NULL, 0, NULL, 0);
}

int
vuf_set_mem_table(struct vuf_conn *c, const struct vuf_mem *mem)
{
	return vuf_set_mem_table_size(c, mem, mem->size);
}

int
vuf_set_mem_table_size(struct vuf_conn *c, const struct vuf_mem *mem, size_t size)
{
	struct vuf_mem_table t = {
		.nregions = 1,
		.regions[0] = {
			.guest_phys_addr = mem->gpa_base,
			.memory_size = size,
			.userspace_addr = (uint64_t)(uintptr_t)mem->va,
			.mmap_offset = 0,
		},
	};

	/* the payload carries only the regions in use (some backends insist) */
	return vuf_send(c, VUF_SET_MEM_TABLE, &t,
			offsetof(struct vuf_mem_table, regions) + sizeof(t.regions[0]), &mem->fd, 1);
}

int
vuf_get_config(struct vuf_conn *c, uint32_t offset, void *buf, uint32_t len)
{
	struct vuf_config cfg = { .offset = offset, .size = len };
	uint32_t plen = offsetof(struct vuf_config, region) + len;
	int r;

	if (len > VUF_CONFIG_MAX)
		return -EINVAL;
	r = vuf_call(c, VUF_GET_CONFIG, &cfg, plen, &cfg, plen);
	if (r == 0)
		memcpy(buf, cfg.region, len);
	return r;
}

int
vuf_get_vring_base(struct vuf_conn *c, uint32_t index, uint32_t *base)
{
	struct vuf_vring_state s = { .index = index };
	int r = vuf_call(c, VUF_GET_VRING_BASE, &s, sizeof(s), &s, sizeof(s));

	if (r == 0) {
		if (s.index != index)
			return -EPROTO;
		*base = s.num;
	}
	return r;
}

int
vuf_set_vring_enable(struct vuf_conn *c, uint32_t index, bool enable)
{
	struct vuf_vring_state s = { .index = index, .num = enable };

	return vuf_send(c, VUF_SET_VRING_ENABLE, &s, sizeof(s), NULL, 0);
}
