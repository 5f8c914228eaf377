#ifndef SDRIFY_SECCOMP_ARCH_H
#define SDRIFY_SECCOMP_ARCH_H
// The one architecture a filter accepts system calls from: the one sdrify was built for. A call through another
// ABI (i386's int 0x80 on x86-64) has other numbers, so every rule would mean something else: all are refused.
#include <linux/audit.h>
#if defined(__x86_64__)
#define SDRIFY_AUDIT_ARCH AUDIT_ARCH_X86_64
#define SDRIFY_X32_SYSCALL_BIT 0x40000000u  // x32 ABI calls: the same kernel entry, other meanings; refused
#elif defined(__aarch64__)
#define SDRIFY_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#define SDRIFY_AUDIT_ARCH 0  // no filter written for this architecture: the sandbox reports itself unavailable
#endif
#endif
