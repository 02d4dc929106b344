/* SPDX-License-Identifier: MIT */
/*
 * The fuzz targets without libFuzzer: feed every file named on the
 * command line (a directory: every file in it, in name order) to
 * LLVMFuzzerTestOneInput once.  The normal builds run it over the seed
 * corpus and every kept finding, so gcc, ASan and valgrind builds all
 * replay them.  A directory that does not exist is skipped (a target
 * without findings has no regression folder); finding no input at all is
 * a failure.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_input.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *grown;

			cap = cap ? 2 * cap : 4096;
			grown = realloc(data, cap);
			if (!grown) {
				fclose(f);
				free(data);
				return -1;
			}
			data = grown;
		}
		n = fread(data + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Returns the inputs replayed, or -1. */
static int replay_dir(const char *dir)
{
	struct dirent **names;
	int nr = scandir(dir, &names, NULL, by_name), done = 0;

	if (nr < 0)
		return -1;
	for (int i = 0; i < nr; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			if (replay_file(path) < 0)
				done = -1;
			else if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	int total = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		int n;

		if (stat(argv[i], &st) < 0) {
			if (errno == ENOENT)
				continue;
			perror(argv[i]);
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) :
			replay_file(argv[i]) == 0;
		if (n < 0)
			return 1;
		total += n;
	}
	printf("replayed %d inputs\n", total);
	return total > 0 ? 0 : 1;
}
