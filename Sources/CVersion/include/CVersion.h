#ifndef DARKMODE_KIOSK_CVERSION_H
#define DARKMODE_KIOSK_CVERSION_H

/* The program's version: the upstream part of debian/changelog's first entry, which
   Package.swift reads and passes to version.c as DARKMODE_KIOSK_VERSION (a C target, because a
   C define can carry a value and a Swift one cannot). One place for `darkmode-kiosk --version`,
   the man page and the .deb. */
const char *darkmode_kiosk_version(void);

#endif
