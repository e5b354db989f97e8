/*
 * xentrace's own output code (the tree's tools/xentrace/xentrace.c, built
 * in here with its main() renamed) writing trace windows into a pipe whose
 * reader is slow, while the stop signal arrives every millisecond, caught
 * by xentrace's handler as xentrace's main() installs it (no SA_RESTART).
 * No Xen is needed: only write_buffer() and membuf_dump() run.
 *
 * usage: pipe-write raw|direct|membuf
 *   raw     one plain write() of a window under the same conditions: says
 *           whether a signal cut it short (what the other modes meet)
 *   direct  write_buffer() of WINDOWS windows, as xentrace writes a pipe
 *   membuf  the same into xentrace's memory buffer (-M), then membuf_dump()
 * Prints "reader: BYTES bytes, content ok|bad" and "signals: N"; exits 0
 * when the writing side returned (xentrace exits 1 on a failed write).
 */
#define main xentrace_main
#include "xentrace.c"
#undef main

#include <sys/time.h>
#include <sys/wait.h>

#define WINDOW   (1 << 20)
#define WINDOWS  3

static volatile sig_atomic_t signals;

static void counting_handler(int sig)
{
    signals++;
    close_handler(sig);
}

/* The byte at offset i of window w. */
static unsigned char pattern(unsigned int w, size_t i)
{
    return (unsigned char)(w * 7 + i * 13 + (i >> 9));
}

/* The slow reader: checks what arrives against what was written. */
static void reader(int fd, int with_headers)
{
    static unsigned char buf[4096];
    size_t total = 0, want_len = 0;
    unsigned int w = 0;
    size_t off = 0, hdr = with_headers ? sizeof(struct cpu_change_record) : 0;
    int good = 1;
    ssize_t n;

    while ( (n = read(fd, buf, sizeof(buf))) != 0 )
    {
        ssize_t i;

        if ( n < 0 )
        {
            if ( errno == EINTR )
                continue;
            perror("read");
            _exit(2);
        }
        for ( i = 0; i < n; i++, off++ )
        {
            if ( off == hdr + WINDOW )
            {
                w++;
                off = 0;
            }
            if ( off >= hdr && buf[i] != pattern(w, off - hdr) )
                good = 0;
        }
        total += n;
        usleep(200);
    }
    want_len = (size_t)WINDOWS * (hdr + WINDOW);
    printf("reader: %zu bytes of %zu, content %s\n", total, want_len,
           good && total == want_len ? "ok" : "bad");
    fflush(stdout);
    _exit(0);
}

int main(int argc, char **argv)
{
    static unsigned char win[WINDOWS][WINDOW];
    const char *mode = argc > 1 ? argv[1] : "";
    struct sigaction act;
    struct itimerval tick = { { 0, 1000 }, { 0, 1000 } };
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    int p[2], status, direct = !strcmp(mode, "direct");
    unsigned int w;
    size_t i;
    pid_t pid;

    if ( !direct && strcmp(mode, "membuf") && strcmp(mode, "raw") )
    {
        fprintf(stderr, "usage: %s raw|direct|membuf\n", argv[0]);
        return 2;
    }
    for ( w = 0; w < WINDOWS; w++ )
        for ( i = 0; i < WINDOW; i++ )
            win[w][i] = pattern(w, i);

    if ( pipe(p) )
    {
        perror("pipe");
        return 2;
    }
    fflush(stdout);
    pid = fork();
    if ( pid < 0 )
    {
        perror("fork");
        return 2;
    }
    if ( pid == 0 )
    {
        close(p[1]);
        reader(p[0], !!strcmp(mode, "raw"));
    }
    close(p[0]);
    outfd = p[1];

    /* As xentrace's main() does (its handler, counted here). */
    act.sa_handler = counting_handler;
    act.sa_flags = 0;
    sigemptyset(&act.sa_mask);
    sigaction(SIGALRM, &act, NULL);

    if ( !direct && strcmp(mode, "raw") )
    {
        opts.memory_buffer = 4 * WINDOW;
        membuf_alloc(opts.memory_buffer);
        for ( w = 0; w < WINDOWS; w++ )
            write_buffer(w, win[w], WINDOW, WINDOW);
    }

    setitimer(ITIMER_REAL, &tick, NULL);
    if ( !strcmp(mode, "raw") )
    {
        /* Whole windows, without the headers, one write() each. */
        for ( w = 0; w < WINDOWS; w++ )
        {
            ssize_t n = write(outfd, win[w], WINDOW);

            printf("raw write: %zd of %d%s\n", n, WINDOW,
                   n < 0 && errno == EINTR ? " (EINTR)" : "");
            if ( n != WINDOW )
                break;
        }
    }
    else if ( direct )
        for ( w = 0; w < WINDOWS; w++ )
            write_buffer(w, win[w], WINDOW, WINDOW);
    else
        membuf_dump();
    setitimer(ITIMER_REAL, &off, NULL);

    close(outfd);
    fflush(stdout);
    if ( waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
         WEXITSTATUS(status) )
    {
        fprintf(stderr, "reader failed\n");
        return 2;
    }
    printf("signals: %d\n", (int)signals);
    return 0;
}
