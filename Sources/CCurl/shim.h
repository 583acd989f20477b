#ifndef LIVEBRIDGE_CCURL_SHIM_H
#define LIVEBRIDGE_CCURL_SHIM_H
#include <curl/curl.h>
#endif
