/* analysis/version.c — the library's version (include/ompdag/version.h). */
#include "ompdag/version.h"

const char *ompdag_version(void)
{
    return OMPDAG_VERSION;
}

int ompdag_version_number(void)
{
    return OMPDAG_VERSION_NUMBER;
}
