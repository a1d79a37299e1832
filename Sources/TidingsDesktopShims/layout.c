// Compile-time checks that the declarations match sd-bus's ABI on this target.
#include "sd_bus_abi.h"
#include <stddef.h>

_Static_assert(offsetof(tidings_sd_bus_error, message) == sizeof(void *), "sd_bus_error.message");
_Static_assert(sizeof(tidings_sd_bus_error) == 2 * sizeof(void *) + sizeof(void *), "sd_bus_error size");
