/* SPDX-License-Identifier: GPL-2.0 */
/*
 * p4dstat -l: the processes that have mappings above 47 bits now, read from
 * /proc/PID/maps. No BPF, so it works on any kernel and for any user.
 */
#ifndef HIGHMAPS_H
#define HIGHMAPS_H

#include <sys/types.h>

/*
 * Where the proc files are read; the environment variable names another directory laid
 * out like /proc (tests/host/p4dstat-highmaps.t runs on fixture trees).
 */
#define HIGHMAPS_PROC_ENV	"P4DSTAT_PROC"
#define HIGHMAPS_PROC_DEFAULT	"/proc"

/*
 * Print one line per process (only PID when pid > 0) that has a mapping above 47 bits,
 * under a header; say on stderr how many could not be read or vanished. Returns the
 * exit status: 0, or 1 when the proc directory itself cannot be read.
 */
int highmaps_list(pid_t pid);

#endif /* HIGHMAPS_H */
