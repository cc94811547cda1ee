/* SPDX-License-Identifier: GPL-2.0 */
/* racehold: what its BPF side (racehold.bpf.c) and its user side (racehold.c) share. */
#ifndef RACEHOLD_H
#define RACEHOLD_H

/* Where the held thread is; the user side polls it through the mmapped .bss. */
enum racehold_state {
	RACEHOLD_IDLE,		/* armed, the held thread has not entered __p4d_alloc() */
	RACEHOLD_HOLDING,	/* the held thread waits inside __p4d_alloc() */
	RACEHOLD_RELEASED,	/* the other thread installed the table: it went on */
	RACEHOLD_TIMED_OUT,	/* nobody installed it within the bound: it went on */
};

#endif
