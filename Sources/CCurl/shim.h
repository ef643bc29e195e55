#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
// The system libcurl (Debian libcurl4-openssl-dev): outbound HTTPS whose reads stop where its
// callbacks say (docs/operations.md#outbound-requests).
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift does not call: one typed
// wrapper per kind of value.
static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*ccurl_data_callback)(char *bytes, size_t size, size_t count, void *context);
static inline CURLcode ccurl_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}
typedef int (*ccurl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode ccurl_setopt_progress_callback(CURL *handle, ccurl_progress_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}
static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
#endif
