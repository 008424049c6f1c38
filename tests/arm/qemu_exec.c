/* qemu_exec.c — arm64 test builds only: under qemu-user (make test-arm64), Criterion's re-execution of this
 * binary goes through qemu too.
 *
 * Criterion (its BoxFort sandbox) runs each test in a child that forks and then execve()s the test binary itself.
 * qemu-user hands execve to the host kernel, which cannot run an arm64 ELF unless binfmt_misc passes it to qemu:
 * not registered on every CI machine, and registering it is machine-wide. This definition of execve comes before
 * libc's (the dynamic linker looks in the executable first), so when the runner names the emulator in
 * POOLBENCH_QEMU (an absolute path) and the file is an arm64 ELF, it runs `qemu -0 argv[0] path argv[1..]`
 * instead; the CPU model and library path travel in the environment (QEMU_CPU, LD_LIBRARY_PATH). Anything else, and
 * every call on real hardware (POOLBENCH_QEMU unset), is the plain system call. The harnesses the CLI tests start
 * need none of this: $POOLBENCH_BIN names wrapper scripts that exec qemu (scripts/test_arm64.sh). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The ELF header's e_machine of an arm64 executable (EM_AARCH64). */
#define ELF_MACHINE_AARCH64 183

/* True when path is a 64-bit little-endian ELF for arm64 (not a script, not a host program). */
static bool is_arm64_elf(const char *path)
{
    unsigned char h[20];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = read(fd, h, sizeof h) == (ssize_t)sizeof h;
    close(fd);
    return ok && memcmp(h, "\x7f" "ELF", 4) == 0 && h[4] == 2 && h[5] == 1 &&
           (h[18] | h[19] << 8) == ELF_MACHINE_AARCH64;
}

int execve(const char *path, char *const argv[], char *const envp[])
{
    const char *qemu = getenv("POOLBENCH_QEMU");
    if (!qemu || qemu[0] != '/' || !is_arm64_elf(path))
        return (int)syscall(SYS_execve, path, argv, envp);
    size_t n = 0;
    while (argv[n])
        n++;
    /* A VLA, not malloc: this runs between fork and exec. */
    const char *qv[n + 5];
    size_t k = 0;
    qv[k++] = qemu;
    qv[k++] = "-0"; /* the program's argv[0], which qemu would otherwise set to path */
    qv[k++] = n ? argv[0] : path;
    qv[k++] = path;
    for (size_t i = 1; i < n; i++)
        qv[k++] = argv[i];
    qv[k] = NULL;
    return (int)syscall(SYS_execve, qemu, qv, envp);
}
