#ifndef DARKMODEKIOSK_COPENSSL_SHIM_H
#define DARKMODEKIOSK_COPENSSL_SHIM_H
/* Debian's OpenSSL (libssl-dev, pkg-config openssl), the library libmosquitto's TLS runs on.
   The kiosk gives libmosquitto its own TLS context only to hear, through an info callback,
   why the broker's certificate was refused (FleetMQTT's TLSVerifyNotes). */
#include <openssl/ssl.h>
#include <openssl/x509.h>

/* SSL_CB_ALERT | SSL_CB_WRITE: this side sent an alert (e.g. after refusing a certificate). */
static const int COPENSSL_CB_WRITE_ALERT = SSL_CB_ALERT | SSL_CB_WRITE;
#endif
