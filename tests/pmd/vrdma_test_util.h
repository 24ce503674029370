/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VRDMA_TEST_UTIL_H
#define VRDMA_TEST_UTIL_H

/* Shared by the lib/vrdma tests: sockets, wire rings, attach/detach with lib/vufront. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ring.h>

#include "test_eal.h"
#include "test_wait.h"
#include "vrdma.h"
#include "vuf.h"

#define TIMEOUT_MS 5000

static char sock_dir[64];

/* the wire side of every device: RoCE frames in and out */
static struct rte_ring *vt_rx, *vt_tx;

static __rte_unused int
group_up(void **state)
{
	if (test_eal_setup(state) < 0)
		return -1;
	vt_rx = rte_ring_create("vt_rx", 1024, SOCKET_ID_ANY, 0);
	vt_tx = rte_ring_create("vt_tx", 1024, SOCKET_ID_ANY, 0);
	if (vt_rx == NULL || vt_tx == NULL)
		return -1;
	snprintf(sock_dir, sizeof(sock_dir), "/tmp/vrdma-test-XXXXXX");
	return mkdtemp(sock_dir) == NULL ? -1 : 0;
}

static __rte_unused int
group_down(void **state)
{
	rmdir(sock_dir);
	rte_ring_free(vt_rx);
	rte_ring_free(vt_tx);
	return test_eal_teardown(state);
}

static __rte_unused void
sock_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", sock_dir, name);
}

/* Wait until @p pred holds for @p dev's info, or TIMEOUT_MS. */
static __rte_unused bool
wait_info(struct vrdma_dev *dev, bool (*pred)(const struct vrdma_dev_info *, const void *),
	  const void *arg, struct vrdma_dev_info *info)
{
	return test_wait_until((vrdma_dev_info_get(dev, info), pred(info, arg)), TIMEOUT_MS);
}

static __rte_unused bool
has_vid(const struct vrdma_dev_info *i, const void *arg)
{
	(void)arg;
	return i->vid >= 0;
}

static __rte_unused bool
no_vid(const struct vrdma_dev_info *i, const void *arg)
{
	(void)arg;
	return i->vid < 0;
}

static __rte_unused bool
ring_is(const struct vrdma_dev_info *i, const void *arg)
{
	const int *want = arg; /* ring, ready */

	return !!(i->ready[want[0] / 64] & (1ull << (want[0] % 64))) == !!want[1];
}

/* Default configuration for a socket named @p name in the test's directory. */
static __rte_unused void
conf_for(struct vrdma_conf *conf, char *path, size_t len, const char *name)
{
	sock_path(path, len, name);
	vrdma_conf_init(conf, path);
	conf->roce_rx = vt_rx;
	conf->roce_tx = vt_tx;
	conf->pool = test_pool;
}

/* Create the device and attach a frontend; @p info shows the connection. */
static __rte_unused struct vrdma_dev *
attach(const struct vrdma_conf *conf, struct vuf_conn **c, struct vrdma_dev_info *info)
{
	struct vrdma_dev *dev = vrdma_dev_create(conf);

	assert_non_null(dev);
	*c = vuf_connect(conf->path, TIMEOUT_MS);
	assert_non_null(*c);
	assert_true(wait_info(dev, has_vid, NULL, info));
	return dev;
}

/* Close the frontend, see the device notice, destroy it. */
static __rte_unused void
detach(struct vrdma_dev *dev, struct vuf_conn *c, const char *path)
{
	struct vrdma_dev_info info;

	vuf_close(c);
	assert_true(wait_info(dev, no_vid, NULL, &info));
	assert_true(info.ready[0] == 0 && info.ready[1] == 0);
	vrdma_dev_destroy(dev);
	unlink(path);
}

#endif /* VRDMA_TEST_UTIL_H */
