/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A summary in words: the one screen a person reads after `mmlock analyze`
 * or `mmlock run` (the JSON keeps everything else).
 */
#ifndef MMLOCK_ANALYZER_WORDS_H
#define MMLOCK_ANALYZER_WORDS_H

#include <stdio.h>

struct json_object;

void summary_words_print(FILE *f, struct json_object *sum, const char *title,
			 const char *contract);

#endif
