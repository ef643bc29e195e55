#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return (sqlite3_destructor_type)-1;
}

// sqlite3_db_config is variadic, which Swift cannot call.
// https://sqlite.org/quirks.html#dblquote: double-quoted string literals are a misfeature; turn them off.
static inline void csqlite_disable_double_quoted_strings(sqlite3 *db) {
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (void *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (void *)0);
}

// sqlite3_config is variadic too. Without memory statistics (which nothing here reads:
// sqlite3_memory_used, soft heap limits) SQLite's allocations take no global mutex
// (https://sqlite.org/c3ref/c_config_covering_index_scan.html#sqliteconfigmemstatus). Only
// before SQLite is initialized; later it answers SQLITE_MISUSE and changes nothing.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// Defensive mode forbids writes to the schema through PRAGMA writable_schema and similar.
static inline void csqlite_enable_defensive(sqlite3 *db) {
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (void *)0);
}

// Work that must stop when a shared flag is raised (a server's drain deadline): the progress
// handler fails the running statement with SQLITE_INTERRUPT (https://sqlite.org/c3ref/progress_handler.html;
// inside a transaction SQLite rolls it back), and the busy handler stops waiting for a lock.
typedef struct {
    int *stop;
    int timeout_ms;
} csqlite_stop_context;

static int csqlite_progress_stop(void *stop) {
    return __atomic_load_n((int *)stop, __ATOMIC_RELAXED);
}

static int csqlite_busy_until_stop(void *context, int count) {
    csqlite_stop_context *c = (csqlite_stop_context *)context;
    if (__atomic_load_n(c->stop, __ATOMIC_RELAXED) || count * 10 >= c->timeout_ms) return 0;
    sqlite3_sleep(10);
    return 1;
}

static inline void csqlite_stop_when_raised(sqlite3 *db, csqlite_stop_context *context) {
    sqlite3_progress_handler(db, 1000, csqlite_progress_stop, context->stop);
    sqlite3_busy_handler(db, csqlite_busy_until_stop, context);
}

static inline void csqlite_raise(int *flag) { __atomic_store_n(flag, 1, __ATOMIC_RELAXED); }
static inline int csqlite_is_raised(int *flag) { return __atomic_load_n(flag, __ATOMIC_RELAXED); }
#endif
