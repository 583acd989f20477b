#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <string.h>

#include "lb_http.h"

int lb_http_set_current_thread_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = '\0';
    return pthread_setname_np(pthread_self(), truncated);
}

short lb_http_pollrdhup(void) {
    return POLLRDHUP;
}
