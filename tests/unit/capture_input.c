// SPDX-License-Identifier: GPL-2.0
/*
 * The capture layer's line reader on a plain file: lines handed out in
 * place or copied where they span two reads, a CR before the newline
 * dropped, a line past INPUT_MAX_LINE cut and counted, the last line
 * without its newline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"
#include "test.h"

struct want {
	size_t	off, len;	/* the line's bytes in the file */
	size_t	overlong;	/* its real length when past INPUT_MAX_LINE */
};

int main(void)
{
	char dir[] = "/tmp/mmlock-input.XXXXXX", path[64], *line, *err = NULL, *text;
	size_t size = 0, cap = 3 << 20, nw = 0, i;
	unsigned int seed = 4242, bad = 0, lines = 0;
	struct want *w = calloc(40000, sizeof(*w));
	struct input *in;
	FILE *f;
	long len;

	text = malloc(cap);
	if (!text || !w || !mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/trace.txt", dir);
	/* random lines over several reads: empty ones, CRs, some past the limit */
	while (size < (2u << 20) && nw < 40000) {
		size_t n, k;

		seed = seed * 1103515245 + 12345;
		n = (seed >> 16) % 300;
		if (nw % 997 == 500)
			n = INPUT_MAX_LINE + (seed >> 8) % 3000 - 1500;
		w[nw].off = size;
		for (k = 0; k < n; k++) {
			seed = seed * 1103515245 + 12345;
			text[size++] = (char)('a' + (seed >> 16) % 26);
		}
		if (nw % 7 == 3)
			text[size++] = '\r';	/* dropped before the newline */
		if (nw % 11 == 5 && n > 2)
			text[size - 2] = '\r';	/* kept inside the line */
		w[nw].len = size - w[nw].off;
		if (w[nw].len > INPUT_MAX_LINE) {
			w[nw].overlong = w[nw].len;
			w[nw].len = INPUT_MAX_LINE;
		} else if (w[nw].len && text[size - 1] == '\r') {
			w[nw].len--;
		}
		text[size++] = '\n';
		nw++;
	}
	/* the last line without its newline keeps its CR */
	w[nw].off = size;
	memcpy(text + size, "last\r", 5);
	size += 5;
	w[nw++].len = 5;
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, size, f) != size || fclose(f))
		return 1;

	{
		char *paths[] = { path };

		in = input_open(paths, 1, NULL, NULL, &err);
	}
	CHECK(in != NULL, "input_open of a plain file");
	if (!in)
		return TEST_EXIT();
	for (i = 0; (len = input_next_line(in, &line)) >= 0; i++) {
		lines++;
		if (i >= nw || (size_t)len != w[i].len || line[len] ||
		    memcmp(line, text + w[i].off, w[i].len) || input_overlong(in) != w[i].overlong ||
		    input_lineno(in) != i + 1 ||
		    input_line_has_cr(in) != (memchr(text + w[i].off, '\r', w[i].len) != NULL)) {
			if (bad++ < 5)
				printf("# line %zu: length %ld, expected %zu (overlong %zu/%zu)\n",
				       i + 1, len, i < nw ? w[i].len : 0, input_overlong(in),
				       i < nw ? w[i].overlong : 0);
			continue;
		}
		/* the line is the caller's until the next call: parse_line() writes NULs */
		if (len)
			line[0] = '#';
	}
	CHECK(!bad && lines == nw, "%u lines of random lengths over several reads, each as written "
	      "(CR before the newline dropped, one inside told, past %d bytes cut and counted)",
	      (unsigned int)nw,
	      INPUT_MAX_LINE);
	input_close(in);
	unlink(path);
	rmdir(dir);
	free(text);
	free(w);
	return TEST_EXIT();
}
