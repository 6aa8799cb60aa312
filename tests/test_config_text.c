/*  test_config_text — the config text before libconfig 1.5 reads it
 *  (config/config_text): an integer past 32 bits gets the L suffix, and
 *  nothing else changes: not a 32-bit one, a float, a string, a comment,
 *  a name with digits, or one that has its L already.
 */
#include "config_text.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static void
expect_widened (const char *in, const char *want)
{
    size_t len = 0;
    char *out = dlq_config_text_widen (in, strlen (in), &len);
    cr_expect_str_eq (out, want, "from: %s", in);
    cr_expect_eq (len, strlen (want));
    free (out);
}

Test (config_text, integers_past_32_bits_get_the_l_suffix)
{
    expect_widened ("a = 10737418240;", "a = 10737418240L;");
    expect_widened ("a = 2147483647; b = 2147483648;", "a = 2147483647; b = 2147483648L;");
    expect_widened ("a = -2147483648; b = -2147483649;", "a = -2147483648; b = -2147483649L;");
    expect_widened ("a = 0xFFFFFFFF; b = 0x100000000;", "a = 0xFFFFFFFF; b = 0x100000000L;");
    expect_widened ("x: { y = [ 4296015872, 1 ]; };", "x: { y = [ 4296015872L, 1 ]; };");
    expect_widened ("a=99999999999999999999999;", "a=99999999999999999999999L;");
    expect_widened ("a = 10737418240", "a = 10737418240L");
}

Test (config_text, everything_else_is_left_as_it_is)
{
    const char *same [] = {
        "a = 1048576; b = 0; c = -1;",
        "a = 10737418240L;",
        "a = 1.5e10; b = 10737418240.0; c = 1e12;",
        "a = \"10737418240\"; b = \"x\\\"10737418240\\\"\";",
        "# 10737418240\n// 10737418240\n/* 10737418240 */ a = 1;",
        "n10737418240 = 1; max-10737418240 = 2; x_99999999999 = 3;",
        "",
        "/* unclosed 10737418240",
        "a = \"unclosed 10737418240",
    };
    for (size_t i = 0; i < sizeof same / sizeof same [0]; i++)
        expect_widened (same [i], same [i]);
}

Test (config_text, lines_keep_their_numbers)
{
    expect_widened ("a = 1;\nb = 10737418240;\nc = \"\n10737418240\";\nd = 5000000000;\n",
                    "a = 1;\nb = 10737418240L;\nc = \"\n10737418240\";\nd = 5000000000L;\n");
}
