#ifndef DARKMODEKIOSK_CFONTCONFIG_SHIM_H
#define DARKMODEKIOSK_CFONTCONFIG_SHIM_H
#include <fontconfig/fontconfig.h>
#endif
