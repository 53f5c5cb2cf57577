/* An instant "arena 1" bot in C: the cheapest possible opponent, for measuring the harness.
 *
 * On each `turn` it writes a mark in the first empty cell, the mark fixed by the cell:
 * X if (row + col / 2) is even, else O. That pattern has no five in a line anywhere on the
 * board, so every game lasts the full 36 plies whichever role the bot plays.
 * Input is read with read(2) into its own buffer (several lines may arrive at once), every
 * reply is one write(2) on fd 1: no stdio buffering to flush.
 */
#include <string.h>
#include <unistd.h>

static char replies[36][5];

static void reply_to(const char *line, size_t len) {
    if (len >= 5 && memcmp(line, "turn ", 5) == 0) {
        const char *dot = memchr(line + 5, '.', len - 5);
        if (dot != NULL && dot - (line + 5) < 36) {
            (void)!write(1, replies[dot - (line + 5)], 4);
        }
    } else if (len >= 5 && memcmp(line, "arena", 5) == 0) {
        (void)!write(1, "ready instant-c\n", 16);
    }
}

int main(void) {
    for (int cell = 0; cell < 36; cell++) {
        int row = cell / 6, col = cell % 6;
        replies[cell][0] = (char)('a' + col);
        replies[cell][1] = (char)('1' + row);
        replies[cell][2] = ((row + col / 2) % 2 == 0) ? 'X' : 'O';
        replies[cell][3] = '\n';
    }
    static char buf[65536];
    size_t used = 0;
    for (;;) {
        ssize_t got = read(0, buf + used, sizeof buf - used);
        if (got <= 0) return 0;
        used += (size_t)got;
        size_t start = 0;
        char *nl;
        while ((nl = memchr(buf + start, '\n', used - start)) != NULL) {
            size_t len = (size_t)(nl - (buf + start));
            if (len >= 4 && memcmp(buf + start, "quit", 4) == 0) return 0;
            reply_to(buf + start, len);
            start += len + 1;
        }
        memmove(buf, buf + start, used - start);
        used -= start;
        if (used == sizeof buf) used = 0; /* an absurdly long line: drop it */
    }
}
