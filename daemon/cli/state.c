// SPDX-License-Identifier: GPL-2.0-only
/*
 * state.c - the run directory: per-device state files, written as one flat
 * JSON object so that scripts (jq) and `vublk list --json` can use them.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "jsonout.h"
#include "runfile.h"
#include "ublk_compat.h"

int vublk_parse_dev_id(const char *arg, unsigned *id)
{
	uint64_t v;

	if (vublk_parse_u64("-n (device id)", arg, 0, VUBLK_MAX_DEV_ID, &v))
		return -EINVAL;
	*id = (unsigned)v;
	return 0;
}

const char *vublk_run_dir(void)
{
	const char *d = getenv("VUBLK_RUN_DIR");

	return d && *d ? d : "/run/vublk";
}

/*
 * The run directory must be ours alone: whoever else can write there can
 * plant files (symlinks above all) where a vublk running as root writes
 * state, stats and logs.  A directory owned by us that no group or other
 * user may write.
 */
static int vublk_run_dir_trusted(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		vublk_error("cannot use the run directory %s: %s (set VUBLK_RUN_DIR to a directory of your own)",
			    dir, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		vublk_error("run directory %s is not a directory (set VUBLK_RUN_DIR to a directory of your own)",
			    dir);
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		vublk_error("run directory %s belongs to uid %u, not to uid %u who runs vublk: refusing it (set VUBLK_RUN_DIR to a directory of your own, e.g. the default /run/vublk)",
			    dir, (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		vublk_error("run directory %s can be written by others (mode %04o): refusing it (chmod go-w %s, or set VUBLK_RUN_DIR to a directory only you can write)",
			    dir, (unsigned)(st.st_mode & 07777), dir);
		return -EPERM;
	}
	return 0;
}

int vublk_run_dir_create(void)
{
	const char *dir = vublk_run_dir();

	if (mkdir(dir, 0755) == 0) {
		/* The mode we mean, not the umask's. */
		if (chmod(dir, 0755) < 0) {
			vublk_error("cannot set the mode of the run directory %s: %s",
				    dir, strerror(errno));
			return -errno;
		}
	} else if (errno != EEXIST) {
		vublk_error("cannot create the run directory %s: %s (set VUBLK_RUN_DIR to a writable directory)",
			    dir, strerror(errno));
		return -errno;
	}
	return vublk_run_dir_trusted(dir);
}

int vublk_run_dir_check(void)
{
	const char *dir = vublk_run_dir();
	struct stat st;

	/* No run directory: no state files, nothing to trust. */
	if (stat(dir, &st) < 0 && errno == ENOENT)
		return 0;
	return vublk_run_dir_trusted(dir);
}

void vublk_run_path(char *buf, size_t len, unsigned id, const char *suffix)
{
	snprintf(buf, len, "%s/%u%s", vublk_run_dir(), id, suffix);
}

/* A state file gives back the very bytes of its paths: kept raw. */
static void state_string(FILE *f, const char *s)
{
	jsonout_string(f, s, JSONOUT_RAW);
}

static void state_print(FILE *f, const struct vublk_state *st)
{
	fprintf(f, "{\"id\": %u, \"target\": ", st->id);
	state_string(f, st->target);
	fputs(", \"backing_file\": ", f);
	state_string(f, st->backing_file);
	fprintf(f, ", \"size\": %" PRIu64 ", \"block_size\": %u, \"queues\": %u, \"depth\": %u, \"pid\": %d, \"pid_start\": %" PRIu64 ", \"token\": \"%016" PRIx64 "\", \"read_only\": %s, \"log\": ",
		st->size, st->block_size, st->queues, st->depth, st->pid,
		st->pid_start, st->token, st->read_only ? "true" : "false");
	state_string(f, st->log);
	fputs(", \"target_args\": ", f);
	state_string(f, st->target_args);
	/* What `vublk recover` needs is all here: target, backing file,
	 * target options, read-only; queues and depth it takes from the
	 * kernel.  recovery is informative (the kernel's flags decide). */
	fputs(", \"recovery\": ", f);
	state_string(f, st->recovery[0] ? st->recovery : "none");
	fputs(", \"name\": ", f);
	state_string(f, st->name);
	fputs("}\n", f);
}

int vublk_state_write(const struct vublk_state *st)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;
	int err;

	vublk_run_path(path, sizeof(path), st->id, ".json");
	f = vublk_file_begin(path, tmp, sizeof(tmp));
	if (!f) {
		vublk_error("cannot write state file %s: %s", tmp,
			    strerror(errno));
		return -errno;
	}
	state_print(f, st);
	err = vublk_file_commit(f, tmp, path);
	if (err)
		vublk_error("cannot write state file %s: %s", path,
			    strerror(-err));
	return err;
}

/* ---- a reader for the flat objects state_print() writes ---- */

static const char *json_skip_ws(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/*
 * The 4 hex digits of a \uXXXX escape at p; returns the last one, NULL if
 * any is missing.  sscanf("%4x") would take 1 to 4 digits, and skipping 4
 * after a file cut inside the escape stepped over the terminating NUL.
 */
static const char *json_parse_u4(const char *p, unsigned *u)
{
	int i, v;

	*u = 0;
	for (i = 0; i < 4; i++) {
		v = vublk_hex_value(p[i]);
		if (v < 0)
			return NULL;
		*u = *u << 4 | (unsigned)v;
	}
	return p + 3;
}

/* Parse a JSON string at p (at the quote) into out; NULL on error. */
static const char *json_parse_string(const char *p, char *out, size_t len)
{
	size_t n = 0;
	unsigned u;

	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		char c = *p;

		if (c == '\\') {
			c = *++p;
			if (c == 'u') {
				p = json_parse_u4(p + 1, &u);
				if (!p || u > 0x7f)
					return NULL;
				c = (char)u;
			} else if (c == 'n') {
				c = '\n';
			} else if (c == 't') {
				c = '\t';
			} else if (c != '"' && c != '\\' && c != '/') {
				return NULL;
			}
		}
		if (n + 1 >= len)
			return NULL;
		out[n++] = c;
	}
	if (*p != '"')
		return NULL;
	out[n] = '\0';
	return p + 1;
}

/* A bare value as text: a whole number, true, false or null. */
static const char *json_parse_bare(const char *p, char *out, size_t len)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t n = 0, i;

	for (i = 0; i < 3; i++) {
		n = strlen(words[i]);
		if (!strncmp(p, words[i], n) && !isalnum((unsigned char)p[n])) {
			snprintf(out, len, "%s", words[i]);
			return p + n;
		}
	}
	n = 0;
	while (isdigit((unsigned char)p[n]) || (n == 0 && p[n] == '-')) {
		if (n + 1 >= len)
			return NULL;
		out[n] = p[n];
		n++;
	}
	out[n] = '\0';
	return n && isdigit((unsigned char)out[n - 1]) ? p + n : NULL;
}

