#include <sys/capability.h>
