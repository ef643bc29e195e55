#ifndef ALLOC_COUNT_H
#define ALLOC_COUNT_H
#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) made by
/// this process so far. Linked only into clip-bench, which counts the allocations of a lookup.
uint64_t alloc_count_total(void);

#endif
