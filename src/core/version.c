#include <ballast/version.h>

const char *bal_version(void) { return BALLAST_VERSION_STRING; }