static int state_set(struct vublk_state *st, const char *key,
		     const char *val)
{
#define STR(name) if (!strcmp(key, #name)) \
	return snprintf(st->name, sizeof(st->name), "%s", val) < (int)sizeof(st->name) ? 0 : -EINVAL
#define NUM(name) if (!strcmp(key, #name)) \
	return (st->name = strtoull(val, NULL, 10)), 0
	STR(target); STR(backing_file); STR(log); STR(target_args);
	STR(recovery); STR(name);
	NUM(id); NUM(size); NUM(block_size); NUM(queues); NUM(depth);
	NUM(pid); NUM(pid_start);
#undef STR
#undef NUM
	/* 64 random bits: a string, which JSON readers keep exact. */
	if (!strcmp(key, "token"))
		return (st->token = strtoull(val, NULL, 16)), 0;
	if (!strcmp(key, "read_only"))
		st->read_only = !strcmp(val, "true");
	return 0;	/* unknown keys: from a newer vublk, ignore */
}

static int state_parse(const char *text, struct vublk_state *st)
{
	char key[64], val[PATH_MAX];
	const char *p = json_skip_ws(text);

	if (*p++ != '{')
		return -EINVAL;
	for (;;) {
		p = json_skip_ws(p);
		if (*p == '}')
			return 0;
		p = json_parse_string(p, key, sizeof(key));
		if (!p || *(p = json_skip_ws(p)) != ':')
			return -EINVAL;
		p = json_skip_ws(p + 1);
		p = *p == '"' ? json_parse_string(p, val, sizeof(val)) :
				json_parse_bare(p, val, sizeof(val));
		if (!p || state_set(st, key, val))
			return -EINVAL;
		p = json_skip_ws(p);
		if (*p == ',')
			p++;
		else if (*p != '}')
			return -EINVAL;
	}
}

int vublk_state_read(unsigned id, struct vublk_state *st)
{
	char path[PATH_MAX], text[8192];
	size_t n;
	FILE *f;

	vublk_run_path(path, sizeof(path), id, ".json");
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ENOENT : -errno;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	memset(st, 0, sizeof(*st));
	if (state_parse(text, st) || st->id != id) {
		vublk_error("state file %s is unreadable (delete it if no device %u exists)",
			    path, id);
		return -EINVAL;
	}
	return 0;
}

void vublk_state_remove(unsigned id)
{
	char path[PATH_MAX];

	vublk_run_path(path, sizeof(path), id, ".json");
	unlink(path);
	vublk_run_path(path, sizeof(path), id, ".stats.json");
	unlink(path);
	vublk_run_path(path, sizeof(path), id, ".udev");
	unlink(path);
}

/* ---- listing ids ---- */

struct id_set {
	unsigned *ids;
	size_t n, cap;
};

static int id_set_add(struct id_set *s, unsigned id)
{
	size_t i;
	unsigned *p;

	for (i = 0; i < s->n; i++)
		if (s->ids[i] == id)
			return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		p = realloc(s->ids, s->cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->ids = p;
	}
	s->ids[s->n++] = id;
	return 0;
}

/* Add N for every entry named <prefix>N<suffix> in dir (may not exist). */
static int id_set_scan(struct id_set *s, const char *dir, const char *prefix,
		       const char *suffix)
{
	size_t plen = strlen(prefix);
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		char *end;
		unsigned long id;

		if (strncmp(de->d_name, prefix, plen) ||
		    !isdigit((unsigned char)de->d_name[plen]))
			continue;
		id = strtoul(de->d_name + plen, &end, 10);
		if (!strcmp(end, suffix) && id <= VUBLK_MAX_DEV_ID)
			ret = id_set_add(s, id);
	}
	closedir(d);
	return ret;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

int vublk_known_ids(unsigned **ids)
{
	struct id_set s = { 0 };
	int ret;

	ret = id_set_scan(&s, vublk_run_dir(), "", ".json");
	if (!ret)
		ret = id_set_scan(&s, "/sys/class/ublk-char", "ublkc", "");
	if (ret) {
		free(s.ids);
		return ret;
	}
	if (s.n)
		qsort(s.ids, s.n, sizeof(*s.ids), cmp_unsigned);
	*ids = s.ids;
	return (int)s.n;
}
