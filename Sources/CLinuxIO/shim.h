#ifndef CLINUXIO_SHIM_H
#define CLINUXIO_SHIM_H
// Linux interfaces the Glibc module does not bring: epoll, eventfd, timerfd and accept4 for the HTTP
// server's event loop, the CPU affinity count, and the heap's bytes in use (for clip-bench).
// Nothing to link: the calls are in libc.
#include <malloc.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

// accept4(2) with SOCK_CLOEXEC | SOCK_NONBLOCK set atomically. The glibc wrapper needs _GNU_SOURCE
// (see below), so this is the raw system call; -1 with errno on failure.
static inline int clinuxio_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return (int)syscall(SYS_accept4, fd, address, length, flags);
}

// The number of CPUs in this process's affinity mask (taskset -c 1 gives 1), or -1. The glibc
// wrapper needs _GNU_SOURCE, which a module cannot set for headers already seen, so this asks the
// kernel directly (sched_getaffinity(2) returns the mask size it wrote).
static inline int clinuxio_cpus_available(void) {
    unsigned long mask[16] = {0};
    long written = syscall(SYS_sched_getaffinity, 0, sizeof(mask), mask);
    if (written <= 0) return -1;
    int count = 0;
    for (unsigned i = 0; i < sizeof(mask) / sizeof(mask[0]); i++) count += __builtin_popcountl(mask[i]);
    return count;
}

// Bytes the allocator has handed out and not taken back (mallinfo2, glibc 2.33).
static inline size_t clinuxio_heap_bytes_in_use(void) {
    return mallinfo2().uordblks;
}
#endif
