#ifndef LIVEBRIDGE_COPENSSL_SHIM_H
#define LIVEBRIDGE_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#endif
