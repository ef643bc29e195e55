#ifndef CLINUXIO_SHIM_H
#define CLINUXIO_SHIM_H
// Linux readiness notification for the HTTP server's event loop; glibc has no Swift module for
// these headers. Nothing to link: the calls are in libc.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

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
#endif
