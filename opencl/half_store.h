// half_store.h: storing a float into a half tensor without losing NaN payloads.
//
// PoCL 3.0's scalar vstore_half writes every NaN as 0x7fff / 0xffff, dropping the payload (its vector
// vstore_halfN keeps it). Rounded values are exact halves, so only NaN needs care: its half is built from
// the float's bits (sign, quiet bit, top 10 payload bits), what IEEE conversion gives. Everything else goes
// through vstore_half.
#ifndef HALF_STORE_H
#define HALF_STORE_H

inline void store_half(float value, ulong index, __global half *p)
{
    if (isnan(value)) {
        const uint bits = as_uint(value);
        ((__global ushort *)p)[index] = (ushort)(((bits >> 16) & 0x8000u) | 0x7e00u | ((bits >> 13) & 0x03ffu));
    } else {
        vstore_half(value, index, p);
    }
}

#endif
