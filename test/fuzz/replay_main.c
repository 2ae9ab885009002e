/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Replays inputs through a fuzz target's LLVMFuzzerTestOneInput(), as
 * libFuzzer does with file arguments, in builds without libFuzzer: the
 * fuzz_*_corpus tests of meson test link it with a target's sources.
 *
 *   fuzz_<target>_replay FILE|DIR...
 *
 * A directory's regular files are replayed in name order (not its
 * subdirectories). A target's LLVMFuzzerInitialize(), if it has one, runs
 * first, as libFuzzer runs it. Each input is read into a buffer of its
 * exact size, so a sanitizer sees any read past it. A target that crashes
 * or fails a check ends the run (abort, or the sanitizer's report); a run
 * that found no input fails too, so a wrong path cannot pass.
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pmr_fuzz.h"

/* libFuzzer's optional set-up hook: NULL unless the target defines it. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* Replay one file; return 0, or -1 if it could not be read. */
static int
replay_file(const char *path)
{
	struct stat st;
	uint8_t *data;
	size_t size;
	FILE *f;
	int ret = -1;

	f = fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		goto out;
	}
	size = (size_t)st.st_size;
	data = malloc(size != 0 ? size : 1);
	if (data == NULL) {
		fprintf(stderr, "%s: out of memory\n", path);
		goto out;
	}
	if (size != 0 && fread(data, 1, size, f) != size) {
		fprintf(stderr, "%s: short read\n", path);
		free(data);
		goto out;
	}
	printf("replay %s (%zu bytes)\n", path, size);
	fflush(stdout);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	ret = 0;
out:
	fclose(f);
	return ret;
}

static int
not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Replay the regular files of a directory; return how many, or -1. */
static int
replay_dir(const char *dir)
{
	struct dirent **names;
	char path[4096];
	struct stat st;
	int i, n, count = 0, ret = 0;

	n = scandir(dir, &names, not_hidden, alphasort);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir,
			     names[i]->d_name) >= (int)sizeof(path)) {
			fprintf(stderr, "%s/%s: path too long\n", dir,
				names[i]->d_name);
			ret = -1;
		} else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(path) == 0)
				count++;
			else
				ret = -1;
		}
		free(names[i]);
	}
	free(names);
	return ret < 0 ? ret : count;
}

int
main(int argc, char **argv)
{
	struct stat st;
	int i, n, count = 0, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			bad++;
		} else if (S_ISDIR(st.st_mode)) {
			n = replay_dir(argv[i]);
			if (n < 0)
				bad++;
			else
				count += n;
		} else if (replay_file(argv[i]) == 0) {
			count++;
		} else {
			bad++;
		}
	}
	printf("replayed %d inputs, %d unreadable arguments\n", count, bad);
	if (count == 0) {
		fprintf(stderr, "no input replayed\n");
		return 1;
	}
	return bad != 0 ? 1 : 0;
}
