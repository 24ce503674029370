/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The configuration's text: "BDF,model=NAME[,key=value...]" per device.
 * vpci's keys (model, numa, sysfs, file) are taken here; every other token
 * is passed on, in order, to the backend's describe()/create(). Plain C
 * (omni_num only): it runs before EAL and under the fuzzer.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omni_num.h"
#include "vpci_priv.h"

static int
fail(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* "[DDDD:]BB:DD.F", hex fields. */
static int
parse_bdf(const char *s, size_t len, struct vpci_conf *c)
{
	const char *end = s + len, *last = NULL, *dom_colon = NULL, *dot;
	uint64_t dom = 0, bus, dev, fn;
	const char *q;

	for (q = s; q < end; q++)
		if (*q == ':') {
			dom_colon = last;
			last = q;
		}
	if (last == NULL)
		return -EINVAL;
	dot = memchr(last, '.', end - last);
	if (dot == NULL)
		return -EINVAL;
	if (dom_colon != NULL) {
		if (omni_parse_uint_n(s, dom_colon - s, 0, 0xffff, OMNI_NUM_HEX_BARE, &dom) != 0)
			return -EINVAL;
		s = dom_colon + 1;
	}
	if (omni_parse_uint_n(s, last - s, 0, 0xff, OMNI_NUM_HEX_BARE, &bus) != 0 ||
			omni_parse_uint_n(last + 1, dot - last - 1, 0, 0x1f,
				OMNI_NUM_HEX_BARE, &dev) != 0 ||
			omni_parse_uint_n(dot + 1, end - dot - 1, 0, 7, OMNI_NUM_HEX_BARE, &fn) != 0)
		return -EINVAL;
	c->domain = dom;
	c->bus = bus;
	c->devid = dev;
	c->function = fn;
	return 0;
}

static int
append(char *dst, size_t size, const char *tok, size_t len)
{
	size_t cur = strlen(dst);

	if (cur + (cur != 0) + len + 1 > size)
		return -ENOSPC;
	if (cur != 0)
		dst[cur++] = ',';
	memcpy(dst + cur, tok, len);
	dst[cur + len] = '\0';
	return 0;
}

static bool
key_is(const char *tok, size_t klen, const char *key)
{
	return strlen(key) == klen && memcmp(tok, key, klen) == 0;
}

static int
copy_path(char *dst, const char *s, size_t len)
{
	if (len == 0 || len >= PATH_MAX || s[0] != '/' || memchr(s, '\0', len) != NULL)
		return -EINVAL;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

/* One vpci key; -EINVAL with err set. */
static int
vpci_key(struct vpci_conf *c, const char *tok, size_t klen, const char *val, size_t vlen,
		char *err, size_t err_len)
{
	static const char *const modes[] = {
		[VPCI_SYSFS_FULL] = "full", [VPCI_SYSFS_NO_DRIVER] = "no-driver",
		[VPCI_SYSFS_NO_RESOURCE] = "no-resource",
		[VPCI_SYSFS_NO_IOMMU_GROUP] = "no-iommu-group",
	};
	uint64_t v;
	unsigned int i;

	if (key_is(tok, klen, "model")) {
		if (c->model[0] != '\0')
			return fail(err, err_len, "model given twice");
		if (vlen == 0 || vlen >= sizeof(c->model))
			return fail(err, err_len, "model: a name of 1 to %zu characters",
					sizeof(c->model) - 1);
		memcpy(c->model, val, vlen);
		c->model[vlen] = '\0';
		return 0;
	}
	if (key_is(tok, klen, "numa")) {
		if (omni_parse_uint_n(val, vlen, 0, 1023, OMNI_NUM_DEC, &v) != 0)
			return fail(err, err_len, "numa: \"%.*s\" is not a node 0..1023",
					(int)vlen, val);
		c->numa = v;
		return 0;
	}
	if (key_is(tok, klen, "sysfs")) {
		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (strlen(modes[i]) == vlen && memcmp(val, modes[i], vlen) == 0) {
				c->sysfs = i;
				return 0;
			}
		return fail(err, err_len,
			"sysfs: \"%.*s\" is not full, no-driver, no-resource or no-iommu-group",
			(int)vlen, val);
	}
	/* file=FROM:TO, both absolute */
	{
		const char *sep = memchr(val, ':', vlen);

		if (c->nb_files == VPCI_MAX_FILES)
			return fail(err, err_len, "file: more than %d redirects", VPCI_MAX_FILES);
		if (sep == NULL ||
				copy_path(c->file_from[c->nb_files], val, sep - val) != 0 ||
				copy_path(c->file_to[c->nb_files], sep + 1,
					val + vlen - sep - 1) != 0)
			return fail(err, err_len,
				"file: \"%.*s\" is not /absolute/path:/absolute/path",
				(int)vlen, val);
		c->nb_files++;
		return 0;
	}
}

int
vpci_conf_parse(const char *text, struct vpci_conf *c, char *err, size_t err_len)
{
	const char *p = text, *end, *eq;
	bool first = true;
	int ret;

	memset(c, 0, sizeof(*c));
	c->numa = -2;
	if (err_len > 0)
		err[0] = '\0';
	for (;;) {
		size_t len, klen;

		end = strchr(p, ',');
		len = end != NULL ? (size_t)(end - p) : strlen(p);
		if (first) {
			if (parse_bdf(p, len, c) != 0)
				return fail(err, err_len,
					"\"%.*s\" is not a PCI address ([DDDD:]BB:DD.F, hex)",
					(int)len, p);
			first = false;
		} else {
			if (len == 0)
				return fail(err, err_len, "an empty key=value");
			eq = memchr(p, '=', len);
			klen = eq != NULL ? (size_t)(eq - p) : len;
			if (key_is(p, klen, "model") || key_is(p, klen, "numa") ||
					key_is(p, klen, "sysfs") || key_is(p, klen, "file")) {
				if (eq == NULL)
					return fail(err, err_len, "%.*s without =value",
							(int)klen, p);
				ret = vpci_key(c, p, klen, eq + 1, len - klen - 1, err, err_len);
				if (ret != 0)
					return ret;
			} else if (append(c->args, sizeof(c->args), p, len) != 0) {
				return fail(err, err_len, "backend arguments longer than %d bytes",
						VPCI_ARGS_MAX - 1);
			}
		}
		if (end == NULL)
			break;
		p = end + 1;
	}
	if (c->model[0] == '\0')
		return fail(err, err_len, "no model=NAME");
	return 0;
}

unsigned int
vpci_conf_split(const char *text, void (*fn)(const char *entry, void *arg), void *arg)
{
	unsigned int n = 0;
	const char *p = text;

	while (*p != '\0') {
		size_t len = strcspn(p, ";\n");
		const char *hash = memchr(p, '#', len);
		size_t used = hash != NULL ? (size_t)(hash - p) : len;
		const char *s = p;
		char *entry;

		/* trim spaces and tabs */
		while (used > 0 && (*s == ' ' || *s == '\t' || *s == '\r')) {
			s++;
			used--;
		}
		while (used > 0 && (s[used - 1] == ' ' || s[used - 1] == '\t' ||
				s[used - 1] == '\r'))
			used--;
		if (used > 0) {
			entry = strndup(s, used);
			fn(entry != NULL ? entry : "", arg);
			free(entry);
			n++;
		}
		p += len;
		if (*p != '\0')
			p++;
	}
	return n;
}
