#include "CVersion.h"

#ifndef DARKMODE_KIOSK_VERSION
#error "DARKMODE_KIOSK_VERSION is set by Package.swift from debian/changelog"
#endif

const char *darkmode_kiosk_version(void) { return DARKMODE_KIOSK_VERSION; }
