#ifndef DARKMODEKIOSK_CHARFBUZZ_SHIM_H
#define DARKMODEKIOSK_CHARFBUZZ_SHIM_H
#include <hb.h>
#include <hb-ft.h>
#include <hb-ot.h>

/* Compound macros Swift cannot import, re-exported as constants. */
static const hb_script_t CHB_SCRIPT_COMMON = HB_SCRIPT_COMMON;
static const hb_script_t CHB_SCRIPT_INHERITED = HB_SCRIPT_INHERITED;
static const hb_script_t CHB_SCRIPT_UNKNOWN = HB_SCRIPT_UNKNOWN;
#endif
