#include "CTestSupport.h"

#include <sys/syscall.h>
#include <unistd.h>

int test_thread_setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
    return (int)syscall(SYS_setresuid, ruid, euid, suid);
}
