#ifndef LB_HTTP_H
#define LB_HTTP_H

/// Names the calling thread (at most 15 bytes are kept); returns 0 on success.
int lb_http_set_current_thread_name(const char *_Nonnull name);

/// The Linux-specific POLLRDHUP event bit (peer closed its writing half), hidden behind _GNU_SOURCE.
short lb_http_pollrdhup(void);

#endif
