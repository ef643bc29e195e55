#ifndef CLINUXIO_SHIM_H
#define CLINUXIO_SHIM_H
// Linux readiness notification for the HTTP server's event loop; glibc has no Swift module for
// these headers. Nothing to link: the calls are in libc.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
