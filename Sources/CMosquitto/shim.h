#ifndef LIVEBRIDGE_CMOSQUITTO_SHIM_H
#define LIVEBRIDGE_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#endif
