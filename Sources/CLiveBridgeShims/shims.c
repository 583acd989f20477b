#include "CLiveBridgeShims.h"

CURLcode lb_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode lb_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode lb_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode lb_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode lb_curl_setopt_data_cb(CURL *handle, CURLoption option, lb_curl_data_cb callback) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode lb_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode lb_curl_getinfo_long(CURL *handle, CURLINFO info, long *out) {
    return curl_easy_getinfo(handle, info, out);
}

CURLcode lb_curl_getinfo_double(CURL *handle, CURLINFO info, double *out) {
    return curl_easy_getinfo(handle, info, out);
}

CURLcode lb_curl_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *out) {
    return curl_easy_getinfo(handle, info, out);
}

CURLcode lb_curl_getinfo_pointer(CURL *handle, CURLINFO info, void **out) {
    return curl_easy_getinfo(handle, info, out);
}

CURLMcode lb_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

int lb_ssl_ctx_set_min_tls12(SSL_CTX *ctx) {
    return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) == 1 ? 1 : 0;
}
