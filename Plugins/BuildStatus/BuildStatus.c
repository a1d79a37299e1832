#include "tidings.h"
