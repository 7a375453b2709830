// half_store.h: storing a float into a half tensor without losing NaN payloads.
//
// PoCL 3.0's scalar vstore_half writes every NaN as 0x7fff / 0xffff, dropping the payload (its vector
// vstore_halfN keeps it). Only NaN needs care: its half is built from the float's bits (sign, quiet bit, top
// 10 payload bits), what IEEE conversion gives, by half_bits.h's half_value_bits. Everything else goes
// through vstore_half.
#ifndef HALF_STORE_H
#define HALF_STORE_H

#include "half_bits.h"

static inline void store_half(float value, ulong index, __global half *p)
{
    if (isnan(value)) {
        ((__global ushort *)p)[index] = half_value_bits(value);
    } else {
        vstore_half(value, index, p);
    }
}

#endif
