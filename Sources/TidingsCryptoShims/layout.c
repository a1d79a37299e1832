// A C target needs a source file; the header's declarations are checked by
// being compiled here.
#include "libcrypto_abi.h"
