/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vpci's configuration text (tools/vpci/vpci_config.c): the address, vpci's
 * keys taken, the backend's passed on in order, every refusal with its
 * reason, and the splitting of VPCI_DEVICES and VPCI_CONFIG files.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vpci_priv.h"

static struct vpci_conf c;
static char err[256];

static void
test_full(void **state)
{
	(void)state;
	assert_int_equal(vpci_conf_parse("0000:00:04.0,model=hfi1,lid=1,numa=0,"
			"wire=ring:w,sysfs=no-driver,file=/lib/a.bin:/x/b.bin,mtu=4096",
			&c, err, sizeof(err)), 0);
	assert_int_equal(c.domain, 0);
	assert_int_equal(c.bus, 0);
	assert_int_equal(c.devid, 4);
	assert_int_equal(c.function, 0);
	assert_string_equal(c.model, "hfi1");
	assert_int_equal(c.numa, 0);
	assert_int_equal(c.sysfs, VPCI_SYSFS_NO_DRIVER);
	assert_string_equal(c.args, "lid=1,wire=ring:w,mtu=4096");
	assert_int_equal(c.nb_files, 1);
	assert_string_equal(c.file_from[0], "/lib/a.bin");
	assert_string_equal(c.file_to[0], "/x/b.bin");
}

static void
test_short_bdf(void **state)
{
	(void)state;
	assert_int_equal(vpci_conf_parse("1f:1f.7,model=mem", &c, err, sizeof(err)), 0);
	assert_int_equal(c.domain, 0);
	assert_int_equal(c.bus, 0x1f);
	assert_int_equal(c.devid, 0x1f);
	assert_int_equal(c.function, 7);
	assert_int_equal(c.numa, -2);
	assert_int_equal(c.sysfs, VPCI_SYSFS_FULL);
	assert_string_equal(c.args, "");
	assert_int_equal(vpci_conf_parse("abcd:ff:00.0,model=mem", &c, err, sizeof(err)), 0);
	assert_int_equal(c.domain, 0xabcd);
	assert_int_equal(c.bus, 0xff);
}

static void
refused(const char *text, const char *why)
{
	assert_int_equal(vpci_conf_parse(text, &c, err, sizeof(err)), -EINVAL);
	if (strstr(err, why) == NULL)
		fail_msg("\"%s\": \"%s\" does not say \"%s\"", text, err, why);
}

static void
test_refusals(void **state)
{
	(void)state;
	refused("00:20.0,model=mem", "not a PCI address");	/* device 0x20 > 0x1f */
	refused("00:04.8,model=mem", "not a PCI address");
	refused("100:04.0,model=mem", "not a PCI address");
	refused("00:04,model=mem", "not a PCI address");
	refused("0:0:0:04.0,model=mem", "not a PCI address");
	refused("00:04.0", "no model=NAME");
	refused("00:04.0,size=1", "no model=NAME");
	refused("00:04.0,model=a,model=b", "model given twice");
	refused("00:04.0,model=", "model: a name");
	refused("00:04.0,model", "model without =value");
	refused("00:04.0,model=mem,numa=-1", "numa:");
	refused("00:04.0,model=mem,numa=1024", "numa:");
	refused("00:04.0,model=mem,sysfs=half", "sysfs:");
	refused("00:04.0,model=mem,file=/a", "file:");
	refused("00:04.0,model=mem,file=a:/b", "file:");
	refused("00:04.0,model=mem,file=/a:", "file:");
	refused("00:04.0,model=mem,,size=1", "an empty key=value");
}

static char seen[4][128];
static unsigned int nb_seen;

static void
collect(const char *entry, void *arg)
{
	(void)arg;
	if (nb_seen < 4)
		snprintf(seen[nb_seen], sizeof(seen[0]), "%s", entry);
	nb_seen++;
}

static void
test_split(void **state)
{
	(void)state;
	nb_seen = 0;
	assert_int_equal(vpci_conf_split("# a comment\n  00:04.0,model=mem  # trailing\n\n"
			"\t00:05.0,model=mem;00:06.0,model=mem;;\r\n#only\n", collect, NULL), 3);
	assert_int_equal(nb_seen, 3);
	assert_string_equal(seen[0], "00:04.0,model=mem");
	assert_string_equal(seen[1], "00:05.0,model=mem");
	assert_string_equal(seen[2], "00:06.0,model=mem");
	nb_seen = 0;
	assert_int_equal(vpci_conf_split("", collect, NULL), 0);
	assert_int_equal(vpci_conf_split(" ; # x", collect, NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_short_bdf),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
