/* pb_md_escape, the one escaping function of report.md and compare.md: what each character becomes, UTF-8
 * repaired, control characters gone, the cap and its ellipsis. */
#include <criterion/criterion.h>
#include <string.h>

#include "pb_md_escape.h"

static void expect_escape(const char *in, const char *want)
{
    cr_expect_str_eq(PB_MD(in), want, "escaping '%s'", in);
}

Test(md_escape, markdown_and_html_become_text)
{
    expect_escape("plain text 1.5 GB/s (p+e)", "plain text 1.5 GB/s (p+e)");
    expect_escape("a|b", "a\\|b");
    expect_escape("![x](http://e/x.png)", "\\!\\[x\\](http\\://e/x.png)");
    expect_escape("<script>&amp;", "&lt;script&gt;&amp;amp;");
    expect_escape("*em* `code` ~~del~~ # $x$ \\", "\\*em\\* \\`code\\` \\~\\~del\\~\\~ \\# \\$x\\$ \\\\");
    expect_escape("q8_0 cpu_util _u_ a_ _b", "q8_0 cpu_util \\_u\\_ a\\_ \\_b");
    expect_escape("www.e.com and WWW.E.COM, time 10:30", "www\\.e.com and WWW\\.E.COM, time 10:30");
}

Test(md_escape, control_characters_and_bad_utf8)
{
    expect_escape("a\nb\r\nc\td", "a b  c d");
    expect_escape("a\x01\x1b[31mb\x7f", "a\\[31mb");
    expect_escape("x\xc2\x85y", "xy");                         /* U+0085, a C1 control */
    expect_escape("µs × — 😀", "µs × — 😀");                   /* valid UTF-8 stays */
    expect_escape("\xff\xfe", "\xef\xbf\xbd\xef\xbf\xbd");     /* each bad byte is U+FFFD */
    expect_escape("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");     /* an overlong '/' */
    expect_escape("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* a surrogate */
    expect_escape("\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd");     /* a sequence cut at the end */
}

Test(md_escape, capped_with_an_ellipsis_never_mid_escape)
{
    char in[1000];
    memset(in, 'a', sizeof in - 1);
    in[sizeof in - 1] = '\0';
    const char *out = PB_MD(in);
    cr_expect_eq(strlen(out), PB_MD_CELL + strlen("…"));
    cr_expect_str_eq(out + PB_MD_CELL, "…");
    memset(in, '|', sizeof in - 1);
    out = PB_MD(in);
    cr_expect_eq(strlen(out), PB_MD_CELL + strlen("…"), "%zu", strlen(out));
    cr_expect(strncmp(out + PB_MD_CELL - 2, "\\|…", 5) == 0, "whole escapes only: %s", out + PB_MD_CELL - 4);
    char small[8];
    cr_expect_str_eq(pb_md_escape(small, sizeof small, "abcdefgh"), "abcd…");
    cr_expect_str_eq(pb_md_escape(small, sizeof small, "abcd"), "abcd", "a text that fits has no ellipsis");
    cr_expect_str_eq(pb_md_escape(small, sizeof small, "ab<"), "ab…", "&lt; is not cut");
}
