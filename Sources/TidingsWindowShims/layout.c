// Compile-time checks that the declarations match GLib's and graphene's ABI on this target.
#include "gtk_abi.h"

_Static_assert(sizeof(tidings_g_value) == 24, "GValue is a GType and two 64-bit words");
_Static_assert(sizeof(tidings_graphene_rect) == 4 * sizeof(float), "graphene_rect_t is four floats");
