/* The C interface from C: known Russian positions, errors, the cache-only probe and
 * several threads on one handle. Usage: probe_test TABLE_DIR (Russian tables up to 4
 * pieces with ussr1953 rule tables). Exits 0 when every check holds. */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "kabe.h"

static int failures = 0;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                  \
            fputc('\n', stderr);                           \
            failures++;                                    \
        }                                                  \
    } while (0)

/* Russian squares by number: b8=1 ... h8=4, a7=5 ... g1=32. */
#define SQ(n) (1ull << ((n) - 1))
enum { B8 = 1, H8 = 4, E7 = 7, F6 = 11, A3 = 21, C3 = 22, B2 = 25, A1 = 29, C1 = 30 };

struct known {
    const char *name;
    kabe_position position;
    int wld;
    int plies; /* theoretical plies to the end, -1 for a draw */
};

static const struct known KNOWN[] = {
    {"3 kings v 1: W:WKh8,Ke7,Kf6:BKa3",
     {KABE_RUSSIAN, SQ(H8) | SQ(E7) | SQ(F6), SQ(A3), SQ(H8) | SQ(E7) | SQ(F6) | SQ(A3), KABE_WHITE}, KABE_WIN, 25},
    {"blocked man: W:Wa1:Bb2,c3", {KABE_RUSSIAN, SQ(A1), SQ(B2) | SQ(C3), 0, KABE_WHITE}, KABE_LOSS, 0},
    {"man v man: W:Wc3:Bf6", {KABE_RUSSIAN, SQ(C3), SQ(F6), 0, KABE_WHITE}, KABE_DRAW, -1},
    {"man v man, Black to move", {KABE_RUSSIAN, SQ(C3), SQ(F6), 0, KABE_BLACK}, KABE_DRAW, -1},
    {"2 kings v 1: W:WKa1,Kc1:BKh8",
     {KABE_RUSSIAN, SQ(A1) | SQ(C1), SQ(H8), SQ(A1) | SQ(C1) | SQ(H8), KABE_WHITE}, KABE_WIN, 3},
};
#define NKNOWN (sizeof KNOWN / sizeof KNOWN[0])

