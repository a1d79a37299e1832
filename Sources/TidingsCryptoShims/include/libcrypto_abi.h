// The part of OpenSSL 3's libcrypto C interface (<openssl/evp.h>,
// <openssl/err.h>, <openssl/crypto.h>, <openssl/rand.h>, <openssl/kdf.h>,
// <openssl/params.h>, <openssl/ec.h>, <openssl/bn.h>) that TidingsCrypto calls: opaque
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

// Random bytes (<openssl/rand.h>).
typedef int (*tidings_rand_bytes)(unsigned char *buffer, int count);

// Parameters (<openssl/params.h>): OSSL_PARAM, an array of them ending in
// one whose key is NULL. The data types TidingsCrypto passes:
// OSSL_PARAM_UNSIGNED_INTEGER 2 (native byte order), OSSL_PARAM_UTF8_STRING 4,
// OSSL_PARAM_OCTET_STRING 5; return_size starts as OSSL_PARAM_UNMODIFIED (SIZE_MAX).
typedef struct tidings_ossl_param {
    const char *key;
    unsigned int data_type;
    void *data;
    size_t data_size;
    size_t return_size;
} tidings_ossl_param;

typedef struct tidings_ossl_lib_ctx tidings_ossl_lib_ctx;
typedef struct tidings_evp_pkey tidings_evp_pkey;
typedef struct tidings_evp_pkey_ctx tidings_evp_pkey_ctx;

// Keys and key agreement (<openssl/evp.h>: EVP_PKEY). Selections:
// EVP_PKEY_PUBLIC_KEY 0x86, EVP_PKEY_KEYPAIR 0x87.
typedef tidings_evp_pkey_ctx *(*tidings_evp_pkey_ctx_new_from_name)(tidings_ossl_lib_ctx *library, const char *name,
                                                                    const char *properties);
typedef tidings_evp_pkey_ctx *(*tidings_evp_pkey_ctx_new_from_pkey)(tidings_ossl_lib_ctx *library, tidings_evp_pkey *key,
                                                                    const char *properties);
typedef void (*tidings_evp_pkey_ctx_free)(tidings_evp_pkey_ctx *ctx);
typedef int (*tidings_evp_pkey_fromdata_init)(tidings_evp_pkey_ctx *ctx);
typedef int (*tidings_evp_pkey_fromdata)(tidings_evp_pkey_ctx *ctx, tidings_evp_pkey **key, int selection,
                                         tidings_ossl_param *params);
typedef void (*tidings_evp_pkey_free)(tidings_evp_pkey *key);
// EVP_PKEY_check and EVP_PKEY_public_check.
typedef int (*tidings_evp_pkey_check)(tidings_evp_pkey_ctx *ctx);
typedef int (*tidings_evp_pkey_derive_init)(tidings_evp_pkey_ctx *ctx);
typedef int (*tidings_evp_pkey_derive_set_peer)(tidings_evp_pkey_ctx *ctx, tidings_evp_pkey *peer);
typedef int (*tidings_evp_pkey_derive)(tidings_evp_pkey_ctx *ctx, unsigned char *secret, size_t *length);

// Elliptic-curve arithmetic (<openssl/ec.h>, <openssl/bn.h>): the public
// point of a private scalar. NID_X9_62_prime256v1 415,
// POINT_CONVERSION_UNCOMPRESSED 4.
typedef struct tidings_bignum tidings_bignum;
typedef struct tidings_bn_ctx tidings_bn_ctx;
typedef struct tidings_ec_group tidings_ec_group;
typedef struct tidings_ec_point tidings_ec_point;
typedef tidings_ec_group *(*tidings_ec_group_new_by_curve_name)(int nid);
typedef void (*tidings_ec_group_free)(tidings_ec_group *group);
typedef tidings_ec_point *(*tidings_ec_point_new)(const tidings_ec_group *group);
typedef void (*tidings_ec_point_free)(tidings_ec_point *point);
typedef int (*tidings_ec_point_mul)(const tidings_ec_group *group, tidings_ec_point *result, const tidings_bignum *scalar,
                                    const tidings_ec_point *point, const tidings_bignum *multiplier, tidings_bn_ctx *ctx);
typedef size_t (*tidings_ec_point_point2oct)(const tidings_ec_group *group, const tidings_ec_point *point, int form,
                                             unsigned char *buffer, size_t length, tidings_bn_ctx *ctx);
typedef tidings_bignum *(*tidings_bn_bin2bn)(const unsigned char *bytes, int length, tidings_bignum *result);
typedef void (*tidings_bn_clear_free)(tidings_bignum *number);

// Key derivation (<openssl/kdf.h>: EVP_KDF).
typedef struct tidings_evp_kdf tidings_evp_kdf;
typedef struct tidings_evp_kdf_ctx tidings_evp_kdf_ctx;
typedef tidings_evp_kdf *(*tidings_evp_kdf_fetch)(tidings_ossl_lib_ctx *library, const char *algorithm,
                                                  const char *properties);
typedef void (*tidings_evp_kdf_free)(tidings_evp_kdf *kdf);
typedef tidings_evp_kdf_ctx *(*tidings_evp_kdf_ctx_new)(tidings_evp_kdf *kdf);
typedef void (*tidings_evp_kdf_ctx_free)(tidings_evp_kdf_ctx *ctx);
typedef int (*tidings_evp_kdf_derive)(tidings_evp_kdf_ctx *ctx, unsigned char *key, size_t length,
                                      const tidings_ossl_param *params);

// Symmetric ciphers (<openssl/evp.h>: EVP_CIPHER_CTX). EVP_CTRL_GCM_GET_TAG
// 0x10, EVP_CTRL_GCM_SET_TAG 0x11.
typedef struct tidings_evp_cipher tidings_evp_cipher;
typedef struct tidings_evp_cipher_ctx tidings_evp_cipher_ctx;
typedef const tidings_evp_cipher *(*tidings_evp_aes_128_gcm)(void);
typedef tidings_evp_cipher_ctx *(*tidings_evp_cipher_ctx_new)(void);
typedef void (*tidings_evp_cipher_ctx_free)(tidings_evp_cipher_ctx *ctx);
// EVP_EncryptInit_ex and EVP_DecryptInit_ex.
typedef int (*tidings_evp_cipher_init_ex)(tidings_evp_cipher_ctx *ctx, const tidings_evp_cipher *cipher,
                                          tidings_engine *impl, const unsigned char *key, const unsigned char *iv);
// EVP_EncryptUpdate and EVP_DecryptUpdate.
typedef int (*tidings_evp_cipher_update)(tidings_evp_cipher_ctx *ctx, unsigned char *out, int *outCount,
                                         const unsigned char *in, int inCount);
// EVP_EncryptFinal_ex and EVP_DecryptFinal_ex.
typedef int (*tidings_evp_cipher_final_ex)(tidings_evp_cipher_ctx *ctx, unsigned char *out, int *outCount);
typedef int (*tidings_evp_cipher_ctx_ctrl)(tidings_evp_cipher_ctx *ctx, int type, int argument, void *pointer);

#endif
