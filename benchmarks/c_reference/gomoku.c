/* Random Gomoku 15x15 (freestyle: five or more in a row wins) playouts in plain C: the yardstick
 * of benchmarks/kernels_vs_c.py.
 *
 * A bordered cell array, and a list of the empty points from which each ply draws uniformly
 * (SplitMix64, Lemire's multiply-shift) and removes by swapping in the last; after each stone,
 * the four lines through it are counted. The game ends at five in a row or a full board (a draw).
 *
 *   cc -O3 -march=native gomoku.c -o gomoku && ./gomoku SECONDS SEED
 *
 * Prints "games plies cpu_seconds checksum" (process CPU time; the checksum, Black's wins,
 * keeps the compiler from dropping the games).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 15

static uint64_t rng_state;

static inline uint64_t next_u64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t randint(uint64_t n) { return ((next_u64() >> 32) * n) >> 32; }

/* The board with a border: row r, column c is cell (r + 1) * W + c; the extra column W - 1 and
 * the rows above and below hold 0, so a walk along a line stops there without a bounds check. */
#define W (N + 1)
#define CELLS ((N + 2) * W + 1)
static const int STEP[4] = {1, W, W + 1, W - 1};

/* Whether the stone of `colour` just put on cell `at` makes five or more in a row. */
static inline int five(const int8_t *board, int at, int colour) {
    for (int d = 0; d < 4; d++) {
        int length = 1, k = STEP[d];
        for (int x = at + k; board[x] == colour; x += k)
            length++;
        for (int x = at - k; board[x] == colour; x -= k)
            length++;
        if (length >= 5)
            return 1;
    }
    return 0;
}

/* One game from the empty board; returns its plies, *black_won set. */
static long play(int *black_won) {
    int8_t board[CELLS] = {0};
    int16_t empty[N * N];
    int count = 0;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            empty[count++] = (int16_t)((r + 1) * W + c);
    int colour = 1;
    long plies = 0;
    *black_won = 0;
    while (count > 0) {
        int i = (int)randint((uint64_t)count);
        int at = empty[i];
        empty[i] = empty[--count];
        board[at] = (int8_t)colour;
        plies++;
        if (five(board, at, colour)) {
            *black_won = colour == 1;
            break;
        }
        colour = 3 - colour;
    }
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
