// SPDX-License-Identifier: GPL-2.0
/*
 * la57-uring: sets up an io_uring, submits one NOP and reaps it, with raw syscalls (no
 * liburing). Its ring mmaps carry no hint, as liburing's do; io_uring places them itself
 * and refuses any hint (io_uring_mmu_get_unmapped_area() in 6.1 returns -EINVAL for
 * one), so a checker that hints every hint-less mmap breaks a program that does nothing
 * wrong. la57-check's known answer: survived, with the ring mmaps left to io_uring.
 *
 *   la57-uring
 *
 * Exit status: 0 when the NOP completed; 1 when a step failed (the step on stderr).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/io_uring.h>

static int fail(const char *step)
{
	fprintf(stderr, "la57-uring: %s: %s\n", step, strerror(errno));
	return 1;
}

/* A ring region at OFFSET of the io_uring fd; where it goes is io_uring's choice. */
static void *map_ring(int fd, size_t len, off_t offset)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, offset);
}

int main(void)
{
	struct io_uring_params p = { 0 };
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	size_t sq_len, cq_len;
	unsigned *sq_tail, *sq_array, *cq_head;
	char *sq, *cq;
	int fd;

	fd = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (fd < 0)
		return fail("io_uring_setup");
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = map_ring(fd, sq_len, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return fail("mmap of the submission ring");
	cq = map_ring(fd, cq_len, IORING_OFF_CQ_RING);
	if (cq == MAP_FAILED)
		return fail("mmap of the completion ring");
	sqes = map_ring(fd, p.sq_entries * sizeof(*sqes), IORING_OFF_SQES);
	if (sqes == MAP_FAILED)
		return fail("mmap of the submission entries");

	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_NOP;
	sqes[0].user_data = 0x57;
	sq_tail = (unsigned *)(sq + p.sq_off.tail);
	sq_array = (unsigned *)(sq + p.sq_off.array);
	sq_array[*sq_tail & (p.sq_entries - 1)] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) != 1)
		return fail("io_uring_enter");

	cq_head = (unsigned *)(cq + p.cq_off.head);
	cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes) +
	      (__atomic_load_n(cq_head, __ATOMIC_ACQUIRE) & (p.cq_entries - 1));
	if (cqe->user_data != 0x57 || cqe->res != 0) {
		fprintf(stderr, "la57-uring: the NOP completed with user_data %llu, res %d\n",
			(unsigned long long)cqe->user_data, cqe->res);
		return 1;
	}
	printf("la57-uring: a NOP went through the ring\n");
	return 0;
}
