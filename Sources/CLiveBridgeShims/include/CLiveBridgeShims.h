#ifndef C_LIVEBRIDGE_SHIMS_H
#define C_LIVEBRIDGE_SHIMS_H

#include <curl/curl.h>
#include <openssl/ssl.h>
#include <stddef.h>

// Area headers: this file is the module's umbrella header, so every header must be included here.
#include "lb_http.h"

/// Data callback shape shared by CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
typedef size_t (*lb_curl_data_cb)(char *_Nonnull ptr, size_t size, size_t nmemb, void *_Nullable userdata);

CURLcode lb_curl_setopt_long(CURL *_Nonnull handle, CURLoption option, long value);
CURLcode lb_curl_setopt_string(CURL *_Nonnull handle, CURLoption option, const char *_Nullable value);
CURLcode lb_curl_setopt_pointer(CURL *_Nonnull handle, CURLoption option, void *_Nullable value);
CURLcode lb_curl_setopt_slist(CURL *_Nonnull handle, CURLoption option, struct curl_slist *_Nullable value);
CURLcode lb_curl_setopt_data_cb(CURL *_Nonnull handle, CURLoption option, lb_curl_data_cb _Nullable callback);
CURLcode lb_curl_setopt_off_t(CURL *_Nonnull handle, CURLoption option, curl_off_t value);
CURLcode lb_curl_getinfo_long(CURL *_Nonnull handle, CURLINFO info, long *_Nonnull out);
CURLcode lb_curl_getinfo_double(CURL *_Nonnull handle, CURLINFO info, double *_Nonnull out);
CURLcode lb_curl_getinfo_socket(CURL *_Nonnull handle, CURLINFO info, curl_socket_t *_Nonnull out);
CURLcode lb_curl_getinfo_pointer(CURL *_Nonnull handle, CURLINFO info, void *_Nullable *_Nonnull out);
CURLMcode lb_curl_multi_setopt_long(CURLM *_Nonnull multi, CURLMoption option, long value);

/// Restricts an OpenSSL context to TLS 1.2 and newer. Returns 1 on success.
int lb_ssl_ctx_set_min_tls12(SSL_CTX *_Nonnull ctx);

#endif
