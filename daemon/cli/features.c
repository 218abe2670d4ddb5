// SPDX-License-Identifier: GPL-2.0-only
/*
 * features.c - `vublk features [--json]`: what the running ublk driver
 * supports (UBLK_U_CMD_GET_FEATURES), by name, with the first Linux
 * release that has each, as kublk's `features` command lists them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ublk_ctrl.h"

/* The names of the flags set in mask, "a,b,c", into buf. */
void vublk_feature_names(uint64_t mask, char *buf, size_t len)
{
	size_t n, used = 0;
	const struct vublk_feature *f = vublk_features(&n);

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		if (mask & f[i].flag)
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? "," : "", f[i].name);
}

static void features_print_json(const struct ublk_ctrl *c)
{
	size_t n;
	const struct vublk_feature *f = vublk_features(&n);

	printf("{\"encoding\": \"%s\", \"mask\": ",
	       c->encoded ? "ioctl" : "legacy");
	if (c->have_features)
		printf("\"0x%" PRIx64 "\", \"features\": {", c->features);
	else
		printf("null, \"features\": {");
	for (size_t i = 0; i < n; i++)
		printf("%s\"%s\": %s", i ? ", " : "", f[i].name,
		       c->features & f[i].flag ? "true" : "false");
	printf("}}\n");
}

static void features_print_table(const struct ublk_ctrl *c)
{
	size_t n;
	const struct vublk_feature *f = vublk_features(&n);
	uint64_t known = 0;

	if (c->have_features)
		printf("ublk driver (%s): commands ioctl-encoded, features 0x%" PRIx64 "\n",
		       ublk_control_path(), c->features);
	else
		printf("ublk driver (%s): commands %s, no GET_FEATURES (a driver older than Linux 6.5): features unknown\n",
		       ublk_control_path(),
		       c->encoded ? "ioctl-encoded" : "legacy (plain numbers)");
	for (size_t i = 0; i < n; i++) {
		known |= f[i].flag;
		printf("  %-24s %-3s  Linux %-5s %s\n", f[i].name,
		       c->features & f[i].flag ? "yes" : "no", f[i].since,
		       f[i].what);
	}
	for (unsigned bit = 0; bit < 64; bit++)
		if (c->features & ~known & (1ULL << bit))
			printf("  bit %-20u yes  (not known to this vublk)\n",
			       bit);
}

/* The one option, --json. */
static int features_option(void *json, int opt, const char *arg)
{
	(void)opt;
	(void)arg;
	*(bool *)json = true;
	return 0;
}

int vublk_cmd_features(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct ublk_ctrl ctrl;
	bool json = false;
	int ret;

	ret = vublk_cli_options("features", "usage: vublk features [--json]",
				argc, argv, ":", opts, features_option, &json);
	if (ret)
		return ret < 0;
	if (ublk_ctrl_open(&ctrl) < 0)
		return 1;
	if (json)
		features_print_json(&ctrl);
	else
		features_print_table(&ctrl);
	ublk_ctrl_close(&ctrl);
	return 0;
}
