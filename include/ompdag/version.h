/*
 * ompdag/version.h — the version of the ompdag headers and libraries.
 *
 * This file is the one place the version is written: the top-level
 * CMakeLists.txt reads the three numbers below for project(VERSION), the
 * package config (ompdagConfigVersion.cmake), ompdag.pc and the Debian
 * package.  Compare with OMPDAG_VERSION_NUMBER at compile time, and with
 * ompdag_version_number() at run time to catch a header/library mismatch.
 */
#ifndef OMPDAG_VERSION_H
#define OMPDAG_VERSION_H

#define OMPDAG_VERSION_MAJOR 0
#define OMPDAG_VERSION_MINOR 1
#define OMPDAG_VERSION_PATCH 0

#define OMPDAG_VERSION_STR_(x) #x
#define OMPDAG_VERSION_STR(x) OMPDAG_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH" */
#define OMPDAG_VERSION                                                                             \
    OMPDAG_VERSION_STR(OMPDAG_VERSION_MAJOR)                                                       \
    "." OMPDAG_VERSION_STR(OMPDAG_VERSION_MINOR) "." OMPDAG_VERSION_STR(OMPDAG_VERSION_PATCH)
/* MAJOR * 10000 + MINOR * 100 + PATCH */
#define OMPDAG_VERSION_NUMBER                                                                      \
    (OMPDAG_VERSION_MAJOR * 10000 + OMPDAG_VERSION_MINOR * 100 + OMPDAG_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library linked in, "MAJOR.MINOR.PATCH" (static storage). */
const char *ompdag_version(void);
/* The same as OMPDAG_VERSION_NUMBER of the headers the library was built with. */
int ompdag_version_number(void);

#ifdef __cplusplus
}
#endif
#endif
