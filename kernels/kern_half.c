/* kern_half.c — IEEE binary16 <-> binary32 without F16C, so the scalar reference runs on baseline x86-64 and
 * any other CPU. Must agree bit for bit with F16C's vcvtph2ps / vcvtps2ph (round to nearest even); the tests
 * check every half and a sweep of floats against the hardware when it has F16C. */
#include "kern_impl.h"

#include <string.h>

float kern_half_to_float(kern_half h)
{
    return kern_h2f(h);
}

/* Shifts m right by s bits, rounding to nearest, ties to even. */
static uint32_t shift_round_even(uint32_t m, unsigned s)
{
    uint32_t q = m >> s;
    uint32_t rest = m & ((1u << s) - 1u);
    uint32_t half = 1u << (s - 1);
    if (rest > half || (rest == half && (q & 1u)))
        q++;
    return q;
}

kern_half kern_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) /* NaN: quiet it, keep the top payload bits */
        return (kern_half)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    if (ax >= 0x477ff000u) /* >= 65520 rounds to inf (and inf stays inf) */
        return (kern_half)(sign | 0x7c00u);
    if (ax >= 0x38800000u) { /* a normal half: 13 mantissa bits to drop; a carry may bump the exponent */
        uint32_t e = (ax >> 23) - 112u;
        uint32_t h = (e << 10) | ((ax >> 13) & 0x3ffu);
        uint32_t rest = ax & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
            h++;
        return (kern_half)(sign | h);
    }
    if (ax <= 0x33000000u) /* <= 2^-25: rounds to zero (2^-25 itself is a tie, and 0 is even) */
        return (kern_half)sign;
    /* subnormal half: the value in units of 2^-24 is mantissa * 2^(e - 126 - 24 + 24) */
    uint32_t e = ax >> 23;
    uint32_t m = (ax & 0x7fffffu) | 0x800000u;
    return (kern_half)(sign | shift_round_even(m, 126u - e)); /* 0x400 on carry = smallest normal */
}
