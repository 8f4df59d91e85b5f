/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Type-A/B/C pairs: intervals of the two sides of a pair kind on sweep
 * lists (enum sweep_list), paired by overlap when they close.
 */
#ifndef MMLOCK_PAIR_H
#define MMLOCK_PAIR_H

struct analysis;
struct ival;
struct pair_rec;

/**
 * pair_open() - @iv opens on the sweep list @list (one of the L_OPEN_*)
 * @an: the analysis
 * @list: its list: open intervals are kept in start order
 * @iv: the interval, on no list yet
 */
void pair_open(struct analysis *an, int list, struct ival *iv);

/**
 * pair_close() - @iv of a sweep closed: pair it with the other side's
 * @an: the analysis
 * @iv: the interval, its end set; off its open list, it is kept on @closed
 * @closed: its closed list (L_CLOSED_FW, _VW, _R, _M, _SW or _SM)
 * @other_closed: the closed list of the other side of its pair kind
 *
 * Each closed interval of @other_closed that shares @iv's key (the VMA for
 * Type-A, the mm for Type-B and the stock waits) and overlaps it makes a
 * pair, offered to the summary's tables and the on_pair hook; what nothing
 * open or future can overlap any more is dropped.
 */
void pair_close(struct analysis *an, struct ival *iv, int closed, int other_closed);

/**
 * pair_forget() - take @iv off its sweep list and buckets, before it is freed
 * @an: the analysis
 * @iv: the interval
 *
 * A closed stock interval leaves when nothing can pair with it any more:
 * what was attributed to it, or not, is final and goes to the summary.
 */
void pair_forget(struct analysis *an, struct ival *iv);

/**
 * pair_known_path() - is the writer of @p on the known contention paths?
 * @p: a pair
 * @operation: if not NULL, set to the operation its caller stands for
 *	("fork", "mprotect", ... "other")
 *
 * Return: 1 when the writer's caller is a known contention path (see
 * writer_known_path()), 0 otherwise.
 */
int pair_known_path(const struct pair_rec *p, const char **operation);

/**
 * pair_release() - free the buckets (the analysis ends; the lists are empty)
 * @an: the analysis
 */
void pair_release(struct analysis *an);

#endif /* MMLOCK_PAIR_H */
