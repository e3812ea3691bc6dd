/* Random playouts of eight games at once, one game to each 64-bit lane of a vector
   (docs/kernel.md, "Many games at once"). The scalar kernel's draw is a chain of branches
   on random data (which kind of move, how many plant sources), each mispredicted at random;
   here every lane computes every kind of move and keeps the one it drew, so a move costs no
   branch, and the branches left (are there plant sources in any lane, did a game end) serve
   eight games. A lane plays exactly the moves play_random_game plays with the same stream:
   the same draws in the same order, so the same games (tests/engine/test_lanes.py).

   The game's facts come from the kernel's own tables (pc_lane_tables, filled by
   _kernel.pyx's _build_lane_tables): nothing here is a second copy of a number. Games come in
   and go out as pc_lane_game values (start and finish callbacks): the caller builds them
   from States and scores them with the kernel's own rules.

   _lanes_loop.h is compiled twice: for CPUs with AVX-512 (vector popcount, byte permutes:
   the copy playouts run where the CPU has them; in the kernel's x86-64-v3 copy) and in
   portable vector C, which the
   compiler lowers to whatever the build targets (the copy PHOTOCORE_LANES=8 runs on other
   CPUs: slower than the scalar kernel there, it exists so that any machine can test the
   lanes). Compilers without GCC's vector extensions (MSVC) get no lanes. */
#ifndef PHOTOCORE_LANES_H
#define PHOTOCORE_LANES_H
#include <stdint.h>

#define PCL_WIDTH 8              /* games a step plays */
#define PCL_PURSE_BOARD 32       /* a purse word: available area bytes 0-3, player board 4-7 */

typedef struct {
    uint64_t board, outer;
    uint64_t richer[3];          /* the cells of richness 2 or more, 3 or more, 4 */
    uint64_t reach_high[4], reach_low[4];   /* [size]: REACH[size][centre] << (63 - centre),
                                               a 128-bit word's halves */
    uint64_t columns_near[8];    /* [(63 - bit) & 7]: the cells within 3 columns of bit's */
    uint64_t light_row[16];      /* [min(light, 15)]: BUY_FROM | GROW_AFFORDED << 32 */
    uint64_t price_nibbles;      /* nibble 4 * column + pieces in it - 1: PRICE */
    uint64_t grow_costs;         /* byte k: grow_cost(k) */
    uint64_t slots;              /* byte c: SLOTS[c] */
    uint64_t stack_size;         /* byte k: STACK_SIZE[k] */
    uint64_t shadow_turn;        /* byte k: SHADOW_LEFT[k] - SHADOW_RIGHT[k], mod 64: a
                                    shadow step as a rotation */
    uint8_t tokens[64];          /* [stack * 16 + tokens taken from it]: TOKEN_VALUE */
    uint8_t nibble_select[64];   /* [k * 16 + nibble]: its k-th set bit */
    int light_cap, plant_cost, collect_cost, sun_positions, setup_trees;
} pc_lane_tables;

/* A game as a lane holds it: the State's fields as words (purse words as Turn.purse; points:
   the token values each player holds; shade all ones with the shade-blocks option) and its
   random stream, `word` drawn for its next move. */
typedef struct {
    uint64_t seeds, smalls, mediums, larges, active;
    uint64_t own[4], purse[4], light[4], points[4];
    uint64_t stacks;             /* byte k: the tokens left on stack k */
    uint64_t round, first, current, phase, sun, last_round, shade;
    uint64_t rng, word;
} pc_lane_game;

/* start: game `index` into *game; finish: game `index` ended after `moves` moves. */
typedef void (*pc_lane_start)(void* context, long long index, pc_lane_game* game);
typedef void (*pc_lane_finish)(void* context, long long index, long long moves,
                               const pc_lane_game* game);

#define PCL_SETUP 0              /* phases, as the kernel's (PHASE_SETUP ..) */
#define PCL_PLAY 1
#define PCL_OVER 2
#define PCL_IDLE 3               /* a lane with no game left to play */

#if defined(__GNUC__) && !defined(_MSC_VER)
#define PCL_VECTORS 1
typedef uint64_t pcl_v __attribute__((vector_size(8 * PCL_WIDTH)));   /* a word a lane */
typedef int64_t pcl_s __attribute__((vector_size(8 * PCL_WIDTH)));
#define PCL(name) name##_portable
#define PCL_TARGET
#include "_lanes_loop.h"
#undef PCL
#undef PCL_TARGET
#if defined(__x86_64__) && defined(__AVX2__)
/* in the x86-64-v3 copy of the kernel (and native builds) alone: every CPU with AVX-512
   runs that copy, and the others would only compile it */
#define PCL_HAS_AVX512 1
#define PCL_AVX512 1
#define PCL(name) name##_avx512
#define PCL_TARGET __attribute__((target("avx512f,avx512cd,avx512vl,avx512bw,avx512dq," \
                                         "avx512vpopcntdq,avx512bitalg,avx512vbmi,avx512vbmi2")))
#include <immintrin.h>
#include "_lanes_loop.h"
#undef PCL
#undef PCL_TARGET
#undef PCL_AVX512
#endif
#endif

/* Which copy this CPU runs best: 2 the AVX-512 one, 1 the portable one, 0 none. */
static int pc_lanes_best(void) {
#if defined(PCL_HAS_AVX512)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
            && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
            && __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vpopcntdq")
            && __builtin_cpu_supports("avx512bitalg") && __builtin_cpu_supports("avx512vbmi")
            && __builtin_cpu_supports("avx512vbmi2"))
        return 2;
#endif
#if defined(PCL_VECTORS)
    return 1;
#else
    return 0;
#endif
}

/* Plays games 0 .. games - 1 (start, finish) of `players` players with copy `copy`
   (pc_lanes_best's numbers); `shade`: whether any has the shade-blocks option. */
static void pc_lanes_play(int copy, const pc_lane_tables* t, int players, int shade,
                          long long games, void* context, pc_lane_start start,
                          pc_lane_finish finish) {
#if defined(PCL_VECTORS)
#if defined(PCL_HAS_AVX512)
    if (copy == 2) {
        pcl_play_avx512(t, players, shade, games, context, start, finish);
        return;
    }
#endif
    if (copy == 1)
        pcl_play_portable(t, players, shade, games, context, start, finish);
#else
    (void)copy; (void)t; (void)players; (void)shade; (void)games;
    (void)context; (void)start; (void)finish;
#endif
}

#endif
