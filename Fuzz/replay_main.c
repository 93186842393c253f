/*
 * replay_main.c - a main() for the libFuzzer harnesses without libFuzzer.
 *
 *   cc ... Fuzz/<harness>.c Fuzz/replay_main.c <its CSupport sources> -o replay-<harness>
 *   ./replay-<harness> [-q] DIR_OR_FILE...
 *
 * Feeds every regular file of each directory (sorted by name, not
 * recursive) and every file named, once each, to LLVMFuzzerTestOneInput,
 * from a malloc'd buffer of exactly the file's size (as libFuzzer does). A
 * violated CHECK abort()s as under libFuzzer; a signal handler first names
 * the input being replayed. Prints "replayed K inputs of <harness>" (the
 * program's name less "replay-"); -q prints nothing on success. Exit 0, or
 * 1 when an input cannot be read or none was found.
 *
 * Plain C and POSIX, so the harnesses build with any gcc, cross compilers
 * included (Tools/ccore-cross.sh runs them under qemu-user on other
 * architectures; see Fuzz/README.md).
 */
/* 64-bit file offsets in this file whatever the build's flags: under
 * qemu-user a 32-bit guest's getdents reaches the 64-bit host kernel, whose
 * ext4 directory offsets (hash cookies) do not fit a 32-bit off_t, and
 * readdir would fail with EOVERFLOW. (A 32-bit kernel or a compat syscall
 * gets 32-bit cookies.) No off_t crosses into the harness or the C core. */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional in a harness, as with libFuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* The input being replayed, for the signal handler. */
static const char *current;

static void write_str(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void on_fatal(int sig)
{
    /* Async-signal-safe: write(2) only, then the default action. */
    write_str("replay: fatal signal while replaying ");
    write_str(current != NULL ? current : "(no input)");
    write_str("\n");
    signal(sig, SIG_DFL);
    raise(sig);
}

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long size;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        if (f != NULL)
            fclose(f);
        return -1;
    }
    /* Exactly the input's size (one byte for an empty one, never read). */
    buf = malloc(size > 0 ? (size_t)size : 1);
    if (buf == NULL || (size > 0 && fread(buf, 1, (size_t)size, f) != (size_t)size)) {
        fprintf(stderr, "replay: %s: cannot read %ld bytes\n", path, size);
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    current = path;
    LLVMFuzzerTestOneInput(buf, (size_t)size);
    current = NULL;
    free(buf);
    return 0;
}

static int is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int hidden(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* Every regular file of @dir, in name order. Returns how many, or -1. */
static long replay_dir(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, hidden, alphasort);
    long count = 0;
    int failed = 0;

    if (n < 0) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(names[i]->d_name) + 2;
        char *path = malloc(len);

        if (path == NULL) {
            failed = 1;
        } else {
            snprintf(path, len, "%s/%s", dir, names[i]->d_name);
            if (is_regular(path)) {
                if (replay_file(path) < 0)
                    failed = 1;
                else
                    count++;
            }
            free(path);
        }
        free(names[i]);
    }
    free(names);
    return failed ? -1 : count;
}

int main(int argc, char **argv)
{
    const char *name = strrchr(argv[0], '/') != NULL ? strrchr(argv[0], '/') + 1 : argv[0];
    static const int fatal[] = { SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE };
    long total = 0;
    int quiet = 0, first = 1, failed = 0;

    if (strncmp(name, "replay-", 7) == 0)
        name += 7;
    if (argc > 1 && strcmp(argv[1], "-q") == 0) {
        quiet = 1;
        first = 2;
    }
    if (argc <= first) {
        fprintf(stderr, "usage: %s [-q] DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
        signal(fatal[i], on_fatal);
    if (LLVMFuzzerInitialize != NULL)
        LLVMFuzzerInitialize(&argc, &argv);

    for (int i = first; i < argc; i++) {
        struct stat st;

        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            long n = replay_dir(argv[i]);
            if (n < 0)
                failed = 1;
            else
                total += n;
        } else if (replay_file(argv[i]) < 0) {
            failed = 1;
        } else {
            total++;
        }
    }
    if (failed)
        return 1;
    if (total == 0) {
        fprintf(stderr, "replay: no inputs for %s\n", name);
        return 1;
    }
    if (!quiet)
        printf("replayed %ld inputs of %s\n", total, name);
    return 0;
}
