/*
 * tests/support/pk_cmocka.h — cmocka with the headers it needs first.
 *
 * cmocka.h does not include what it uses (setjmp, stdarg, stddef); keeping
 * that order in one place stops include sorting from breaking the tests.
 */
#ifndef PK_TESTS_PK_CMOCKA_H
#define PK_TESTS_PK_CMOCKA_H

// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#endif
