/* version.h */
#ifndef PIS_VERSION_H
#define PIS_VERSION_H
#define PIS_VERSION "1.0.0"
#endif
