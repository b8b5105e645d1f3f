#ifndef DARKMODEKIOSK_CPNG_SHIM_H
#define DARKMODEKIOSK_CPNG_SHIM_H
#include <png.h>

/* Compound macros Swift cannot import, re-exported as constants. */
static const png_uint_32 CPNG_FORMAT_RGBA = PNG_FORMAT_RGBA;
static const png_uint_32 CPNG_IMAGE_VERSION = PNG_IMAGE_VERSION;
#endif
