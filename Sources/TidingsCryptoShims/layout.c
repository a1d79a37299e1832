// A C target needs a source file; the header's declarations are checked by
// being compiled here.
#include "libcrypto_abi.h"

#include <stddef.h>

// OSSL_PARAM's layout, as <openssl/core.h> has it on a 64-bit machine.
#if defined(__LP64__)
_Static_assert(sizeof(tidings_ossl_param) == 40 && offsetof(tidings_ossl_param, data) == 16
               && offsetof(tidings_ossl_param, return_size) == 32, "tidings_ossl_param is OSSL_PARAM");
#endif
