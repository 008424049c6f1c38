/* pb_fmt.h — numbers as the write-ups print them. Each formatter writes into a caller's pb_fbuf and returns it,
 * so PB_NS(x) can sit inside a printf argument list (the compound literal lives until the enclosing block
 * ends). NaN prints as "—". */
#ifndef PB_FMT_H
#define PB_FMT_H

typedef struct pb_fbuf {
    char s[48];
} pb_fbuf;

const char *pb_fmt_ns(pb_fbuf *b, double ns);        /* 130 ns, 43.1 µs, 1.25 ms, 2.50 s */
const char *pb_fmt_x(pb_fbuf *b, double ratio);      /* 310×, 12.4×, 1.06× */
const char *pb_fmt_num(pb_fbuf *b, double v, int decimals);
const char *pb_fmt_pct(pb_fbuf *b, double pct);      /* 96% */
const char *pb_fmt_bytes(pb_fbuf *b, double bytes);  /* 640 MB, 1.2 GB (1e6, 1e9) */

/* "s" after a count other than 1: "%d thread%s", n, PB_S(n) */
#define PB_S(n) ((n) == 1 ? "" : "s")

#define PB_NS(v) pb_fmt_ns(&(pb_fbuf){ { 0 } }, (v))
#define PB_X(v) pb_fmt_x(&(pb_fbuf){ { 0 } }, (v))
#define PB_NUM(v, d) pb_fmt_num(&(pb_fbuf){ { 0 } }, (v), (d))
#define PB_PCT(v) pb_fmt_pct(&(pb_fbuf){ { 0 } }, (v))
#define PB_BYTES(v) pb_fmt_bytes(&(pb_fbuf){ { 0 } }, (v))

#endif
