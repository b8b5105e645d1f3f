#ifndef DARKMODEKIOSK_CFREETYPE_SHIM_H
#define DARKMODEKIOSK_CFREETYPE_SHIM_H
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
#include FT_BITMAP_H
#include FT_ADVANCES_H

/* Compound macros Swift cannot import, re-exported as constants. */
static const FT_Int32 CFT_LOAD_DEFAULT = FT_LOAD_DEFAULT;
static const FT_Int32 CFT_LOAD_NO_SCALE = FT_LOAD_NO_SCALE;
static const FT_Int32 CFT_LOAD_NO_HINTING = FT_LOAD_NO_HINTING;
static const FT_Int32 CFT_LOAD_NO_BITMAP = FT_LOAD_NO_BITMAP;
static const FT_Int32 CFT_LOAD_TARGET_NORMAL = FT_LOAD_TARGET_NORMAL;
static const FT_Long CFT_FACE_FLAG_SCALABLE = FT_FACE_FLAG_SCALABLE;
static const FT_Encoding CFT_ENCODING_UNICODE = FT_ENCODING_UNICODE;
#endif
