// SUNDIAL_INLINE: forces inlining of the small per-point decode helpers, so
// that a decoder's bit position stays in a register.
#pragma once

#if defined(__GNUC__)
#define SUNDIAL_INLINE inline __attribute__((always_inline))
#else
#define SUNDIAL_INLINE inline
#endif
