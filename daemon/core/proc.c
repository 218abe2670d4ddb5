// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc.c - who has a file open, read from /proc/PID/fd.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"

bool vublk_proc_has_open(pid_t pid, const char *path)
{
	char dir[64], link[320], target[256];
	struct dirent *de;
	bool found = false;
	ssize_t n;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = !strcmp(target, path);
	}
	closedir(d);
	return found;
}

bool vublk_any_proc_has_open(const char *path)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir("/proc");

	while (d && !found && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			found = vublk_proc_has_open(atoi(de->d_name), path);
	if (d)
		closedir(d);
	return found;
}
