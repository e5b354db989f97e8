/* timeit.c - wall time of whole-process runs without a shell in the loop:
 * runs CMD once untimed (warm-up), then N times, each timed with
 * CLOCK_MONOTONIC from posix_spawn to waitpid, stdin and stdout on
 * /dev/null, stderr on /dev/null or ERRFILE (truncated before each run, so
 * it keeps the last run's stderr).  Prints one line to stdout:
 *   best_us=B median_us=M runs=N rc=R
 * (median: the lower middle of the sorted times; rc: the last run's exit
 * status, 128+signal if it was killed).
 * Usage: timeit [-e ERRFILE] N CMD [ARG...]   (usage error: exit 2) */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One run; returns its exit status (128+signal), or -1 if it could not run. */
static int run(char **cmd, int null_fd, int err_fd, long long *ns)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int st, e;
    long long t0;

    if (err_fd != null_fd && ftruncate(err_fd, 0) == 0)
        lseek(err_fd, 0, SEEK_SET);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, null_fd, 0);
    posix_spawn_file_actions_adddup2(&fa, null_fd, 1);
    posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
    t0 = now_ns();
    e = posix_spawnp(&pid, cmd[0], &fa, NULL, cmd, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e) {
        fprintf(stderr, "timeit: %s: %s\n", cmd[0], strerror(e));
        return -1;
    }
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            perror("timeit: waitpid");
            return -1;
        }
    *ns = now_ns() - t0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    const char *errfile = NULL;
    int i = 1, n, null_fd, err_fd, rc = 0;
    long long *t, ns = 0;
    char *end;

    if (i + 1 < argc && strcmp(argv[i], "-e") == 0) {
        errfile = argv[i + 1];
        i += 2;
    }
    if (argc - i < 2 || (n = (int)strtol(argv[i], &end, 10)) < 1 ||
        *end || n > 1000000) {
        fprintf(stderr, "usage: timeit [-e ERRFILE] N CMD [ARG...]  (N >= 1)\n");
        return 2;
    }
    null_fd = open("/dev/null", O_RDWR);
    err_fd = errfile ? open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644) : null_fd;
    if (null_fd < 0 || err_fd < 0) {
        perror(errfile && null_fd >= 0 ? errfile : "/dev/null");
        return 1;
    }
    t = malloc((size_t)n * sizeof *t);
    if (!t) {
        perror("timeit");
        return 1;
    }
    if (run(argv + i + 1, null_fd, err_fd, &ns) < 0)     /* warm-up */
        return 1;
    for (int k = 0; k < n; k++) {
        rc = run(argv + i + 1, null_fd, err_fd, &t[k]);
        if (rc < 0)
            return 1;
    }
    qsort(t, (size_t)n, sizeof *t, cmp_ll);
    printf("best_us=%lld median_us=%lld runs=%d rc=%d\n", t[0] / 1000,
           t[(n - 1) / 2] / 1000, n, rc);
    return 0;
}
