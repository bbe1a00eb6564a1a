#ifndef MOLSHOT_SHA256_BLOCKS_H
#define MOLSHOT_SHA256_BLOCKS_H
#include <stddef.h>
#include <stdint.h>

/// Runs SHA-256's compression over `blocks` whole 64-byte blocks at `data`, updating `state`
/// (h0..h7), with the CPU's SHA instructions. Returns 0 and leaves `state` alone where the CPU
/// has none (the caller then compresses the blocks itself), 1 when done.
int molshot_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/// SHA-256's 64 round constants (FIPS 180-4, 4.2.2), the one copy both ways use.
const uint32_t *molshot_sha256_constants(void);

#endif
