/* A photocore engine in C that plays uniformly at random among the legal moves the
 * harness lists (docs/protocol.md, version 1). It needs nothing from photocore:
 *
 *     cc -O2 -o random_engine random_engine.c
 *     photocore match --agents cmd:./random_engine,greedy --games 20
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[1 << 16], legal[1 << 16];
static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void) {       /* xorshift64 */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void) {
    char *moves[1024];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "photocore ", 10) == 0) {
            puts("ready name=random-c");
        } else if (strncmp(line, "newgame", 7) == 0) {
            char *seed = strstr(line, "seed=");
            if (seed) rng = strtoull(seed + 5, NULL, 10) | 1;   /* xorshift needs a bit set */
        } else if (strncmp(line, "legal ", 6) == 0) {
            strcpy(legal, line + 6);
        } else if (strncmp(line, "go", 2) == 0) {
            int n = 0;
            for (char *m = strtok(legal, ","); m && n < 1024; m = strtok(NULL, ","))
                moves[n++] = m;
            printf("info %d legal moves\n", n);
            printf("move %s\n", n ? moves[next_random() % n] : "end");
        } else if (strcmp(line, "quit") == 0) {
            return 0;
        }                                  /* position and anything unknown: ignored */
        fflush(stdout);
    }
    return 0;
}
