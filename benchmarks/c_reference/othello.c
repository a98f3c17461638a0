/* Random Othello 8x8 playouts in plain C: the yardstick of benchmarks/kernels_vs_c.py.
 *
 * One uint64 bitboard per colour (bit r*8 + c, as the Arbiter kernel), Kogge-Stone occluded fills
 * along the 8 directions for the placements of all squares at once and for the flips of one
 * placement. Each ply picks uniformly among the mover's placements (SplitMix64, Lemire's
 * multiply-shift, the k-th set bit: one PDEP instruction where the CPU has BMI2); a side without a placement passes (a ply, as in Arbiter);
 * the game ends when neither side can place.
 *
 *   cc -O3 -march=native othello.c -o othello && ./othello SECONDS SEED
 *
 * Prints "games plies cpu_seconds checksum" (process CPU time; the checksum, Black's wins,
 * keeps the compiler from dropping the games).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef __BMI2__
#include <immintrin.h>
#endif

static uint64_t rng_state;

static inline uint64_t next_u64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t randint(uint64_t n) { return ((next_u64() >> 32) * n) >> 32; }

/* direction k = dr*8 + dc, and the squares a one-square shift may land on (no wrap round an edge) */
#define NOT_A 0xFEFEFEFEFEFEFEFEULL /* dc = +1: column a cannot be reached */
#define NOT_H 0x7F7F7F7F7F7F7F7FULL /* dc = -1: column h cannot be reached */
static const int SHIFT[8] = {1, -1, 8, -8, 9, 7, -7, -9};
static const uint64_t MASK[8] = {NOT_A, NOT_H, ~0ULL, ~0ULL, NOT_A, NOT_H, NOT_A, NOT_H};

static inline uint64_t shift(uint64_t x, int k) { return k > 0 ? x << k : x >> -k; }

static inline uint64_t fill(uint64_t gen, uint64_t opp, int k, uint64_t mask) {
    uint64_t pro = opp & mask;
    uint64_t run = gen | (pro & shift(gen, k));
    pro &= shift(pro, k);
    run |= pro & shift(run, 2 * k);
    pro &= shift(pro, 2 * k);
    return run | (pro & shift(run, 4 * k));
}

static inline uint64_t placements(uint64_t own, uint64_t opp) {
    uint64_t empty = ~(own | opp), moves = 0;
    for (int d = 0; d < 8; d++)
        moves |= shift(fill(own, opp, SHIFT[d], MASK[d]) & opp, SHIFT[d]) & MASK[d] & empty;
    return moves;
}

static inline uint64_t flips(uint64_t own, uint64_t opp, uint64_t bit) {
    uint64_t out = 0;
    for (int d = 0; d < 8; d++) {
        uint64_t run = fill(bit, opp, SHIFT[d], MASK[d]);
        if (shift(run, SHIFT[d]) & MASK[d] & own)
            out |= run & opp;
    }
    return out;
}

/* One game from the start position; returns its plies (passes included), *black_won set. */
static long play(int *black_won) {
    uint64_t own = (1ULL << 28) | (1ULL << 35); /* Black: e4, d5 */
    uint64_t opp = (1ULL << 27) | (1ULL << 36); /* White: d4, e5 */
    int seat = 0;
    long plies = 0;
    uint64_t moves = placements(own, opp);
    for (;;) {
        if (!moves) {
            uint64_t reply = placements(opp, own);
            if (!reply)
                break;
            uint64_t t = own; own = opp; opp = t; /* pass */
            seat ^= 1;
            plies++;
            moves = reply;
            continue;
        }
        uint64_t k = randint((uint64_t)__builtin_popcountll(moves));
#ifdef __BMI2__
        uint64_t bit = _pdep_u64(1ULL << k, moves); /* the k-th set bit in one instruction */
#else
        uint64_t m = moves;
        while (k--)
            m &= m - 1;
        uint64_t bit = m & -m;
#endif
        uint64_t f = flips(own, opp, bit);
        own |= f | bit;
        opp &= ~f;
        uint64_t t = own; own = opp; opp = t;
        seat ^= 1;
        plies++;
        moves = placements(own, opp);
    }
    int black = __builtin_popcountll(seat == 0 ? own : opp);
    int white = __builtin_popcountll(seat == 0 ? opp : own);
    *black_won = black > white;
    return plies;
}

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
    long games = 0, plies = 0, wins = 0;
    double start = cpu_seconds(), elapsed;
    do {
        for (int i = 0; i < 1000; i++) {
            int won;
            plies += play(&won);
            wins += won;
            games++;
        }
        elapsed = cpu_seconds() - start;
    } while (elapsed < seconds);
    printf("%ld %ld %.6f %ld\n", games, plies, elapsed, wins);
    return 0;
}
