#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H
// The system OpenSSL 3 libcrypto (Debian libssl-dev): used for signatures and digests only.
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/x509.h>

// Macros Swift does not import reliably (one names another).
static inline int ccrypto_pkey_ec(void) { return EVP_PKEY_EC; }
#endif
