#ifndef DARKMODEKIOSK_CMOSQUITTO_SHIM_H
#define DARKMODEKIOSK_CMOSQUITTO_SHIM_H
/* Debian's libmosquitto (libmosquitto-dev, pkg-config libmosquitto): the MQTT 3.1.1/5 client,
   TLS through OpenSSL. The kiosk drives it from its own poll() thread (FleetMQTT). */
#include <mosquitto.h>
#include <poll.h>

/* SSL_VERIFY_PEER as mosquitto_tls_opts_set takes it (OpenSSL's value, without its headers). */
static const int CMOSQUITTO_VERIFY_PEER = 1;
#endif