static void *probe_many(void *arg) {
    kabe_tablebase *tb = arg;
    long wrong = 0;
    for (int round = 0; round < 2000; round++) {
        const struct known *k = &KNOWN[round % NKNOWN];
        int result = 99;
        if (kabe_probe_wld(tb, &k->position, &result) != KABE_OK || result != k->wld) wrong++;
    }
    return (void *)wrong;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s TABLE_DIR\n", argv[0]);
        return 2;
    }
    char error[512] = "";
    CHECK(strcmp(kabe_version(), "") != 0 && strchr(kabe_version(), '.') != NULL, "version %s", kabe_version());
    kabe_tablebase *tb = (kabe_tablebase *)&argc; /* not NULL: a failed open must set it */
    int status = kabe_open("/no/such/dir", NULL, &tb, error, sizeof error);
    CHECK(status == KABE_ERR_IO && strstr(error, "/no/such/dir"), "open of a missing dir: %d %s", status, error);
    CHECK(tb == NULL, "a failed open leaves *out NULL");

    kabe_options options = kabe_default_options();
    options.cache_bytes = SIZE_MAX; /* past the 1 TiB a cache may have: refused by name */
    status = kabe_open(argv[1], &options, &tb, error, sizeof error);
    CHECK(status == KABE_ERR_ARGUMENT && strstr(error, "cache_bytes"), "a huge cache: %d %s", status, error);
    CHECK(tb == NULL, "a refused open leaves *out NULL");
    options.cache_bytes = 1u << 20;
    status = kabe_open(argv[1], &options, &tb, error, sizeof error);
    if (status != KABE_OK) {
        fprintf(stderr, "kabe_open: %s (%s)\n", kabe_status_string(status), error);
        return 1;
    }
    CHECK(kabe_max_pieces(tb, KABE_RUSSIAN) == 4, "max pieces %d", kabe_max_pieces(tb, KABE_RUSSIAN));

    /* Nothing is cached before the first probe. */
    int result = 99;
    status = kabe_probe_wld_cached(tb, &KNOWN[0].position, &result);
    CHECK(status == KABE_NOT_CACHED, "cached-only before any probe: %d", status);

    for (size_t i = 0; i < NKNOWN; i++) {
        const struct known *k = &KNOWN[i];
        status = kabe_probe_wld(tb, &k->position, &result);
        CHECK(status == KABE_OK && result == k->wld, "%s: status %d result %d", k->name, status, result);
        status = kabe_probe_wld_cached(tb, &k->position, &result);
        CHECK(status == KABE_OK && result == k->wld, "%s cached: status %d result %d", k->name, status, result);
        /* The stored value alone: the same, or not stored (left for a search). */
        int stored = -100;
        status = kabe_probe_wld_stored(tb, &k->position, &stored);
        CHECK((status == KABE_OK && stored == k->wld) || (status == KABE_NOT_STORED && stored == -100),
              "%s stored: status %d result %d", k->name, status, stored);
        kabe_verdict v;
        status = kabe_probe(tb, &k->position, NULL, &v);
        CHECK(status == KABE_OK && v.theoretical == k->wld && v.theoretical_plies == k->plies,
              "%s: verdict status %d theoretical %d in %d", k->name, status, v.theoretical, v.theoretical_plies);
    }

    /* The 1953 rules: 3 kings v 1 drawn after the strong side's 18th move. With 20 plies
     * of that count gone, 15 are left and the win needs 22. */
    kabe_counters late = {0, 20, "16c", KABE_STRONG_FROM_MATERIAL, NULL};
    kabe_verdict v;
    status = kabe_probe(tb, &KNOWN[0].position, &late, &v);
    CHECK(status == KABE_OK && v.exact == KABE_DRAW && v.theoretical == KABE_WIN && v.plies_left == 15 &&
              strcmp(v.article, "16c") == 0,
          "16c=20: status %d exact %d left %d article %s", status, v.exact, v.plies_left, v.article);
    kabe_counters impossible = {0, 99, "16c", KABE_STRONG_FROM_MATERIAL, NULL};
    CHECK(kabe_probe(tb, &KNOWN[0].position, &impossible, &v) == KABE_ERR_COUNTERS, "16c=99 accepted");
    kabe_counters unknown = {0, 1, "6.3", KABE_STRONG_FROM_MATERIAL, NULL};
    CHECK(kabe_probe(tb, &KNOWN[0].position, &unknown, &v) == KABE_ERR_COUNTERS, "6.3 in the 1953 rules accepted");
    /* The 16c deadline stands after the lone king took two of the three kings: with a
     * king against a king the counters must say whose deadline it is. */
    kabe_position kings = {KABE_RUSSIAN, SQ(C1), SQ(H8), SQ(C1) | SQ(H8), KABE_WHITE};
    kabe_counters unsaid = {0, 30, "16c", KABE_STRONG_FROM_MATERIAL, NULL};
    CHECK(kabe_probe(tb, &kings, &unsaid, &v) == KABE_ERR_COUNTERS, "16c with K v K and no strong side accepted");
    kabe_counters said = {0, 30, "16c", KABE_STRONG_WHITE, NULL};
    status = kabe_probe(tb, &kings, &said, &v);
    CHECK(status == KABE_OK && v.exact == KABE_DRAW && v.plies_left == 5 && strcmp(v.article, "16c") == 0,
          "16c=30 (White's kings) in K v K: status %d exact %d left %d", status, v.exact, v.plies_left);

    /* One handle answers under any rule set the counters name: without counted rules the
     * win stands whatever the count; a set not written for Russian is refused. */
    kabe_counters rule_free = {0, 0, NULL, KABE_STRONG_FROM_MATERIAL, "none"};
    status = kabe_probe(tb, &KNOWN[0].position, &rule_free, &v);
    CHECK(status == KABE_OK && v.exact == KABE_WIN && v.plies_left == -1, "rules none: status %d exact %d left %d",
          status, v.exact, v.plies_left);
    kabe_counters other_game = {0, 0, NULL, KABE_STRONG_FROM_MATERIAL, "fmjd"};
    CHECK(kabe_probe(tb, &KNOWN[0].position, &other_game, &v) == KABE_ERR_COUNTERS, "fmjd on Russian accepted");
    kabe_counters no_such = {0, 0, NULL, KABE_STRONG_FROM_MATERIAL, "fide"};
    CHECK(kabe_probe(tb, &KNOWN[0].position, &no_such, &v) == KABE_ERR_COUNTERS, "rules 'fide' accepted");

    /* Best moves: every one keeps the win; a small buffer is refused with the count. */
    kabe_move moves[64];
    size_t count = 0;
    status = kabe_best_moves(tb, &KNOWN[4].position, NULL, moves, 64, &count);
    CHECK(status == KABE_OK && count > 0, "best moves: %d, %zu", status, count);
    for (size_t i = 0; i < count; i++) CHECK(moves[i].exact == KABE_WIN, "move %zu not winning", i);
    size_t needed = 0;
    CHECK(kabe_best_moves(tb, &KNOWN[4].position, NULL, moves, 0, &needed) == KABE_ERR_BUFFER && needed == count,
          "small buffer");

    /* Bad input. */
    kabe_position overlap = {KABE_RUSSIAN, SQ(C3), SQ(C3), 0, KABE_WHITE};
    CHECK(kabe_probe_wld(tb, &overlap, &result) == KABE_ERR_POSITION, "overlapping sides");
    kabe_position crowned = {KABE_RUSSIAN, SQ(B8), SQ(F6), 0, KABE_WHITE};
    CHECK(kabe_probe_wld(tb, &crowned, &result) == KABE_ERR_POSITION, "white man on its promotion row");
    kabe_position stray_king = {KABE_RUSSIAN, SQ(C3), SQ(F6), SQ(A1), KABE_WHITE};
    CHECK(kabe_probe_wld(tb, &stray_king, &result) == KABE_ERR_POSITION, "king bit without a piece");
    kabe_position off_board = {KABE_RUSSIAN, SQ(C3) | (1ull << 40), SQ(F6), 0, KABE_WHITE};
    CHECK(kabe_probe_wld(tb, &off_board, &result) == KABE_ERR_POSITION, "square 41 on 8x8");
    kabe_position bad_variant = {42, SQ(C3), SQ(F6), 0, KABE_WHITE};
    CHECK(kabe_probe_wld(tb, &bad_variant, &result) == KABE_ERR_ARGUMENT, "variant 42");
    kabe_position international = {KABE_INTERNATIONAL, 1ull << 30, 1ull << 10, 0, KABE_WHITE};
    CHECK(kabe_probe_wld(tb, &international, &result) == KABE_ERR_VARIANT, "no international tables");
    CHECK(kabe_probe_wld(NULL, &KNOWN[0].position, &result) == KABE_ERR_ARGUMENT, "NULL handle");
    /* Five pieces, no capture: beyond the tables, and the message names the file. */
    kabe_position five = {KABE_RUSSIAN, SQ(A1) | SQ(C1) | SQ(C3), SQ(B8) | SQ(H8), 0, KABE_WHITE};
    status = kabe_probe_wld(tb, &five, &result);
    CHECK(status == KABE_ERR_NO_TABLE, "five pieces: %d", status);
    char message[256];
    kabe_explain(tb, &five, message, sizeof message);
    CHECK(strstr(message, "3020.wld.kabe") != NULL, "explain: %s", message);

    /* Threads share the handle. */
    pthread_t threads[4];
    for (int t = 0; t < 4; t++) pthread_create(&threads[t], NULL, probe_many, tb);
    for (int t = 0; t < 4; t++) {
        void *wrong;
        pthread_join(threads[t], &wrong);
        CHECK(wrong == NULL, "thread %d: %ld wrong answers", t, (long)wrong);
    }

    kabe_close(tb);
    kabe_close(NULL);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("C interface: all checks passed (%zu known positions, 4 threads)\n", NKNOWN);
    return 0;
}
