/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>

#include "omni_kvargs.h"
#include "omni_num.h"

RTE_LOG_REGISTER_DEFAULT(omni_common_logtype, NOTICE);
#define OMNI_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, omni_common_logtype, "omni: " fmt "\n", ##__VA_ARGS__)

#define OMNI_DEVARGS_MAX 32

int
omni_devargs_parse(const char *who, const char *args, const struct omni_devarg *table,
		   unsigned int n, void *opaque)
{
	const char *keys[OMNI_DEVARGS_MAX + 1];
	struct rte_kvargs *kv;
	unsigned int i;
	int ret = 0;

	if (args == NULL || args[0] == '\0')
		return 0;
	if (n > OMNI_DEVARGS_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		keys[i] = table[i].key;
	keys[n] = NULL;
	kv = rte_kvargs_parse(args, keys);
	if (kv == NULL) {
		OMNI_LOG(ERR, "%s: bad devargs \"%s\" (keys: an unknown key, or not key=value)",
			 who, args);
		return -EINVAL;
	}
	/* every refusal of the whole text first: no handler runs for a refused one */
	for (i = 0; i < n && ret == 0; i++) {
		if ((table[i].flags & OMNI_DEVARG_ONCE) && rte_kvargs_count(kv, table[i].key) > 1) {
			OMNI_LOG(ERR, "%s: devarg %s given twice", who, table[i].key);
			ret = -EINVAL;
		}
	}
	for (i = 0; i < n && ret == 0; i++) {
		if (rte_kvargs_count(kv, table[i].key) == 0)
			continue;
		ret = rte_kvargs_process(kv, table[i].key, table[i].handler, opaque);
	}
	rte_kvargs_free(kv);
	return ret < 0 ? -EINVAL : 0;
}

int
omni_devarg_uint(const char *key, const char *val, uint64_t min, uint64_t max,
		 unsigned int flags, uint64_t *out)
{
	if (val == NULL) {
		OMNI_LOG(ERR, "devarg %s needs a value", key);
		return -EINVAL;
	}
	if (omni_parse_uint(val, min, max, flags, out) != 0) {
		OMNI_LOG(ERR, "%s=%s: expected a number in %" PRIu64 "..%" PRIu64 "%s", key, val,
			 min, max, (flags & OMNI_NUM_HEX) ? " (decimal or 0x hex)" : "");
		return -EINVAL;
	}
	return 0;
}

int
omni_devarg_str(const char *key, const char *val, char *out, size_t size)
{
	size_t len = val != NULL ? strlen(val) : 0;

	if (len == 0 || len >= size) {
		OMNI_LOG(ERR, "%s=%s: expected 1 to %zu characters", key, val != NULL ? val : "",
			 size - 1);
		return -EINVAL;
	}
	memcpy(out, val, len + 1);
	return 0;
}
