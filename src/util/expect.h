/* expect.h -- the check of the unit tests (src/<module>/<name>_test.c):
 * EXPECT(cond) reports a failed condition with its line and counts it in
 * the test's `failures`, which main returns. */
#ifndef SHR_EXPECT_H
#define SHR_EXPECT_H

#include <stdio.h>

static int failures;

#define EXPECT(_cond) do { \
        if (!(_cond)) { \
            fprintf(stderr, "FAIL line %d: %s\n", __LINE__, #_cond); \
            failures++; \
        } \
    } while (0)

#endif
