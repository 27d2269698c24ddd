/* str_test.c -- unit test of the size parser (spec section 8 syntax). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

static int failures;

static void expect_size(const char *text, size_t want)
{
    size_t got = 0;
    if (shr_str_to_size(text, &got) != SHR_OK || got != want) {
        fprintf(stderr, "FAIL: \"%s\" -> %zu, want %zu\n", text, got, want);
        failures++;
    }
}

static void expect_invalid(const char *text)
{
    size_t got = 12345;
    if (shr_str_to_size(text, &got) != SHR_ERR_INVALID || got != 12345) {
        fprintf(stderr, "FAIL: \"%s\" accepted as %zu\n", text, got);
        failures++;
    }
}

int main(void)
{
    /* the spec's own examples */
    expect_size("20m", 20971520);
    expect_size("3.1M", 3250586);
    expect_size("20kk", 20480);
    expect_size(".5m", 524288);
    expect_size("0.5m", 524288);
    /* every suffix, both cases */
    expect_size("1k", 1024);
    expect_size("1K", 1024);
    expect_size("2g", 2ull << 30);
    expect_size("2G", 2ull << 30);
    expect_size("1t", 1ull << 40);
    expect_size("1T", 1ull << 40);
    expect_size("0", 0);
    expect_size("123", 123);
    expect_size("1.5", 2);      /* ceiling */
    expect_size("1e3", 1000);
    expect_size("1.5e1k", 15360);
    expect_size("64m", 64ull << 20);
    expect_size("16G", 16ull << 30);
    /* malformed values, unknown suffixes, overflow */
    expect_invalid("");
    expect_invalid("12x");
    expect_invalid("4096b");
    expect_invalid("-1");
    expect_invalid("m");
    expect_invalid("abc");
    expect_invalid(" 12");
    expect_invalid("0x10");
    expect_invalid("inf");
    expect_invalid("nan");
    expect_invalid("1e");
    expect_invalid("99999999999t");
    expect_invalid("1e40");
    {
        char buf[32];
        if (strcmp(shr_str_from_size_env(128u << 20, buf, sizeof(buf)), "128m") != 0 ||
            strcmp(shr_str_from_size_env((3u << 30) - 5, buf, sizeof(buf)), "3g") != 0 ||
            strcmp(shr_str_from_size_env(100, buf, sizeof(buf)), "100") != 0) {
            fprintf(stderr, "FAIL: env-syntax size formatting (%s)\n", buf);
            failures++;
        }
    }
    {
        char buf[32];
        const char *s = shr_str_from_size(3ull << 30, buf, sizeof(buf));
        if (s[0] != '3' || s[2] != 'G') {
            fprintf(stderr, "FAIL: format of 3 GiB is \"%s\"\n", s);
            failures++;
        }
    }
    return failures ? 1 : 0;
}
