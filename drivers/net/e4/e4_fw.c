/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The environment's side of the firmware file: finding and reading it
 * (ecore_fw_load_file(), declared in base/ecore_init_fw.h). */

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "base/ecore_init_fw.h"

/* Read the whole of @p path (at most ECORE_FW_FILE_MAX bytes). */
static enum _ecore_status_t
read_file(const char *path, uint8_t **buf, size_t *len, char *err, size_t err_len)
{
	struct stat sb;
	size_t got = 0;
	uint8_t *b;
	FILE *f;

	f = fopen(path, "rb");
	if (f == NULL) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return errno == ENOENT ? ECORE_NODEV : ECORE_IO;
	}
	if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size > ECORE_FW_FILE_MAX) {
		snprintf(err, err_len, "%s: not a regular file of at most %u bytes", path,
			 ECORE_FW_FILE_MAX);
		fclose(f);
		return ECORE_IO;
	}
	b = ecore_osal_zalloc(sb.st_size ? sb.st_size : 1);
	if (b == NULL) {
		snprintf(err, err_len, "%s: no memory for %zu bytes", path, (size_t)sb.st_size);
		fclose(f);
		return ECORE_NOMEM;
	}
	got = fread(b, 1, sb.st_size, f);
	if (got != (size_t)sb.st_size || ferror(f)) {
		snprintf(err, err_len, "%s: short read (%zu of %zu bytes)", path, got,
			 (size_t)sb.st_size);
		fclose(f);
		ecore_osal_free(b);
		return ECORE_IO;
	}
	fclose(f);
	*buf = b;
	*len = got;
	return ECORE_SUCCESS;
}

static enum _ecore_status_t
load_one(const char *path, struct ecore_fw_image **out, char *err, size_t err_len)
{
	char why[160];
	enum _ecore_status_t rc;
	uint8_t *buf = NULL;
	size_t len = 0;

	rc = read_file(path, &buf, &len, err, err_len);
	if (rc != ECORE_SUCCESS)
		return rc;
	rc = ecore_fw_parse(buf, len, out, why, sizeof(why));
	ecore_osal_free(buf);
	if (rc != ECORE_SUCCESS)
		snprintf(err, err_len, "%s: %s", path, why);
	else
		ECORE_LOG(INFO, "firmware %s: %u.%u.%u.%u, %u init ops", path, (*out)->ver.major,
			  (*out)->ver.minor, (*out)->ver.rev, (*out)->ver.eng, (*out)->n_ops);
	return rc;
}

enum _ecore_status_t
ecore_fw_load_file(const char *path, struct ecore_fw_image **out, char *err, size_t err_len)
{
	const struct ecore_fw_profile *p;
	char local[256], name[64], full[320];
	enum _ecore_status_t rc;
	unsigned int n, i;
	size_t used = 0;

	*out = NULL;
	if (err == NULL || err_len == 0) {
		err = local;
		err_len = sizeof(local);
	}
	err[0] = '\0';
	if (path != NULL)
		return load_one(path, out, err, err_len);
	p = ecore_fw_profiles(&n);
	for (i = 0; i < n; i++) {
		ecore_fw_file_name(&p[i], name, sizeof(name));
		snprintf(full, sizeof(full), "%s/%s", ECORE_FW_DEFAULT_DIR, name);
		rc = load_one(full, out, err, err_len);
		if (rc != ECORE_NODEV)
			return rc;	/* found: loaded, or refused (the reason says which) */
	}
	used = snprintf(err, err_len, "no firmware file in %s (looked for", ECORE_FW_DEFAULT_DIR);
	for (i = 0; i < n && used < err_len; i++) {
		ecore_fw_file_name(&p[i], name, sizeof(name));
		used += snprintf(err + used, err_len - used, " %s", name);
	}
	if (used < err_len)
		snprintf(err + used, err_len - used, "; Debian: firmware-qlogic, or devarg "
			 "firmware=PATH)");
	return ECORE_NODEV;
}
