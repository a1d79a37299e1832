// The part of OpenSSL 3's libcrypto C interface (<openssl/evp.h>,
// <openssl/err.h>, <openssl/crypto.h>) that TidingsCrypto calls: opaque
// types and the types of the functions it resolves with dlsym at run time.
// Header only: nothing here links libcrypto, so the package builds on
// machines without OpenSSL's headers, and the library is a run-time
// dependency (libcrypto.so.3), looked up by TidingsCrypto.
// The declarations follow OpenSSL 3's stable ABI (soname libcrypto.so.3).
// Append only: a new function gets a new typedef below the others.
#ifndef TIDINGS_LIBCRYPTO_ABI_H
#define TIDINGS_LIBCRYPTO_ABI_H

#include <stddef.h>

typedef struct tidings_evp_md tidings_evp_md;
typedef struct tidings_evp_md_ctx tidings_evp_md_ctx;
typedef struct tidings_engine tidings_engine;

// Message digests (EVP_MD_CTX).
typedef const tidings_evp_md *(*tidings_evp_sha256)(void);
typedef tidings_evp_md_ctx *(*tidings_evp_md_ctx_new)(void);
typedef void (*tidings_evp_md_ctx_free)(tidings_evp_md_ctx *ctx);
typedef int (*tidings_evp_digest_init_ex)(tidings_evp_md_ctx *ctx, const tidings_evp_md *type,
                                          tidings_engine *impl);
typedef int (*tidings_evp_digest_update)(tidings_evp_md_ctx *ctx, const void *data, size_t count);
typedef int (*tidings_evp_digest_final_ex)(tidings_evp_md_ctx *ctx, unsigned char *md, unsigned int *size);

// Errors and the library's version.
typedef unsigned long (*tidings_err_get_error)(void);
typedef void (*tidings_err_error_string_n)(unsigned long error, char *buffer, size_t length);
typedef const char *(*tidings_openssl_version)(int type);

#endif
