/* A bot that sleeps a known time before each move, for checking the harness's move timing.
 *
 * Usage: sleeper MS. On each `turn` it sleeps MS milliseconds (clock_nanosleep on
 * CLOCK_MONOTONIC, absolute, from the moment it read the line), then plays like instant.c.
 * Just before each reply it writes to stderr how long it really took from reading `turn` to
 * that moment ("took 20.057"), so the benchmark can separate the kernel's oversleep from
 * the harness's measuring error (the note itself costs a microsecond or two).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    long sleep_ns = (argc > 1 ? atol(argv[1]) : 20) * 1000000L;
    static char buf[65536];
    size_t used = 0;
    for (;;) {
        ssize_t got = read(0, buf + used, sizeof buf - used);
        if (got <= 0) return 0;
        struct timespec read_at;
        clock_gettime(CLOCK_MONOTONIC, &read_at);
        double read_ms = read_at.tv_sec * 1e3 + read_at.tv_nsec / 1e6;
        used += (size_t)got;
        size_t start = 0;
        char *nl;
        while ((nl = memchr(buf + start, '\n', used - start)) != NULL) {
            char *line = buf + start;
            size_t len = (size_t)(nl - line);
            start += len + 1;
            if (len >= 4 && memcmp(line, "quit", 4) == 0) return 0;
            if (len >= 5 && memcmp(line, "arena", 5) == 0) {
                (void)!write(1, "ready sleeper\n", 14);
            } else if (len >= 5 && memcmp(line, "turn ", 5) == 0) {
                const char *dot = memchr(line + 5, '.', len - 5);
                if (dot == NULL) continue;
                int cell = (int)(dot - (line + 5)), row = cell / 6, col = cell % 6;
                char reply[4] = {(char)('a' + col), (char)('1' + row),
                                 ((row + col / 2) % 2 == 0) ? 'X' : 'O', '\n'};
                struct timespec wake = read_at;
                wake.tv_nsec += sleep_ns % 1000000000L;
                wake.tv_sec += sleep_ns / 1000000000L + wake.tv_nsec / 1000000000L;
                wake.tv_nsec %= 1000000000L;
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL) != 0) {
                }
                /* The note goes out before the reply, so that the harness has it (in this
                 * game's stderr tail) by the time the reply arrives. */
                char note[64];
                int n = snprintf(note, sizeof note, "took %.3f\n", now_ms() - read_ms);
                (void)!write(2, note, (size_t)n);
                (void)!write(1, reply, 4);
            }
        }
        memmove(buf, buf + start, used - start);
        used -= start;
        if (used == sizeof buf) used = 0;
    }
}
